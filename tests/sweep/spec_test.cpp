// Sweep specs: expansion (grid, zip, ranges, repeat), point keys, shards, and errors that
// name the spec file and the YAML path.
#include <gtest/gtest.h>

#include "model/common/error.h"
#include "neuronsim/config.h"
#include "sweep/point_inputs.h"
#include "sweep/runner.h"
#include "sweep/spec.h"
#include "sweep/study_plots.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::sweep {
namespace {

struct SpecTest : ::testing::Test {
    test::TempDir dir;
    void SetUp() override {
        dir.write("a.trace", "act sync\n");
        dir.write("b.trace", "act sync\n");
        dir.write("over.yaml", "act:\n  clock_ghz: 1.0\n");
    }
    Spec parse(const std::string& yaml) { return parse_spec(yaml, "spec.yaml", dir.path()); }
    std::string error_of(const std::string& yaml) {
        try {
            parse(yaml);
        } catch (const Error& e) {
            return e.what();
        }
        return "(no error)";
    }
    static std::vector<std::string> values_of(const std::vector<Point>& ps, const std::string& key) {
        std::vector<std::string> out;
        for (const Point& p : ps)
            for (const Param& q : p.params)
                if (q.key == key) out.push_back(q.value);
        return out;
    }
};

TEST_F(SpecTest, GridIsTheCartesianProductWithTheLastAxisFastest) {
    const auto ps =
        expand(parse("traces: [a.trace, b.trace]\ngenerations: [sunda, mariana]\n"
                     "axes:\n  - {key: dma.bytes_per_ns_per_engine, values: [10, 20, 30]}\n  - {key: act.clock_ghz, values: [1.0, 1.2]}\n"));
    ASSERT_EQ(ps.size(), 2u * 2 * 3 * 2);
    EXPECT_EQ(ps[0].trace, "a.trace");
    EXPECT_EQ(ps[0].trace_path, dir.path() + "/a.trace");
    EXPECT_EQ(ps[0].generation, "sunda");
    EXPECT_EQ(values_of({ps.begin(), ps.begin() + 6}, "act.clock_ghz"), (std::vector<std::string>{"1.0", "1.2", "1.0", "1.2", "1.0", "1.2"}));
    EXPECT_EQ(values_of({ps.begin(), ps.begin() + 6}, "dma.bytes_per_ns_per_engine"), (std::vector<std::string>{"10", "10", "20", "20", "30", "30"}));
    EXPECT_EQ(ps[6].generation, "mariana");
    EXPECT_EQ(ps[12].trace, "b.trace");
    for (size_t i = 0; i < ps.size(); ++i) EXPECT_EQ(ps[i].index, i);
}

TEST_F(SpecTest, ZipGroupsVaryTogetherInsideAGrid) {
    const auto ps =
        expand(parse("traces: [a.trace]\naxes:\n"
                     "  - zip:\n      - {key: act.clock_ghz, values: [1.0, 1.4]}\n      - {key: gpsimd.clock_ghz, values: [1.1, 1.5]}\n"
                     "  - {key: dma.fixed_overhead_ns, values: [0, 1300]}\n"));
    ASSERT_EQ(ps.size(), 4u);
    EXPECT_EQ(values_of(ps, "act.clock_ghz"), (std::vector<std::string>{"1.0", "1.0", "1.4", "1.4"}));
    EXPECT_EQ(values_of(ps, "gpsimd.clock_ghz"), (std::vector<std::string>{"1.1", "1.1", "1.5", "1.5"}));
    EXPECT_EQ(ps[0].generation, "mariana");  // the default generation
}

TEST_F(SpecTest, CombineZipZipsEveryAxis) {
    const auto ps =
        expand(parse("traces: [a.trace]\ncombine: zip\naxes:\n  - {key: act.clock_ghz, values: [1, 2, 3]}\n"
                     "  - {key: gpsimd.cores, values: [2, 4, 8]}\n"));
    ASSERT_EQ(ps.size(), 3u);
    EXPECT_EQ(values_of(ps, "gpsimd.cores"), (std::vector<std::string>{"2", "4", "8"}));
    EXPECT_NE(error_of("traces: [a.trace]\ncombine: zip\naxes:\n  - {key: act.clock_ghz, values: [1, 2, 3]}\n  - {key: gpsimd.cores, values: [2, 4]}\n")
                  .find("spec.yaml: combine (line 2): combine: zip needs axes of the same length"),
              std::string::npos);
}

TEST_F(SpecTest, LinearRanges) {
    auto ps = expand(parse("traces: [a.trace]\naxes:\n  - key: act.clock_ghz\n    range: {from: 0.8, to: 1.6, steps: 5}\n"));
    EXPECT_EQ(values_of(ps, "act.clock_ghz"), (std::vector<std::string>{"0.8", "1", "1.2", "1.4", "1.6"}));
    ps = expand(parse("traces: [a.trace]\naxes:\n  - key: dma.fixed_overhead_ns\n    range: {from: 0, to: 1000, step: 250}\n"));
    EXPECT_EQ(values_of(ps, "dma.fixed_overhead_ns"), (std::vector<std::string>{"0", "250", "500", "750", "1000"}));
    ps = expand(parse("traces: [a.trace]\naxes:\n  - key: dma.fixed_overhead_ns\n    range: {from: 100, to: 0, step: -50}\n"));
    EXPECT_EQ(values_of(ps, "dma.fixed_overhead_ns"), (std::vector<std::string>{"100", "50", "0"}));
}

TEST_F(SpecTest, GeometricRanges) {
    auto ps = expand(parse("traces: [a.trace]\naxes:\n  - key: gpsimd.cores\n    range: {from: 1, to: 8, steps: 4, scale: geometric}\n"));
    EXPECT_EQ(values_of(ps, "gpsimd.cores"), (std::vector<std::string>{"1", "2", "4", "8"}));
    ps = expand(parse("traces: [a.trace]\naxes:\n  - key: dma.bytes_per_ns_per_engine\n    range: {from: 4, to: 64, factor: 2}\n"));
    EXPECT_EQ(values_of(ps, "dma.bytes_per_ns_per_engine"), (std::vector<std::string>{"4", "8", "16", "32", "64"}));
    ps = expand(parse("traces: [a.trace]\naxes:\n  - key: gpsimd.cores\n    range: {from: 1, to: 10, steps: 3, scale: geometric, integer: true}\n"));
    EXPECT_EQ(values_of(ps, "gpsimd.cores"), (std::vector<std::string>{"1", "3", "10"}));
}

TEST_F(SpecTest, RepeatRunsEachPointAgainWithItsOwnKey) {
    const auto ps = expand(parse("traces: [a.trace]\nrepeat: 3\nparams: {act.clock_ghz: 1.1}\n"));
    ASSERT_EQ(ps.size(), 3u);
    EXPECT_EQ(ps[2].repeat, 2);
    EXPECT_NE(ps[0].key(), ps[1].key());
    EXPECT_EQ(values_of(ps, "act.clock_ghz"), (std::vector<std::string>{"1.1", "1.1", "1.1"}));
}

TEST_F(SpecTest, GenerationsAllAndOverlays) {
    const auto s = parse("traces: [a.trace]\ngenerations: all\noverlays: [over.yaml]\n");
    EXPECT_EQ(s.generations, generation_names());  // every preset of configs/, in order
    const auto ps = expand(s);
    ASSERT_EQ(ps.size(), generation_names().size());
    EXPECT_EQ(ps[0].overlay_paths, std::vector<std::string>{dir.path() + "/over.yaml"});
    const auto args = run_arguments(ps[0], "/tmp/o", "none");
    const std::vector<std::string> want = {"run",        "--trace", dir.path() + "/a.trace", "--gen",    "sunda",         "--config", dir.path() + "/over.yaml",
                                           "--numerics", "none",    "--no-progress",         "--no-csv", "--no-timeline", "--out",    "/tmp/o"};
    EXPECT_EQ(args, want);
}

TEST_F(SpecTest, PointKeysAreStable) {
    Point p;
    p.trace = "traces/softmax.trace";
    p.generation = "mariana";
    p.params = {{"act.clock_ghz", "1.2"}};
    // The hash of this identity is part of every database: a change here breaks resume and merge.
    EXPECT_EQ(p.identity(), R"(["neuronsim-point/1","traces/softmax.trace","mariana",[],[["act.clock_ghz","1.2"]],[],0])");
    EXPECT_EQ(p.key(), fnv1a64_hex(p.identity()));
    EXPECT_EQ(fnv1a64_hex(""), "cbf29ce484222325");
    EXPECT_EQ(fnv1a64_hex("a"), "af63dc4c8601ec8c");
    Point q = p;
    q.params[0].value = "1.20";
    EXPECT_NE(p.key(), q.key());
    q = p;
    q.trace_path = "/elsewhere/softmax.trace";  // where it was found is not part of the identity
    EXPECT_EQ(p.key(), q.key());
}

// The key of an expanded point covers its inputs: the trace's bytes (a regenerated trace at the
// same path is another point), numerics and the stats kept; its place (coord_key) does not.
TEST_F(SpecTest, ExpandedPointsAreKeyedByTheirInputs) {
    const std::vector<Point> a = expand(parse("traces: [a.trace]\n"));
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].coord_key(), fnv1a64_hex(a[0].identity()));
    EXPECT_NE(a[0].key(), a[0].coord_key());
    EXPECT_NE(a[0].inputs.find("\"trace\":{\"data\":[],\"sha256\":\""), std::string::npos) << a[0].inputs;
    dir.write("a.trace", "act sync\n# regenerated\n");
    const std::vector<Point> b = expand(parse("traces: [a.trace]\n"));
    EXPECT_EQ(b[0].coord_key(), a[0].coord_key());
    EXPECT_NE(b[0].key(), a[0].key());
    EXPECT_EQ(inputs_change(a[0].inputs, b[0].inputs), "the trace's content changed");
    const std::vector<Point> c = expand(parse("traces: [a.trace]\nnumerics: none\nstats: all\n"));
    EXPECT_EQ(inputs_change(b[0].inputs, c[0].inputs), "numerics default -> none; the stats kept (the spec's stats:) changed");
    dir.write("broken.trace", "act no_such_instruction\n");  // still a point (it fails when it runs)
    const std::vector<Point> d = expand(parse("traces: [broken.trace]\n"));
    EXPECT_NE(d[0].inputs.find("\"unreadable\":\""), std::string::npos) << d[0].inputs;
}

