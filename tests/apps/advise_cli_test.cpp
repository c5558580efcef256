// `neuronsim advise` end to end: on traces/set_thrash.trace it finds the better order, the
// rewritten trace computes the same outputs with fewer table loads, and the saving printed is
// the difference of the two simulations.
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

const std::string kSrc = NEURONSIM_SOURCE_DIR;

double simulated_ps(const std::string& out) { return nlohmann::json::parse(read_file(out + "/stats.json"))["core"]["simulated_ps"].get<double>(); }

TEST(AdviseCli, SetThrashGetsTheBetterOrderAndItsSaving) {
    TempDir t;
    CliResult a = run_cli("advise " + kSrc + "/traces/set_thrash.trace -o " + t.file("better.trace") + " --gen mariana");
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_NE(a.out.find("5 table loads (1 redundant, 0 unused)"), std::string::npos) << a.out;
    EXPECT_NE(a.out.find("REDUNDANT"), std::string::npos) << a.out;
    EXPECT_NE(a.out.find("suggestion: 2 table loads instead of 5"), std::string::npos) << a.out;
    EXPECT_NE(a.out.find("saves"), std::string::npos) << a.out;

    // The rewritten trace, run from another directory, gives the same outputs, faster.
    CliResult o = run_cli("run --gen mariana --trace " + kSrc + "/traces/set_thrash.trace --out " + t.file("orig") + " --no-progress");
    CliResult b = run_cli("run --gen mariana --trace " + t.file("better.trace") + " --out " + t.file("better") + " --no-progress");
    ASSERT_EQ(o.status, 0) << o.err;
    ASSERT_EQ(b.status, 0) << b.err;
    for (const char* dump : {"exp.bin", "sigmoid.bin"}) EXPECT_EQ(read_file(t.file("orig/") + dump), read_file(t.file("better/") + dump)) << dump;
    const auto stats = nlohmann::json::parse(read_file(t.file("better/stats.json")))["core"];
    EXPECT_EQ(stats["act"]["table_loads"].get<int>(), 2);
    const double saved_ns = (simulated_ps(t.file("orig")) - simulated_ps(t.file("better"))) / 1000;
    EXPECT_GT(saved_ns, 0);
    char expect[64];
    std::snprintf(expect, sizeof expect, "saves %.1f ns", saved_ns);
    EXPECT_NE(a.out.find(expect), std::string::npos) << expect << "\n" << a.out;
}

TEST(AdviseCli, AGeneratedSoftmaxIsAlreadyBest) {
    TempDir t;
    ASSERT_EQ(run_cli("kernel softmax --shape 512x64 -o " + t.file("s.trace")).status, 0);
    CliResult a = run_cli("advise " + t.file("s.trace") + " --no-simulate");
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_NE(a.out.find("no order or set choice with fewer table loads"), std::string::npos) << a.out;
    EXPECT_EQ(a.out.find("hint:"), std::string::npos) << "one group: no habit to point out\n" << a.out;
}

// Table loads VectorE would avoid are named: a softmax written for ScalarE alone switches sets per
// tile for 1/sum, which a compiler computes on VectorE. A set switched to for functions only ACT has
// (set_thrash) gets no hint, and neither does a single switch (a kernel's phase change).
std::string act_only_softmax(int tiles) {
    std::string t = ".data sbuf:0:0x0 partitions=128 f32 -2.0 -1.5 -1.0 -0.5 0.0 0.25 0.5 0.75 1.0 1.25 1.5 1.75 2.0 2.5 3.0 -3.0\n";
    for (int i = 0; i < tiles; ++i) {
        const std::string out = std::to_string(0x1000 + 0x100 * i), sum = std::to_string(0x2000 + 0x10 * i), rc = std::to_string(0x2004 + 0x10 * i);
        t += "act load_act_func_set set=0\n"
             "act activate func=7 in_bias_dtype=10 out_dtype=10 num_active_channels=128 scale=1.0 bias=0 bias_src_n=1 accumulator_cmd=3 "
             "src=sbuf:0:0x0 src.num=16,1,1 dst=sbuf:0:" +
             out +
             " dst.num=16,1,1\n"
             "act read_accumulator count=1 dtype=10 num_active_channels=128 dst=sbuf:0:" +
             sum +
             " dst.num=1\n"
             "act load_act_func_set set=13\n"
             "act activate func=129 in_bias_dtype=10 out_dtype=10 num_active_channels=128 scale=1.0 bias=0 bias_src_n=1 src=sbuf:0:" +
             sum + " src.num=1,1,1 dst=sbuf:0:" + rc + " dst.num=1,1,1\n";
    }
    return t;
}

