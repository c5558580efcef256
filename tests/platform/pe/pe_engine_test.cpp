// The Tensor engine on the platform (docs/tensor-engine.md): matmul dumps against sums written
// out here from the definition (products in binary32, summed in partition order from +0 or the
// bank), the transpose through an identity, the time against the public formulas of
// public-figures §0 and §3 (initiation interval max(N, 64), fp32 4x slower, FP8 2x on v3,
// LoadStationary 4x faster; not taken from PeTiming) on every generation, and bad instructions.
#include <algorithm>
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

class PeTest : public PlatformRunTest {};

TEST_F(PeTest, MatmulAccumulatesAGroupInPartitionOrder) {
    // S: 4 partitions x 3 fp32; A: 4 x 5 bf16; B: 4 x 5 fp32. psum = S^T A, then += S^T B.
    const int K = 4, M = 3, N = 5;
    std::vector<float> s(K * M), a(K * N), b(K * N);
    for (int i = 0; i < K * M; ++i) s[i] = 1.0f + static_cast<float>(i) / 3.0f;  // inexact products
    for (int i = 0; i < K * N; ++i) a[i] = static_cast<float>(i % 7) - 2.5f;  // exact in bf16
    for (int i = 0; i < K * N; ++i) b[i] = 0.1f * static_cast<float>(i + 1);
    t.write("s.bin", f32_bytes(s));
    t.write("a.bin", bf16_bytes(a));
    t.write("b.bin", f32_bytes(b));
    run(".data sbuf:0:0x0 partitions=4 file=s.bin\n"
        ".data sbuf:0:0x100 partitions=4 file=a.bin\n"
        ".data sbuf:0:0x200 partitions=4 file=b.bin\n"
        "pe load_stationary in_dtype=fp32 num_active_channels=4 src=sbuf:0:0x0 src.num=3,1 src.step=1,0\n"
        // the group's first matmul alone into bank 0, and then into bank 1 followed by the second
        "pe matmul in_dtype=bf16 num_active_channels=4 start=1 moving=sbuf:0:0x100 moving.num=5,1 moving.step=1,0 dst=psum:0:0x0 dst.num=5,1 "
        "dst.step=1,0\n"
        ".dump psum:0:0x0 partitions=3 bytes=20 file=first.bin\n"
        "pe matmul in_dtype=bf16 num_active_channels=4 start=1 moving=sbuf:0:0x100 moving.num=5,1 moving.step=1,0 dst=psum:0:0x800 dst.num=5,1 "
        "dst.step=1,0\n"
        "pe matmul in_dtype=fp32 num_active_channels=4 start=0 moving=sbuf:0:0x200 moving.num=5,1 moving.step=1,0 dst=psum:0:0x800 dst.num=5,1 "
        "dst.step=1,0\n"
        ".dump psum:0:0x800 partitions=3 bytes=20 file=psum.bin\n");
    const std::vector<float> first = floats(out("first.bin")), got = floats(out("psum.bin"));
    ASSERT_EQ(got.size(), static_cast<size_t>(M * N));
    ASSERT_EQ(first.size(), static_cast<size_t>(M * N));
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
            float acc = 0.0f;
            for (int k = 0; k < K; ++k) acc = acc + s[k * M + m] * a[k * N + n];
            EXPECT_EQ(bits_of(first[m * N + n]), bits_of(acc)) << "start=1 " << m << "," << n;
            for (int k = 0; k < K; ++k) acc = acc + s[k * M + m] * b[k * N + n];
            EXPECT_EQ(bits_of(got[m * N + n]), bits_of(acc)) << m << "," << n;
        }
}

TEST_F(PeTest, TransposeThroughAnIdentityMovingTile) {
    // X: 32 partitions x 16 bf16 as the stationary; the moving tile is a 32 x 32 identity:
    // psum[m][n] = X[n][m], 16 partitions x 32.
    const int K = 32, M = 16;
    std::vector<float> x(K * M), id(K * K, 0.0f);
    for (int i = 0; i < K * M; ++i) x[i] = static_cast<float>(i) * 0.25f - 40.0f;
    for (int i = 0; i < K; ++i) id[i * K + i] = 1.0f;
    t.write("x.bin", bf16_bytes(x));
    t.write("id.bin", bf16_bytes(id));
    run(".data sbuf:0:0x0 partitions=32 file=x.bin\n"
        ".data sbuf:0:0x1000 partitions=32 file=id.bin\n"
        "pe load_stationary in_dtype=bf16 num_active_channels=32 src=sbuf:0:0x0 src.num=16,1 src.step=1,0\n"
        "pe matmul in_dtype=bf16 num_active_channels=32 start=1 moving=sbuf:0:0x1000 moving.num=32,1 moving.step=1,0 dst=psum:0:0x0 dst.num=32,1 "
        "dst.step=1,0\n"
        ".dump psum:0:0x0 partitions=16 bytes=128 file=xt.bin\n");
    const std::vector<float> xt = floats(out("xt.bin"));
    for (int m = 0; m < M; ++m)
        for (int n = 0; n < K; ++n) {
            const float want = model::fp::bf16_to_f32(model::fp::f32_to_bf16(x[n * M + m]));  // X as its bf16 tile holds it
            EXPECT_EQ(bits_of(xt[m * K + n]), bits_of(want)) << m << "," << n;
        }
}

