// `neuronsim kernel` end to end: each kernel's trace runs and its dumped outputs equal, bit for
// bit, the kernel's steps evaluated with the reference models (neuronsim/reference.h: the
// resident tables, the dtype conversions, the CPTC decode); time scales with the rows; DMA
// and ACT overlap (double buffering).
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/cptc/cptc.h"
#include "model/fp/dtype.h"
#include "neuronsim/reference.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

using model::fp::Dtype;

struct Kernel {
    TempDir t;
    CliResult gen, run;
    // Writes `name` with `args` and runs it on `gen_name`.
    Kernel(const std::string& name, const std::string& args, const std::string& gen_name = "mariana", const std::string& run_args = "") {
        gen = run_cli("kernel " + name + " " + args + " --gen " + gen_name + " -o " + t.file("k.trace"));
        if (gen.status != 0) return;
        run = run_cli("run --gen " + gen_name + " --trace " + t.file("k.trace") + " --out " + t.file("run") + " --no-progress " + run_args);
    }
    std::string input(const std::string& tensor) const { return read_file(t.file("k_" + tensor + ".bin")); }
    std::string output(const std::string& tensor) const { return read_file(t.file("run/k_" + tensor + ".bin")); }
    nlohmann::json stats() const { return nlohmann::json::parse(read_file(t.file("run/stats.json")))["core"]; }
};

std::vector<float> values(const std::string& bytes, Dtype d) {
    const size_t n = model::fp::dtype_bytes(d);
    std::vector<float> v(bytes.size() / n);
    for (size_t i = 0; i < v.size(); ++i) v[i] = model::fp::to_f32(d, reinterpret_cast<const uint8_t*>(bytes.data()) + i * n);
    return v;
}

float to_dtype(float v, Dtype d) {  // what storing v as d and reading it back gives
    uint8_t b[4];
    model::fp::from_f32(d, v, b);
    return model::fp::to_f32(d, b);
}

// Activate's element: f(scale * x + bias), multiply then add, from the set's tables.
float act(const std::string& set, const std::string& fn, float x, float scale = 1.0f, float bias = 0.0f) {
    float v = scale * x;
    v = v + bias;
    return reference::activation(set, fn, v);
}

void expect_bits(const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size());
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
        if (std::memcmp(&got[i], &want[i], 4) != 0 && bad++ < 5) ADD_FAILURE() << "element " << i << ": got " << got[i] << ", want " << want[i];
    EXPECT_EQ(bad, 0u);
}

class SoftmaxBits : public ::testing::TestWithParam<std::string> {};

// The steps as the operations define them (docs/vector-engine.md, the ACT pipeline): VectorE's
// max in binary32, ScalarE's exp from the table with -max as its bias and the fp32 results summed
// in element order, VectorE's IEEE 1/sum and binary32 product, each output rounded to the dtype.
TEST_P(SoftmaxBits, DumpEqualsTheStepsOnTheTables) {
    const Dtype d = GetParam() == "bf16" ? Dtype::Bfloat16 : Dtype::Fp32;
    const uint64_t rows = 200, cols = 48;  // two tiles, the second partial (72 rows)
    Kernel k("softmax", "--shape 200x48 --dtype " + GetParam() + " --seed 3");
    ASSERT_EQ(k.gen.status, 0) << k.gen.err;
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    const std::vector<float> x = values(k.input("x"), d);
    ASSERT_EQ(x.size(), rows * cols);
    std::vector<float> want(rows * cols);
    for (uint64_t r = 0; r < rows; ++r) {
        float m = x[r * cols];
        for (uint64_t c = 1; c < cols; ++c) m = std::max(m, x[r * cols + c]);
        float sum = 0.0f;
        std::vector<float> e(cols);
        for (uint64_t c = 0; c < cols; ++c) {
            const float y = act("exp_and_others", "exp", x[r * cols + c], 1.0f, -m);
            sum = sum + y;  // the accumulator takes the fp32 result, in element order
            e[c] = to_dtype(y, d);
        }
        const float recip = 1.0f / sum;
        for (uint64_t c = 0; c < cols; ++c) want[r * cols + c] = to_dtype(e[c] * recip, d);
    }
    expect_bits(values(k.output("y"), d), want);
    // The row max makes every row's largest exp 1: the outputs are probabilities.
    double row0 = 0;
    for (uint64_t c = 0; c < cols; ++c) row0 += want[c];
    EXPECT_NEAR(row0, 1.0, d == Dtype::Fp32 ? 1e-5 : 0.05);
    // One table set for the whole kernel, the rest on VectorE.
    EXPECT_EQ(k.stats()["act"]["table_loads"].get<uint64_t>(), 1u) << k.stats()["act"].dump();
    EXPECT_EQ(k.stats()["dve"]["instructions"].get<uint64_t>(), 2u * 3 + 2) << k.stats()["dve"].dump();
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SoftmaxBits, ::testing::Values("fp32", "bf16"));

