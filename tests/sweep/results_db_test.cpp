// The results database: records round trip with their value kinds, resume keys, merge
// (duplicates kept once, conflicts refused and named), CSV export, and the helpers around it.
#include <filesystem>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "stats/stat_records.h"
#include "sweep/flatten.h"
#include "sweep/mpi_runner.h"
#include "sweep/plot.h"
#include "sweep/progress.h"
#include "sweep/record_json.h"
#include "sweep/results_db.h"
#include "sweep/runner.h"
#include "sweep/utf8.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::sweep {
namespace {

PointRecord sample(const std::string& trace, const std::string& value, int64_t busy) {
    Point p;
    p.trace = trace;
    p.generation = "mariana";
    p.params = {{"act.clock_ghz", value}, {"act.opcodes", "[0x21, 0x22]"}};
    PointRecord r = record_for(p);
    r.status = "ok";
    r.wall_seconds = 0.25;
    r.neuronsim_version = "0.2.0";
    r.host = "h";
    r.finished_at = "2026-12-01T00:00:00Z";
    r.stats =
        flatten(nlohmann::ordered_json::parse(R"({"core": {"act": {"busy_ps": )" + std::to_string(busy) +
                                              R"(, "clock_ghz": 1.2, "name": "MARIANA", "on": true, "none": null}, "list": [3, {"x": 4}], "empty": {}}})"));
    return r;
}

std::vector<std::string> keys_of(const PointRecord& r) {
    std::vector<std::string> k;
    for (const FlatStat& s : r.stats) k.push_back(s.key);
    return k;
}

TEST(Flatten, DottedKeysArraysByIndexAndValueKinds) {
    const PointRecord r = sample("t", "1", 5);
    EXPECT_EQ(keys_of(r), (std::vector<std::string>{"core.act.busy_ps", "core.act.clock_ghz", "core.act.name", "core.act.on", "core.act.none", "core.list.0",
                                                    "core.list.1.x"}));
    EXPECT_EQ(r.stats[0].value.kind, FlatValue::Kind::integer);
    EXPECT_EQ(r.stats[1].value.kind, FlatValue::Kind::real);
    EXPECT_EQ(r.stats[2].value.s, "MARIANA");
    EXPECT_EQ(r.stats[3].value.i, 1);
    EXPECT_EQ(r.stats[4].value.kind, FlatValue::Kind::null);
}

TEST(ResultsDb, RecordsRoundTripWithTheirKinds) {
    test::TempDir dir;
    const std::string path = dir.file("r.db");
    const PointRecord r = sample("t", "1.2", 5696241);
    {
        ResultsDb db(path, true);
        db.record(r);
        EXPECT_THROW(db.record(r), Error);  // a point key is recorded once
    }
    ResultsDb db(path, false);
    EXPECT_EQ(db.point_keys(), std::set<std::string>{r.point_key});
    auto back = db.find(r.point_key);
    ASSERT_TRUE(back);
    std::string why;
    EXPECT_TRUE(same_results(r, *back, &why)) << why;
    EXPECT_EQ(back->params.size(), 2u);
    EXPECT_EQ(back->params[1].value, "[0x21, 0x22]");
    EXPECT_EQ(back->wall_seconds, 0.25);
    EXPECT_EQ(db.stat_keys().size(), 7u);
    // The numeric parameter is also stored as a number, for SQL and plots.
    auto st = db.db().prepare("SELECT num FROM params WHERE key = 'act.clock_ghz'");
    ASSERT_TRUE(st.step());
    EXPECT_EQ(st.real(0), 1.2);
}

// Each stored key's unit and meaning come from the stat record that declares it; a key no
// record declares gets no row (this sample's core.list, core.act.name).
TEST(ResultsDb, StatKeysCarryTheUnitAndMeaningOfTheirRecords) {
    test::TempDir dir;
    const std::string path = dir.file("r.db");
    {
        ResultsDb db(path, true);
        db.record(sample("t", "1.2", 5));
        db.record(sample("u", "1.2", 6));
    }
    ResultsDb db(path, false);
    auto st = db.db().prepare("SELECT key, unit, meaning FROM stat_keys ORDER BY key");
    std::vector<std::string> rows;
    while (st.step()) rows.push_back(st.text(0) + " | " + st.text(1) + " | " + st.text(2));
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0], "core.act.busy_ps | ps | " + std::string(stats::engine::busy_ps.meaning));
    EXPECT_EQ(rows[1], "core.act.clock_ghz | GHz | " + std::string(stats::engine::clock_ghz.meaning));
}