TEST(AdviseCli, SwitchesOnlyForVectorEngineWorkAreNamed) {
    TempDir t;
    CliResult a = run_cli("advise " + t.write("s.trace", act_only_softmax(3)) + " --no-simulate");
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_NE(a.out.find("hint: 3 loads of reciprocal_and_small are only for reciprocal, and 2 more switch back (5 of the 6 "
                         "loads): a compiler keeps one set resident and computes these on VectorE (reciprocal: dve reciprocal, "
                         "nisa.reciprocal), on neuronsim's dve queue (docs/vector-engine.md)"),
              std::string::npos)
        << a.out;
    CliResult one = run_cli("advise " + t.write("one.trace", act_only_softmax(1)) + " --no-simulate");
    ASSERT_EQ(one.status, 0) << one.err;
    EXPECT_EQ(one.out.find("hint:"), std::string::npos) << one.out;
    CliResult b = run_cli("advise " + kSrc + "/traces/set_thrash.trace --no-simulate");
    ASSERT_EQ(b.status, 0) << b.err;
    EXPECT_EQ(b.out.find("hint:"), std::string::npos) << b.out;
}

// The advisor never makes a kernel slower (docs/workloads.md): on every `neuronsim kernel` output, a
// rewrite it writes simulates no slower than the input, and one that would is not written.
TEST(AdviseCli, NeverWritesASlowerRewriteOfAnyKernel) {
    struct Case {
        const char* kernel;
        const char* extra;
    };
    for (const Case& c :
         {Case{"softmax", ""}, Case{"rmsnorm", ""}, Case{"layernorm", ""}, Case{"mlp-act", ""}, Case{"mlp-act", " --act silu"}, Case{"cptc-dequant-act", ""}}) {
        for (const char* gen : {"sunda", "mariana"}) {
            if (std::string(c.kernel) == "cptc-dequant-act" && std::string(gen) == "sunda") continue;  // (no CPTC on SUNDA)
            SCOPED_TRACE(std::string(c.kernel) + c.extra + " on " + gen);
            TempDir t;
            CliResult k = run_cli(std::string("kernel ") + c.kernel + c.extra + " --shape 512x256 --gen " + gen + " -o " + t.file("k.trace"));
            ASSERT_EQ(k.status, 0) << k.err;
            const std::string p = std::string(gen) == "mariana" && std::string(c.kernel) == "cptc-dequant-act" ? " -p gpsimd.cptc_flag=true" : "";
            CliResult a = run_cli("advise " + t.file("k.trace") + " -o " + t.file("a.trace") + " --gen " + gen + p);
            ASSERT_EQ(a.status, 0) << a.err;
            EXPECT_FALSE(a.out.find("wrote") != std::string::npos && a.out.find("slower by") != std::string::npos) << a.out;
            if (!std::filesystem::exists(t.file("a.trace"))) continue;
            CliResult o =
                run_cli("run --gen " + std::string(gen) + p + " --trace " + t.file("k.trace") + " --numerics none --out " + t.file("o") + " --no-progress");
            CliResult r =
                run_cli("run --gen " + std::string(gen) + p + " --trace " + t.file("a.trace") + " --numerics none --out " + t.file("r") + " --no-progress");
            ASSERT_EQ(o.status, 0) << o.err;
            ASSERT_EQ(r.status, 0) << r.err;
            EXPECT_LE(simulated_ps(t.file("r")), simulated_ps(t.file("o")));
        }
    }
}

TEST(AdviseCli, BadInputNamesTheFile) {
    CliResult a = run_cli("advise /nonexistent/x.trace");
    EXPECT_EQ(a.status, 1);
    EXPECT_NE(a.err.find("/nonexistent/x.trace"), std::string::npos) << a.err;
    TempDir t;
    const std::string trace = t.write("s.trace", read_file(kSrc + "/traces/set_thrash.trace"));
    CliResult same = run_cli("advise " + trace + " -o " + trace);
    EXPECT_EQ(same.status, 2);
    EXPECT_NE(same.err.find("is the trace itself"), std::string::npos) << same.err;
    EXPECT_EQ(read_file(trace), read_file(kSrc + "/traces/set_thrash.trace"));
}

}  // namespace
}  // namespace neuronsim::test