TEST(KernelCli, RmsnormDumpEqualsTheStepsOnTheTables) {
    const uint64_t rows = 130, cols = 96;
    Kernel k("rmsnorm", "--shape 130x96 --eps 1e-5");
    ASSERT_EQ(k.gen.status, 0) << k.gen.err;
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    const auto x = values(k.input("x"), Dtype::Fp32);
    const auto gamma = values(k.input("gamma"), Dtype::Fp32);
    ASSERT_EQ(gamma.size(), cols);
    const std::string set = "reciprocal_sqrt_and_small";
    std::vector<float> want(rows * cols);
    for (uint64_t r = 0; r < rows; ++r) {
        float s = 0.0f;
        for (uint64_t c = 0; c < cols; ++c) s = s + act(set, "square", x[r * cols + c]);
        const float rs = act(set, "reciprocal_sqrt", s, 1.0f / static_cast<float>(cols), 1e-5f);
        for (uint64_t c = 0; c < cols; ++c) want[r * cols + c] = act(set, "identity", x[r * cols + c], rs) * gamma[c];  // VectorE: binary32
    }
    expect_bits(values(k.output("y"), Dtype::Fp32), want);
}

TEST(KernelCli, LayernormDumpEqualsTheStepsOnTheTables) {
    const uint64_t rows = 140, cols = 80;
    Kernel k("layernorm", "--shape 140x80 --dtype bf16 --seed 5", "cayman");
    ASSERT_EQ(k.gen.status, 0) << k.gen.err;
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    const auto x = values(k.input("x"), Dtype::Bfloat16);
    const auto gamma = values(k.input("gamma"), Dtype::Bfloat16), beta = values(k.input("beta"), Dtype::Bfloat16);
    ASSERT_EQ(gamma.size(), cols);
    ASSERT_EQ(beta.size(), cols);
    const std::string set = "reciprocal_sqrt_and_small";
    std::vector<float> normalised(rows * cols);
    const float inv_d = 1.0f / static_cast<float>(cols);
    std::vector<float> want(rows * cols);
    for (uint64_t r = 0; r < rows; ++r) {
        float s1 = 0.0f, s2 = 0.0f;
        for (uint64_t c = 0; c < cols; ++c) s1 = s1 + act(set, "identity", x[r * cols + c]);
        const float nm = act(set, "identity", s1, -inv_d);
        for (uint64_t c = 0; c < cols; ++c) s2 = s2 + act(set, "square", x[r * cols + c], 1.0f, nm);
        const float rs = act(set, "reciprocal_sqrt", s2, inv_d, 1e-5f);
        const float nb = act(set, "identity", nm, rs);
        for (uint64_t c = 0; c < cols; ++c) {
            const Dtype b = Dtype::Bfloat16;  // each engine writes bf16: ScalarE's y, VectorE's y * gamma, then + beta
            normalised[r * cols + c] = to_dtype(act(set, "identity", x[r * cols + c], rs, nb), b);
            want[r * cols + c] = to_dtype(to_dtype(normalised[r * cols + c] * gamma[c], b) + beta[c], b);
        }
    }
    expect_bits(values(k.output("y"), Dtype::Bfloat16), want);
    // Normalised before gamma and beta: each row's mean is about 0 (the steps are the right ones).
    double mean = 0;
    for (uint64_t c = 0; c < cols; ++c) mean += normalised[c];
    EXPECT_NEAR(mean / cols, 0.0, 0.05);
}

