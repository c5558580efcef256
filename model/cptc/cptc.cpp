#include "model/cptc/cptc.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

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

namespace {
void check_block_size(unsigned block_size) {
    if (block_size == 0 || block_size % 8 || block_size > 248)
        throw Error("CPTC block_size " + std::to_string(block_size) + " is not a non-zero multiple of 8 up to 248 (the field is one byte)");
}
}  // namespace

uint64_t stream_bytes(unsigned bits, uint64_t elements, unsigned block_size, bool block_scales) {
    uint64_t groups = (elements + kGroup - 1) / kGroup;
    uint64_t n = groups * group_bytes(bits);
    if (block_scales) {
        if (block_size == 0) throw Error("CPTC block_size 0: a block scale covers at least one element");
        n += ((elements + block_size - 1) / block_size * 2 + 15) / 16 * 16;
    }
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

const KernelLeg& kernel_leg(unsigned impl) {
    using fp::Dtype;
    static const KernelLeg legs[7] = {
        {false, false, {}},
        {true, false, {Dtype::Fp32}},  // <1> signed, FP32
        {false, false, {Dtype::Fp16}},  // <2> unsigned, FP16
        {true, false, {Dtype::Fp16}},  // <3> signed, FP16
        {true, false, {Dtype::Fp16, Dtype::Fp32}},  // <4> signed, FP16 + FP32
        {false, true, {Dtype::Uint8}},  // <5> unsigned integer, UINT8
        {true, false, {Dtype::Fp16, Dtype::Fp32, Dtype::Int8, Dtype::Uint8}},  // <6> widest (UINT8: unsigned)
    };
    if (impl < 1 || impl > 6) throw Error("there is no cptc_decode_impl<" + std::to_string(impl) + ">: the kernels are 1..6");
    return legs[impl];
}

unsigned kernel_guard(unsigned impl) {
    static const unsigned guard[7] = {0, 1, 0, 4, 0, 3, 0};
    return impl < 7 ? guard[impl] : 0;
}

const Routing& default_routing() {
    static const Routing r = {{1, 1}, {2, 2}, {3, 5}, {4, 3}, {5, 4}, {6, 6}, {7, 6}};
    return r;
}

void set_route(Routing& r, unsigned value, unsigned impl) {
    if (value < 1 || value > 7) throw Error("CPTC value " + std::to_string(value) + " is not 1..7");
    if (impl < 1 || impl > 6)
        throw Error("CPTC" + std::to_string(value) + ": there is no cptc_decode_impl<" + std::to_string(impl) + ">: the kernels are 1..6");
    // The same rule as gpsimd.cptc_routing: the odd arms are observed in the firmware.
    const unsigned fixed = default_routing().at(value);
    if ((value == 1 || value == 3 || value == 4) && impl != fixed)
        throw Error("CPTC" + std::to_string(value) + " is fixed to impl<" + std::to_string(fixed) +
                    "> (observed in the firmware); only 2, 5, 6, 7 are configurable");
    r[value] = impl;
}

namespace {

std::string join_or(const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i == 0 ? "" : i + 1 == v.size() ? " or " : ", ") + v[i];
    return s;
}

std::string cptc_name(unsigned bits) { return "CPTC" + std::to_string(bits); }
std::string impl_name(unsigned impl) { return "cptc_decode_impl<" + std::to_string(impl) + ">"; }

bool stores(const KernelLeg& l, fp::Dtype out) {
    for (fp::Dtype d : l.outs)
        if (d == out) return true;
    return false;
}

// The kernel CPTC-`bits` reaches under `routing`, or 0 when none would decode it.
unsigned routed(unsigned bits, const Routing& routing) {
    auto it = routing.find(bits);
    if (it == routing.end() || it->second < 1 || it->second > 6) return 0;
    const unsigned g = kernel_guard(it->second);
    return g && g != bits ? 0 : it->second;
}

// "CPTC6, CPTC7 (impl<6>)": the widths whose routed kernel stores `out`.
std::string widths_storing(fp::Dtype out, const Routing& routing) {
    std::vector<std::string> w;
    for (unsigned k = 1; k <= 7; ++k)
        if (unsigned impl = routed(k, routing); impl && stores(kernel_leg(impl), out)) w.push_back(cptc_name(k) + " (impl<" + std::to_string(impl) + ">)");
    return join_or(w);
}

}  // namespace

