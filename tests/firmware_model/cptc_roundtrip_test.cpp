// The encoder against the firmware model (docs/cptc-format.md): for every CPTC width K = 1..7 and every
// output type its routed kernel stores, random values are encoded, the printed instruction
// fields are assembled into a conv_lut_load (and an 0xf0 spec 7) and run through PoolFirmware,
// and what the kernel stores must be, bit for bit, the encoder's own reconstruction. The
// encoder must also accept exactly the output types the kernels accept, and its
// reconstruction must be close to the values (a degenerate encoder would round-trip too).
#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "firmware_model/pool_firmware.h"
#include "model/common/error.h"
#include "model/cptc/cptc.h"
#include "model/fp/dtype.h"
#include "model/trace/trace_reader.h"

namespace neuronsim::test {
namespace {

using namespace firmware_model;
using model::fp::Dtype;
namespace cptc = model::cptc;

constexpr uint32_t kParts = 128;
constexpr uint64_t kPer = 8192;  // SBUF bytes per partition in these tests
constexpr uint64_t kDst = 0x1000;  // where the decode stores
constexpr Dtype kOuts[] = {Dtype::Fp16, Dtype::Fp32, Dtype::Int8, Dtype::Uint8, Dtype::Bfloat16};

struct Sbuf {
    std::vector<uint8_t> mem = std::vector<uint8_t>(kParts * kPer, 0);
    SbufAccess access() {
        return [this](uint32_t p, uint64_t off, uint64_t len) -> uint8_t* {
            if (p >= kParts || off + len > kPer) throw Error("outside the test SBUF");
            return mem.data() + p * kPer + off;
        };
    }
    uint8_t* at(uint32_t p, uint64_t off) { return mem.data() + p * kPer + off; }
};

FirmwareConfig staged(const cptc::Routing& routing) {
    FirmwareConfig c;
    c.nc_version = 4;
    c.cptc_flag = true;
    c.routing = routing;
    return c;
}

// The bundle a user gets by pasting the printed fields after an opcode and the addresses.
model::isa::Bundle assemble(const std::string& head, const std::string& fields) {
    auto r = model::trace::parse_trace_line(head + " src=sbuf:0:0x0 dst=sbuf:0:0x1000 " + fields, "roundtrip", 1, ".");
    if (!r) throw Error("no instruction");
    return r->instruction.bundle;
}

std::string name(const cptc::Target& t) { return "CPTC" + std::to_string(t.bits) + " -> " + model::fp::dtype_name(static_cast<uint8_t>(t.out)); }

// Random values for partition p: normal with a spread from 1e-3 to 1e4 (subnormal fp16
// scales to saturating outputs), some all-zero and one-signed blocks.
std::vector<float> values_for(std::mt19937& rng, uint32_t p, size_t n, unsigned block, const cptc::Target& t) {
    std::vector<float> v(n);
    if (t.integer) {  // an integer tensor around the UINT8 range, with some beyond it
        std::uniform_real_distribution<float> d(-20.0f, 300.0f);
        for (auto& x : v) x = p % 2 ? std::nearbyint(d(rng)) : d(rng);
        return v;
    }
    const float sigma = std::pow(10.0f, static_cast<float>(static_cast<int>(p % 8) - 3));
    std::normal_distribution<float> d(0.0f, sigma);
    for (auto& x : v) x = d(rng);
    for (size_t i = 0; i < n; ++i) {
        const size_t blk = i / block;
        if (blk % 5 == 1) v[i] = 0.0f;
        if (blk % 5 == 2) v[i] = -std::fabs(v[i]);
        if (blk % 5 == 3) v[i] = std::fabs(v[i]);
    }
    return v;
}

// Encodes partition by partition as `neuronsim cptc encode` does (one multiplier for all).
struct Tensor {
    std::vector<std::vector<float>> values;
    std::vector<cptc::Encoded> parts;
};
Tensor encode_tensor(const cptc::Target& t, size_t n, unsigned block, uint32_t seed) {
    std::mt19937 rng(seed);
    Tensor x;
    std::vector<float> all;
    for (uint32_t p = 0; p < kParts; ++p) {
        x.values.push_back(values_for(rng, p, n, block, t));
        all.insert(all.end(), x.values.back().begin(), x.values.back().end());
    }
    const uint16_t m = t.integer ? cptc::integer_multiplier(all, t.bits) : 0;
    for (uint32_t p = 0; p < kParts; ++p) x.parts.push_back(cptc::encode(x.values[p], t, block, m));
    return x;
}

// Runs the decode of the printed fields; returns the first mismatch ("" when bit-exact).
std::string decode_and_compare(const cptc::Routing& routing, const cptc::Target& t, const Tensor& x, unsigned block, const std::string& head) {
    Sbuf s;
    const cptc::Encoded& e0 = x.parts[0];
    for (uint32_t p = 0; p < kParts; ++p) {
        const cptc::Encoded& e = x.parts[p];
        if (e.s0 != e0.s0 || e.s1 != e0.s1 || e.bytes.size() != e0.bytes.size())
            return "partition " + std::to_string(p) + " needs other fields than partition 0";
        std::memcpy(s.at(p, 0), e.bytes.data(), e.bytes.size());
    }
    const size_t n = x.values[0].size();
    const std::string fields = cptc::instruction_fields(t, block, e0.s0, e0.s1, e0.bytes.size(), n);
    PoolFirmware fw(staged(routing));
    const ExecResult r = fw.execute(assemble(head, fields), 0, s.access());
    if (r.kernel != "cptc_decode_impl<" + std::to_string(t.impl) + ">") return "ran " + r.kernel;
    const size_t ob = model::fp::dtype_bytes(t.out);
    for (uint32_t p = 0; p < kParts; ++p) {
        const uint8_t* got = s.at(p, kDst);
        const std::vector<uint8_t>& want = x.parts[p].decoded;
        if (want.size() != n * ob) return "reconstruction has " + std::to_string(want.size()) + " bytes";
        if (std::memcmp(got, want.data(), want.size()) == 0) continue;
        for (size_t i = 0; i < n; ++i)
            if (std::memcmp(got + i * ob, want.data() + i * ob, ob)) {
                uint32_t g = 0, w = 0;
                std::memcpy(&g, got + i * ob, ob);
                std::memcpy(&w, want.data() + i * ob, ob);
                char b[160];
                std::snprintf(b, sizeof b, "partition %u element %zu: kernel 0x%x, encoder 0x%x (code %d, value %.9g)", p, i, g, w, x.parts[p].codes[i],
                              static_cast<double>(x.values[p][i]));
                return b;
            }
    }
    return "";
}

// How far the reconstruction may be from a value the codes and output type can hold: half a
// step, the fp16 rounding of the scale (relative, or absolute when subnormal) at the top
// code, and the output's own rounding.
bool check_quality(const cptc::Target& t, const std::vector<float>& v, const cptc::Encoded& e, unsigned block, size_t& checked) {
    const size_t ob = model::fp::dtype_bytes(t.out);
    const float top = static_cast<float>(t.is_signed ? std::max(1, (1 << (t.bits - 1)) - 1) : (1 << t.bits) - 1);
    const float hi = t.integer || t.out == Dtype::Uint8 ? 255.0f : t.out == Dtype::Int8 ? 127.0f : t.out == Dtype::Fp16 ? 65504.0f : 3e38f;
    const float lo = t.is_signed ? -hi : 0.0f;
    for (size_t i = 0; i < v.size(); ++i) {
        const float x = v[i];
        if (x < lo || x > hi) continue;  // clamped by the codes or saturated by the output
        if (t.is_signed && t.bits == 1) {  // {-1, 0}: only the block's dominant sign is held
            float a = 0;
            for (size_t j = i / block * block; j < std::min(v.size(), (i / block + 1) * block); ++j)
                if (std::fabs(v[j]) > std::fabs(a) || (std::fabs(v[j]) == std::fabs(a) && v[j] > a)) a = v[j];
            if (x * a < 0) continue;
        }
        const float step = e.steps[i];
        const float out_round = t.out == Dtype::Fp16 ? std::fabs(x) * 0x1p-10f + 0x1p-24f : (t.out == Dtype::Int8 || t.out == Dtype::Uint8) ? 0.5f : 0.0f;
        const float bound = 0.5f * step + top * (step * 0x1p-11f + 0x1p-25f) + out_round;
        const float got = model::fp::to_f32(t.out, e.decoded.data() + i * ob);
        if (!(std::fabs(got - x) <= bound * 1.0001f)) {
            ADD_FAILURE() << name(t) << " value " << i << " = " << x << " decodes to " << got << " (step " << step << ", bound " << bound << ")";
            return false;
        }
        ++checked;
    }
    return true;
}

// Every (K, output) pair the routing allows: the encoder's view.
std::vector<cptc::Target> targets(const cptc::Routing& routing) {
    std::vector<cptc::Target> ts;
    for (unsigned k = 1; k <= 7; ++k)
        for (Dtype out : kOuts) {
            try {
                ts.push_back(cptc::route_target(k, routing, out));
            } catch (const Error&) {
            }
        }
    return ts;
}

cptc::Routing other_routing() {
    cptc::Routing r = cptc::default_routing();
    cptc::set_route(r, 2, 6);  // signed (or UINT8 unsigned) 2-bit
    cptc::set_route(r, 5, 6);
    cptc::set_route(r, 6, 4);
    cptc::set_route(r, 7, 2);  // unsigned 7-bit, FP16
    return r;
}

TEST(CptcRoundTrip, EncoderAcceptsExactlyTheOutputsTheKernelsStore) {
    for (const cptc::Routing& routing : {cptc::default_routing(), other_routing()}) {
        PoolFirmware fw(staged(routing));
        size_t accepted = 0;
        for (unsigned k = 1; k <= 7; ++k)
            for (Dtype out : kOuts) {
                bool encoder = true;
                try {
                    cptc::route_target(k, routing, out);
                } catch (const Error&) {
                    encoder = false;
                }
                // The kernel on zero codes with this output type: only the out_dtype check can refuse.
                Sbuf s;
                cptc::Target t;
                t.bits = k;
                t.out = out;
                bool kernel = true;
                try {
                    fw.execute(assemble("pool conv_lut_load", cptc::instruction_fields(t, 64, 0x3c00, 0, 64, 64)), 0, s.access());
                } catch (const Error& e) {
                    kernel = false;
                    EXPECT_NE(std::string(e.what()).find("unsupported out_dtype"), std::string::npos) << e.what();
                }
                EXPECT_EQ(encoder, kernel) << "CPTC" << k << " -> " << model::fp::dtype_name(static_cast<uint8_t>(out));
                accepted += encoder;
            }
        EXPECT_EQ(accepted, 14u);  // default: 1 + 1 + 1 + 1 + 2 + 4 + 4; the other routing swaps widths between impl<6>, <4>, <2>
    }
}

TEST(CptcRoundTrip, EveryWidthAndOutputDecodesToTheEncodersReconstruction) {
    size_t runs = 0;
    for (const cptc::Routing& routing : {cptc::default_routing(), other_routing()})
        for (const cptc::Target& t : targets(routing))
            for (unsigned block : {40u, 64u}) {
                const size_t n = 200;  // 4 groups, the last one padded; blocks straddle groups
                const Tensor x = encode_tensor(t, n, block, 100 * t.bits + static_cast<uint32_t>(t.out) + block);
                EXPECT_EQ(decode_and_compare(routing, t, x, block, "pool conv_lut_load"), "") << name(t) << " impl<" << t.impl << "> block " << block;
                EXPECT_EQ(decode_and_compare(routing, t, x, block, "pool ext spec=7"), "") << name(t) << " impl<" << t.impl << "> block " << block;
                size_t checked = 0;
                for (uint32_t p = 0; p < kParts; ++p)
                    if (!check_quality(t, x.values[p], x.parts[p], block, checked)) break;
                EXPECT_GT(checked, kParts * n / 3) << name(t);  // most values are within reach
                ++runs;
            }
    EXPECT_EQ(runs, 2u * (14 + 14));  // the other routing keeps 14 pairs: impl<6>, <4>, <2> swap widths
}

TEST(CptcRoundTrip, SignedOneBitAndTheIntegerLegCarryTheValues) {
    // The two legs of the bug: CPTC1 (impl<1>, signed) and CPTC3 (impl<5>, integer). The
    // reconstruction holds both signs and many levels, not zeros or 255s.
    for (unsigned k : {1u, 3u}) {
        const cptc::Target t = cptc::route_target(k, cptc::default_routing());
        const Tensor x = encode_tensor(t, 128, 64, 5);
        ASSERT_EQ(decode_and_compare(cptc::default_routing(), t, x, 64, "pool conv_lut_load"), "") << k;
        std::set<uint32_t> distinct;
        bool negative = false, positive = false;
        for (const auto& e : x.parts)
            for (size_t i = 0; i < e.codes.size(); ++i) {
                const float v = model::fp::to_f32(t.out, e.decoded.data() + i * model::fp::dtype_bytes(t.out));
                negative |= v < 0;
                positive |= v > 0;
                distinct.insert(e.decoded[i * model::fp::dtype_bytes(t.out)]);
            }
        EXPECT_TRUE(positive) << k;
        if (k == 1) {
            EXPECT_TRUE(negative);
        }
        if (k == 3) {
            EXPECT_EQ(x.parts[0].s0, 37);  // values up to 300 are taken up to 255: ceil(255 / 7)
            EXPECT_EQ(x.parts[0].s1, 0);
            EXPECT_EQ(distinct.size(), 8u);  // the eight codes x mconst0
        }
    }
}

TEST(CptcRoundTrip, ARoutedWidthTheKernelRejectsIsRefused) {
    // --route 7=5: impl<5>'s guard rejects value 7 in the firmware, and the encoder says so.
    cptc::Routing r = cptc::default_routing();
    cptc::set_route(r, 7, 5);
    try {
        cptc::route_target(7, r, Dtype::Uint8);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("serves only CPTC3"), std::string::npos) << e.what();
    }
    Sbuf s;
    cptc::Target t;
    t.bits = 7;
    t.out = Dtype::Uint8;
    PoolFirmware fw(staged(r));
    EXPECT_THROW(fw.execute(assemble("pool conv_lut_load", cptc::instruction_fields(t, 64, 1, 0, 64, 64)), 0, s.access()), Error);
}

}  // namespace
}  // namespace neuronsim::test