class MlpActBits : public ::testing::TestWithParam<std::string> {};

TEST_P(MlpActBits, DumpEqualsTheTables) {
    Kernel k("mlp-act", "--shape 256x40 --act " + GetParam(), "sunda");
    ASSERT_EQ(k.gen.status, 0) << k.gen.err;
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    const std::string set = GetParam() == "gelu" ? "gelu_and_others" : "silu_and_others";
    const auto x = values(k.input("x"), Dtype::Fp32);
    std::vector<float> want(x.size());
    for (size_t i = 0; i < x.size(); ++i) want[i] = act(set, GetParam(), x[i]);
    expect_bits(values(k.output("y"), Dtype::Fp32), want);
}

INSTANTIATE_TEST_SUITE_P(Functions, MlpActBits, ::testing::Values("gelu", "silu"));

// A weight [kdim, mdim] from the pre-tiled layout (docs/workloads.md, "mlp"): element (k, c) at
// row (c/128)*128 + k%128, column (k/128)*128 + c%128 of KT x 128 elements.
std::vector<float> untile(const std::vector<float>& t, uint64_t kdim, uint64_t mdim) {
    const uint64_t kt = (kdim + 127) / 128;
    std::vector<float> w(kdim * mdim);
    for (uint64_t k = 0; k < kdim; ++k)
        for (uint64_t c = 0; c < mdim; ++c) w[k * mdim + c] = t[((c / 128 * 128 + k % 128) * kt + k / 128) * 128 + c % 128];
    return w;
}

// out[m][n] = sum over k in order of float(w[k][m] * in[k][n]): a matmul's PSUM accumulation
// over every k-tile (docs/tensor-engine.md), [kdim, mdim] x [kdim, n] -> [mdim, n].
std::vector<float> contract(const std::vector<float>& w, const std::vector<float>& in, uint64_t kdim, uint64_t mdim, uint64_t n) {
    std::vector<float> out(mdim * n);
    for (uint64_t m = 0; m < mdim; ++m)
        for (uint64_t c = 0; c < n; ++c) {
            float s = 0.0f;
            for (uint64_t k = 0; k < kdim; ++k) s = s + w[k * mdim + m] * in[k * n + c];
            out[m * n + c] = s;
        }
    return out;
}

class MlpBits : public ::testing::TestWithParam<std::string> {};

// Two token blocks (the second partial), tails in the hidden and intermediate sizes: the dump
// is the definition's result, bit for bit.
TEST_P(MlpBits, DumpEqualsTheMatmulsAndTheTables) {
    const bool gated = GetParam() == "silu";
    const uint64_t T = 600, H = 160, I = 200;
    const Dtype d = Dtype::Bfloat16;
    Kernel k("mlp", "--shape 600x160 --intermediate 200 --dtype bf16 --act " + GetParam(), "cayman");
    ASSERT_EQ(k.gen.status, 0) << k.gen.err;
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    const auto x = values(k.input("x"), d);
    ASSERT_EQ(x.size(), H * T);
    const auto wg = untile(values(k.input(gated ? "w_gate" : "w_1"), d), H, I);
    const auto wd = untile(values(k.input(gated ? "w_down" : "w_2"), d), I, H);
    const std::string set = gated ? "silu_and_others" : "gelu_and_others";
    const auto g = contract(wg, x, H, I, T);
    std::vector<float> a(I * T);
    for (size_t e = 0; e < a.size(); ++e) a[e] = to_dtype(act(set, GetParam(), g[e]), d);
    if (gated) {
        const auto u = contract(untile(values(k.input("w_up"), d), H, I), x, H, I, T);
        for (size_t e = 0; e < a.size(); ++e) a[e] = to_dtype(a[e] * u[e], d);  // VectorE: binary32, rounded to bf16
    }
    std::vector<float> want = contract(wd, a, I, H, T);
    for (float& v : want) v = to_dtype(v, d);
    expect_bits(values(k.output("y"), d), want);
    const auto st = k.stats();
    EXPECT_EQ(st["act"]["table_loads"].get<uint64_t>(), 1u);
    // Two token blocks x (gate and up, or W_1: 2 k-tiles x 2 m-blocks each; down: 2 i-tiles x 2 h-blocks),
    // each matmul after its own load_stationary.
    const uint64_t matmuls = 2u * ((gated ? 2 : 1) * 2 * 2 + 2 * 2);
    EXPECT_EQ(st["pe"]["by_mnemonic"]["matmul"]["count"].get<uint64_t>(), matmuls) << st["pe"].dump();
    EXPECT_EQ(st["pe"]["by_mnemonic"]["load_stationary"]["count"].get<uint64_t>(), matmuls) << st["pe"].dump();
}

