// Study designs beyond grid and zip (docs/what-if.md, "Axes" and "One at a time"): factors of the preset's own value, one at a
// time around a baseline (combine: oat), kernels built per point, the sensitivity report and
// its tornado plot, and the plots' units, facets, styles and Pareto front.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "model/common/error.h"
#include "neuronsim/config.h"
#include "sweep/plot.h"
#include "sweep/point_inputs.h"
#include "sweep/results_db.h"
#include "sweep/sensitivity.h"
#include "sweep/spec.h"
#include "sweep/time_units.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::sweep {
namespace {

struct DesignTest : ::testing::Test {
    test::TempDir dir;
    void SetUp() override { dir.write("a.trace", "act sync\n"); }
    Spec parse(const std::string& yaml) { return parse_spec(yaml, "spec.yaml", dir.path()); }
    std::string error_of(const std::string& yaml) {
        try {
            parse(yaml);
        } catch (const Error& e) {
            return e.what();
        }
        return "(no error)";
    }
    static std::string param(const Point& p, const std::string& key, bool label = false) {
        for (const Param& q : label ? p.labels : p.params)
            if (q.key == key) return q.value;
        return "(none)";
    }
};

// A factor multiplies each generation's own value (after the fixed params), so the same factor
// is another -p value on each generation.
TEST_F(DesignTest, FactorsMultiplyEachGenerationsOwnValue) {
    dir.write("two-cores.yaml", "gpsimd:\n  cores: 2\n");
    const auto ps =
        expand(parse("traces: [a.trace]\ngenerations: [sunda, maverick]\noverlays: [two-cores.yaml]\n"
                     "axes:\n  - {key: dma.bytes_per_ns_per_engine, factors: [0.5, 2]}\n  - {key: gpsimd.cores, factors: [3]}\n"));
    ASSERT_EQ(ps.size(), 2u * 2 * 1);
    for (const Point& p : ps) {
        const Config preset = compose_config(p.generation, {});
        const double f = std::stod(param(p, "factor:dma.bytes_per_ns_per_engine", true));
        EXPECT_EQ(std::stod(param(p, "dma.bytes_per_ns_per_engine")), preset.dma.bytes_per_ns_per_engine * f) << p.describe();
        EXPECT_EQ(param(p, "gpsimd.cores"), "6") << "x3 of the overlay's 2, not of the preset's value";
        EXPECT_EQ(param(p, "factor:gpsimd.cores", true), "3");
    }
    EXPECT_NE(compose_config("sunda", {}).dma.bytes_per_ns_per_engine, compose_config("maverick", {}).dma.bytes_per_ns_per_engine)
        << "the test needs generations whose values differ";
    EXPECT_NE(param(ps[0], "dma.bytes_per_ns_per_engine"), param(ps[2], "dma.bytes_per_ns_per_engine"));
    // A factor's label is part of the point's place: the design is in its identity.
    EXPECT_NE(ps[0].identity().find("factor:dma.bytes_per_ns_per_engine"), std::string::npos);
}

TEST_F(DesignTest, OatRunsTheBaselineThenEachAxisAloneAroundIt) {
    const auto ps =
        expand(parse("traces: [a.trace]\ngenerations: [mariana]\ncombine: oat\n"
                     "axes:\n  - {key: act.clock_ghz, factors: [0.5, 2]}\n  - {key: gpsimd.cores, values: [1, 4, 8], baseline: 2}\n"));
    ASSERT_EQ(ps.size(), 1u + 2 + 3);
    EXPECT_EQ(param(ps[0], "oat", true), "baseline");
    EXPECT_EQ(param(ps[0], "act.clock_ghz"), "(none)") << "the baseline runs the preset's own value";
    EXPECT_EQ(param(ps[0], "gpsimd.cores"), "2") << "or the axis's baseline";
    EXPECT_EQ(param(ps[1], "oat", true), "act.clock_ghz");
    EXPECT_EQ(param(ps[1], "gpsimd.cores"), "2") << "the other axes stay at their baselines";
    EXPECT_EQ(std::stod(param(ps[2], "act.clock_ghz")), compose_config("mariana", {}).act.clock_ghz * 2);
    EXPECT_EQ(param(ps[3], "oat", true), "gpsimd.cores");
    EXPECT_EQ(param(ps[3], "act.clock_ghz"), "(none)");
    EXPECT_EQ(param(ps[5], "gpsimd.cores"), "8");
    std::set<std::string> keys;
    for (const Point& p : ps) keys.insert(p.key());
    EXPECT_EQ(keys.size(), ps.size());
}

TEST_F(DesignTest, DesignErrorsNameTheirPlace) {
    const std::string base = "traces: [a.trace]\n";
    struct Case {
        std::string yaml, want;
    };
    const Case cases[] = {
        {base + "axes:\n  - {key: gpsimd.cores, factors: [0.3]}\n",
         "spec.yaml: axes[0].factors[0]: gpsimd.cores is 8 on mariana, x0.3 = 2.4 is not an integer (the key takes integers)"},
        {base + "axes:\n  - {key: generation.name, factors: [2]}\n", "spec.yaml: axes[0].factors: generation.name is a name, not a number"},
        {base + "axes:\n  - {key: act.nope, factors: [2]}\n", "spec.yaml: axes[0].key: act.nope is not a config key"},
        {base + "axes:\n  - {key: act.clock_ghz, factors: [0]}\n", "spec.yaml: axes[0].factors[0] (line 3): expected a factor > 0"},
        {base + "axes:\n  - {key: act.clock_ghz, factors: [2], values: [1]}\n", "spec.yaml: axes[0] (line 3): give exactly one of 'values'"},
        {base + "axes:\n  - {key: act.clock_ghz, values: [1], baseline: 2}\n", "spec.yaml: axes[0].baseline: a baseline is for combine: oat"},
        {base + "combine: oat\naxes:\n  - {key: act.clock_ghz, factors: [2], baseline: 1}\n",
         "spec.yaml: axes[0].baseline (line 4): a factors axis's baseline is the preset's own value"},
        {base + "combine: star\n", "spec.yaml: combine (line 2): expected grid, zip or oat"},
        {"kernels: [{name: softmx}]\n", "spec.yaml: kernels[0].name (line 1): unknown name \"softmx\" (expected one of: softmax, rmsnorm"},
        {"kernels: [{model: bert-base}]\n", "spec.yaml: kernels[0] (line 1): a model needs seq"},
        {"kernels: [{name: softmax, shape: 12}]\n", "spec.yaml: kernels[0].shape (line 1): --shape 12: expected ROWSxCOLS"},
        {"kernels: [{name: softmax, seq: 12}]\n", "spec.yaml: kernels[0] (line 1): layer and seq apply to a model only"},
        {"kernels: [{name: softmax, dtype: fp8}]\n", "spec.yaml: kernels[0].dtype (line 1): --dtype fp8: expected fp32, bf16 or fp16"},
        {"kernels: [{name: softmax}, {name: softmax}]\n", "spec.yaml: kernels[1] (line 1): the same kernel as kernels[0]"},
        {"generations: [mariana]\n", "spec.yaml: (root) (line 1): missing key 'traces' (a list of trace files) or 'kernels'"},
    };
    for (const Case& c : cases)
        EXPECT_NE(error_of(c.yaml).find(c.want), std::string::npos) << c.yaml << "\n got: " << error_of(c.yaml) << "\n want: " << c.want;
}

TEST_F(DesignTest, KernelPointsAreKeyedByTheirRequestNotAFile) {
    const auto ps =
        expand(parse("kernels:\n  - {name: softmax, shape: 256x512, dtype: bf16}\n  - {model: bert-base, seq: 128}\ngenerations: [sunda, mariana]\n"));
    ASSERT_EQ(ps.size(), 4u);
    EXPECT_EQ(ps[0].trace, "kernel:softmax 256x512 dtype=bf16");
    EXPECT_EQ(ps[2].trace, "kernel:bert-base seq=128");
    EXPECT_TRUE(ps[0].trace_path.empty()) << "built when the point runs";
    EXPECT_EQ(nlohmann::json::parse(ps[0].inputs).at("kernel"), nlohmann::json::parse(R"({"name":"softmax","shape":"256x512","dtype":"bf16"})"));
    EXPECT_FALSE(nlohmann::json::parse(ps[0].inputs).contains("trace"));
    EXPECT_NE(ps[0].key(), ps[1].key());
    // What changed, between kernel points (no trace digest in either) of other builds.
    nlohmann::json other = nlohmann::json::parse(ps[0].inputs);
    other["build"] = "0123456789abcdef";
    EXPECT_EQ(inputs_change(other.dump(), ps[0].inputs), "another build of neuronsim (0123456789abcdef -> " + build_id() + ")");
    other["kernel"]["seed"] = 2;
    EXPECT_EQ(inputs_change(other.dump(), ps[0].inputs).rfind("the kernel's request changed; another build", 0), 0u);
}

// A trace made for one generation's SBUF runs on the generations it is paired with; the study's
// list is the union when it gives none, and an entry may not reach outside a list it gives.
TEST_F(DesignTest, TracesAndKernelsPairWithTheirOwnGenerations) {
    dir.write("b.trace", "act sync\n");
    auto gens = [](const std::vector<Point>& ps) {
        std::vector<std::string> out;
        for (const Point& p : ps) out.push_back(p.trace + "@" + p.generation);
        return out;
    };
    Spec s = parse("traces:\n  - {path: a.trace, generations: [MARIANA, maverick]}\n  - {path: b.trace, generations: [sunda]}\n");
    EXPECT_EQ(s.generations, (std::vector<std::string>{"sunda", "mariana", "maverick"}));  // the presets' order
    EXPECT_EQ(gens(expand(s)), (std::vector<std::string>{"a.trace@mariana", "a.trace@maverick", "b.trace@sunda"}));
    s = parse("traces: [a.trace, {path: b.trace, generations: [cayman]}]\ngenerations: [sunda, cayman]\naxes:\n  - {key: act.clock_ghz, values: [1, 2]}\n");
    EXPECT_EQ(gens(expand(s)),
              (std::vector<std::string>{"a.trace@sunda", "a.trace@sunda", "a.trace@cayman", "a.trace@cayman", "b.trace@cayman", "b.trace@cayman"}));
    // With no study list, an entry without its own list runs on the default generation.
    s = parse("traces: [a.trace]\nkernels:\n  - {name: softmax, shape: 256x512, generations: [maverick]}\n");
    EXPECT_EQ(gens(expand(s)), (std::vector<std::string>{"a.trace@" + default_generation(), "kernel:softmax 256x512@maverick"}));
    auto error_has = [&](const std::string& yaml, const std::string& want) {
        const std::string e = error_of(yaml);
        EXPECT_NE(e.find(want), std::string::npos) << e;
    };
    error_has("traces:\n  - {path: a.trace, generations: [sunda]}\ngenerations: [mariana]\n",
              ": generation sunda is not one of the study's generations (the top-level 'generations')");
    error_has("traces:\n  - {path: a.trace, generations: [trn9]}\n",
              "spec.yaml: traces[0].generations[0] (line 2): unknown generation \"trn9\" (expected one of: sunda, ");
    error_has("traces:\n  - {generations: [sunda]}\n", "spec.yaml: traces[0] (line 2): missing key 'path' (the trace file)");
    error_has("traces:\n  - {path: a.trace, gens: [sunda]}\n", "unknown key (expected one of: path, generations)");
    error_has("traces: [a.trace]\ngenerations: [sunda, SUNDA]\n", "spec.yaml: generations[1] (line 2): generation sunda is listed twice");
}

// Records of an oat study as a sweep writes them: the design's labels among the params.
PointRecord oat_record(const std::string& trace, const std::string& knob, const std::string& value, const std::string& factor, double simulated_ps) {
    Point p;
    p.trace = trace;
    p.generation = "mariana";
    if (knob != "baseline") p.params = {{knob, value}};
    p.labels = {{"oat", knob}};
    if (!factor.empty()) p.labels.push_back({"factor:" + knob, factor});
    static size_t index = 0;
    p.index = index++;  // (the study's order)
    PointRecord r = record_for(p);
    r.status = "ok";
    r.stats = {{"core.simulated_ps", {FlatValue::Kind::real, 0, simulated_ps, {}}}};
    return r;
}

TEST_F(DesignTest, SensitivityIsTheRelativeChangeFromTheBaselineLargestFirst) {
    const std::string db_path = dir.file("s.db");
    {
        ResultsDb db(db_path, true);
        db.record(oat_record("t", "baseline", "", "", 1000));
        db.record(oat_record("t", "act.clock_ghz", "0.7", "0.5", 1250));
        db.record(oat_record("t", "act.clock_ghz", "2.8", "2", 900));
        db.record(oat_record("t", "dma.bytes_per_ns_per_engine", "16", "0.5", 1800));
        db.record(oat_record("t", "dma.bytes_per_ns_per_engine", "64", "2", 999));
        PointRecord failed = oat_record("t", "gpsimd.cores", "1", "", 1);
        failed.status = "failed";
        failed.stats.clear();
        db.record(failed);
        db.record(oat_record("u", "act.clock_ghz", "0.7", "0.5", 3));  // (a trace without a baseline)
    }
    SensitivityRequest r;
    r.db = db_path;
    r.where = {"trace=t"};
    const auto groups = sensitivity(r);
    ASSERT_EQ(groups.size(), 1u);
    const SensitivityGroup& g = groups[0];
    EXPECT_EQ(g.baseline, 1000);
    EXPECT_EQ(g.failed, 1u);
    ASSERT_EQ(g.knobs.size(), 2u);
    EXPECT_EQ(g.knobs[0].knob, "dma.bytes_per_ns_per_engine") << "its largest change (+80%) is the larger";
    EXPECT_EQ(g.knobs[0].entries[0].value, "x0.5 (16)");
    EXPECT_EQ(g.knobs[0].entries[0].change, (1800.0 - 1000.0) / 1000.0);
    EXPECT_EQ(g.knobs[1].entries[1].change, (900.0 - 1000.0) / 1000.0);
    const std::string text = sensitivity_text(groups);
    EXPECT_NE(text.find("t on mariana: core.simulated_ps at the baseline 1 ns (1 point(s) failed, left out)"), std::string::npos) << text;
    EXPECT_NE(text.find("+80.00%"), std::string::npos) << text;
    const std::string tsv = sensitivity_tsv(groups);
    EXPECT_NE(tsv.find("t\tmariana\tcore.simulated_ps\t1000\tact.clock_ghz\tx2 (2.8)\t900\t-0.10000000000000001\n"), std::string::npos) << tsv;
    const std::string script = tornado_script(groups, "core.simulated_ps", "title", dir.file("t.svg"), false);
    EXPECT_NE(script.find("with boxxyerror"), std::string::npos);
    EXPECT_NE(script.find("set ytics ('dma.bytes_per_ns_per_engine' 1, 'act.clock_ghz' 0)"), std::string::npos) << "the largest knob on top\n" << script;
    // A group without a successful baseline is an error naming it.
    r.where.clear();
    try {
        sensitivity(r);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("u on mariana: no successful baseline point"), std::string::npos) << e.what();
    }
    r.where = {"trace=t"};
    r.metrics = {"core.nope"};
    EXPECT_THROW(sensitivity(r), Error);
}