Target route_target(unsigned bits, const Routing& routing, fp::Dtype out) {
    if (bits < 1 || bits > 7) throw Error("CPTC codes are 1..7 bits, not " + std::to_string(bits));
    auto it = routing.find(bits);
    if (it == routing.end()) throw Error("the routing has no cptc_decode_impl for CPTC value " + std::to_string(bits));
    const unsigned impl = it->second;
    const KernelLeg& leg = kernel_leg(impl);
    if (const unsigned g = kernel_guard(impl); g && g != bits)
        throw Error(cptc_name(bits) + " is routed to " + impl_name(impl) + ", which serves only " + cptc_name(g) + " (its guard rejects value " +
                    std::to_string(bits) + "); route " + cptc_name(bits) + " to an even kernel (2, 4 or 6)");
    if (out == fp::Dtype::Invalid) out = leg.outs.front();
    if (!stores(leg, out)) {
        std::vector<std::string> names;
        for (fp::Dtype d : leg.outs) names.push_back(fp::dtype_name(static_cast<uint8_t>(d)));
        const std::string others = widths_storing(out, routing);
        throw Error(cptc_name(bits) + " is decoded by " + impl_name(impl) + ", which stores " + join_or(names) + ", not " +
                    fp::dtype_name(static_cast<uint8_t>(out)) +
                    (others.empty() ? "; no CPTC kernel stores " + fp::dtype_name(static_cast<uint8_t>(out))
                                    : "; for " + fp::dtype_name(static_cast<uint8_t>(out)) + " use " + others));
    }
    Target t;
    t.bits = bits;
    t.impl = impl;
    t.out = out;
    t.is_signed = leg.is_signed && out != fp::Dtype::Uint8;  // impl<6> reads codes unsigned for a UINT8 output
    t.integer = leg.integer;
    return t;
}

std::pair<int32_t, int32_t> code_range(const Target& t) {
    if (t.is_signed) return {-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1};
    return {0, (1 << t.bits) - 1};
}

std::string describe(const Target& t) {
    const auto [lo, hi] = code_range(t);
    std::string s = impl_name(t.impl) + " (" + cptc_name(t.bits) + " -> impl<" + std::to_string(t.impl) + ">): " + (t.is_signed ? "signed" : "unsigned") +
                    " codes " + std::to_string(lo) + ".." + std::to_string(hi) + ", " + fp::dtype_name(static_cast<uint8_t>(t.out)) + " output";
    if (t.integer) s += ", integer leg (code x mconst0 as an integer, clamped to 255; no block scales)";
    return s;
}

std::string instruction_fields(const Target& t, unsigned block_size, uint16_t s0, uint16_t s1, uint64_t stream_bytes, uint64_t elements) {
    char b[320];
    std::snprintf(b, sizeof b,
                  "in_dtype=9 out_dtype=%u lut_dtype=0x%x block_size=%u mconst0=0x%x mconst1=0x%x num_active_rows=128 num_active_cols=128 "
                  "row_grp=15 col_grp=15 src.num=4,%llu src.step=1,4 dst.num=%llu,1,1 dst.step=1,0,0",
                  static_cast<unsigned>(t.out), 0x18 + t.bits, block_size, s0, s1, static_cast<unsigned long long>(stream_bytes / 16),
                  static_cast<unsigned long long>(elements));
    return b;
}

void reconstruct(const Target& t, int32_t code, uint16_t s0, float block_scale, uint8_t* out) {
    if (t.integer) {  // no float operations: s0 is an integer multiplier
        const uint64_t v = static_cast<uint64_t>(static_cast<uint32_t>(code)) * s0;
        out[0] = static_cast<uint8_t>(v > 255 ? 255 : v);
        return;
    }
    // Stage D: the global scale first, then the block's; stage F saturates (no infinity out).
    float v = static_cast<float>(code) * fp::fp16_to_f32(s0);
    v = v * block_scale;
    if (t.out == fp::Dtype::Fp16) v = std::fmax(std::fmin(v, 65504.0f), -65504.0f);
    if (t.out == fp::Dtype::Fp32) v = std::fmax(std::fmin(v, std::numeric_limits<float>::max()), -std::numeric_limits<float>::max());
    fp::from_f32(t.out, v, out);  // integers: round to nearest even, saturate
}

namespace {

void check_finite(const std::vector<float>& values) {
    for (size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i])) throw Error("value " + std::to_string(i) + " is not finite; CPTC codes finite values only");
}

// The codes and their steps are set: pack them and record what the kernel stores.
void finish(Encoded& e, const Target& t, const std::vector<float>& block_scales, unsigned block_size) {
    e.bytes = pack_codes(e.codes, t.bits);
    const size_t ob = fp::dtype_bytes(t.out);
    e.decoded.assign(e.codes.size() * ob, 0);
    for (size_t i = 0; i < e.codes.size(); ++i) reconstruct(t, e.codes[i], e.s0, block_scales[i / block_size], e.decoded.data() + i * ob);
}

// The code a block's anchor maps to: the top magnitude, or -1 for signed 1-bit ({-1, 0}).
int32_t reach(const Target& t) {
    if (!t.is_signed) return (1 << t.bits) - 1;
    return t.bits == 1 ? -1 : (1 << (t.bits - 1)) - 1;
}

// The value a block's reach code decodes to: max x for unsigned codes, max |x| for signed, and
// for signed 1-bit the value of largest magnitude with its sign (positive on a tie), so that
// the block's dominant sign survives.
float anchor(const std::vector<float>& v, uint64_t lo, uint64_t hi, const Target& t) {
    float a = 0;
    for (uint64_t i = lo; i < hi; ++i) {
        const float x = v[i];
        if (!t.is_signed) a = std::max(a, x);
        else if (t.bits > 1) a = std::max(a, std::fabs(x));
        else if (std::fabs(x) > std::fabs(a) || (std::fabs(x) == std::fabs(a) && x > a)) a = x;
    }
    return a;
}