std::string mm(uint64_t n, uint32_t bank, const char* dtype = "bf16") {
    const std::string num = std::to_string(n);
    return std::string("pe matmul in_dtype=") + dtype + " num_active_channels=128 start=1 moving=sbuf:0:0x0 moving.num=" + num +
           ",1 moving.step=1,0 dst=psum:0:" + std::to_string(bank * 2048) + " dst.num=" + num + ",1 dst.step=1,0\n";
}
const char* kLoad = "pe load_stationary in_dtype=bf16 num_active_channels=128 src=sbuf:0:0x0 src.num=128,1 src.step=1,0\n";

// The latency of one matmul with an idle array: 60 cycles of access start-up (§1.4, NC-v2's
// figure), its initiation interval max(N, 64) (§3) and neuronsim's 64-cycle drain (an
// assumption the config names).
double latency(double ii) { return 60 + ii + 64; }

class PeTimeTest : public PlatformRunTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(PeTimeTest, TheInstructionTimeIsThePublicFormula) {
    gen = GetParam();
    const double ghz = gen == "sunda" ? 2.8 : 2.4;  // TensorE clock (§0; MAVERICK as v4)
    const double fp8 = gen == "cayman" ? 2 : 1;  // 158 vs 79 TFLOPS on v3; v2 cFP8 and v4 non-MX at BF16 rate
    const uint64_t ns[] = {1, 64, 512};
    std::vector<std::string> chain{kLoad};
    for (uint64_t n : ns) chain.push_back(mm(n, 0));
    chain.push_back(mm(512, 1, "fp32"));
    chain.push_back(mm(512, 2, "fp8_exp4"));
    chain.push_back(mm(512, 3, "fp8_exp3"));
    chain.push_back(mm(64, 3, "fp8_exp5"));  // the double row does not go under the 64-cycle floor
    std::string trace = chained(chain);
    // Then four independent matmuls into four banks, back to back: one every max(N, 64) cycles.
    std::string first = mm(512, 4);
    first.insert(first.size() - 1, " wait=0>=" + std::to_string(chain.size()));
    trace += first + mm(512, 5) + mm(512, 6) + mm(512, 7);
    std::string small = mm(1, 0);
    trace += small + mm(1, 1) + mm(1, 2);
    run(trace);
    EXPECT_NEAR(cycles_of("pe", 0), 60 + 128.0 / 4, 1e-6) << gen;  // load_stationary: 4x faster over M = 128, no drain
    for (int i = 0; i < 3; ++i) {
        const double want = latency(std::max<double>(static_cast<double>(ns[i]), 64));
        EXPECT_NEAR(cycles_of("pe", i + 1), want, 1e-6) << gen << " N=" << ns[i];
        EXPECT_NEAR(ns_of("pe", i + 1), want / ghz, 2e-3) << gen << " N=" << ns[i];  // 1 ps per rounded stage
    }
    EXPECT_NEAR(cycles_of("pe", 4), latency(512 * 4), 1e-6) << gen << " fp32";
    EXPECT_NEAR(cycles_of("pe", 5), latency(512 / fp8), 1e-6) << gen << " fp8_exp4";
    EXPECT_NEAR(cycles_of("pe", 6), latency(512), 1e-6) << gen << " fp8_exp3 at the BF16 rate";
    EXPECT_NEAR(cycles_of("pe", 7), latency(64), 1e-6) << gen << " fp8_exp5 N=64";
    for (int k = 9; k < 12; ++k) EXPECT_NEAR(csv_field("pe", k, 7) - csv_field("pe", k - 1, 7), 512, 1e-6) << gen << " #" << k;
    for (int k = 13; k < 15; ++k) EXPECT_NEAR(csv_field("pe", k, 7) - csv_field("pe", k - 1, 7), 64, 1e-6) << gen << " #" << k;
}

