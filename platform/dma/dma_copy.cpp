#include "platform/dma/dma_copy.h"

#include <cstddef>

#include "model/common/error.h"
#include "model/isa/layouts.h"

namespace neuronsim::platform {

using namespace model::isa;

DmaJob copy_job(const Bundle& b) {
    if (b.u8(offsetof(DmaCopyOp, src_space)) > 2 || b.u8(offsetof(DmaCopyOp, dst_space)) > 2)
        throw Error("copy: memory space must be 0 (dram), 1 (sbuf) or 2 (psum)");
    DmaTransfer t;
    t.src = {static_cast<DmaSpace>(b.u8(offsetof(DmaCopyOp, src_space))), b.u64(offsetof(DmaCopyOp, src_addr)), b.u32(offsetof(DmaCopyOp, src_row_stride))};
    t.dst = {static_cast<DmaSpace>(b.u8(offsetof(DmaCopyOp, dst_space))), b.u64(offsetof(DmaCopyOp, dst_addr)), b.u32(offsetof(DmaCopyOp, dst_row_stride))};
    t.rows = b.u16(offsetof(DmaCopyOp, partitions));
    t.bytes = b.u32(offsetof(DmaCopyOp, bytes));
    if (t.rows == 0 || t.bytes == 0) throw Error("copy: partitions and bytes must be at least 1");
    DmaJob j;
    j.parts.push_back(t);
    return j;
}

}  // namespace neuronsim::platform