TEST(TimeUnits, TimesAreShownInTheUnitThatFitsNeverPs) {
    EXPECT_EQ(fit_time_scale("core.simulated_ps", 500).unit, "ns");
    EXPECT_EQ(fit_time_scale("core.simulated_ps", 17.6e6).unit, "µs");
    EXPECT_EQ(fit_time_scale("core.simulated_ps", 17.6e6).divide_by, 1e6);
    EXPECT_EQ(fit_time_scale("x.fixed_overhead_ns", 2e6).unit, "ms");
    EXPECT_EQ(fit_time_scale("wall_seconds", 3).unit, "s");
    EXPECT_EQ(fit_time_scale("core.act.busy_cycles", 3e9).unit, "");
    EXPECT_EQ(format_value("core.simulated_ps", 17.6e6), "17.6 µs");
}

PointRecord plot_record(const std::string& gen, const std::string& series, double x, double y) {
    static size_t index = 0;
    Point p;
    p.index = index++;
    p.trace = series;
    p.generation = gen;
    p.params = {{"dma.bytes_per_ns_per_engine", std::to_string(x)}};
    PointRecord r = record_for(p);
    r.status = "ok";
    r.stats = {{"core.simulated_ps", {FlatValue::Kind::real, 0, y, {}}}, {"core.cost", {FlatValue::Kind::real, 0, x, {}}}};
    return r;
}

