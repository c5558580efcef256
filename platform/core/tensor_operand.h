#pragma once
// The datapath engines' tensor operands (ScalarE, VectorE, TensorE), validated once per
// instruction: a TENSORnD access pattern (model/isa/access_pattern.h) at a partition of SBUF or
// PSUM, which the engine sees through DMI; the start-partition rule (ACT's, which VectorE
// shares); the src -> dst pair of an element-wise instruction; and the regions an operand
// covers, for the pipeline's dependencies.
#include <cstddef>
#include <cstdint>
#include <string>

#include "model/common/error.h"
#include "model/fp/dtype.h"
#include "model/isa/access_pattern.h"
#include "model/isa/address.h"
#include "model/isa/region.h"
#include "platform/config.h"

namespace neuronsim::platform {

// A TENSORnD operand over SBUF or PSUM, validated once per instruction: the access pattern
// (model/isa/access_pattern.h) at a partition of a memory the engine sees through DMI.
struct Pattern {
    model::isa::MemSpace space;
    uint32_t partition;  // first partition
    model::isa::AccessPattern ap;
    size_t bytes;  // element size
    uint8_t* base = nullptr;
    uint64_t per = 0;  // bytes per partition

    uint64_t elements() const { return ap.n; }
    bool strided() const { return ap.strided(); }
    uint8_t* at(uint32_t p, uint64_t i0, uint64_t i1, uint64_t i2) const {
        return base + uint64_t{partition + p} * per + static_cast<uint64_t>(ap.offset(i0, i1, i2));
    }
};

// The operand `what` at addr4 with `dims` steps and counts, over `channels` partitions of the
// memory whose DMI base is `memory_of_space`; an Error names what is wrong.
Pattern pattern(const Config& c, uint8_t* memory_of_space, const char* what, uint32_t addr4, const int16_t* step, const uint16_t* num, int dims, size_t bytes,
                uint32_t channels);

// start partition rule (public-figures §1.4): >64 partitions start at 0; 33-64 at 0 or 64;
// up to 32 at 0, 32, 64 or 96.
void check_quadrant(const char* what, uint32_t start, uint32_t channels);

// num_active_channels, checked against the engine's lanes.
uint32_t active_channels(const Config& c, uint32_t nch);

// The src -> dst operands of an element-wise instruction: each on an allowed start partition,
// with the same element count per partition. `dims`: 3 (TENSOR3D) or 2 (TENSOR2D).
struct SrcDst {
    Pattern src, dst;
};
template <class Tensor, class Mem>
SrcDst src_dst(const Config& c, Mem&& mem, const Tensor& s, const Tensor& d, int dims, model::fp::Dtype in, model::fp::Dtype out, uint32_t nch) {
    using model::isa::decode_addr4;
    SrcDst o{pattern(c, mem(decode_addr4(s.start_addr).space), "src", s.start_addr, s.step_elem, s.num_elem, dims, model::fp::dtype_bytes(in), nch),
             pattern(c, mem(decode_addr4(d.start_addr).space), "dst", d.start_addr, d.step_elem, d.num_elem, dims, model::fp::dtype_bytes(out), nch)};
    check_quadrant("src", o.src.partition, nch);
    check_quadrant("dst", o.dst.partition, nch);
    if (o.src.elements() != o.dst.elements())
        throw Error("src has " + std::to_string(o.src.elements()) + " elements per partition, dst " + std::to_string(o.dst.elements()));
    return o;
}

// Whether the pattern's elements lie back to back in element order from its lowest byte (a
// row the element loops walk without a cursor, and vectorise).
bool plain_row(const Pattern& p);
// Whether one partition's elements may be read a chunk ahead of their stores: src and dst do
// not share bytes of a partition, or they are the same pattern (same element size) that
// visits every byte once, so an element's store never changes a later element's input.
// (Partition p reads row src.partition + p and writes row dst.partition + p.)
bool elements_batchable(const Pattern& src, const Pattern& dst);

// A pointer operand's bytes in each of `nch` partitions, for the pipeline's dependencies.
model::isa::Region pointer_region(uint32_t addr4, uint64_t bytes, uint32_t nch);
// The bytes an operand's pattern spans in each of its `nch` partitions.
model::isa::Region pattern_region(const Pattern& p, uint32_t nch);

}  // namespace neuronsim::platform