TEST(StatGlobs, StarIsOneLevelDoubleStarAnyAndBangDrops) {
    EXPECT_TRUE(stat_key_matches("core.act.busy_ps", "core.act.*"));
    EXPECT_FALSE(stat_key_matches("core.act.stalls.x.count", "core.act.*"));
    EXPECT_TRUE(stat_key_matches("core.act.stalls.x.count", "core.**"));
    EXPECT_TRUE(stat_key_matches("core.act.stalls.x.count", "**.stalls.**"));
    EXPECT_FALSE(stat_key_matches("core.act.stallsx", "**.stalls.**"));
    EXPECT_TRUE(stat_key_matches("core.simulated_ps", "core.*_ps"));
    EXPECT_FALSE(stat_key_matches("core.act.busy_ps", "core.*_ps"));
    const std::vector<std::string>& d = default_stat_globs();
    EXPECT_TRUE(keeps_stat(d, "core.simulated_ps"));
    EXPECT_TRUE(keeps_stat(d, "core.act.busy_ps"));
    EXPECT_FALSE(keeps_stat(d, "core.act.stalls.semaphore0_ge_released_by_dma_0.count"));
    EXPECT_FALSE(keeps_stat(d, "core.act.by_mnemonic.activate.count"));
    EXPECT_FALSE(keeps_stat(d, "core.dma.engines.3.bytes"));
    EXPECT_TRUE(keeps_stat({"core.act.*", "!core.act.clock_ghz"}, "core.act.busy_ps"));
    EXPECT_FALSE(keeps_stat({"core.act.*", "!core.act.clock_ghz"}, "core.act.clock_ghz"));
    EXPECT_FALSE(keeps_stat({"core.act.*"}, "core.pool.busy_ps"));
}