INSTANTIATE_TEST_SUITE_P(Forms, MlpBits, ::testing::Values("silu", "gelu"));

// linear: y = W^T x, each sum in k order over every k-tile; three token blocks (the last
// partial) and tails in the input and output sizes.
TEST(KernelCli, LinearDumpEqualsTheMatmul) {
    const uint64_t T = 1100, IN = 200, OUT = 300;
    const Dtype d = Dtype::Bfloat16;
    Kernel k("linear", "--shape 1100x200 --features 300 --dtype bf16 --seed 4", "mariana", "--hazards error");
    ASSERT_EQ(k.gen.status, 0) << k.gen.err;
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    const auto x = values(k.input("x"), d);
    ASSERT_EQ(x.size(), IN * T);
    std::vector<float> want = contract(untile(values(k.input("w"), d), IN, OUT), x, IN, OUT, T);
    for (float& v : want) v = to_dtype(v, d);
    expect_bits(values(k.output("y"), d), want);
    const auto st = k.stats();
    if (st.contains("act")) EXPECT_EQ(st["act"].value("table_loads", uint64_t{0}), 0u) << st["act"].dump();  // no activation
    // 3 token blocks x 3 output blocks x 2 k-tiles.
    EXPECT_EQ(st["pe"]["by_mnemonic"]["matmul"]["count"].get<uint64_t>(), 3u * 3 * 2) << st["pe"].dump();
}

struct AttentionCase {
    std::string dtype, gen;
    uint64_t S, H, heads;
    friend void PrintTo(const AttentionCase& c, std::ostream* o) { *o << c.dtype << " " << c.S << "x" << c.H << " " << c.heads << " heads on " << c.gen; }
};

class AttentionBits : public ::testing::TestWithParam<AttentionCase> {};