// The codes the quantiser uses: symmetric for signed codes (the most negative one is left
// unused), {-1, 0} for signed 1-bit, all of them for unsigned.
std::pair<float, float> quantiser_range(const Target& t) {
    const int32_t r = reach(t);
    if (!t.is_signed) return {0.0f, static_cast<float>(r)};
    return r < 0 ? std::pair<float, float>{-1.0f, 0.0f} : std::pair<float, float>{-static_cast<float>(r), static_cast<float>(r)};
}

Encoded encode_float(const std::vector<float>& values, const Target& t, unsigned block_size) {
    const int32_t r = reach(t);
    const auto [qlo, qhi] = quantiser_range(t);
    Encoded e;
    e.s1 = kFormatBlockScales;
    e.codes.resize(values.size());
    e.steps.resize(values.size());
    const uint64_t blocks = (values.size() + block_size - 1) / block_size;
    std::vector<uint16_t> scales(blocks);
    std::vector<float> fscales(blocks);
    for (uint64_t blk = 0; blk < blocks; ++blk) {
        const uint64_t lo = blk * block_size, hi = std::min<uint64_t>(values.size(), lo + block_size);
        const float a = anchor(values, lo, hi, t);
        uint16_t sc = fp::f32_to_fp16(a != 0 ? a / static_cast<float>(r) : 1.0f);
        if (!std::isfinite(fp::fp16_to_f32(sc)))
            throw Error("block " + std::to_string(blk) + " (values " + std::to_string(lo) + ".." + std::to_string(hi - 1) + ") needs a scale of " +
                        std::to_string(a / static_cast<float>(r)) + ", beyond fp16's 65504");
        if (fp::fp16_to_f32(sc) == 0) sc = static_cast<uint16_t>((sc & 0x8000) | 0x0001);  // smallest subnormal (same sign), not a zero scale
        scales[blk] = sc;
        const float s = fscales[blk] = fp::fp16_to_f32(sc);
        for (uint64_t i = lo; i < hi; ++i) {
            const float q = std::nearbyint(values[i] / s);
            e.codes[i] = static_cast<int32_t>(std::min(std::max(q, qlo), qhi));
            e.steps[i] = std::fabs(s);
        }
    }
    finish(e, t, fscales, block_size);
    for (uint16_t sc : scales) {
        e.bytes.push_back(static_cast<uint8_t>(sc));
        e.bytes.push_back(static_cast<uint8_t>(sc >> 8));
    }
    while (e.bytes.size() % 16) e.bytes.push_back(0);
    return e;
}

Encoded encode_integer(const std::vector<float>& values, const Target& t, unsigned block_size, uint16_t m) {
    const float top = static_cast<float>((1 << t.bits) - 1);
    Encoded e;
    e.s0 = m;
    e.s1 = 0;  // the leg ignores block scales: store none
    e.codes.resize(values.size());
    e.steps.assign(values.size(), static_cast<float>(m));
    for (size_t i = 0; i < values.size(); ++i)
        e.codes[i] = static_cast<int32_t>(std::min(std::max(std::nearbyint(values[i] / static_cast<float>(m)), 0.0f), top));
    finish(e, t, std::vector<float>((values.size() + block_size - 1) / block_size, 1.0f), block_size);
    return e;
}

}  // namespace

uint16_t integer_multiplier(const std::vector<float>& values, unsigned bits) {
    const float top = static_cast<float>((1 << bits) - 1);
    float hi = 0;
    for (float x : values)
        if (std::isfinite(x)) hi = std::max(hi, std::min(x, 255.0f));
    float m = std::max(1.0f, std::ceil(hi / top));
    if (m * top < hi) m += 1;  // the division rounded down across an integer
    return static_cast<uint16_t>(m);
}

Encoded encode(const std::vector<float>& values, const Target& t, unsigned block_size, uint16_t multiplier) {
    check_block_size(block_size);
    check_finite(values);
    if (t.integer) return encode_integer(values, t, block_size, multiplier ? multiplier : integer_multiplier(values, t.bits));
    return encode_float(values, t, block_size);
}

Encoded encode_codes(const std::vector<int32_t>& codes, const Target& t) {
    const auto [lo, hi] = code_range(t);
    for (size_t i = 0; i < codes.size(); ++i)
        if (codes[i] < lo || codes[i] > hi)
            throw Error("code " + std::to_string(i) + " (" + std::to_string(codes[i]) + ") is not in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                        "], the codes of " + describe(t));
    Encoded e;
    e.s0 = t.integer ? 1 : 0x3c00;  // each code decodes to itself
    e.s1 = 0;
    e.codes = codes;
    e.steps.assign(codes.size(), 1.0f);
    finish(e, t, std::vector<float>(codes.empty() ? 0 : 1, 1.0f), std::max<size_t>(codes.size(), 1));
    return e;
}

}  // namespace neuronsim::model::cptc
