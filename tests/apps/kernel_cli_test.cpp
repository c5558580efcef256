// `neuronsim kernel` end to end: each kernel's trace runs and its dumped outputs equal, bit for
// bit, the kernel's steps evaluated with the reference models (neuronsim/reference.h: the
// resident tables, the dtype conversions, the CPTC decode); time scales with the rows; DMA
// and ACT overlap (double buffering).
#include <cmath>
#include <cstring>
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

TEST_P(SoftmaxBits, DumpEqualsTheStepsOnTheTables) {
    const Dtype d = GetParam() == "bf16" ? Dtype::Bfloat16 : Dtype::Fp32;
    const uint64_t rows = 200, cols = 48;  // two tiles, the second partial (72 rows)
    Kernel k("softmax", "--shape 200x48 --dtype " + GetParam() + " --seed 3");
    ASSERT_EQ(k.gen.status, 0) << k.gen.err;
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    // Each input row: the values, then -max(row) as fp32 at the next 4-byte boundary.
    const std::string in = k.input("x");
    const size_t db = model::fp::dtype_bytes(d), row_bytes = (cols * db + 3) / 4 * 4 + 4;
    ASSERT_EQ(in.size(), rows * row_bytes);
    std::vector<float> x(rows * cols), nm(rows);
    for (uint64_t r = 0; r < rows; ++r) {
        const auto* row = reinterpret_cast<const uint8_t*>(in.data()) + r * row_bytes;
        for (uint64_t c = 0; c < cols; ++c) x[r * cols + c] = model::fp::to_f32(d, row + c * db);
        nm[r] = model::fp::to_f32(Dtype::Fp32, row + row_bytes - 4);
    }
    std::vector<float> want(rows * cols);
    for (uint64_t r = 0; r < rows; ++r) {
        float sum = 0.0f;
        std::vector<float> e(cols);
        for (uint64_t c = 0; c < cols; ++c) {
            const float y = act("exp_and_others", "exp", x[r * cols + c], 1.0f, nm[r]);
            sum = sum + y;  // the accumulator takes the fp32 result, in element order
            e[c] = to_dtype(y, d);
        }
        const float recip = act("reciprocal_and_small", "reciprocal", sum);
        for (uint64_t c = 0; c < cols; ++c) want[r * cols + c] = to_dtype(act("reciprocal_and_small", "identity", e[c], recip), d);
    }
    expect_bits(values(k.output("y"), d), want);
    // The row max makes every row's largest exp 1: the outputs are probabilities.
    EXPECT_GT(want[0], 0.0f);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SoftmaxBits, ::testing::Values("fp32", "bf16"));

TEST(KernelCli, RmsnormDumpEqualsTheStepsOnTheTables) {
    const uint64_t rows = 130, cols = 96;
    Kernel k("rmsnorm", "--shape 130x96 --eps 1e-5");
    ASSERT_EQ(k.gen.status, 0) << k.gen.err;
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    const auto x = values(k.input("x"), Dtype::Fp32);
    const std::string set = "reciprocal_sqrt_and_small";
    std::vector<float> want(rows * cols);
    for (uint64_t r = 0; r < rows; ++r) {
        float s = 0.0f;
        for (uint64_t c = 0; c < cols; ++c) s = s + act(set, "square", x[r * cols + c]);
        const float rs = act(set, "reciprocal_sqrt", s, 1.0f / static_cast<float>(cols), 1e-5f);
        for (uint64_t c = 0; c < cols; ++c) want[r * cols + c] = act(set, "identity", x[r * cols + c], rs);
    }
    expect_bits(values(k.output("y"), Dtype::Fp32), want);
}

