// `neuronsim compare`: two runs, or two points of a sweep database, side by side.
#include <gtest/gtest.h>

#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

const std::string kSrc = NEURONSIM_SOURCE_DIR;

TEST(CompareCli, TwoRunsShowTheStatsThatDifferWithTheirChange) {
    TempDir t;
    ASSERT_EQ(run_cli("run --trace " + kSrc + "/traces/softmax.trace --out " + t.file("a") + " --no-progress").status, 0);
    ASSERT_EQ(run_cli("run --trace " + kSrc + "/traces/softmax.trace -p act.clock_ghz=2.4 --out " + t.file("b") + " --no-progress").status, 0);
    CliResult c = run_cli("compare " + t.file("a") + " " + t.file("b") + "/stats.json --tsv");
    ASSERT_EQ(c.status, 0) << c.err;
    // The ACT clock doubled: its busy cycles' key appears with both values, B - A and the change.
    EXPECT_NE(c.out.find("core.act.clock_ghz\t1.2\t2.4\t1.200000\t1.000000\n"), std::string::npos) << c.out;
    EXPECT_NE(c.out.find("core.simulated_ps\t"), std::string::npos) << c.out;
    EXPECT_EQ(c.out.find("core.instructions\t"), std::string::npos) << c.out;  // equal: not listed
    EXPECT_EQ(c.out.find(".stalls."), std::string::npos) << c.out;  // not in the default selection
    c = run_cli("compare " + t.file("a") + " " + t.file("a") + " --all --stats core.instructions");
    EXPECT_NE(c.out.find("core.instructions"), std::string::npos) << c.out;
    EXPECT_NE(c.out.find("1 stat(s) listed"), std::string::npos) << c.out;  // --all lists the equal one too

    // Two points of a sweep database.
    t.write("spec.yaml", "traces: [" + kSrc + "/traces/softmax.trace]\naxes:\n  - {key: act.clock_ghz, values: [1.2, 2.4]}\n");
    ASSERT_EQ(run_cli_in(t.path(), "sweep spec.yaml -o s.db --numerics none").status, 0);
    CliResult keys = run_cli_in(t.path(), "sweep spec.yaml --dry-run --numerics none");
    const std::string k0 = keys.out.substr(2, 16), k1 = keys.out.substr(keys.out.find('\n') + 3, 16);
    c = run_cli_in(t.path(), "compare s.db:" + k0 + " s.db:" + k1 + " --tsv");
    ASSERT_EQ(c.status, 0) << c.err;
    EXPECT_NE(c.out.find("core.act.clock_ghz\t1.2\t2.4\t"), std::string::npos) << c.out;
    c = run_cli_in(t.path(), "compare s.db:0123456789abcdef " + t.file("a"));
    EXPECT_EQ(c.status, 1);
    EXPECT_NE(c.err.find("s.db:0123456789abcdef: no point 0123456789abcdef in s.db"), std::string::npos) << c.err;
    c = run_cli("compare /nonexistent " + t.file("a"));
    EXPECT_EQ(c.status, 1);
    EXPECT_NE(c.err.find("/nonexistent"), std::string::npos) << c.err;
}

}  // namespace
}  // namespace neuronsim::test
