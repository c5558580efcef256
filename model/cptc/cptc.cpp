#include "model/cptc/cptc.h"

#include <algorithm>
#include <cmath>

#include "model/common/error.h"
#include "model/fp/dtype.h"

namespace neuronsim::model::cptc {

const std::array<uint8_t, 64>& deinterleave_table() {
    static const std::array<uint8_t, 64> t = [] {
        std::array<uint8_t, 64> a{};
        for (unsigned j = 0; j < 64; ++j) a[j] = static_cast<uint8_t>(((j & 3) << 5) | (((j >> 2) << 1) | 1));
        return a;
    }();
    return t;
}

static uint64_t group_bytes(unsigned bits) { return (uint64_t{bits} * 8 + 15) / 16 * 16; }

uint64_t stream_bytes(unsigned bits, uint64_t elements, unsigned block_size, bool block_scales) {
    uint64_t groups = (elements + kGroup - 1) / kGroup;
    uint64_t n = groups * group_bytes(bits);
    if (block_scales) n += ((elements + block_size - 1) / block_size * 2 + 15) / 16 * 16;
    return n;
}

std::vector<uint8_t> pack_codes(const std::vector<int32_t>& codes, unsigned bits) {
    if (bits < 1 || bits > 7) throw Error("CPTC codes are 1..7 bits, not " + std::to_string(bits));
    const uint64_t groups = (codes.size() + kGroup - 1) / kGroup;
    std::vector<uint8_t> out(groups * group_bytes(bits), 0);
    for (uint64_t i = 0; i < codes.size(); ++i) {
        const uint64_t g = i / kGroup;
        const unsigned s = stored_position(static_cast<unsigned>(i % kGroup));
        const uint32_t c = static_cast<uint32_t>(codes[i]) & ((1u << bits) - 1);
        for (unsigned b = 0; b < bits; ++b)
            if (c >> b & 1) out[g * group_bytes(bits) + b * 8 + s / 8] |= static_cast<uint8_t>(1u << (s % 8));
    }
    return out;
}

std::vector<int32_t> unpack_codes(const uint8_t* stream, uint64_t elements, unsigned bits, bool is_signed) {
    std::vector<int32_t> out(elements);
    const auto& t = deinterleave_table();
    for (uint64_t i = 0; i < elements; ++i) {
        const uint8_t* g = stream + (i / kGroup) * group_bytes(bits);
        // The firmware's table: lane j of the group is source lane t[j], i.e. position (t[j]-1)/2.
        const unsigned s = (t[i % kGroup] - 1u) / 2;
        uint32_t c = 0;
        for (unsigned b = 0; b < bits; ++b) c |= static_cast<uint32_t>(g[b * 8 + s / 8] >> (s % 8) & 1u) << b;
        if (is_signed && (c >> (bits - 1) & 1)) out[i] = static_cast<int32_t>(c) - (1 << bits);
        else out[i] = static_cast<int32_t>(c);
    }
    return out;
}

float block_scale(const uint8_t* stream, unsigned bits, uint64_t elements, unsigned block_size, uint16_t s1, uint64_t i) {
    if (!(s1 & kFormatBlockScales)) return 1.0f;
    const uint64_t base = (elements + kGroup - 1) / kGroup * group_bytes(bits);
    const uint64_t b = i / block_size;
    return fp::fp16_to_f32(static_cast<uint16_t>(stream[base + 2 * b] | stream[base + 2 * b + 1] << 8));
}

Encoded encode(const std::vector<float>& values, unsigned bits, unsigned block_size, bool is_signed) {
    if (block_size == 0 || block_size % 8) throw Error("CPTC block_size " + std::to_string(block_size) + " is not a non-zero multiple of 8");
    const int32_t top = is_signed ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
    if (top <= 0) throw Error("a signed 1-bit CPTC code has no magnitude; use unsigned or more bits");
    std::vector<int32_t> codes(values.size());
    const uint64_t blocks = (values.size() + block_size - 1) / block_size;
    std::vector<uint16_t> scales(blocks);
    for (uint64_t blk = 0; blk < blocks; ++blk) {
        const uint64_t lo = blk * block_size, hi = std::min<uint64_t>(values.size(), lo + block_size);
        float m = 0;
        for (uint64_t i = lo; i < hi; ++i) {
            if (!std::isfinite(values[i])) throw Error("value " + std::to_string(i) + " is not finite; CPTC codes finite values only");
            m = std::max(m, is_signed ? std::fabs(values[i]) : values[i]);
        }
        uint16_t sc = fp::f32_to_fp16(m > 0 ? m / static_cast<float>(top) : 1.0f);
        if (!std::isfinite(fp::fp16_to_f32(sc)))
            throw Error("block " + std::to_string(blk) + " (values " + std::to_string(lo) + ".." + std::to_string(hi - 1) + ") needs a scale of " +
                        std::to_string(m / static_cast<float>(top)) + ", beyond fp16's 65504");
        if (fp::fp16_to_f32(sc) == 0) sc = 0x0001;  // smallest subnormal rather than a zero scale
        scales[blk] = sc;
        const float s = fp::fp16_to_f32(sc);
        for (uint64_t i = lo; i < hi; ++i) {
            float q = std::nearbyint(values[i] / s);
            q = std::min<float>(std::max<float>(q, is_signed ? -static_cast<float>(top) : 0.0f), static_cast<float>(top));
            codes[i] = static_cast<int32_t>(q);
        }
    }
    Encoded e;
    e.bytes = pack_codes(codes, bits);
    e.s1 = kFormatBlockScales;
    for (uint16_t sc : scales) {
        e.bytes.push_back(static_cast<uint8_t>(sc));
        e.bytes.push_back(static_cast<uint8_t>(sc >> 8));
    }
    while (e.bytes.size() % 16) e.bytes.push_back(0);
    return e;
}

}  // namespace neuronsim::model::cptc