TEST(PlotFeatures, UnitsFacetsStylesAndTheParetoFront) {
    test::TempDir dir;
    const std::string db_path = dir.file("p.db");
    {
        ResultsDb db(db_path, true);
        for (const char* g : {"sunda", "mariana"})
            for (int s = 0; s < 10; ++s)
                for (int x = 1; x <= 3; ++x) db.record(plot_record(g, "trace" + std::to_string(s), x, 2e6 / x + 1e5 * s));
    }
    PlotRequest r;
    r.db = db_path;
    r.x = "dma.bytes_per_ns_per_engine";
    r.y = "core.simulated_ps";
    r.series = "trace";
    r.out = dir.file("p.svg");
    r.facet = "generation";
    r.logy = true;
    const auto panels = collect_panels(r);
    ASSERT_EQ(panels.size(), 2u);
    EXPECT_EQ(panels[0].facet_value, "sunda");
    const std::string s = gnuplot_script(r, panels, r.out);
    EXPECT_NE(s.find("set ylabel 'core.simulated_ps (µs)'"), std::string::npos) << s;
    EXPECT_NE(s.find("\n1 2\n"), std::string::npos) << "2e6 ps drawn as 2 µs";
    EXPECT_NE(s.find("set multiplot layout 1,2"), std::string::npos);
    EXPECT_NE(s.find("set logscale y"), std::string::npos);
    EXPECT_NE(s.find("set title 'generation = mariana'"), std::string::npos);
    EXPECT_NE(s.find("linecolor rgb '#bab0ac'"), std::string::npos) << "ten series, ten colours";
    r.max_series = 8;
    EXPECT_THROW(collect_panels(r), Error);
    // The front: the points no other beats on both (x = cost, y = time: trace0's three points
    // trade one for the other; every other series is slower at the same cost).
    r.max_series = 24;
    r.facet.clear();
    r.pareto = true;
    r.x = "core.cost";
    r.where = {"generation=sunda"};
    const PlotData d = collect_plot_data(r);
    EXPECT_EQ(d.points, 30u);
    ASSERT_EQ(d.front.size(), 3u);
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(d.front[i], std::make_pair(double(i + 1), 2e6 / double(i + 1)));
}