INSTANTIATE_TEST_SUITE_P(Generations, PeTimeTest, ::testing::Values("sunda", "cayman", "mariana", "mariana_plus", "maverick"));

class PeOverlapTest : public PlatformRunTest, public ::testing::WithParamInterface<std::tuple<const char*, int>> {};

// "Background LS overlaps MM" (public-figures §3): with a load_stationary before every matmul
// (new weights each time, as a weight-stationary projection streams them), the matmuls still
// stream one every max(N, 64) cycles for N = 512 and 256; the load of the next tile runs
// while the matmul before it streams.
TEST_P(PeOverlapTest, LoadStationaryOverlapsTheMatmulBeforeIt) {
    gen = std::get<0>(GetParam());
    const int n = std::get<1>(GetParam());
    std::string trace;
    for (int i = 0; i < 6; ++i) trace += std::string(kLoad) + mm(static_cast<uint64_t>(n), static_cast<uint32_t>(i));
    run(trace);
    for (int k = 1; k < 11; k += 2)  // matmuls are instructions 1, 3, ..., 11
        EXPECT_NEAR(csv_field("pe", k + 2, 7) - csv_field("pe", k, 7), n, 1e-6) << gen << " N=" << n << " #" << k;
}

INSTANTIATE_TEST_SUITE_P(Generations, PeOverlapTest,
                         ::testing::Combine(::testing::Values("sunda", "cayman", "mariana", "mariana_plus", "maverick"), ::testing::Values(512, 256)));

// At N = 64 the load is the longer: 60 cycles of access start-up and 128 / 4 of streaming
// (docs/timing-model.md) from the stream start of the matmul before it, so the matmuls are 92
// cycles apart, each waiting for its stationary ("data from pe", the load).
// nc_matmul_mx (mx=1) streams 4x the BF16 rate on NC-v4 (315 MXFP8 vs 79 BF16 TFLOPS,
// public-figures §0, §5): max(N / 4, 64) cycles. Timing only: refused in full numerics, and
// where the generation has no MX matmul.
class PeMxTest : public PlatformRunTest, public ::testing::WithParamInterface<const char*> {};

std::string mx(uint64_t n, uint32_t bank) {
    std::string m = mm(n, bank, "fp8_exp4");
    m.insert(m.find(" moving="), " mx=1");
    return m;
}

TEST_P(PeMxTest, TheMxMatmulStreamsFourTimesTheBf16Rate) {
    gen = GetParam();
    timing_only = true;
    run(chained({kLoad, mx(512, 0), mx(64, 1), mx(1, 2)}));
    EXPECT_NEAR(cycles_of("pe", 1), latency(512 / 4), 1e-6) << gen;
    EXPECT_NEAR(cycles_of("pe", 2), latency(64), 1e-6) << gen << ": the 64-cycle floor stays";
    EXPECT_NEAR(cycles_of("pe", 3), latency(64), 1e-6) << gen;
}

INSTANTIATE_TEST_SUITE_P(V4, PeMxTest, ::testing::Values("mariana", "mariana_plus", "maverick"));

TEST_F(PeTest, TheMxMatmulIsTimingOnly) {
    const std::string e = error_of(std::string(kLoad) + mx(512, 0));
    EXPECT_NE(e.find("run with --numerics none"), std::string::npos) << e;
}

TEST_F(PeTest, TheMxMatmulIsNcV4s) {
    timing_only = true;
    gen = "cayman";
    const std::string e = error_of(std::string(kLoad) + mx(512, 0));
    EXPECT_NE(e.find("CAYMAN's TensorE has no MX matmul"), std::string::npos) << e;
}

TEST_F(PeTest, AMatmulStreamsOnlyOnceItsStationaryIsLoaded) {
    std::string trace;
    for (int i = 0; i < 4; ++i) trace += std::string(kLoad) + mm(64, static_cast<uint32_t>(i));
    run(trace);
    for (int k = 3; k < 8; k += 2) EXPECT_NEAR(csv_field("pe", k, 7) - csv_field("pe", k - 2, 7), 60 + 128.0 / 4, 1e-6) << "#" << k;
    const std::string csv = out("instructions.csv");
    const size_t row = csv.find("\npe,3,");
    ASSERT_NE(row, std::string::npos);
    const std::string line = csv.substr(row + 1, csv.find('\n', row + 1) - row - 1);
    EXPECT_NE(line.find("data from pe,pe#2"), std::string::npos) << line;
}