// O_h^T = V_h^T softmax(Q_h K_h^T / sqrt(d))^T as its steps define it: the scores summed in d
// order (binary32), VectorE's -max times 1/sqrt(d), ScalarE's exp(scale * s + bias) from the
// table with the fp32 results summed in key order, P rounded to the dtype, VectorE's 1/sum and
// product rounded again; the transposes exact; O^T summed over the keys in order, rounded.
TEST_P(AttentionBits, DumpEqualsTheStepsOnTheTables) {
    const AttentionCase c = GetParam();
    const Dtype dt = c.dtype == "bf16" ? Dtype::Bfloat16 : Dtype::Fp32;
    const uint64_t S = c.S, H = c.H, d = c.H / c.heads;
    Kernel k("attention",
             "--shape " + std::to_string(S) + "x" + std::to_string(H) + " --heads " + std::to_string(c.heads) + " --dtype " + c.dtype + " --seed 7", c.gen,
             "--hazards error");
    ASSERT_EQ(k.gen.status, 0) << k.gen.err;
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    const auto q = values(k.input("q"), dt), kk = values(k.input("k"), dt), v = values(k.input("v"), dt);
    ASSERT_EQ(q.size(), H * S);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    std::vector<float> want(H * S);
    double row_sum0 = 0;
    for (uint64_t h = 0; h < c.heads; ++h)
        for (uint64_t qi = 0; qi < S; ++qi) {
            std::vector<float> s(S), p(S);
            for (uint64_t key = 0; key < S; ++key) {
                float a = 0.0f;
                for (uint64_t i = 0; i < d; ++i) a = a + q[(h * d + i) * S + qi] * kk[(h * d + i) * S + key];
                s[key] = a;
            }
            float m = s[0];
            for (uint64_t key = 1; key < S; ++key) m = std::max(m, s[key]);
            const float bias = -m * scale;
            float sum = 0.0f;
            for (uint64_t key = 0; key < S; ++key) {
                const float y = act("exp_and_others", "exp", s[key], scale, bias);
                sum = sum + y;
                p[key] = to_dtype(y, dt);
            }
            const float rc = 1.0f / sum;
            for (uint64_t key = 0; key < S; ++key) p[key] = to_dtype(p[key] * rc, dt);
            if (h == 0 && qi == 0)
                for (float x : p) row_sum0 += x;
            for (uint64_t j = 0; j < d; ++j) {
                float o = 0.0f;
                for (uint64_t key = 0; key < S; ++key) o = o + v[(h * d + j) * S + key] * p[key];
                want[(h * d + j) * S + qi] = to_dtype(o, dt);
            }
        }
    expect_bits(values(k.output("o"), dt), want);
    EXPECT_NEAR(row_sum0, 1.0, dt == Dtype::Fp32 ? 1e-5 : 0.05);  // the probabilities of one query
    const auto st = k.stats();
    EXPECT_EQ(st["act"]["table_loads"].get<uint64_t>(), 1u);
    // Per head: the q-tiles' score chunks, every P block and V block transposed, PV per key block.
    const uint64_t nq = (S + 127) / 128, chunks = (S + 511) / 512;
    const uint64_t matmuls = c.heads * (nq * (chunks + 2 * nq) + nq);
    EXPECT_EQ(st["pe"]["by_mnemonic"]["matmul"]["count"].get<uint64_t>(), matmuls) << st["pe"].dump();
}

INSTANTIATE_TEST_SUITE_P(Shapes, AttentionBits,
                         ::testing::Values(AttentionCase{"bf16", "cayman", 200, 128, 2},  // partial q-tile and key block, d = 64
                                           AttentionCase{"fp32", "mariana", 600, 96, 3},  // scores over two PSUM banks, d = 32
                                           AttentionCase{"bf16", "sunda", 1100, 64, 2}),  // three banks, one score buffer
                         [](const auto& i) { return i.param.dtype + "_" + std::to_string(i.param.S); });

TEST(KernelCli, AttentionRefusesWhatItCannotHold) {
    TempDir t;
    const auto gen = [&](const std::string& args) { return run_cli("kernel attention " + args + " -o " + t.file("k.trace")); };
    CliResult a = gen("--shape 4096x512 --heads 4");
    EXPECT_EQ(a.status, 1);
    EXPECT_NE(a.err.find("at most 2048 keys"), std::string::npos) << a.err;
    CliResult b = gen("--shape 256x100 --heads 3");
    EXPECT_EQ(b.status, 1);
    EXPECT_NE(b.err.find("must divide the hidden size 100"), std::string::npos) << b.err;
    CliResult c = gen("--shape 256x512 --heads 2");
    EXPECT_EQ(c.status, 1);
    EXPECT_NE(c.err.find("a head of 256 rows exceeds the 128 partitions"), std::string::npos) << c.err;
    CliResult d = run_cli("kernel softmax --heads 2 -o " + t.file("k.trace"));
    EXPECT_EQ(d.status, 1);
    EXPECT_NE(d.err.find("--heads applies to attention only"), std::string::npos) << d.err;
    CliResult e = gen("--shape 256x200");
    EXPECT_EQ(e.status, 1);
    EXPECT_NE(e.err.find("the default --heads (hidden / 64 = 3) does not divide the hidden size 200; give --heads N"), std::string::npos) << e.err;
    CliResult z = gen("--shape 256x256 --heads 0");
    EXPECT_EQ(z.status, 2);
    EXPECT_NE(z.err.find("--heads 0: expected a positive number"), std::string::npos) << z.err;
    // d = 96 does not divide a ring of 512 rows (fp32 rows of 2 KiB, 1 MiB per input)
    CliResult r = gen("--shape 512x768 --heads 8 --max-data-mib 1");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("heads of 96 rows do not divide"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(t.file("k_q.bin"))) << "inputs left without their trace";
}