// A study end to end: kernels built per generation, a factor axis, oat, the report and the
// tornado; a kernel a generation cannot run fails its points with the reason and the sweep goes on.
TEST(DesignCli, AnOatStudyOfGeneratedKernelsAndItsReport) {
    test::TempDir dir;
    dir.write("s.yaml",
              "kernels:\n  - {name: softmax, shape: 256x512}\n  - {name: cptc-dequant-act, shape: 128x256}\ngenerations: [sunda, mariana]\n"
              "combine: oat\nnumerics: none\nparams: {gpsimd.cptc_flag: true}\naxes:\n  - {key: dma.bytes_per_ns_per_engine, factors: [0.5, 2]}\n");
    auto r = test::run_cli_in(dir.path(), "sweep s.yaml -o s.db -j 2 --no-progress");
    EXPECT_EQ(r.status, 3) << r.out << r.err;  // (cptc on SUNDA fails)
    EXPECT_NE(r.out.find("sweep: 12 points: 12 run now (3 failed)"), std::string::npos) << r.out;
    r = test::run_cli_in(dir.path(), "sweep export s.db --csv s.csv");
    const std::string csv = test::read_file(dir.file("s.csv"));
    EXPECT_NE(csv.find("cannot build kernel:cptc-dequant-act 128x256 for sunda: "), std::string::npos) << csv;
    r = test::run_cli_in(dir.path(), "sweep sensitivity s.db --where trace=kernel:softmax\\ 256x512 --tsv");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("kernel:softmax 256x512\tsunda\tcore.simulated_ps\t"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("kernel:softmax 256x512\tmariana\tcore.simulated_ps\t"), std::string::npos) << r.out;
    // Each generation got its own kernel: the baselines differ.
    r = test::run_cli_in(dir.path(), "sweep sensitivity s.db --where generation=sunda --where trace=kernel:cptc-dequant-act\\ 128x256");
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("no successful baseline point (oat=baseline, 3 point(s) failed)"), std::string::npos) << r.err;
    if (!find_gnuplot().empty()) {
        r = test::run_cli_in(dir.path(), "sweep sensitivity s.db --where generation=mariana --tornado t.svg");
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_NE(test::read_file(dir.file("t.svg")).find("<svg"), std::string::npos);
    }
}

// The worked study of docs/what-if.md stays a valid spec of the size the document says.
TEST(DesignCli, TheWorkedSensitivityStudyIsAValidSpec) {
    const auto r = test::run_cli(std::string("sweep ") + NEURONSIM_SOURCE_DIR + "/examples/sweep/sensitivity.yaml --dry-run");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\n78 points\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("kernel:rmsnorm 2048x4096 dtype=bf16 maverick sync.semaphore_latency_ns=40"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace neuronsim::sweep