TEST_F(SpecTest, StatsSelectionIsCheckedWithItsPlace) {
    EXPECT_EQ(parse("traces: [a.trace]\nstats: [core.*, '!core.instructions']\n").stats, (std::vector<std::string>{"core.*", "!core.instructions"}));
    EXPECT_EQ(parse("traces: [a.trace]\nstats: all\n").stats, std::vector<std::string>{"**"});
    EXPECT_EQ(parse("traces: [a.trace]\n").stats, default_stat_globs());
    EXPECT_NE(error_of("traces: [a.trace]\nstats: some\n").find("spec.yaml: stats (line 2): expected all, or a list of globs"), std::string::npos);
    EXPECT_NE(error_of("traces: [a.trace]\nstats: ['!core.*']\n").find("every glob drops stats"), std::string::npos);
    EXPECT_NE(error_of("traces: [a.trace]\nstats: ['core act']\n").find("stats[0] (line 2): \"core act\": expected a glob"), std::string::npos);
}

TEST_F(SpecTest, ShardsAreDisjointAndCoverEveryPoint) {
    const auto ps = expand(parse("traces: [a.trace, b.trace]\naxes:\n  - {key: act.clock_ghz, range: {from: 1, to: 2, steps: 7}}\n"));
    std::set<size_t> seen;
    for (int i = 0; i < 3; ++i)
        for (const Point& p : shard_points(ps, i, 3)) EXPECT_TRUE(seen.insert(p.index).second);
    EXPECT_EQ(seen.size(), ps.size());
    int idx = 0, n = 0;
    parse_shard("2/5", idx, n);
    EXPECT_EQ(idx, 2);
    EXPECT_EQ(n, 5);
    for (const char* bad : {"5/5", "1", "a/2", "-1/2", "0/0", "1/2/3"}) EXPECT_THROW(parse_shard(bad, idx, n), Error) << bad;
}