TEST(KernelCli, CptcDequantActDumpEqualsTheDecodeThenTheTables) {
    const uint64_t rows = 256, cols = 200;
    Kernel k("cptc-dequant-act", "--shape 256x200 --bits 4", "mariana", "-p gpsimd.cptc_flag=true");
    ASSERT_EQ(k.gen.status, 0) << k.gen.err;
    EXPECT_NE(k.gen.out.find("-p gpsimd.cptc_flag=true"), std::string::npos) << k.gen.out;
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    const std::string w = k.input("w_cptc4");
    const uint64_t stream = model::cptc::stream_bytes(4, cols, 64, true);
    ASSERT_EQ(w.size(), rows * stream);
    const model::cptc::Target target = model::cptc::route_target(4, model::cptc::default_routing());
    std::vector<float> want(rows * cols);
    for (uint64_t r = 0; r < rows; ++r) {
        const auto* s = reinterpret_cast<const uint8_t*>(w.data()) + r * stream;
        const auto codes = reference::cptc_codes(s, cols, 4, true);
        for (uint64_t c = 0; c < cols; ++c) {
            uint8_t h[2];
            model::cptc::reconstruct(target, codes[c], 0x3c00, reference::cptc_block_scale(s, 4, cols, 64, model::cptc::kFormatBlockScales, c), h);
            want[r * cols + c] = act("gelu_and_others", "gelu", model::fp::to_f32(Dtype::Fp16, h));
        }
    }
    expect_bits(values(k.output("y"), Dtype::Fp32), want);
}

TEST(KernelCli, CptcIsRefusedWhereTheGenerationCannotStageIt) {
    for (const char* gen : {"sunda", "cayman"}) {
        TempDir t;
        CliResult r = run_cli(std::string("kernel cptc-dequant-act --gen ") + gen + " -o " + t.file("k.trace"));
        EXPECT_EQ(r.status, 1) << gen;
        EXPECT_NE(r.err.find("cannot decode CPTC"), std::string::npos) << r.err;
    }
}

double simulated_ns(const Kernel& k) { return k.stats()["simulated_ps"].get<double>() / 1000; }

TEST(KernelCli, SimulatedTimeScalesLinearlyWithTheRows) {
    // 16 and 32 tiles: the pipeline's fill and drain (about one tile) are a small part of either.
    Kernel a("mlp-act", "--shape 2048x512"), b("mlp-act", "--shape 4096x512");
    ASSERT_EQ(a.run.status, 0) << a.run.err;
    ASSERT_EQ(b.run.status, 0) << b.run.err;
    const double ratio = simulated_ns(b) / simulated_ns(a);
    EXPECT_GT(ratio, 1.85) << simulated_ns(a) << " ns vs " << simulated_ns(b) << " ns";
    EXPECT_LT(ratio, 2.15) << simulated_ns(a) << " ns vs " << simulated_ns(b) << " ns";
}

TEST(KernelCli, SoftmaxTimeScalesWithTheRows) {
    // 64 -> 128 tiles through the same pipeline of DMA, VectorE and ScalarE.
    Kernel a("softmax", "--shape 8192x64"), b("softmax", "--shape 16384x64");
    ASSERT_EQ(a.run.status, 0) << a.run.err;
    ASSERT_EQ(b.run.status, 0) << b.run.err;
    const double ratio = simulated_ns(b) / simulated_ns(a);
    EXPECT_GT(ratio, 1.7) << simulated_ns(a) << " ns vs " << simulated_ns(b) << " ns";
    EXPECT_LT(ratio, 2.15) << simulated_ns(a) << " ns vs " << simulated_ns(b) << " ns";
}

