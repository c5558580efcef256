// `neuronsim pwp ...` and `act eval --set` end to end.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/catalog_fixture.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

TEST(PwpCli, GenSubsetWritesOnlyCompleteSets) {
    TempDir t;
    CliResult r = run_cli("pwp gen --out " + t.path() +
                          " --func exp tanh identity copy relu leaky_relu parametric_relu abs sign "
                          "memset_zero is_finite derivative_relu derivative_leaky_relu derivative_identity square");
    ASSERT_EQ(r.status, 0) << r.err;
    // exp_and_others and small on both targets: every other set needs more functions.
    EXPECT_NE(r.out.find("wrote 15 profiles and 4 sets"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("skipped with_ln/sigmoid_and_others"), std::string::npos) << r.out;
    EXPECT_NE(read_file(t.file("pwp_bin_trainium/exp_and_others.json")).find("exp_400p"), std::string::npos);
    EXPECT_EQ(run_cli("pwp gen --out " + t.path() + " --func nosuch").status, 1);
}

TEST(PwpCli, PackInspectAndEval) {
    TempDir t;
    const std::string j = generated_catalog() + "/pwp_jsons/";
    CliResult r = run_cli("pwp pack --target with_ln --name mine --out " + t.path() + " " + j + "sigmoid_40p.json " + j + "abs_1p.json");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("packed 2 functions"), std::string::npos) << r.out;
    CliResult m = run_cli("pwp inspect " + t.file("mine.json"));
    ASSERT_EQ(m.status, 0) << m.err;
    EXPECT_NE(m.out.find("sigmoid_40p"), std::string::npos);
    EXPECT_NE(m.out.find("abs_1p"), std::string::npos);
    EXPECT_EQ(run_cli("pwp inspect " + t.file("mine_ctrl.bin")).status, 0);
    CliResult b = run_cli("pwp inspect " + t.file("mine_bkt.bin"));
    EXPECT_EQ(b.status, 0);
    EXPECT_NE(b.out.find("records [d0, d1, d2, d3, x]"), std::string::npos);
    EXPECT_NE(run_cli("pwp inspect " + j + "exp_400p.json").out.find("pos octaves"), std::string::npos);

    std::string in = t.write("in.txt", "40000000\nc0000000\n");
    r = run_cli("act eval --set " + t.file("mine.json") + " --func 22 --in " + in + " --out " + t.file("o"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(t.file("o")), "40000000\n40000000\n");  // abs via its tonga_id 22
    r = run_cli("act eval --set " + t.file("mine.json") + " --func exp --in " + in + " --out " + t.file("o"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("function 'exp' is not in set mine"), std::string::npos) << r.err;
    r = run_cli("pwp pack --target tpu --name x --out " + t.path() + " " + j + "abs_1p.json");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("expected trainium or with_ln"), std::string::npos) << r.err;
}

TEST(PwpCli, AccuracyJson) {
    CliResult r = run_cli("pwp accuracy --func tanh sin --samples 128 --json");
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.size(), 2u);
    EXPECT_EQ(j[0]["function"], "tanh_4p");
    EXPECT_EQ(j[0]["pass"], true);
    EXPECT_LE(j[1]["max_score"].get<double>(), 1e-6);
    EXPECT_EQ(j[1]["worst_input"].get<std::string>().size(), 8u);
    EXPECT_EQ(j[1]["certified"].size(), 2u);
}

TEST(PwpCli, HelpForEverySubcommand) {
    for (const char* c : {"gen", "pack", "inspect", "check", "accuracy", "verify"}) {
        CliResult r = run_cli(std::string("pwp ") + c + " --help");
        EXPECT_EQ(r.status, 0) << c;
        EXPECT_NE(r.out.find("Usage: neuronsim pwp"), std::string::npos) << c;
    }
}

}  // namespace
}  // namespace neuronsim::test