TEST(KernelCli, LayernormDumpEqualsTheStepsOnTheTables) {
    const uint64_t rows = 140, cols = 80;
    Kernel k("layernorm", "--shape 140x80 --dtype bf16 --seed 5", "cayman");
    ASSERT_EQ(k.gen.status, 0) << k.gen.err;
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    const auto x = values(k.input("x"), Dtype::Bfloat16);
    const std::string set = "reciprocal_sqrt_and_small";
    const float inv_d = 1.0f / static_cast<float>(cols);
    std::vector<float> want(rows * cols);
    for (uint64_t r = 0; r < rows; ++r) {
        float s1 = 0.0f, s2 = 0.0f;
        for (uint64_t c = 0; c < cols; ++c) s1 = s1 + act(set, "identity", x[r * cols + c]);
        const float nm = act(set, "identity", s1, -inv_d);
        for (uint64_t c = 0; c < cols; ++c) s2 = s2 + act(set, "square", x[r * cols + c], 1.0f, nm);
        const float rs = act(set, "reciprocal_sqrt", s2, inv_d, 1e-5f);
        const float nb = act(set, "identity", nm, rs);
        for (uint64_t c = 0; c < cols; ++c) want[r * cols + c] = to_dtype(act(set, "identity", x[r * cols + c], rs, nb), Dtype::Bfloat16);
    }
    expect_bits(values(k.output("y"), Dtype::Bfloat16), want);
    // Normalised: each row's mean is about 0 (the check that the steps are the right ones).
    double mean = 0;
    for (uint64_t c = 0; c < cols; ++c) mean += want[c];
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

TEST(KernelCli, SoftmaxTimeGrowsWithTheGroupsItRuns) {
    // Softmax drains a whole group (16 tiles here) before its stores start, so it approaches
    // linear over many groups: 4 -> 8 groups is within 1.7..2.15.
    Kernel a("softmax", "--shape 8192x64"), b("softmax", "--shape 16384x64");
    ASSERT_EQ(a.run.status, 0) << a.run.err;
    ASSERT_EQ(b.run.status, 0) << b.run.err;
    const double ratio = simulated_ns(b) / simulated_ns(a);
    EXPECT_GT(ratio, 1.7) << simulated_ns(a) << " ns vs " << simulated_ns(b) << " ns";
    EXPECT_LT(ratio, 2.15) << simulated_ns(a) << " ns vs " << simulated_ns(b) << " ns";
}

// A kernel generated for a generation is the fastest of the kernels generated for any
// generation when run there (docs/workloads.md): the tiling follows the generation, it is not
// a SUNDA grouping that happens to run better on MARIANA. 8192x2048 fp32 groups 11 tiles on
// SUNDA and CAYMAN and 15 on MARIANA (their SBUF sizes), so the traces differ.
TEST(KernelCli, EachGenerationsOwnSoftmaxIsItsFastest) {
    TempDir t;
    const std::vector<std::string> gens = {"sunda", "cayman", "mariana"};
    for (const std::string& g : gens) ASSERT_EQ(run_cli("kernel softmax --shape 8192x2048 --gen " + g + " -o " + t.file(g + ".trace")).status, 0) << g;
    EXPECT_NE(read_file(t.file("sunda.trace")), read_file(t.file("mariana.trace")));
    for (const std::string& on : gens) {
        std::map<std::string, double> ns;
        for (const std::string& made : gens) {
            const std::string out = t.file(made + "-on-" + on);
            CliResult r =
                run_cli("run --gen " + on + " --trace " + t.file(made + ".trace") + " --numerics none --no-csv --no-timeline --no-progress --out " + out);
            if (r.status != 0) continue;  // (a trace made for a larger SBUF does not fit)
            ns[made] = nlohmann::json::parse(read_file(out + "/stats.json"))["core"]["simulated_ps"].get<double>() / 1000;
        }
        ASSERT_TRUE(ns.count(on)) << on;
        for (const auto& [made, v] : ns)
            EXPECT_LE(ns[on], v) << "on " << on << ": its own trace " << ns[on] << " ns, the one made for " << made << " " << v << " ns";
    }
}

// The generator says what a compiler would do instead of switching sets per group.
TEST(KernelCli, SoftmaxSaysACompilerKeepsOneSetResident) {
    TempDir t;
    CliResult k = run_cli("kernel softmax --shape 4096x512 -o " + t.file("s.trace"));
    ASSERT_EQ(k.status, 0) << k.err;
    const std::string note =
        "switches from exp_and_others to reciprocal_and_small for 1/sum and back, 2 table loads a group; a compiler keeps exp_and_others resident";
    EXPECT_NE(k.out.find("note: softmax 4096x512 fp32: each of its 2 groups of up to 16 tiles " + note), std::string::npos) << k.out;
    EXPECT_NE(read_file(t.file("s.trace")).find("# Note: softmax 4096x512 fp32: each of its 2 groups"), std::string::npos);
    // One group has nothing to say.
    k = run_cli("kernel softmax --shape 512x512 -o " + t.file("one.trace"));
    ASSERT_EQ(k.status, 0) << k.err;
    EXPECT_EQ(k.out.find("note:"), std::string::npos) << k.out;
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

// The share of the activations' time during which a DMA copy is in flight.
double overlap_share(const Kernel& k) {
    const auto iv = intervals(read_file(k.t.file("run/instructions.csv")));
    double overlap = 0, act_busy = 0;
    for (const Interval& a : iv) {
        if (a.engine != "act" || a.mnemonic != "activate") continue;
        act_busy += a.end - a.start;
        double best = 0;  // the longest DMA copy overlap of this activation
        for (const Interval& d : iv)
            if (d.engine.rfind("dma", 0) == 0 && d.mnemonic == "copy") best = std::max(best, std::min(a.end, d.end) - std::max(a.start, d.start));
        overlap += best;
    }
    return act_busy > 0 ? overlap / act_busy : -1;
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
    Kernel k("", "--model bert-base --layer 3 --seq 128 --dtype bf16");
    ASSERT_EQ(k.gen.status, 0) << k.gen.err;
    ASSERT_EQ(k.run.status, 0) << k.run.err;
    const auto s = k.stats();
    // softmax 12*128 x 128, layernorm 128 x 768 twice, gelu 128 x 3072: every element computed.
    EXPECT_GE(s["act"]["elements"].get<uint64_t>(), 12ull * 128 * 128 + 2 * 128 * 768 + 128 * 3072);
}

}  // namespace
}  // namespace neuronsim::test