TEST(ResultsDb, FailedPointsCanBeRetried) {
    test::TempDir dir;
    ResultsDb db(dir.file("r.db"), true);
    PointRecord bad = sample("t", "1", 1);
    bad.status = "failed";
    bad.exit_code = 1;
    bad.error = "t:3: unknown instruction";
    bad.stats.clear();
    db.record(bad);
    db.record(sample("t", "2", 1));
    EXPECT_EQ(db.failed_count(), 1u);
    db.delete_failed();
    EXPECT_EQ(db.point_keys().size(), 1u);
    EXPECT_EQ(db.failed_count(), 0u);
}

TEST(ResultsDb, RefusesAFileThatIsNotASweepDatabase) {
    test::TempDir dir;
    EXPECT_THROW(ResultsDb(dir.file("none.db"), false), Error);
    {
        Db other(dir.file("other.db"), true);
        other.exec("CREATE TABLE t(x)");
    }
    try {
        ResultsDb db(dir.file("other.db"), true);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("not a neuronsim sweep database"), std::string::npos) << e.what();
    }
    dir.write("text.db", "hello, this is not SQLite at all, just some text that is long enough to be a header\n");
    EXPECT_THROW(ResultsDb(dir.file("text.db"), true), Error);
}

TEST(Merge, JoinsDisjointDatabasesAndKeepsIdenticalDuplicatesOnce) {
    test::TempDir dir;
    {
        ResultsDb a(dir.file("a.db"), true), b(dir.file("b.db"), true);
        a.record(sample("t", "1", 10));
        a.record(sample("t", "2", 20));
        b.record(sample("t", "3", 30));
        PointRecord again = sample("t", "2", 20);
        again.wall_seconds = 9;  // wall time and host do not make a conflict
        again.host = "other";
        b.record(again);
    }
    EXPECT_EQ(merge_databases(dir.file("m.db"), {dir.file("a.db"), dir.file("b.db")}), 3u);
    EXPECT_EQ(ResultsDb(dir.file("m.db"), false).point_keys().size(), 3u);
    try {
        merge_databases(dir.file("m.db"), {dir.file("a.db")});
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("m.db: exists"), std::string::npos) << e.what();
    }
}

TEST(Merge, RefusesConflictingDuplicatesAndNamesThem) {
    test::TempDir dir;
    const PointRecord one = sample("t", "2", 20), other = sample("t", "2", 21);
    {
        ResultsDb a(dir.file("a.db"), true), b(dir.file("b.db"), true);
        a.record(one);
        b.record(other);
    }
    try {
        merge_databases(dir.file("m.db"), {dir.file("a.db"), dir.file("b.db")});
        FAIL();
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("point " + one.point_key + " (t mariana) in " + dir.file("a.db") + " and " + dir.file("b.db") + ": core.act.busy_ps = 20 vs 21"),
                  std::string::npos)
            << m;
    }
    EXPECT_FALSE(std::filesystem::exists(dir.file("m.db")));  // nothing written
}

TEST(Export, OneRowPerPointWithParamAndStatColumns) {
    test::TempDir dir;
    {
        ResultsDb db(dir.file("r.db"), true);
        db.record(sample("t", "1", 10));
        PointRecord bad = sample("t,2", "2", 0);
        bad.status = "failed";
        bad.exit_code = 1;
        bad.error = "line one, \"quoted\"\nline two";
        bad.stats.clear();
        db.record(bad);
    }
    EXPECT_EQ(export_csv(dir.file("r.db"), dir.file("r.csv")), 2u);
    const std::string csv = test::read_file(dir.file("r.csv"));
    EXPECT_EQ(
        csv.substr(0, csv.find('\n')),
        "point_key,point_index,trace,generation,overlays,repeat,status,exit_code,error,wall_seconds,cpu_seconds,neuronsim_version,numerics,host,"
        "coord_key,rerun_reason,param:act.clock_ghz,param:act.opcodes,stat:core.act.busy_ps,stat:core.act.clock_ghz,stat:core.act.name,stat:core.act.none,"
        "stat:core.act.on,stat:core.list.0,stat:core.list.1.x");
    const std::string place = sample("t", "1", 0).coord_key;  // (a record with no inputs: its key)
    EXPECT_NE(csv.find(",ok,0,,0.25,0,0.2.0,,h," + place + ",,1,\"[0x21, 0x22]\",10,1.2,MARIANA,,1,3,4\n"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",\"t,2\",mariana,,0,failed,1,\"line one, \"\"quoted\"\"\nline two\",0.25,0,"), std::string::npos) << csv;
}