struct Interval {
    std::string engine, mnemonic;
    double start, end;
};

std::vector<Interval> intervals(const std::string& csv) {
    std::vector<Interval> out;
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line);  // header: engine,index,opcode,mnemonic,start_ns,end_ns,...
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::istringstream l(line);
        for (std::string x; std::getline(l, x, ',');) f.push_back(x);
        if (f.size() > 5) out.push_back({f[0], f[3], std::stod(f[4]), std::stod(f[5])});
    }
    return out;
}

// The share of the activations' time during which an instruction `mnemonic` of an engine
// named `engine...` is in flight (by default a DMA copy).
double overlap_share(const Kernel& k, const std::string& engine = "dma", const std::string& mnemonic = "copy") {
    const auto iv = intervals(read_file(k.t.file("run/instructions.csv")));
    double overlap = 0, act_busy = 0;
    for (const Interval& a : iv) {
        if (a.engine != "act" || a.mnemonic != "activate") continue;
        act_busy += a.end - a.start;
        double best = 0;  // the longest overlap of this activation with one such instruction
        for (const Interval& d : iv)
            if (d.engine.rfind(engine, 0) == 0 && d.mnemonic == mnemonic) best = std::max(best, std::min(a.end, d.end) - std::max(a.start, d.start));
        overlap += best;
    }
    return act_busy > 0 ? overlap / act_busy : -1;
}

// A projection at model size is TensorE-bound: its time is the matmuls' public streaming time
// (max(N, 64) cycles for 16-bit inputs at 2.4 GHz on MARIANA, public-figures §0/§3; each
// load_stationary behind the matmul before it, each accumulation group back to back) plus the
// first load of x and x's reload between the two token blocks. Before those two overlaps were
// modelled it took 1.42x.
TEST(KernelCli, LinearTakesTheMatmulsPublicTime) {
    Kernel k("linear", "--shape 1024x2048 --features 2048 --dtype bf16", "mariana", "--numerics none --no-csv --no-timeline");
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    const auto st = k.stats();
    const uint64_t matmuls = 2 * 16 * 16;  // 2 token blocks of 512 x 16 output blocks x 16 k-tiles
    EXPECT_EQ(st["pe"]["by_mnemonic"]["matmul"]["count"].get<uint64_t>(), matmuls);
    const double bound_ns = matmuls * 512 / 2.4;
    EXPECT_GE(simulated_ns(k), bound_ns);
    EXPECT_LE(simulated_ns(k), 1.25 * bound_ns) << "TensorE bound " << bound_ns << " ns";
    EXPECT_EQ(st["derived"]["critical_engine"].get<std::string>(), "pe");
    EXPECT_GT(st["pe"]["busy_ps"].get<double>(), 0.8 * st["simulated_ps"].get<double>());
}

TEST(KernelCli, DoubleBufferingOverlapsDmaWithActivations) {
    Kernel k("mlp-act", "--shape 1024x2048");
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    // Every activation runs while a load or store is in flight...
    EXPECT_GT(overlap_share(k), 0.8);
    // ...and with one buffer (load, compute, store in turn) none does.
    Kernel single("mlp-act", "--shape 1024x2048 --buffers 1");
    ASSERT_EQ(single.run.status, 0) << single.run.err;
    EXPECT_LT(overlap_share(single), 0.05);
    EXPECT_GT(simulated_ns(single), 1.2 * simulated_ns(k));
}

// VectorE runs one tile behind ScalarE: a tile's 1/sum and scale (tensor_scalar) run while
// ScalarE computes the next tile's exp. With one buffer the engines take turns.
TEST(KernelCli, SoftmaxOverlapsVectorEWithScalarE) {
    Kernel k("softmax", "--shape 2048x2048");
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    EXPECT_GT(overlap_share(k, "dve", "tensor_scalar"), 0.3);
    Kernel single("softmax", "--shape 2048x2048 --buffers 1");
    ASSERT_EQ(single.run.status, 0) << single.run.err;
    EXPECT_LT(overlap_share(single, "dve", "tensor_scalar"), 0.05);
    EXPECT_GT(simulated_ns(single), 1.2 * simulated_ns(k));
}

