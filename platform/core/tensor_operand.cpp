#include "platform/core/tensor_operand.h"

#include <algorithm>
#include <cstdlib>

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
    if (!model::isa::fits_partition(p.ap, p.per))  // (the message's strings only for the error: this runs per instruction)
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

bool plain_row(const Pattern& t) {
    const model::isa::AccessPattern& a = t.ap;
    const int64_t e = static_cast<int64_t>(a.elem_bytes);
    return a.start == a.lo && a.step[0] == e && (a.num[1] <= 1 || a.step[1] == e * a.num[0]) && (a.num[2] <= 1 || a.step[2] == e * a.num[0] * a.num[1]);
}

bool elements_batchable(const Pattern& src, const Pattern& dst) {
    // Partition p reads row src.partition + p and writes row dst.partition + p: other rows
    // (or another memory) unless the starts are equal.
    if (src.space != dst.space || src.partition != dst.partition) return true;
    const model::isa::AccessPattern &a = src.ap, &b = dst.ap;
    if (a.hi <= b.lo || b.hi <= a.lo) return true;
    if (a.start != b.start || a.elem_bytes != b.elem_bytes) return false;
    for (int d = 0; d < 3; ++d)
        if (a.num[d] != b.num[d] || a.step[d] != b.step[d]) return false;
    // Injective: dimensions by stride, each stride at least the extent of the smaller ones.
    int order[3] = {0, 1, 2};
    std::sort(order, order + 3, [&](int x, int y) { return std::llabs(a.step[x]) < std::llabs(a.step[y]); });
    int64_t extent = static_cast<int64_t>(a.elem_bytes);
    for (int d : order) {
        if (a.num[d] <= 1) continue;
        const int64_t st = std::llabs(a.step[d]);
        if (st < extent) return false;
        extent = st * (a.num[d] - 1) + extent;
    }
    return true;
}

}  // namespace neuronsim::platform