// A failed point is marked in a plot, never just absent: a red cross at its x and a legend entry
// counting the failed points (docs/what-if.md).
TEST(Plot, FailedPointsAreMarkedAtTheirX) {
    test::TempDir dir;
    {
        ResultsDb db(dir.file("r.db"), true);
        db.record(sample("t", "1", 10));
        db.record(sample("t", "1.5", 12));
        PointRecord bad = sample("t", "2", 0);
        bad.status = "failed";
        bad.exit_code = 1;
        bad.error = "boom";
        bad.stats.clear();
        db.record(bad);
    }
    PlotRequest req;
    req.db = dir.file("r.db");
    req.x = "act.clock_ghz";
    req.y = "core.act.busy_ps";
    req.out = dir.file("p.svg");
    const PlotData d = collect_plot_data(req);
    EXPECT_EQ(d.points, 2u);
    EXPECT_EQ(d.failed_points, 1u);
    EXPECT_EQ(d.failed_xs, std::vector<std::string>{"2"});
    EXPECT_EQ(d.xs, (std::vector<std::string>{"1", "1.5", "2"}));  // the failed x is on the axis
    const std::string script = gnuplot_script(req, d, req.out);
    EXPECT_NE(script.find("set label '' at first 2, graph 0 point pointtype 2"), std::string::npos) << script;
    EXPECT_NE(script.find("title '1 failed point (no result)'"), std::string::npos) << script;
    req.bar = true;  // bars: at the category's position
    EXPECT_NE(gnuplot_script(req, collect_plot_data(req), req.out).find("set label '' at first 2, graph 0 point"), std::string::npos);
}

TEST(RecordJson, RoundTripsEveryValueKind) {
    PointRecord r = sample("t", "1", 123456789012345);
    r.inputs = "{\"numerics\":\"none\"}";
    r.rerun_reason = "the trace's content changed";
    bool interrupted = true;
    size_t index = 0;
    const PointRecord back = record_from_json(record_to_json(r, false, 7), interrupted, index);
    std::string why;
    EXPECT_TRUE(same_results(r, back, &why)) << why;
    EXPECT_EQ(back.coord_key, r.coord_key);  // an MPI worker's record reaches rank 0 with its inputs
    EXPECT_EQ(back.inputs, r.inputs);
    EXPECT_EQ(back.rerun_reason, r.rerun_reason);
    EXPECT_FALSE(interrupted);
    EXPECT_EQ(index, 7u);
    EXPECT_EQ(back.params[1].value, r.params[1].value);
    EXPECT_THROW(record_from_json("{\"index\": 1}", interrupted, index), Error);
}

TEST(Utf8, InvalidBytesAreFoundAndReplaced) {
    EXPECT_TRUE(
        valid_utf8("plain, \xC3\xA9"
                   "t\xC3\xA9, \xE2\x82\xAC, \xF0\x9F\x98\x80"));
    for (const char* bad : {"\xff", "\xC3", "a\x80", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE2\x82"}) EXPECT_FALSE(valid_utf8(bad)) << bad;
    EXPECT_EQ(make_valid_utf8("a\xff"
                              "b\xC3\xA9\xE2\x82"),
              "a\xEF\xBF\xBD"
              "b\xC3\xA9\xEF\xBF\xBD\xEF\xBF\xBD");
    const std::string bad = "x\xC3(";
    PointRecord r = sample("t", "1", 1);
    r.error = make_valid_utf8(bad);
    bool interrupted = false;
    size_t index = 0;
    EXPECT_EQ(record_from_json(record_to_json(r, false, 0), interrupted, index).error, "x\xEF\xBF\xBD(");
}

TEST(Progress, LineShowsCountsFailuresAndEta) {
    EXPECT_EQ(Progress::line(5, 10, 1, 3.0), "[###############...............] 5/10 points, 1 failed, 0:03 elapsed, ETA 0:03");
    EXPECT_EQ(Progress::line(10, 10, 0, 3725), "[##############################] 10/10 points, 1:02:05 elapsed");
}

TEST(MpiEnv, LauncherWorldSizeFromTheEnvironment) {
    unsetenv("PMIX_SIZE");
    unsetenv("PMI_SIZE");
    unsetenv("MPI_LOCALNRANKS");
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    EXPECT_EQ(launcher_world_size(), 4);
    setenv("OMPI_COMM_WORLD_SIZE", "x", 1);
    EXPECT_EQ(launcher_world_size(), 0);
    unsetenv("OMPI_COMM_WORLD_SIZE");
    EXPECT_EQ(launcher_world_size(), 0);
}

}  // namespace
}  // namespace neuronsim::sweep