// A kernel waits on one semaphore tile after tile (>= 1, >= 2, ...): stats.json keeps one
// cause per semaphore and releasing engine, counting every stall, with the values' range.
TEST(KernelCli, StallCausesGroupTheValuesOfOneSemaphore) {
    Kernel k("softmax", "--shape 2048x64");  // 16 tiles
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    const auto queues = k.stats()["queues"];
    ASSERT_TRUE(queues.contains("dma.1")) << queues.dump();
    const auto stalls = queues["dma.1"]["stalls"];
    ASSERT_TRUE(stalls.contains("semaphore40_ge_released_by_dve")) << stalls.dump();
    const auto& c = stalls["semaphore40_ge_released_by_dve"];
    EXPECT_GT(c["count"].get<uint64_t>(), 1u) << stalls.dump();
    EXPECT_EQ(c["cause"].get<std::string>().rfind("semaphore 40 >= 1..", 0), 0u) << c.dump();
    for (auto it = stalls.begin(); it != stalls.end(); ++it) {  // no per-value keys ("semaphore40_ge_3...")
        const size_t ge = it.key().find("_ge_");
        EXPECT_TRUE(ge == std::string::npos || !std::isdigit(static_cast<unsigned char>(it.key()[ge + 4]))) << it.key();
    }
}

TEST(KernelCli, ListAndBadShapes) {
    CliResult l = run_cli("kernel --list");
    EXPECT_EQ(l.status, 0);
    for (const char* k : {"softmax", "rmsnorm", "layernorm", "mlp-act", "cptc-dequant-act", "bert-base", "llama2-7b"})
        EXPECT_NE(l.out.find(k), std::string::npos) << k;
    TempDir t;
    CliResult s = run_cli("kernel softmax --shape 12x -o " + t.file("k.trace"));
    EXPECT_EQ(s.status, 2);
    EXPECT_NE(s.err.find("expected ROWSxCOLS"), std::string::npos) << s.err;
    CliResult f = run_cli("kernel softmax --shape 128x100000 -o " + t.file("k.trace"));
    EXPECT_EQ(f.status, 1);
    EXPECT_NE(f.err.find("free-size limit"), std::string::npos) << f.err;
}

TEST(KernelCli, ModelPresetRunsEndToEnd) {
    // The blocks one after another, no two engines racing across a phase boundary.
    Kernel k("", "--model bert-base --layer 3 --seq 128 --dtype bf16", "mariana", "--hazards error");
    ASSERT_EQ(k.gen.status, 0) << k.gen.err;
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    for (const char* phase : {"linear 128x768 bf16 to 2304", "attention 128x768 bf16 12 heads", "linear 128x768 bf16 to 768", "layernorm 128x768 bf16",
                              "mlp 128x768 bf16 gelu intermediate 3072"})
        EXPECT_NE(k.gen.out.find(phase), std::string::npos) << phase << " in " << k.gen.out;
    const auto s = k.stats();
    // exp over 12 heads' 128 x 128 scores, layernorm 128 x 768 twice (five passes), gelu 128 x 3072.
    EXPECT_GE(s["act"]["elements"].get<uint64_t>(), 12ull * 128 * 128 + 2 * 128 * 768 + 128 * 3072);
    // QKV, out, W_1, W_2 at 128 tokens (one block): their k-tiles x output blocks; attention's
    // scores, P and V transposes, PV per head (one q-tile, one key block).
    const uint64_t kt = 768 / 128, it = 3072 / 128;
    const uint64_t matmuls = kt * 3 * kt + kt * kt + kt * it + it * kt + 12 * 4;
    EXPECT_EQ(s["pe"]["by_mnemonic"]["matmul"]["count"].get<uint64_t>(), matmuls) << s["pe"].dump();
    // exp_and_others (attention), the norm's set, gelu_and_others (mlp), the norm's set again.
    EXPECT_EQ(s["act"]["table_loads"].get<uint64_t>(), 4u);
}

}  // namespace
}  // namespace neuronsim::test
