// The POOL firmware on random bundles with a fake SBUF. Input: byte 0 picks the configuration
// (bit 0: opcode 0xf0 or 0xe4 forced into the bundle unless bit 7 keeps the bundle's own;
// bits 1-2: NeuronCore version 2..5; bit 3: the CPTC flag; bits 4-5: the routing of values
// 2/5/6/7), byte 1 the core and its partition slice, bytes 2..65 the bundle, the rest the
// SBUF contents (repeated over the 128 partitions of 4 KiB). Every bundle runs or raises
// Error; the fake SBUF refuses any access outside itself with Error, so the kernels must
// check their ranges through it.
#include <algorithm>
#include <cstring>

#include "firmware_model/pool_firmware.h"
#include "model/isa/layouts.h"
#include "tests/fuzz/fuzz_support.h"

using namespace neuronsim;
using namespace neuronsim::firmware_model;

namespace {

constexpr uint64_t kPartitionBytes = 4096;
constexpr uint32_t kPartitions = 128;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2 + model::isa::kBundleBytes) return 0;
    static std::vector<uint8_t> sbuf(kPartitions * kPartitionBytes);
    const uint8_t cfg_byte = data[0], slice = data[1];
    model::isa::Bundle b;
    std::copy(data + 2, data + 2 + model::isa::kBundleBytes, b.b.begin());
    if (!(cfg_byte & 0x80)) b.b[0] = cfg_byte & 1 ? model::isa::kExtended : model::isa::kConvLutLoad;
    const uint8_t* fill = data + 2 + model::isa::kBundleBytes;
    const size_t fill_size = size - 2 - model::isa::kBundleBytes;
    if (fill_size == 0) std::fill(sbuf.begin(), sbuf.end(), 0);
    else
        for (size_t i = 0; i < sbuf.size(); i += fill_size) std::memcpy(sbuf.data() + i, fill, std::min(fill_size, sbuf.size() - i));

    FirmwareConfig cfg;
    cfg.nc_version = 2 + (cfg_byte >> 1 & 3);  // 2..5
    cfg.cptc_flag = cfg_byte & 8;
    cfg.routing = {{1, 1}, {3, 5}, {4, 3}};
    const unsigned impls[4][4] = {{2, 4, 6, 6}, {2, 6, 6, 6}, {6, 4, 2, 6}, {4, 2, 6, 2}};
    const unsigned* r = impls[cfg_byte >> 4 & 3];
    cfg.routing[2] = r[0];
    cfg.routing[5] = r[1];
    cfg.routing[6] = r[2];
    cfg.routing[7] = r[3];
    cfg.max_elements = 1 << 20;  // keeps each execution short; the limit itself is exercised
    PoolFirmware fw(cfg);

    const SbufAccess access = [](uint32_t partition, uint64_t offset, uint64_t len) -> uint8_t* {
        if (partition >= kPartitions || offset > kPartitionBytes || len > kPartitionBytes - offset)
            throw Error("outside the fuzz SBUF: partition " + std::to_string(partition) + ", offset " + std::to_string(offset) + ", " + std::to_string(len) +
                        " bytes");
        return sbuf.data() + partition * kPartitionBytes + offset;
    };
    const uint32_t first = (slice & 0x0f) * 8, count = 8u << (slice >> 4 & 3);
    fuzz::expect_ok_or_error([&] { fw.execute(b, slice >> 6, access, first, count); });
    return 0;
}