TEST_F(PeTest, AnAccumulationGroupStreamsBackToBack) {
    // The second and third add to the first's bank: the pipeline adds in order as the columns
    // stream, so they follow one interval apart (public-figures §3: 8 accumulation groups in
    // flight), and the result is the sum of all three (tests/apps: the kernels' dumps).
    std::string more = mm(512, 0);
    more.replace(more.find("start=1"), 7, "start=0");
    run(std::string(kLoad) + mm(512, 0) + more + more);
    EXPECT_NEAR(csv_field("pe", 2, 7) - csv_field("pe", 1, 7), 512, 1e-6);
    EXPECT_NEAR(csv_field("pe", 3, 7) - csv_field("pe", 2, 7), 512, 1e-6);
}

class PeBadTest : public PlatformRunTest, public ::testing::WithParamInterface<BadCase> {};

TEST_P(PeBadTest, IsAnErrorNamingTheField) {
    const std::string e = error_of(GetParam().trace);
    EXPECT_NE(e.find(GetParam().message), std::string::npos) << e;
}

#define PE_LOAD "pe load_stationary in_dtype=bf16 num_active_channels=4 src=sbuf:0:0x0 src.num=8,1 src.step=1,0\n"
#define PE_MV "moving=sbuf:0:0x100 moving.num=8,1 moving.step=1,0 "
INSTANTIATE_TEST_SUITE_P(
    Cases, PeBadTest,
    ::testing::Values(
        BadCase{"pe matmul in_dtype=bf16 num_active_channels=4 start=1 " PE_MV "dst=psum:0:0x0 dst.num=8,1 dst.step=1,0\n",
                "matmul before any load_stationary"},
        BadCase{PE_LOAD "pe matmul in_dtype=bf16 num_active_channels=8 start=1 " PE_MV "dst=psum:0:0x0 dst.num=8,1 dst.step=1,0\n",
                "num_active_channels 8 (K) differs from the stationary tile's 4 partitions"},
        BadCase{PE_LOAD "pe matmul in_dtype=bf16 num_active_channels=4 start=1 moving=sbuf:0:0x100 moving.num=513,1 moving.step=1,0 "
                        "dst=psum:0:0x0 dst.num=513,1 dst.step=1,0\n",
                "moving has 513 elements per partition (N); one matmul streams 1..512"},
        BadCase{PE_LOAD "pe matmul in_dtype=bf16 num_active_channels=4 start=1 " PE_MV "dst=sbuf:0:0x800 dst.num=8,1 dst.step=1,0\n",
                "dst is in SBUF; a matmul writes PSUM"},
        BadCase{PE_LOAD "pe matmul in_dtype=bf16 num_active_channels=4 start=1 " PE_MV "dst=psum:0:0x7f0 dst.num=8,1 dst.step=1,0\n",
                "across a 2048-byte PSUM bank boundary"},
        BadCase{PE_LOAD "pe matmul in_dtype=bf16 num_active_channels=4 start=2 " PE_MV "dst=psum:0:0x0 dst.num=8,1 dst.step=1,0\n",
                "start 2 is not 0 (accumulate) or 1"},
        BadCase{"pe load_stationary in_dtype=int8 num_active_channels=4 src=sbuf:0:0x0 src.num=8,1 src.step=1,0\n",
                "in_dtype 0x02 (INT8) is not a TensorE input type"},
        BadCase{"pe load_stationary in_dtype=bf16 num_active_channels=4 src=sbuf:0:0x0 src.num=129,1 src.step=1,0\n", "src has 129 elements per partition (M"},
        BadCase{"pe load_stationary in_dtype=bf16 num_active_channels=0 src=sbuf:0:0x0 src.num=8,1 src.step=1,0\n",
                "num_active_channels 0 (K, the contracted partitions) is not in 1..128"},
        BadCase{PE_LOAD "pe matmul in_dtype=bf16 num_active_channels=4 start=1 moving=sbuf:32:0x100 moving.num=8,1 moving.step=1,0 "
                        "dst=psum:0:0x0 dst.num=8,1 dst.step=1,0\n",
                "moving starts at partition 32, the stationary tile at 0"},
        BadCase{PE_LOAD "pe matmul in_dtype=bf16 num_active_channels=4 start=1 " PE_MV "dst=psum:0:0x0 dst.num=4,2 dst.step=1,0\n", "dst visits byte 0 twice"},
        BadCase{"pe activate src=sbuf:0:0x0\n", "does not run on engine pe"}));

}  // namespace
}  // namespace neuronsim::test
