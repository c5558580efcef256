#include "platform/core/tensor_operand.h"

#include "model/isa/address_map.h"

namespace neuronsim::platform {

using namespace model::isa;

Pattern pattern(const Config& c, uint8_t* memory_of_space, const char* what, uint32_t addr4, const int16_t* step, const uint16_t* num, int dims, size_t bytes,
                uint32_t channels) {
    const Location l = decode_addr4(addr4);
    if (l.space != MemSpace::Sbuf && l.space != MemSpace::Psum) throw Error(std::string(what) + " " + format_location(l) + " is not in SBUF or PSUM");
    // The one alignment rule (docs/act-engine.md): every operand, tensor or pointer, starts at a
    // multiple of its element size (its steps count elements, so every element is aligned).
    if (bytes && l.offset % bytes)
        throw Error(std::string(what) + " " + format_location(l) + " is not " + std::to_string(bytes) + "-byte aligned (an operand of " +
                    std::to_string(bytes) + "-byte elements starts at a multiple of " + std::to_string(bytes) + ")");
    static const int16_t zero_steps[3] = {0, 0, 0};
    for (int d = 0; d < dims; ++d)
        if (num[d] == 0) throw Error(std::string(what) + ".num[" + std::to_string(d) + "] is 0");
    Pattern p;
    p.space = l.space;
    p.partition = l.partition;
    p.bytes = bytes;
    p.ap = model::isa::make_access_pattern(l.offset, step ? step : zero_steps, num, dims, bytes, what);
    p.per = l.space == MemSpace::Sbuf ? c.memory.sbuf_bytes_per_partition : c.memory.psum_bytes_per_partition();
    p.base = memory_of_space;
    if (p.partition + channels > c.memory.partitions)
        throw Error(std::string(what) + " " + format_location(l) + ": partitions " + std::to_string(p.partition) + ".." +
                    std::to_string(p.partition + channels - 1) + " do not all exist");
    model::isa::check_in_partition(p.ap, p.per, what, format_location(l), space_name(l.space) + " partition");
    return p;
}

void check_quadrant(const char* what, uint32_t start, uint32_t channels) {
    bool ok = channels > 64 ? start == 0 : channels > 32 ? (start == 0 || start == 64) : (start % 32 == 0);
    if (!ok)
        throw Error(std::string(what) + " starts at partition " + std::to_string(start) + ", but " + std::to_string(channels) +
                    " active channels must start at " +
                    (channels > 64   ? "0"
                     : channels > 32 ? "0 or 64"
                                     : "0, 32, 64 or 96"));
}

uint32_t active_channels(const Config& c, uint32_t nch) {
    if (nch < 1 || nch > c.act.lanes) throw Error("num_active_channels " + std::to_string(nch) + " is not in 1.." + std::to_string(c.act.lanes));
    return nch;
}

Region pointer_region(uint32_t addr4, uint64_t bytes, uint32_t nch) {
    const Location l = decode_addr4(addr4);
    return {l.space, l.partition, l.partition + nch, static_cast<int64_t>(l.offset), static_cast<int64_t>(l.offset + bytes)};
}

Region pattern_region(const Pattern& p, uint32_t nch) { return {p.space, p.partition, p.partition + nch, p.ap.lo, p.ap.hi}; }

}  // namespace neuronsim::platform