TEST_F(SpecTest, ErrorsNameTheFileAndTheYamlPath) {
    const std::string base = "traces: [a.trace]\n";
    struct Case {
        std::string yaml, want;
    };
    const Case cases[] = {
        {base + "axes:\n  - {key: a.b, values: [1]}\n  - {key: c.d, values: [1]}\n  - {key: e.f, values: 3}\n",
         "spec.yaml: axes[2].values (line 5): expected a list, got \"3\""},
        {base + "axes:\n  - {key: a.b, values: []}\n", "spec.yaml: axes[0].values (line 3): expected a non-empty list"},
        {base + "axis: []\n", "spec.yaml: axis (line 2): unknown key (expected one of: name, traces,"},
        {"generations: [mariana]\n", "spec.yaml: (root) (line 1): missing key 'traces'"},
        {"traces: [missing.trace]\n", "spec.yaml: traces[0] (line 1): no such trace file: " + dir.path() + "/missing.trace"},
        {base + "overlays: [nope.yaml]\n", "spec.yaml: overlays[0] (line 2): no such overlay file"},
        {base + "axes:\n  - {key: a.b, range: {from: 1, to: 2, steps: 2, scale: log}}\n",
         "spec.yaml: axes[0].range.scale (line 3): expected linear or geometric, got \"log\""},
        {base + "axes:\n  - {key: a.b, range: {from: 0, to: 2, steps: 3, scale: geometric}}\n",
         "spec.yaml: axes[0].range (line 3): a geometric range needs from > 0"},
        {base + "axes:\n  - {key: a.b, range: {from: 1, to: 2}}\n", "spec.yaml: axes[0].range (line 3): give exactly one of steps, step (linear) or factor"},
        {base + "axes:\n  - {key: a.b, range: {from: 1, to: 2, step: -1}}\n", "spec.yaml: axes[0].range.step (line 3): step must be non-zero"},
        {base + "axes:\n  - {key: a.b, values: [1], range: {from: 1, to: 2, steps: 2}}\n", "spec.yaml: axes[0] (line 3): give exactly one of 'values'"},
        {base + "axes:\n  - {key: 'a..b', values: [1]}\n", "spec.yaml: axes[0].key (line 3): \"a..b\" is not a dotted config key"},
        {base + "axes:\n  - {values: [1]}\n", "spec.yaml: axes[0] (line 3): missing key 'key'"},
        {base + "axes:\n  - zip:\n      - {key: a.b, values: [1, 2]}\n      - {key: c.d, values: [1]}\n",
         "spec.yaml: axes[0].zip (line 4): zipped axes must have the same number of values"},
        {base + "params: {a.b: 1}\naxes:\n  - {key: a.b, values: [1]}\n", "spec.yaml: axes[0]: key a.b is already set by params or another axis"},
        {base + "repeat: 0\n", "spec.yaml: repeat (line 2): expected an integer in [1, 10000], got \"0\""},
        {base + "run_args: [\"-\xc3skip\"]\n", "spec.yaml: run_args[0] (line 2): not valid UTF-8"},
        {base + "params: {act.clock_ghz: \"\xed\xa0\x80\"}\n", "spec.yaml: params.act.clock_ghz (line 2): not valid UTF-8"},
        {base + "numerics: fast\n", "spec.yaml: numerics (line 2): expected full or none, got \"fast\""},
        {base + "run_args: [--out, x]\n", "spec.yaml: run_args[0] (line 2): --out is set by the sweep itself"},
        // Every form boost accepts (an attached short value, a prefix, "--").
        {base + "run_args: [-pact.clock_ghz=9]\n", "spec.yaml: run_args[0] (line 2): -pact.clock_ghz=9 is set by the sweep itself"},
        {base + "run_args: [--conf=x.yaml]\n", "spec.yaml: run_args[0] (line 2): --conf=x.yaml is set by the sweep itself"},
        {base + "run_args: [--skip-unknown, --tr, x]\n", "spec.yaml: run_args[1] (line 2): --tr is set by the sweep itself"},
        {base + "run_args: [-tx.trace]\n", "spec.yaml: run_args[0] (line 2): -tx.trace is set by the sweep itself"},
        {base + "run_args: [--, x.trace]\n", "spec.yaml: run_args[0] (line 2): -- is set by the sweep itself"},
        {base + "run_args: [--num=none]\n", "spec.yaml: run_args[0] (line 2): --num=none is set by the sweep itself"},
        {base + "traces: [b.trace]\n", "spec.yaml: (root) (line 1): duplicate key 'traces' (line 2)"},
        {base + "axes: [\n", "spec.yaml: line 3, column 1: not valid YAML"},
        {"- just\n- a list\n", "spec.yaml: (root) (line 1): expected a mapping"},
        {base + "plots:\n  - {x: act.clock_ghz}\n", "spec.yaml: plots[0] (line 3): a plot needs x, y and out"},
    };
    for (const Case& c : cases)
        EXPECT_NE(error_of(c.yaml).find(c.want), std::string::npos) << c.yaml << "\n got: " << error_of(c.yaml) << "\n want: " << c.want;
}

