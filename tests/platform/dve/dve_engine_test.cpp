// The Vector engine on the platform (docs/vector-engine.md): each instruction's dumps against
// values worked out from the operation definitions (strided and per-partition operands, type
// conversions, the 32 x 32 transpose), its time against the public formulas written out here
// from public-figures §1.4 and §3 (not from DveTiming) at N = 1, 64, 512, 4096 on every
// generation, the performance modes, the dependency wait, and the errors for bad instructions.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "model/fp/bits.h"
#include "model/fp/dtype.h"
#include "tests/support/platform_run.h"

namespace neuronsim::test {
namespace {

using model::fp::bits_of;

class DveTest : public PlatformRunTest {};

// 4 partitions x 8 fp32: x[p][i] = p * 8 + i + 1 (so a per-partition value differs by row).
const char* kInput = ".data sbuf:0:0x0 partitions=4 file=x.bin\n";
std::vector<float> input() {
    std::vector<float> x(32);
    for (int i = 0; i < 32; ++i) x[i] = static_cast<float>(i + 1);
    return x;
}

TEST_F(DveTest, ElementwiseAndReductionResults) {
    t.write("x.bin", f32_bytes(input()));
    run(std::string(kInput) +
        // src0 every other element (step 2, 4 of them), src1 the first 4: x[2i] * x[i]
        "dve tensor_tensor op=mult in0_dtype=fp32 in1_dtype=fp32 out_dtype=fp32 src0=sbuf:0:0x0 src0.num=4,1 src0.step=2,0 "
        "src1=sbuf:0:0x0 src1.num=4,1 src1.step=1,0 dst=sbuf:0:0x100 dst.num=4,1 dst.step=1,0 num_active_channels=4\n"
        // (10 - x) / x[p][0]: reverse0 with an immediate, then divide by a per-partition pointer
        "dve tensor_scalar op0=subtract reverse0=1 imm0=10 op1=divide operand1_src=pointer operand1=sbuf:0:0x0 operand_dtype=fp32 "
        "in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x0 src.num=8,1 src.step=1,0 dst=sbuf:0:0x200 dst.num=8,1 dst.step=1,0 num_active_channels=4\n"
        "dve tensor_reduce reduce_op=add negate=1 in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x0 src.num=4,2 src.step=1,4 dst=sbuf:0:0x300 dst.num=1,1 "
        "dst.step=1,0 num_active_channels=4\n"
        "dve tensor_reduce reduce_op=max in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x0 src.num=8,1 src.step=1,0 dst=sbuf:0:0x304 dst.num=1,1 "
        "dst.step=1,0 num_active_channels=4\n"
        "dve reciprocal in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x0 src.num=8,1 src.step=1,0 dst=sbuf:0:0x400 dst.num=8,1 dst.step=1,0 "
        "num_active_channels=4\n"
        ".dump sbuf:0:0x100 partitions=4 bytes=16 file=tt.bin\n"
        ".dump sbuf:0:0x200 partitions=4 bytes=32 file=ts.bin\n"
        ".dump sbuf:0:0x300 partitions=4 bytes=8 file=red.bin\n"
        ".dump sbuf:0:0x400 partitions=4 bytes=32 file=rcp.bin\n");
    const std::vector<float> x = input();
    const std::vector<float> tt = floats(out("tt.bin")), ts = floats(out("ts.bin")), red = floats(out("red.bin")), rcp = floats(out("rcp.bin"));
    for (int p = 0; p < 4; ++p) {
        const float* r = &x[p * 8];
        for (int i = 0; i < 4; ++i) EXPECT_EQ(bits_of(tt[p * 4 + i]), bits_of(r[2 * i] * r[i])) << p << "," << i;
        for (int i = 0; i < 8; ++i) {
            EXPECT_EQ(bits_of(ts[p * 8 + i]), bits_of((10.0f - r[i]) / r[0])) << p << "," << i;
            EXPECT_EQ(bits_of(rcp[p * 8 + i]), bits_of(1.0f / r[i])) << p << "," << i;
        }
        // The [4, 2] pattern walks the row in element order; summed from the first element.
        float sum = r[0];
        for (int i = 1; i < 8; ++i) sum = sum + r[i];
        EXPECT_EQ(bits_of(red[p * 2]), bits_of(-sum)) << p;
        EXPECT_EQ(bits_of(red[p * 2 + 1]), bits_of(r[7])) << p;
    }
}

TEST_F(DveTest, CopyMemsetIotaAndTranspose) {
    std::vector<float> m(32 * 32);
    for (int i = 0; i < 32 * 32; ++i) m[i] = static_cast<float>(i) + 0.5f;
    t.write("m.bin", f32_bytes(m));
    run(".data sbuf:0:0x0 partitions=32 file=m.bin\n"
        "dve transpose in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x0 src.num=32,1 src.step=1,0 dst=sbuf:0:0x1000 dst.num=32,1 dst.step=1,0 "
        "num_active_channels=32\n"
        // fp32 -> bf16 by nearest even: i + 0.5 for i >= 256 is a tie or below half an ulp
        "dve tensor_copy in_dtype=fp32 out_dtype=bf16 src=sbuf:0:0x0 src.num=32,1 src.step=1,0 dst=sbuf:0:0x2000 dst.num=32,1 dst.step=1,0 "
        "num_active_channels=32\n"
        "dve memset value=-2.5 out_dtype=fp16 dst=sbuf:0:0x3000 dst.num=4,1 dst.step=1,0 num_active_channels=32\n"
        "dve iota base=16777217 partition_step=0xfffffffd step=2 out_dtype=int32 dst=sbuf:0:0x4000 dst.num=4,1 dst.step=1,0 num_active_channels=32\n"
        ".dump sbuf:0:0x1000 partitions=32 bytes=128 file=tr.bin\n"
        ".dump sbuf:0:0x2000 partitions=32 bytes=64 file=bf.bin\n"
        ".dump sbuf:0:0x3000 partitions=32 bytes=8 file=ms.bin\n"
        ".dump sbuf:0:0x4000 partitions=32 bytes=16 file=io.bin\n");
    const std::vector<float> tr = floats(out("tr.bin"));
    const std::vector<uint16_t> bf = halves(out("bf.bin")), ms = halves(out("ms.bin"));
    const std::string io = out("io.bin");
    for (int p = 0; p < 32; ++p)
        for (int j = 0; j < 32; ++j) {
            EXPECT_EQ(bits_of(tr[j * 32 + p]), bits_of(m[p * 32 + j])) << p << "," << j;
            EXPECT_EQ(bf[p * 32 + j], model::fp::f32_to_bf16(m[p * 32 + j])) << p << "," << j;
        }
    for (uint16_t h : ms) EXPECT_EQ(h, 0xc100u);  // -2.5 in fp16
    for (int p = 0; p < 32; ++p)
        for (int i = 0; i < 4; ++i) {
            int32_t v;
            std::memcpy(&v, io.data() + (p * 4 + i) * 4, 4);
            EXPECT_EQ(v, 16777217 - 3 * p + 2 * i) << p << "," << i;  // exact: no float in between
        }
}

// The public formulas (public-figures §1.4, §3): ~100 static cycles, 60 access start-up, the
// streaming max(MIN_II 64, N per input tensor; reciprocal 8N), and neuronsim's 40-cycle drain
// (an assumption the config names). Written out here, not taken from DveTiming.
double public_stream(uint64_t n, int inputs) { return std::max<double>(64, static_cast<double>(n) * inputs); }

std::string tt(uint64_t n, uint32_t at, const char* dtype = "fp32") {
    const std::string num = std::to_string(n);
    return std::string("dve tensor_tensor op=add in0_dtype=") + dtype + " in1_dtype=" + dtype + " out_dtype=" + dtype + " src0=sbuf:0:0x0 src0.num=" + num +
           ",1 src0.step=1,0 src1=sbuf:0:0x0 src1.num=" + num + ",1 src1.step=1,0 dst=sbuf:0:" + std::to_string(at) + " dst.num=" + num +
           ",1 dst.step=1,0 num_active_channels=128\n";
}

// bn_stats of each 512-element half of a 4 x 1024 row block, then bn_aggr of the four triples:
// the mean and variance of the whole row, as the NKI documentation composes them. Checked
// against the definitions (docs/vector-engine.md) written out here, and the time is one
// input's N cycles.
TEST_F(DveTest, BnStatsThenBnAggrGiveEachRowsMeanAndVariance) {
    std::vector<float> x(4 * 1024);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 101) * 0.25f - 3.0f;
    t.write("x.bin", f32_bytes(x));
    const std::string stats = "in_dtype=fp32 out_dtype=fp32 src.num=512,1 src.step=1,0 dst.num=6,1 dst.step=1,0 num_active_channels=4";
    run(".data sbuf:0:0x0 partitions=4 file=x.bin\n"
        "dve bn_stats src=sbuf:0:0x0 dst=sbuf:0:0x1000 " +
        stats + "\n" + "dve bn_stats src=sbuf:0:0x800 dst=sbuf:0:0x1018 " + stats + "\n" +
        "dve bn_aggr in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x1000 src.num=12,1 src.step=1,0 dst=sbuf:0:0x1100 dst.num=2,1 dst.step=1,0 "
        "num_active_channels=4\n"
        ".dump sbuf:0:0x1000 partitions=4 bytes=48 file=stats.bin\n"
        ".dump sbuf:0:0x1100 partitions=4 bytes=8 file=aggr.bin\n");
    const std::vector<float> st = floats(out("stats.bin")), ag = floats(out("aggr.bin"));
    for (int p = 0; p < 4; ++p) {
        float n = 0, mean = 0, m2 = 0;  // bn_aggr's update over the four triples
        for (int k = 0; k < 4; ++k) {
            const float* r = &x[p * 1024 + (k / 2) * 512];
            float cnt = 0, sum = 0;
            for (int i = k % 2; i < 512; i += 2) {
                sum = cnt == 0 ? r[i] : sum + r[i];
                cnt = cnt + 1;
            }
            const float mb = sum / cnt;
            float q = 0;
            bool first = true;
            for (int i = k % 2; i < 512; i += 2) {
                const float d = r[i] - mb;
                q = first ? d * d : q + d * d;
                first = false;
            }
            EXPECT_EQ(bits_of(st[p * 12 + k * 3]), bits_of(cnt)) << p << "," << k;
            EXPECT_EQ(bits_of(st[p * 12 + k * 3 + 1]), bits_of(mb)) << p << "," << k;
            EXPECT_EQ(bits_of(st[p * 12 + k * 3 + 2]), bits_of(q)) << p << "," << k;
            if (n == 0) {
                n = cnt, mean = mb, m2 = q;
                continue;
            }
            const float na = n;
            n = na + cnt;
            const float tt = cnt / n, delta = mb - mean;
            mean = mean + delta * tt;
            m2 = (m2 + q) + ((delta * delta) * na) * tt;
        }
        EXPECT_EQ(bits_of(ag[p * 2]), bits_of(mean)) << p;
        EXPECT_EQ(bits_of(ag[p * 2 + 1]), bits_of(m2 / n)) << p;
        double dm = 0, dv = 0;  // and they are the row's statistics
        for (int i = 0; i < 1024; ++i) dm += x[p * 1024 + i];
        dm /= 1024;
        for (int i = 0; i < 1024; ++i) dv += (x[p * 1024 + i] - dm) * (x[p * 1024 + i] - dm);
        EXPECT_NEAR(ag[p * 2], dm, 1e-4);
        EXPECT_NEAR(ag[p * 2 + 1], dv / 1024, 1e-3);
    }
    const double ghz = 1.2;  // MARIANA's VectorE
    EXPECT_NEAR(cycles_of("dve", 0), 100 + 60 + public_stream(512, 1) + 40, 1e-6);
    EXPECT_NEAR(ns_of("dve", 0), (100 + 60 + public_stream(512, 1) + 40) / ghz, 2e-3);
    EXPECT_NEAR(cycles_of("dve", 2), 100 + 60 + public_stream(12, 1) + 40, 1e-6);  // bn_aggr: its 12 inputs, at the floor
}

class DveTimeTest : public PlatformRunTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(DveTimeTest, TheInstructionTimeIsThePublicFormula) {
    gen = GetParam();
    const double ghz = gen == "sunda" ? 1.12 : gen == "cayman" ? 0.96 : 1.2;  // VectorE clock (§0; MAVERICK as v4)
    const uint64_t ns[] = {1, 64, 512, 4096};
    // Each N alone (chained), then four independent ones back to back (different destinations):
    // those issue every max(100 static, streaming) cycles.
    std::vector<std::string> alone;
    for (uint64_t n : ns) alone.push_back(tt(n, 0x10000));
    std::string trace = chained(alone);  // semaphore 0 is 4 after them
    std::string first = tt(4096, 0x10000);
    first.insert(first.size() - 1, " wait=0>=4");
    trace += first;
    for (int k = 1; k < 4; ++k) trace += tt(4096, 0x10000 + k * 0x8000);
    run(trace);
    for (int i = 0; i < 4; ++i) {
        const double expected = 100 + 60 + public_stream(ns[i], 2) + 40;
        EXPECT_NEAR(cycles_of("dve", i), expected, 1e-6) << gen << " N=" << ns[i];
        // 2 ps: the stage times are each rounded to the 1 ps time resolution.
        EXPECT_NEAR(ns_of("dve", i), expected / ghz, 2e-3) << gen << " N=" << ns[i];
    }
    for (int k = 5; k < 8; ++k)
        EXPECT_NEAR(csv_field("dve", k, 7) - csv_field("dve", k - 1, 7), public_stream(4096, 2), 1e-6) << gen << " #" << k;  // completions
}

INSTANTIATE_TEST_SUITE_P(Generations, DveTimeTest, ::testing::Values("sunda", "cayman", "mariana", "mariana_plus", "maverick"));

// bn_stats at N = 1, 64 and 512 (its limit) and bn_aggr over 3 and 192 triples' elements: one
// input's N cycles (public-figures §3), no performance mode, on every generation.
TEST_P(DveTimeTest, BnStatsAndBnAggrTakeOneInputsTime) {
    gen = GetParam();
    const double ghz = gen == "sunda" ? 1.12 : gen == "cayman" ? 0.96 : 1.2;
    const auto op = [](const char* m, uint64_t n, uint64_t out) {
        return std::string("dve ") + m + " in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x0 src.num=" + std::to_string(n) +
               ",1 src.step=1,0 dst=sbuf:0:0x10000 dst.num=" + std::to_string(out) + ",1 dst.step=1,0 num_active_channels=128\n";
    };
    const std::vector<std::pair<std::string, uint64_t>> cases = {
        {op("bn_stats", 1, 6), 1}, {op("bn_stats", 64, 6), 64}, {op("bn_stats", 512, 6), 512}, {op("bn_aggr", 3, 2), 3}, {op("bn_aggr", 192, 2), 192}};
    std::vector<std::string> lines;
    for (const auto& c : cases) lines.push_back(c.first);
    run(chained(lines));
    for (size_t i = 0; i < cases.size(); ++i) {
        const double expected = 100 + 60 + public_stream(cases[i].second, 1) + 40;
        EXPECT_NEAR(cycles_of("dve", static_cast<int>(i)), expected, 1e-6) << gen << " #" << i;
        EXPECT_NEAR(ns_of("dve", static_cast<int>(i)), expected / ghz, 2e-3) << gen << " #" << i;
    }
}

std::string copy(const char* dt, int step) {
    return std::string("dve tensor_copy in_dtype=") + dt + " out_dtype=" + dt + " src=sbuf:0:0x0 src.num=4096,1 src.step=" + std::to_string(step) +
           ",0 dst=sbuf:0:0x30000 dst.num=4096,1 dst.step=1,0 num_active_channels=128\n";
}

TEST_F(DveTest, PerformanceModesAndReciprocalOnV4) {
    // bf16 copy contiguous 4x, strided (a 32-byte innermost stride) 2x; fp32 strided pays the
    // 2x slowdown; fp8 joins bf16 from v4; tensor_tensor bf16 2x; reciprocal 8N (§1.4, §3).
    run(chained({copy("bf16", 1), copy("bf16", 16), copy("fp32", 8), copy("fp8_exp4", 1), tt(4096, 0x20000, "bf16"),
                 "dve reciprocal in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x0 src.num=512,1 src.step=1,0 dst=sbuf:0:0x38000 dst.num=512,1 "
                 "dst.step=1,0 num_active_channels=128\n"}));
    EXPECT_NEAR(cycles_of("dve", 0), 200 + 4096 / 4, 1e-6);
    EXPECT_NEAR(cycles_of("dve", 1), 200 + 4096 / 2, 1e-6);
    EXPECT_NEAR(cycles_of("dve", 2), 200 + 4096 * 2, 1e-6);
    EXPECT_NEAR(cycles_of("dve", 3), 200 + 4096 / 4, 1e-6);
    EXPECT_NEAR(cycles_of("dve", 4), 200 + 2 * 4096 / 2, 1e-6);
    EXPECT_NEAR(cycles_of("dve", 5), 200 + 8 * 512, 1e-6);
}

TEST_F(DveTest, NoFp8PerformanceModeOnV3) {
    gen = "cayman";
    run(copy("fp8_exp4", 1));
    EXPECT_NEAR(cycles_of("dve", 0), 200 + 4096, 1e-6);
}

TEST_F(DveTest, AnInstructionWaitsForTheResultItReads) {
    // The second reads the first's destination: it enters the pipeline when the first has
    // completed, so it starts 100 + 60 + 8192 + 40 cycles after it.
    run(tt(4096, 0x10000) +
        "dve tensor_copy in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x10000 src.num=4096,1 src.step=1,0 dst=sbuf:0:0x20000 dst.num=4096,1 dst.step=1,0 "
        "num_active_channels=128\n");
    EXPECT_NEAR(csv_field("dve", 1, 6) - csv_field("dve", 0, 6), 100 + 60 + 8192 + 40, 1e-6);
}

// The NC-v2 port rules (vector.v2_port_rules; hardware-facts §E, the compiler's event model):
// on SUNDA VectorE and GpSimd serialise, and ScalarE waits for VectorE's PSUM writes in
// flight; on CAYMAN (v3 lifted them) the same independent instructions overlap.
class PortRulesTest : public PlatformRunTest, public ::testing::WithParamInterface<const char*> {};

bool overlap(double a0, double a1, double b0, double b1) { return a0 < b1 && b0 < a1; }

TEST_P(PortRulesTest, VectorEAndGpSimdSerialiseOnV2) {
    gen = GetParam();
    // Two independent VectorE copies and a software-DGE trigger on GpSimd (its descriptor
    // generation, gpsimd.swdge_cycles = 500 at 1.4 GHz on SUNDA, is what holds the port).
    const std::string dve =
        "dve tensor_copy in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x0 src.num=4096,1 src.step=1,0 dst.num=4096,1 dst.step=1,0 "
        "num_active_channels=128 dst=sbuf:0:";
    run(dve + "0x10000\n" + dve + "0x20000\npool copy src=dram:0x0 dst=sbuf:0:0x2c000 partitions=128 bytes=1024\n");
    const double p0 = csv_field("pool", 0, 4), p1 = p0 + 500 / 1.4;
    bool overlapped = false;
    for (int k = 0; k < 2; ++k) {
        const double d0 = csv_field("dve", k, 4), d1 = csv_field("dve", k, 5);
        if (overlap(d0, d1, p0, p1)) overlapped = true;
        if (gen == "sunda") EXPECT_FALSE(overlap(d0, d1, p0, p1)) << "dve#" << k << " " << d0 << ".." << d1 << ", pool " << p0 << ".." << p1;
    }
    if (gen != "sunda") EXPECT_TRUE(overlapped) << "the same instructions overlap where the rules are lifted";
}

TEST_P(PortRulesTest, ScalarEWaitsForVectorEsPsumWritesOnV2) {
    gen = GetParam();
    // A long VectorE write into PSUM (reciprocal: 8N cycles), an independent activation on SBUF.
    run("dve reciprocal in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x0 src.num=4096,1 src.step=1,0 dst=psum:0:0x0 dst.num=4096,1 dst.step=1,0 "
        "num_active_channels=128\n"
        "act load_act_func_set set=0\n"
        "act activate func=identity in_bias_dtype=fp32:fp32 out_dtype=fp32 num_active_channels=128 src=sbuf:0:0x20000 src.step=1,0,0 src.num=64,1,1 "
        "dst=sbuf:0:0x28000 dst.step=1,0,0 dst.num=64,1,1 scale=1.0 bias=0.0\n");
    const double d0 = csv_field("dve", 0, 4), d1 = csv_field("dve", 0, 5), a0 = csv_field("act", 1, 4), a1 = csv_field("act", 1, 5);
    if (gen == "sunda") {
        EXPECT_GE(a0, d1 - 1e-3) << "act starts at " << a0 << ", the PSUM write ends at " << d1;
        const std::string csv = out("instructions.csv");
        const size_t row = csv.find("\nact,1,");
        ASSERT_NE(row, std::string::npos);
        const std::string line = csv.substr(row + 1, csv.find('\n', row + 1) - row - 1);
        EXPECT_NE(line.find("VectorE/GpSimd PSUM writes (NC-v2)"), std::string::npos) << line;  // the stall's cause
    } else {
        EXPECT_TRUE(overlap(d0, d1, a0, a1)) << "dve " << d0 << ".." << d1 << ", act " << a0 << ".." << a1;
    }
}

INSTANTIATE_TEST_SUITE_P(Generations, PortRulesTest, ::testing::Values("sunda", "cayman"));

class DveBadTest : public PlatformRunTest, public ::testing::WithParamInterface<BadCase> {};

TEST_P(DveBadTest, IsAnErrorNamingTheField) {
    const std::string e = error_of(GetParam().trace);
    EXPECT_NE(e.find(GetParam().message), std::string::npos) << e;
}

#define DVE_TT "src0=sbuf:0:0x0 src0.num=4,1 src0.step=1,0 src1=sbuf:0:0x0 src1.num=4,1 src1.step=1,0 dst=sbuf:0:0x100 dst.num=4,1 dst.step=1,0 "
INSTANTIATE_TEST_SUITE_P(
    Cases, DveBadTest,
    ::testing::Values(BadCase{"dve tensor_tensor op=0x0a in0_dtype=fp32 in1_dtype=fp32 out_dtype=fp32 " DVE_TT "num_active_channels=4\n",
                              "op 0x0a is not a VectorE ALU code"},
                      BadCase{"dve tensor_tensor op=add in0_dtype=int64 in1_dtype=fp32 out_dtype=fp32 " DVE_TT "num_active_channels=4\n",
                              "in0_dtype 0x0c (INT64) is not an element type VectorE reads"},
                      BadCase{"dve tensor_tensor op=add in0_dtype=fp32 in1_dtype=fp32 out_dtype=fp32 " DVE_TT "num_active_channels=0\n",
                              "num_active_channels 0 is not in 1..128"},
                      BadCase{"dve tensor_tensor op=add in0_dtype=fp32 in1_dtype=fp32 out_dtype=fp32 src0=sbuf:0:0x0 src0.num=4,1 src0.step=1,0 "
                              "src1=sbuf:0:0x0 src1.num=5,1 src1.step=1,0 dst=sbuf:0:0x100 dst.num=4,1 dst.step=1,0 num_active_channels=4\n",
                              "they must be equal"},
                      BadCase{"dve transpose in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x0 src.num=33,1 src.step=1,0 dst=sbuf:0:0x1000 dst.num=4,1 "
                              "dst.step=1,0 num_active_channels=4\n",
                              "at most 32 x 32"},
                      BadCase{"dve tensor_reduce reduce_op=divide in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x0 src.num=4,1 src.step=1,0 dst=sbuf:0:0x100 "
                              "dst.num=1,1 dst.step=1,0 num_active_channels=4\n",
                              "reduce_op 0x07 is not add 0x04, max 0x08 or min 0x09"},
                      BadCase{"dve tensor_copy in_dtype=fp32 out_dtype=fp32 src=dram:0x0 src.num=4,1 src.step=1,0 dst=sbuf:0:0x100 dst.num=4,1 "
                              "dst.step=1,0 num_active_channels=4\n",
                              "src=dram:0x0: this operand addresses SBUF or PSUM, not DRAM"},
                      BadCase{"dve bn_stats in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x0 src.num=513,1 src.step=1,0 dst=sbuf:0:0x1000 dst.num=6,1 "
                              "dst.step=1,0 num_active_channels=4\n",
                              "bn_stats: src has 513 elements per partition; at most 512"},
                      BadCase{"dve bn_stats in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x0 src.num=8,1 src.step=1,0 dst=sbuf:0:0x1000 dst.num=2,1 "
                              "dst.step=1,0 num_active_channels=4\n",
                              "bn_stats: dst has 2 elements per partition, expected 6"},
                      BadCase{"dve bn_aggr in_dtype=fp32 out_dtype=fp32 src=sbuf:0:0x0 src.num=8,1 src.step=1,0 dst=sbuf:0:0x1000 dst.num=2,1 "
                              "dst.step=1,0 num_active_channels=4\n",
                              "expected (count, mean, M2) triples"},
                      BadCase{"dve copy src=dram:0x0 dst=sbuf:0:0x0 partitions=1 bytes=4\n", "does not run on engine dve"}));

}  // namespace
}  // namespace neuronsim::test