TEST_F(SpecTest, RunArgsThatSetNothingReservedPass) {
    for (const char* ok :
         {"--skip-unknown", "--act-numerics", "exact", "--act-numerics=exact", "--no-csv", "--no-timeline", "--cost-model", "--threads=2", "--window=:5000"})
        EXPECT_FALSE(sets_a_reserved_option(ok)) << ok;
}

TEST_F(SpecTest, TooManyPointsIsAnError) {
    EXPECT_NE(error_of("traces: [a.trace]\naxes:\n  - {key: a.b, range: {from: 1, to: 100000, step: 1}}\n  - {key: c.d, range: {from: 1, to: 1000, step: 1}}\n")
                  .find("expands to 100000000 points"),
              std::string::npos);
}

TEST_F(SpecTest, PointsAlreadyDoneOrNamedTwiceRunOnce) {
    const auto ps = expand(parse("traces: [a.trace, a.trace]\naxes:\n  - {key: a.b, values: [1, 2]}\n"));
    ASSERT_EQ(ps.size(), 4u);
    EXPECT_EQ(points_to_run(ps, {}).size(), 2u);
    EXPECT_EQ(points_to_run(ps, {ps[0].key()}).size(), 1u);
}

TEST_F(SpecTest, DefaultPlotsOnePerTraceAndAxisOthersAtTheirFirstValue) {
    const Spec s = parse(
        "traces: [a.trace, b.trace]\naxes:\n  - {key: act.clock_ghz, values: [1.0, 1.2]}\n"
        "  - zip:\n      - {key: dma.bytes_per_ns_per_engine, values: [8, 16]}\n      - {key: dma.fixed_overhead_ns, values: [0, 5]}\n");
    const auto plots = study_plots(s, "out/study.db");
    ASSERT_EQ(plots.size(), 4u);
    EXPECT_EQ(plots[0].out, "out/study-a-act_clock_ghz.svg");
    EXPECT_EQ(plots[0].x, "param:act.clock_ghz");
    EXPECT_EQ(plots[0].y, "stat:core.simulated_ps");
    EXPECT_EQ(plots[0].series, "generation");
    EXPECT_EQ(plots[0].where, (std::vector<std::string>{"trace=a.trace", "param:dma.bytes_per_ns_per_engine=8", "param:dma.fixed_overhead_ns=0"}));
    EXPECT_EQ(plots[1].out, "out/study-a-dma_bytes_per_ns_per_engine.svg");
    EXPECT_EQ(plots[1].where, (std::vector<std::string>{"trace=a.trace", "param:act.clock_ghz=1.0"}));
    EXPECT_EQ(plots[3].out, "out/study-b-dma_bytes_per_ns_per_engine.svg");
    // The spec's own plots instead, out beside the database.
    const Spec t = parse("traces: [a.trace]\nplots:\n  - {x: act.clock_ghz, y: core.act.busy_ps, out: c.png, bar: true, where: {generation: sunda}}\n");
    const auto own = study_plots(t, "out/study.db");
    ASSERT_EQ(own.size(), 1u);
    EXPECT_EQ(own[0].out, "out/c.png");
    EXPECT_TRUE(own[0].bar);
    EXPECT_EQ(own[0].where, std::vector<std::string>{"generation=sunda"});
}

}  // namespace
}  // namespace neuronsim::sweep
