// `neuronsim sweep`, `sweep export`, `sweep merge` and `plot` end to end, with the real
// executable and the example traces: a local -j 2 sweep, two shards merged and an MPI sweep
// (mpirun -n 3: a coordinator and two workers) give the same rows; resume, failing points,
// interrupts, spec errors, export and plots.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "sweep/child_process.h"
#include "sweep/host_info.h"
#include "sweep/mpi_runner.h"
#include "sweep/plot.h"
#include "sweep/results_db.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::sweep {
namespace {

const std::string kSrc = NEURONSIM_SOURCE_DIR;

// Two example traces, two generations, two DMA bandwidths: 8 points.
std::string small_spec() {
    return "name: small\ntraces: [" + kSrc + "/traces/softmax.trace, " + kSrc +
           "/traces/demo_dma.trace]\n"
           "generations: [cayman, mariana]\n"
           "axes:\n  - {key: dma.bytes_per_ns_per_engine, values: [12, 33]}\n";
}

std::map<std::string, PointRecord> rows(const std::string& db_path) {
    std::map<std::string, PointRecord> out;
    ResultsDb db(db_path, false);
    db.for_each([&](const PointRecord& r) { out[r.point_key] = r; });
    return out;
}

void expect_same_rows(const std::string& a, const std::string& b) {
    const auto ra = rows(a), rb = rows(b);
    ASSERT_EQ(ra.size(), rb.size()) << a << " vs " << b;
    for (const auto& [key, r] : ra) {
        auto it = rb.find(key);
        ASSERT_NE(it, rb.end()) << key << " only in " << a;
        std::string why;
        EXPECT_TRUE(same_results(r, it->second, &why)) << key << ": " << why;
        EXPECT_EQ(r.status, "ok") << r.error;
        EXPECT_FALSE(r.stats.empty());
    }
}

// Starts `neuronsim sweep SPEC -o DB -j 1` as a child with its stdout and stderr in
// dir/out and dir/err; with `own_group`, in a process group of its own (so that the test can
// kill it and its points together) and with TMPDIR set to `tmpdir` when given.
pid_t start_sweep(const test::TempDir& dir, const std::string& db, bool own_group = false, const std::string& tmpdir = "") {
    const pid_t pid = ::fork();
    if (pid != 0) return pid;
    if (own_group) ::setpgid(0, 0);
    if (!tmpdir.empty()) ::setenv("TMPDIR", tmpdir.c_str(), 1);
    if (!std::freopen(dir.file("out").c_str(), "w", stdout) || !std::freopen(dir.file("err").c_str(), "w", stderr)) _exit(99);
    ::execl(NEURONSIM_EXE, NEURONSIM_EXE, "sweep", dir.file("spec.yaml").c_str(), "-o", db.c_str(), "-j", "1", static_cast<char*>(nullptr));
    _exit(98);
}

std::string mpirun() {
    for (const char* p : {"/usr/bin/mpirun", "/usr/local/bin/mpirun"})
        if (::access(p, X_OK) == 0) return p;
    return "";
}

// The environment of an mpirun command line: CI runs as root, which Open MPI refuses unless
// told twice; under AddressSanitizer (scripts/sanitize.sh) Open MPI's own allocations, never
// freed by MPI_Finalize, would read as leaks of every rank, so leak detection is off there.
std::string mpi_env() {
    const char* asan = std::getenv("ASAN_OPTIONS");
    return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS='" + std::string(asan && *asan ? std::string(asan) + ":" : "") +
           "detect_leaks=0' ";
}

// Points forked from the warmed sweep (the default) and points exec'd as `neuronsim run`
// (--spawn, the slow path kept as its oracle) give the same rows: stats, failures and their
// error texts.
TEST(SweepCli, ForkedAndSpawnedPointsGiveTheSameRows) {
    test::TempDir dir;
    dir.write("bad.trace", "act activate nonsense=1\n");
    std::string spec = small_spec();
    spec.replace(spec.find("traces: ["), 9, "traces: [bad.trace, ");
    dir.write("spec.yaml", spec);
    auto fork = test::run_cli_in(dir.path(), "sweep spec.yaml -o fork.db -j 2");
    auto spawn = test::run_cli_in(dir.path(), "sweep spec.yaml -o spawn.db -j 2 --spawn");
    EXPECT_EQ(fork.status, 3) << fork.err;
    EXPECT_EQ(spawn.status, 3) << spawn.err;
    const auto a = rows(dir.file("fork.db")), b = rows(dir.file("spawn.db"));
    ASSERT_EQ(a.size(), 12u);
    ASSERT_EQ(b.size(), a.size());
    size_t failed = 0;
    for (const auto& [key, r] : a) {
        ASSERT_TRUE(b.count(key)) << key;
        const PointRecord& o = b.at(key);
        std::string why;
        EXPECT_TRUE(same_results(r, o, &why)) << key << ": " << why;
        EXPECT_EQ(r.status, o.status);
        EXPECT_EQ(r.exit_code, o.exit_code);
        EXPECT_EQ(r.error, o.error);
        if (r.status != "ok") {
            ++failed;
            EXPECT_NE(r.error.find("bad.trace"), std::string::npos) << r.error;
        }
    }
    EXPECT_EQ(failed, 4u);
}

TEST(SweepCli, LocalShardsAndMpiGiveTheSameRows) {
    test::TempDir dir;
    dir.write("spec.yaml", small_spec());
    auto r = test::run_cli_in(dir.path(), "sweep spec.yaml -o local.db -j 2");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("sweep: 8 points: 8 run now (0 failed), 0 already in local.db"), std::string::npos) << r.out;
    ASSERT_EQ(rows(dir.file("local.db")).size(), 8u);

    for (const char* shard : {"0/2", "1/2"}) {
        r = test::run_cli_in(dir.path(), std::string("sweep spec.yaml --shard ") + shard + " -j 1");
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_NE(r.out.find("sweep: 4 points: 4 run now"), std::string::npos) << r.out;
    }
    r = test::run_cli_in(dir.path(), "sweep merge merged.db spec.shard-0-of-2.db spec.shard-1-of-2.db");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "merged.db: 8 points from 2 databases\n");
    expect_same_rows(dir.file("local.db"), dir.file("merged.db"));

    if (!built_with_mpi() || mpirun().empty()) GTEST_SKIP() << "built without MPI or no mpirun: the MPI part is not tested";
    const std::string cmd = "cd '" + dir.path() + "' && " + mpi_env() + mpirun() + " -n 3 --oversubscribe " + NEURONSIM_EXE +
                            " sweep spec.yaml -o mpi.db >mpi.out 2>mpi.err </dev/null";
    const int rc = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << test::read_file(dir.file("mpi.err"));
    const std::string out = test::read_file(dir.file("mpi.out"));
    EXPECT_NE(out.find("sweep: 8 points: 8 run now (0 failed), 0 already in mpi.db"), std::string::npos) << out;
    EXPECT_EQ(out.find("sweep: 8 points", out.find("sweep: 8 points") + 1), std::string::npos) << "only rank 0 reports:\n" << out;
    expect_same_rows(dir.file("local.db"), dir.file("mpi.db"));
}

TEST(SweepCli, ResumeRunsOnlyThePointsNotInTheDatabase) {
    test::TempDir dir;
    const std::string traces = "traces: [" + kSrc + "/traces/softmax.trace]\n";
    dir.write("spec.yaml", traces + "axes:\n  - {key: act.clock_ghz, values: [1.0, 1.2]}\n");
    auto r = test::run_cli_in(dir.path(), "sweep spec.yaml -o r.db --keep-runs runs");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto first = rows(dir.file("r.db"));
    for (const auto& [key, rec] : first)  // --keep-runs keeps each point's run output
        EXPECT_TRUE(std::filesystem::exists(dir.file("runs/" + key + "/out/stats.json"))) << key;
    dir.write("spec.yaml", traces + "axes:\n  - {key: act.clock_ghz, values: [1.0, 1.2, 1.4]}\n");
    r = test::run_cli_in(dir.path(), "sweep spec.yaml -o r.db");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("sweep: 3 points: 1 run now (0 failed), 2 already in r.db"), std::string::npos) << r.out;
    const auto second = rows(dir.file("r.db"));
    ASSERT_EQ(second.size(), 3u);
    for (const auto& [key, rec] : first) EXPECT_EQ(second.at(key).finished_at, rec.finished_at) << "a recorded point ran again";
}

// Points are keyed by what decides them (docs/what-if.md): a trace or data file regenerated at the
// same path, or another --numerics, runs the point again; the database keeps one row per place
// in the study and says why it was rerun. Every sweep leaves its command line, spec, build and
// host in the sweeps table.
TEST(SweepCli, AChangedInputRunsItsPointAgainAndSaysWhy) {
    test::TempDir dir;
    std::string bytes(64, 'a');
    dir.write("x.bin", bytes);
    const std::string trace = ".data sbuf:0:0x0 partitions=1 file=x.bin\ndma0 copy src=sbuf:0:0x0 dst=dram:0x1000 partitions=1 bytes=64\n";
    dir.write("t.trace", trace);
    dir.write("spec.yaml", "traces: [t.trace]\naxes:\n  - {key: act.clock_ghz, values: [1.0, 1.2]}\n");
    auto sweep = [&](const std::string& extra) { return test::run_cli_in(dir.path(), "sweep spec.yaml -o r.db" + extra); };
    auto r = sweep(" --numerics none");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("2 run now (0 failed), 0 already"), std::string::npos) << r.out;
    r = sweep(" --numerics none");
    EXPECT_NE(r.out.find("0 run now (0 failed), 2 already"), std::string::npos) << r.out;
    auto reasons = [&] {
        std::vector<std::string> out;
        for (const auto& [key, rec] : rows(dir.file("r.db"))) out.push_back(rec.rerun_reason);
        return out;
    };
    const std::vector<std::string> twice_reason = {"", ""};
    EXPECT_EQ(reasons(), twice_reason);

    dir.write("t.trace", trace + "# regenerated\n");
    r = sweep(" --numerics none");
    EXPECT_NE(r.out.find("2 run now (0 failed), 0 already"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("2 point(s) ran again because their inputs changed"), std::string::npos) << r.out;
    EXPECT_EQ(reasons(), std::vector<std::string>(2, "the trace's content changed"));

    bytes[0] = 'b';
    dir.write("x.bin", bytes);
    r = sweep(" --numerics none");
    EXPECT_NE(r.out.find("2 run now"), std::string::npos) << r.out;
    EXPECT_EQ(reasons(), std::vector<std::string>(2, "a data file of the trace changed"));

    r = sweep(" --numerics full");
    EXPECT_NE(r.out.find("2 run now"), std::string::npos) << r.out;
    EXPECT_EQ(reasons(), std::vector<std::string>(2, "numerics none -> full"));
    const auto final_rows = rows(dir.file("r.db"));
    ASSERT_EQ(final_rows.size(), 2u);  // one row per place: the stale results are gone
    for (const auto& [key, rec] : final_rows) {
        EXPECT_EQ(rec.numerics, "full");
        EXPECT_NE(rec.inputs.find("\"numerics\":\"full\""), std::string::npos) << rec.inputs;
        EXPECT_NE(rec.coord_key, rec.point_key);
    }

    ResultsDb db(dir.file("r.db"), false);
    const std::vector<SweepRun> runs = db.sweep_runs();
    ASSERT_EQ(runs.size(), 5u);
    EXPECT_EQ(runs.back().command_line, "neuronsim sweep spec.yaml -o r.db --numerics full");
    EXPECT_EQ(runs.back().spec_text, test::read_file(dir.file("spec.yaml")));
    EXPECT_EQ(runs.back().spec_sha256.size(), 64u);
    EXPECT_EQ(runs.back().build_id.size(), 16u);
    EXPECT_NE(runs.back().build_id, "unknown");
    EXPECT_EQ(runs.back().host, host_name());
}

// An error naming the point's output directory says <point dir> instead: the same failure
// reads the same in every study, whatever temporary directory the sweep used.
TEST(SweepCli, ErrorTextsCarryNoTemporaryPaths) {
    test::TempDir dir;
    dir.write("d.trace", "act sync\n.dump sbuf:0:0x0 bytes=4 file=d/x\n.dump sbuf:0:0x0 bytes=4 file=d\n");
    dir.write("spec.yaml", "traces: [d.trace]\n");
    auto r = test::run_cli_in(dir.path(), "sweep spec.yaml -o a.db");
    EXPECT_EQ(r.status, 3) << r.out << r.err;
    r = test::run_cli_in(dir.path(), "sweep spec.yaml -o b.db --keep-runs kept");
    EXPECT_EQ(r.status, 3) << r.out << r.err;
    const auto a = rows(dir.file("a.db")), b = rows(dir.file("b.db"));
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(b.size(), 1u);
    // (The message is the error's last line: a sanitizer build may print warnings before it.)
    auto message = [](const std::string& e) {
        std::string m = e.substr(e.rfind('\n') == std::string::npos ? 0 : e.rfind('\n') + 1);
        const std::string prefix = "neuronsim: error: ";
        return m.rfind(prefix, 0) == 0 ? m.substr(prefix.size()) : m;
    };
    EXPECT_EQ(message(a.begin()->second.error), "<point dir>/out/d: is a directory, expected an output file");
    EXPECT_EQ(message(a.begin()->second.error), message(b.begin()->second.error));
    for (const std::string& e : {a.begin()->second.error, b.begin()->second.error}) {
        EXPECT_EQ(e.find("neuronsim-sweep-"), std::string::npos) << e;
        EXPECT_EQ(e.find(dir.path()), std::string::npos) << e;
    }
}

// A database of schema version 1 (before input digests) is upgraded by the next sweep: its
// points run again once, saying why, and readers read it as it was.
TEST(SweepCli, AVersion1DatabaseIsUpgradedAndItsPointsRerunOnce) {
    test::TempDir dir;
    dir.write("spec.yaml", "traces: [" + kSrc + "/traces/softmax.trace]\n");
    ASSERT_EQ(test::run_cli_in(dir.path(), "sweep spec.yaml -o v.db --numerics none").status, 0);
    {  // back to version 1: no content columns, no sweeps table, the key of version 1
        Db db(dir.file("v.db"), false);
        db.exec(
            "DROP TABLE sweeps; DROP INDEX points_by_coord; UPDATE points SET point_key = coord_key; "
            "ALTER TABLE points DROP COLUMN coord_key; ALTER TABLE points DROP COLUMN inputs; ALTER TABLE points DROP COLUMN rerun_reason; "
            "UPDATE meta SET value = '1' WHERE key = 'schema_version'");
    }
    {
        const auto old = rows(dir.file("v.db"));  // a reader reads version 1 as it is
        ASSERT_EQ(old.size(), 1u);
        EXPECT_EQ(old.begin()->second.coord_key, old.begin()->first);
        EXPECT_EQ(old.begin()->second.inputs, "");
    }
    auto r = test::run_cli_in(dir.path(), "sweep spec.yaml -o v.db --numerics none");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("1 run now (0 failed), 0 already"), std::string::npos) << r.out;
    const auto now = rows(dir.file("v.db"));
    ASSERT_EQ(now.size(), 1u);
    EXPECT_EQ(now.begin()->second.rerun_reason, "recorded by a neuronsim that kept no input digests");
    Db db(dir.file("v.db"), false);
    auto st = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'");
    ASSERT_TRUE(st.step());
    EXPECT_EQ(st.text(0), "2");
}

TEST(SweepCli, AFailingPointIsRecordedAndTheSweepGoesOn) {
    test::TempDir dir;
    dir.write("bad.trace", "act activate in=sbuf:0:0\nact no_such_instruction\n");
    dir.write("bytes.trace", "act \xff\xfe\n");  // the run's message quotes bytes that are not UTF-8
    dir.write("spec.yaml", "traces: [" + kSrc + "/traces/softmax.trace, bad.trace, bytes.trace]\naxes:\n  - {key: act.clock_ghz, values: [1.0, 1.2]}\n");
    auto r = test::run_cli_in(dir.path(), "sweep spec.yaml -o f.db -j 2");
    EXPECT_EQ(r.status, 3) << r.out << r.err;
    EXPECT_NE(r.out.find("sweep: 6 points: 6 run now (4 failed)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("4 point(s) of this spec failed"), std::string::npos) << r.out;
    size_t ok = 0, failed = 0;
    const auto recorded = rows(dir.file("f.db"));
    for (const auto& [key, rec] : recorded) {
        if (rec.trace == "bad.trace" || rec.trace == "bytes.trace") {
            ++failed;
            EXPECT_EQ(rec.status, "failed");
            EXPECT_EQ(rec.exit_code, 1);
            EXPECT_NE(rec.error.find(rec.trace + ":1"), std::string::npos) << rec.error;
            EXPECT_TRUE(rec.stats.empty());
            if (rec.trace == "bytes.trace") {
                EXPECT_NE(rec.error.find("'\xEF\xBF\xBD\xEF\xBF\xBD'"), std::string::npos) << rec.error;
            }
        } else {
            ++ok;
            EXPECT_EQ(rec.status, "ok");
        }
    }
    EXPECT_EQ(ok, 2u);
    EXPECT_EQ(failed, 4u);
    // A resumed sweep does not run the failed points again, unless asked to.
    r = test::run_cli_in(dir.path(), "sweep spec.yaml -o f.db");
    EXPECT_EQ(r.status, 3);
    EXPECT_NE(r.out.find("0 run now (0 failed), 6 already"), std::string::npos) << r.out;
    r = test::run_cli_in(dir.path(), "sweep spec.yaml -o f.db --retry-failed");
    EXPECT_EQ(r.status, 3);
    EXPECT_NE(r.out.find("4 run now (4 failed), 2 already"), std::string::npos) << r.out;

    // The same failures travel from MPI workers to rank 0 intact.
    if (!built_with_mpi() || mpirun().empty()) GTEST_SKIP() << "built without MPI or no mpirun";
    const std::string cmd = "cd '" + dir.path() + "' && " + mpi_env() + mpirun() + " -n 2 --oversubscribe " + NEURONSIM_EXE +
                            " sweep spec.yaml -o mpi.db >mpi.out 2>mpi.err </dev/null";
    const int rc = std::system(cmd.c_str());
    EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 3) << test::read_file(dir.file("mpi.out")) << test::read_file(dir.file("mpi.err"));
    const auto mpi = rows(dir.file("mpi.db"));
    ASSERT_EQ(mpi.size(), 6u) << test::read_file(dir.file("mpi.err"));
    for (const auto& [key, rec] : rows(dir.file("f.db"))) {
        std::string why;
        EXPECT_TRUE(same_results(rec, mpi.at(key), &why)) << why;
        if (rec.trace == "bytes.trace") {
            EXPECT_EQ(rec.error.substr(rec.error.rfind(':')), mpi.at(key).error.substr(mpi.at(key).error.rfind(':')));
        }
    }
}

// A point that does not finish in its timeout is killed and recorded as
// failed with the reason; the sweep goes on.
TEST(SweepCli, APointPastItsTimeoutIsKilledAndRecordedAsFailed) {
    test::TempDir dir;
    // The slow point needs about 80 s of host time (far more under a sanitizer); the quick one
    // a fraction of a second, well inside the timeout even on a loaded machine.
    std::string slow = "act load_act_func_set set=0\n";
    for (int i = 0; i < 20000; ++i)
        slow +=
            "act activate func=7 in_bias_dtype=10 out_dtype=10 num_active_channels=128 bias_src_n=1 scale=1.0 src=sbuf:0:0 src.num=16384,1,1 "
            "src.step=1,0,0 dst=sbuf:0:0x10000 dst.num=16384,1,1 dst.step=1,0,0\n";
    dir.write("slow.trace", slow);
    dir.write("quick.trace", "dma0 copy src=dram:0x0 dst=sbuf:0:0x0 partitions=1 bytes=64\n");
    dir.write("spec.yaml", "traces: [slow.trace, quick.trace]\ntimeout_seconds: 4\n");
    const double t0 = now_seconds();
    auto r = test::run_cli_in(dir.path(), "sweep spec.yaml -o t.db -j 2");
    EXPECT_LT(now_seconds() - t0, 40.0) << "the slow point was not stopped at its timeout";
    EXPECT_EQ(r.status, 3) << r.out << r.err;
    const auto recorded = rows(dir.file("t.db"));
    ASSERT_EQ(recorded.size(), 2u);
    for (const auto& [key, rec] : recorded) {
        if (rec.trace == "slow.trace") {
            EXPECT_EQ(rec.status, "failed");
            EXPECT_EQ(rec.exit_code, 124);
            EXPECT_EQ(rec.error.rfind("timed out: still running after 4 s (timeout_seconds / --timeout), killed", 0), 0u) << rec.error;
        } else {
            EXPECT_EQ(rec.status, "ok") << rec.error;
        }
    }
    // --timeout overrides the spec (0: none); a bad value is a usage error; so is a bad spec value.
    EXPECT_EQ(test::run_cli_in(dir.path(), "sweep spec.yaml -o u.db --timeout -1").status, 2);
    dir.write("bad.yaml", "traces: [slow.trace]\ntimeout_seconds: -5\n");
    r = test::run_cli_in(dir.path(), "sweep bad.yaml -o b.db");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("bad.yaml: timeout_seconds (line 2): expected seconds in [0, 1e7] (0: no timeout), got -5"), std::string::npos) << r.err;
    Point p;
    p.trace_path = dir.file("slow.trace");
    EXPECT_NEAR(default_point_timeout(p), 600 + 120.0 * double(slow.size()) / (1 << 20), 1e-9);
}

// A second sweep into a database another is writing is refused at once,
// naming the process that holds it (it used to duplicate the work, then fail on UNIQUE).
TEST(SweepCli, ASecondWriterIsRefusedNamingTheFirst) {
    test::TempDir dir;
    dir.write("spec.yaml", "traces: [" + kSrc + "/traces/softmax.trace]\naxes:\n  - {key: act.clock_ghz, range: {from: 0.5, to: 2.0, steps: 60}}\n");
    const std::string db = dir.file("w.db");
    const pid_t pid = start_sweep(dir, db);
    ASSERT_GE(pid, 0);
    bool writing = false;
    for (int i = 0; i < 6000 && !writing; ++i) {
        ::usleep(10000);
        try {
            writing = ResultsDb(db, false).db().prepare("SELECT value FROM meta WHERE key = 'writer'").step();
        } catch (const std::exception&) {  // not created yet
        }
    }
    ASSERT_TRUE(writing) << test::read_file(dir.file("err"));
    auto r = test::run_cli_in(dir.path(), "sweep spec.yaml -o w.db");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("w.db: another sweep is writing this database (process " + std::to_string(pid) + " on " + host_name() + ", since "), std::string::npos)
        << r.err;
    EXPECT_EQ(r.out.find("run now"), std::string::npos) << "nothing ran: " << r.out;
    ::kill(pid, SIGINT);
    int st = 0;
    ASSERT_EQ(::waitpid(pid, &st, 0), pid);
    // The lock went with the process: the same command now resumes.
    r = test::run_cli_in(dir.path(), "sweep spec.yaml -o w.db");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(rows(db).size(), 60u);
}

// A full disk under the points' outputs: each point records the run's own
// error (its stderr comes through a pipe; a stderr file on that disk came back empty: "exit
// status 1 and no message"). A 16 KiB tmpfs in a private mount namespace is the full disk.
TEST(SweepCli, AFullDiskForThePointsRecordsTheirRealError) {
    if (std::system("unshare -rm true >/dev/null 2>&1") != 0) GTEST_SKIP() << "no user and mount namespaces here (unshare -rm)";
    test::TempDir dir;
    dir.write("spec.yaml", "traces: [" + kSrc + "/traces/softmax.trace]\ngenerations: [cayman, mariana]\n");
    std::filesystem::create_directories(dir.file("runs"));
    const std::string cmd = "cd '" + dir.path() + "' && unshare -rm sh -c 'mount -t tmpfs -o size=16k tmpfs runs && exec " + NEURONSIM_EXE +
                            " sweep spec.yaml -o f.db --keep-runs runs/k' >out 2>err";
    const int rc = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(rc)) << rc;
    EXPECT_EQ(WEXITSTATUS(rc), 3) << test::read_file(dir.file("out")) << test::read_file(dir.file("err"));
    const auto recorded = rows(dir.file("f.db"));
    ASSERT_EQ(recorded.size(), 2u) << test::read_file(dir.file("err"));
    for (const auto& [key, rec] : recorded) {
        EXPECT_EQ(rec.status, "failed");
        EXPECT_NE(rec.error.find("No space left on device"), std::string::npos) << rec.error;
        EXPECT_EQ(rec.error.find("no message"), std::string::npos) << rec.error;
    }
}

// A SIGKILLed sweep cannot remove its temporary directory; the next sweep
// removes it (and only the leftovers whose process has ended).
TEST(SweepCli, TheNextSweepRemovesAKilledSweepsTemporaryDirectory) {
    test::TempDir dir;
    const std::string tmp = dir.file("tmp");
    std::filesystem::create_directories(tmp);
    dir.write("spec.yaml", "traces: [" + kSrc + "/traces/softmax.trace]\naxes:\n  - {key: act.clock_ghz, range: {from: 0.5, to: 2.0, steps: 60}}\n");
    auto work_dirs = [&] {
        std::vector<std::string> out;
        for (const auto& e : std::filesystem::directory_iterator(tmp))
            if (e.path().filename().string().rfind("neuronsim-sweep-", 0) == 0) out.push_back(e.path().string());
        return out;
    };
    const pid_t pid = start_sweep(dir, dir.file("k.db"), true, tmp);
    ASSERT_GE(pid, 0);
    for (int i = 0; i < 6000 && work_dirs().empty(); ++i) ::usleep(10000);
    ::usleep(200000);
    ::kill(-pid, SIGKILL);
    int st = 0;
    ASSERT_EQ(::waitpid(pid, &st, 0), pid);
    ASSERT_EQ(work_dirs().size(), 1u) << "the killed sweep's directory is left behind";
    // A live sweep's directory (this test process stands for it) is not touched.
    const std::string live = tmp + "/neuronsim-sweep-live00";
    std::filesystem::create_directories(live);
    {
        std::ifstream stat("/proc/self/stat");
        std::string line;
        std::getline(stat, line);
        std::istringstream rest(line.substr(line.rfind(')') + 2));
        std::string field;
        for (int i = 3; i <= 22 && rest >> field; ++i) {
        }
        std::ofstream(live + "/owner") << ::getpid() << " " << field << "\n";
    }
    dir.write("small.yaml", "traces: [" + kSrc + "/traces/softmax.trace]\n");
    const std::string cmd = "cd '" + dir.path() + "' && TMPDIR='" + tmp + "' " + NEURONSIM_EXE + " sweep small.yaml -o s.db >/dev/null 2>err2";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << test::read_file(dir.file("err2"));
    EXPECT_EQ(work_dirs(), std::vector<std::string>{live});
}

TEST(SweepCli, InterruptStopsLaunchingKeepsWhatWasRecordedAndResumes) {
    test::TempDir dir;
    dir.write("spec.yaml", "traces: [" + kSrc + "/traces/softmax.trace]\naxes:\n  - {key: act.clock_ghz, range: {from: 0.5, to: 2.0, steps: 60}}\n");
    // Start the sweep, wait until it has recorded a point, then Ctrl-C it.
    const std::string db = dir.file("i.db");
    const pid_t pid = start_sweep(dir, db);
    ASSERT_GE(pid, 0);
    size_t recorded = 0;
    for (int i = 0; i < 6000 && recorded == 0; ++i) {
        ::usleep(10000);
        try {
            recorded = ResultsDb(db, false).point_keys().size();
        } catch (const std::exception&) {  // not created yet
        }
    }
    ::kill(pid, SIGINT);
    int st = 0;
    ASSERT_EQ(::waitpid(pid, &st, 0), pid);
    ASSERT_GT(recorded, 0u) << test::read_file(dir.file("err"));
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 130) << st << test::read_file(dir.file("out")) << test::read_file(dir.file("err"));
    EXPECT_NE(test::read_file(dir.file("out")).find("not run (interrupted; run the same command again to resume)"), std::string::npos)
        << test::read_file(dir.file("out"));
    const auto partial = rows(db);
    EXPECT_GT(partial.size(), 0u);
    EXPECT_LT(partial.size(), 60u);
    for (const auto& [key, rec] : partial) EXPECT_EQ(rec.status, "ok") << rec.error;  // an interrupted point is not recorded
    auto r = test::run_cli_in(dir.path(), "sweep spec.yaml -o i.db");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("60 points: " + std::to_string(60 - partial.size()) + " run now (0 failed), " + std::to_string(partial.size()) + " already in i.db"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(rows(db).size(), 60u);
}

TEST(SweepCli, SpecErrorsNameTheFileAndPlaceAndNothingRuns) {
    test::TempDir dir;
    dir.write("spec.yaml", "traces: [" + kSrc + "/traces/softmax.trace]\ngenerations: [sunda, mariana]\naxes:\n  - {key: act.clock_ghz, values: [1.0, -3]}\n");
    auto r = test::run_cli_in(dir.path(), "sweep spec.yaml -o e.db");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("neuronsim: error: spec.yaml: axes[0].values[1]: act.clock_ghz=-3 on sunda: "), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("e.db")));
    dir.write("spec.yaml", "traces: [" + kSrc + "/traces/softmax.trace]\ngenerations: [mariana, trainium9]\n");
    r = test::run_cli_in(dir.path(), "sweep spec.yaml");
    EXPECT_NE(r.err.find("spec.yaml: generations[1] (line 2): unknown generation \"trainium9\" (expected one of: sunda, cayman, mariana"), std::string::npos)
        << r.err;
    dir.write("spec.yaml", "traces: [" + kSrc + "/traces/softmax.trace]\nparams: {act.no_such_key: 1}\n");
    r = test::run_cli_in(dir.path(), "sweep spec.yaml");
    EXPECT_NE(r.err.find("spec.yaml: params.act.no_such_key: act.no_such_key=1 on mariana: "), std::string::npos) << r.err;
    r = test::run_cli_in(dir.path(), "sweep spec.yaml --shard 2/2");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--shard 2/2: expected I/N with 0 <= I < N"), std::string::npos) << r.err;
    r = test::run_cli_in(dir.path(), "sweep missing.yaml");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("missing.yaml"), std::string::npos) << r.err;
}

TEST(SweepCli, DryRunPrintsThePointsAndWritesNothing) {
    test::TempDir dir;
    dir.write("spec.yaml", small_spec() + "repeat: 2\n");
    auto r = test::run_cli_in(dir.path(), "sweep spec.yaml --dry-run --shard 1/4");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("1 "), std::string::npos);
    EXPECT_NE(r.out.find("/traces/softmax.trace cayman dma.bytes_per_ns_per_engine=12 #1\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("4 points (shard 1/4)\n"), std::string::npos) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir.file("spec.shard-1-of-4.db")));
}

TEST(SweepCli, ExportAndPlot) {
    test::TempDir dir;
    dir.write("spec.yaml", small_spec() + "plots:\n  - {x: dma.bytes_per_ns_per_engine, y: core.simulated_ps, series: 'trace,generation', out: p.svg}\n");
    auto r = test::run_cli_in(dir.path(), "sweep spec.yaml -o s.db --plot");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("sweep: plot p.svg"), std::string::npos) << r.out;
    EXPECT_NE(test::read_file(dir.file("p.svg")).find("<svg"), std::string::npos);

    r = test::run_cli_in(dir.path(), "sweep export s.db --csv s.csv");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string csv = test::read_file(dir.file("s.csv"));
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 9);
    EXPECT_NE(csv.find(",param:dma.bytes_per_ns_per_engine,"), std::string::npos);
    EXPECT_NE(csv.find(",stat:core.simulated_ps"), std::string::npos);

    r = test::run_cli_in(dir.path(), "plot s.db --x generation --y core.simulated_ps --series trace --where dma.bytes_per_ns_per_engine=33 --out bars.png");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(test::read_file(dir.file("bars.png")).substr(1, 3), "PNG");
    r = test::run_cli_in(dir.path(), "plot s.db --x generation --y core.no_such_stat");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("--y core.no_such_stat: no point has this key"), std::string::npos) << r.err;
    r = test::run_cli_in(dir.path(), "plot s.db --x generation --y core.simulated_ps --out x.jpg");
    EXPECT_NE(r.err.find("--out x.jpg: expected a .png or .svg file name"), std::string::npos) << r.err;
    const std::string cmd = "cd '" + dir.path() + "' && NEURONSIM_GNUPLOT=/nonexistent/gnuplot " + NEURONSIM_EXE +
                            " plot s.db --x generation --y core.simulated_ps --out n.svg 2>err; echo $? >rc";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    EXPECT_EQ(test::read_file(dir.file("rc")), "1\n");
    EXPECT_NE(test::read_file(dir.file("err")).find("gnuplot not found"), std::string::npos) << test::read_file(dir.file("err"));
    EXPECT_FALSE(std::filesystem::exists(dir.file("n.svg")));
}

// No user-supplied string runs as gnuplot (a line break ended the comment line
// the database's name was in, and the next line ran), and a spec's plot stays beside its database.
TEST(SweepCli, PlotRunsNoCommandFromItsStringsAndStaysBesideTheDatabase) {
    test::TempDir dir;
    dir.write("spec.yaml", "traces: [" + kSrc + "/traces/demo_dma.trace]\ngenerations: [cayman, mariana]\n");
    ASSERT_EQ(test::run_cli_in(dir.path(), "sweep spec.yaml -o s.db").status, 0);
    const std::string pwned = dir.file("PWNED");
    const std::string payload = "\nsystem(\"touch " + pwned + "\")\n";
    // (a file name has no '/': its command touches a file in the working directory)
    const std::filesystem::path pwned_db = std::filesystem::current_path() / "PWNED-by-db-name";
    std::filesystem::remove(pwned_db);
    const std::string db = dir.file("ev\nsystem(\"touch PWNED-by-db-name\")\n.db");
    std::filesystem::copy_file(dir.file("s.db"), db);
    if (!sweep::find_gnuplot().empty()) {
        // The arguments as a user's shell passes them: argv, no quoting of ours in between.
        sweep::ChildPool pool;
        pool.start(NEURONSIM_EXE, {"plot", db, "--x", "generation", "--y", "core.simulated_ps", "--title", "t" + payload, "--out", dir.file("p.svg"),
                                   "--script", dir.file("p.gp")});
        std::vector<sweep::ChildExit> ended;
        while (ended.empty()) ended = pool.wait(1000);
        ASSERT_EQ(ended[0].exit_code, 0) << ended[0].stderr_text;
        EXPECT_FALSE(std::filesystem::exists(pwned)) << "the title ran as a gnuplot command";
        EXPECT_FALSE(std::filesystem::exists(pwned_db)) << "the database's name ran as a gnuplot command";
        EXPECT_NE(test::read_file(dir.file("p.svg")).find("<svg"), std::string::npos);
        const std::string script = test::read_file(dir.file("p.gp"));
        EXPECT_NE(script.find("system(\"touch " + pwned + "\")"), std::string::npos) << "the strings are in the script, inside quotes or a comment";
        std::istringstream lines(script);
        for (std::string line; std::getline(lines, line);) EXPECT_NE(line.rfind("system(", 0), 0u) << line;
    }
    // plots[].out: relative, inside the database's directory.
    for (const char* out : {"../p.svg", "/tmp/p.svg", "a/../../p.svg"}) {
        dir.write("bad.yaml", "traces: [" + kSrc + "/traces/demo_dma.trace]\nplots:\n  - {x: generation, y: core.simulated_ps, out: '" + out + "'}\n");
        auto r = test::run_cli_in(dir.path(), "sweep bad.yaml -o b.db --plot");
        EXPECT_EQ(r.status, 1) << out;
        EXPECT_NE(r.err.find("must be a relative path inside the database's directory"), std::string::npos) << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(dir.file("b.db")));
}

// `--shard auto` takes the shard from the scheduler's array variables, and `--emit-sbatch`
// writes the array job and its merge. Without a Slurm controller here, the scripts run as Slurm
// would run them (bash, with the array variables of each task set), and the merged database
// equals a local sweep's (docs/what-if.md, "Across machines: shards and merge").
TEST(SweepCli, SlurmArrayScriptsRunEveryShardAndMerge) {
    test::TempDir dir;
    dir.write("spec.yaml", small_spec());
    ASSERT_EQ(test::run_cli_in(dir.path(), "sweep spec.yaml -o local.db -j 2 --numerics none").status, 0);
    auto r = test::run_cli_in(dir.path(), "sweep spec.yaml --emit-sbatch job --shards 3 --numerics none");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("job/sweep.sbatch (3 array tasks)"), std::string::npos) << r.out;
    const std::string script = test::read_file(dir.file("job/sweep.sbatch"));
    EXPECT_NE(script.find("#SBATCH --array=0-2"), std::string::npos) << script;
    EXPECT_NE(test::read_file(dir.file("job/submit.sh")).find("--dependency=afterok:"), std::string::npos);
    for (int task = 0; task < 3; ++task) {
        const std::string cmd = "env -u SGE_TASK_ID SLURM_ARRAY_TASK_ID=" + std::to_string(task) +
                                " SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=3 SLURM_CPUS_PER_TASK=1 bash '" + dir.file("job/sweep.sbatch") +
                                "' >/dev/null 2>&1";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
    ASSERT_EQ(std::system(("bash '" + dir.file("job/merge.sbatch") + "' >/dev/null 2>&1").c_str()), 0);
    expect_same_rows(dir.file("local.db"), dir.file("job/spec.db"));

    // Tasks numbered from 1 (--array=1-4), Grid Engine's variables, and what is refused.
    auto shard_of = [&](const std::string& vars) {
        const std::string cmd = "cd '" + dir.path() + "' && env -u SLURM_ARRAY_TASK_ID -u SGE_TASK_ID " + vars + " " + NEURONSIM_EXE +
                                " sweep spec.yaml --shard auto --dry-run >" + dir.file("auto.out") + " 2>" + dir.file("auto.err") + " </dev/null";
        const int rc = std::system(cmd.c_str());
        return test::CliResult{WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, test::read_file(dir.file("auto.out")), test::read_file(dir.file("auto.err"))};
    };
    r = shard_of("SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=4");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("2 points (shard 2/4)"), std::string::npos) << r.out;
    r = shard_of("SGE_TASK_ID=5 SGE_TASK_FIRST=1 SGE_TASK_LAST=7 SGE_TASK_STEPSIZE=2");
    EXPECT_NE(r.out.find("(shard 2/4)"), std::string::npos) << r.out << r.err;
    r = shard_of("");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("--shard auto: no array task in the environment"), std::string::npos) << r.err;
    r = shard_of("SLURM_ARRAY_TASK_ID=9 SLURM_ARRAY_TASK_COUNT=4");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("Slurm task 9 is not one of 4 tasks from 0 in steps of 1"), std::string::npos) << r.err;
    EXPECT_EQ(test::run_cli_in(dir.path(), "sweep spec.yaml --emit-sbatch j2").status, 2);  // no --shards
}

TEST(SweepCli, MergeRefusesConflictsByName) {
    test::TempDir dir;
    dir.write("spec.yaml", "traces: [" + kSrc + "/traces/softmax.trace]\n");
    ASSERT_EQ(test::run_cli_in(dir.path(), "sweep spec.yaml -o a.db").status, 0);
    ASSERT_EQ(test::run_cli_in(dir.path(), "sweep spec.yaml -o b.db").status, 0);
    {  // the same point with another result
        Db b(dir.file("b.db"), false);
        b.exec("UPDATE stats SET value = value + 1 WHERE key = 'core.simulated_ps'");
    }
    auto r = test::run_cli_in(dir.path(), "sweep merge m.db a.db b.db");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("1 point(s) have different results in different inputs; nothing written"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("in a.db and b.db: core.simulated_ps = "), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("m.db")));
    r = test::run_cli_in(dir.path(), "sweep merge m.db");
    EXPECT_EQ(r.status, 2);
    // The same place in the study from other inputs (here: another numerics) is a conflict too.
    ASSERT_EQ(test::run_cli_in(dir.path(), "sweep spec.yaml -o c.db --numerics none").status, 0);
    r = test::run_cli_in(dir.path(), "sweep merge m.db a.db c.db");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("in a.db and c.db was computed from other inputs: numerics default -> none"), std::string::npos) << r.err;
}

const FlatValue* stat(const PointRecord& r, const std::string& key) {
    for (const FlatStat& s : r.stats)
        if (s.key == key) return &s.value;
    return nullptr;
}

TEST(SweepCli, OverlaysAndNumericsReachEveryRun) {
    test::TempDir dir;
    dir.write("slow_act.yaml", "act:\n  clock_ghz: 0.7\n");
    const std::string spec = "traces: [" + kSrc +
                             "/traces/softmax.trace]\ngenerations: [cayman, mariana]\noverlays: [slow_act.yaml]\n"
                             "axes:\n  - {key: dma.bytes_per_ns_per_engine, values: [12, 33]}\n";
    dir.write("spec.yaml", spec + "numerics: none\n");
    auto r = test::run_cli_in(dir.path(), "sweep spec.yaml -o none.db");
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    r = test::run_cli_in(dir.path(), "sweep spec.yaml -o full.db --numerics full");
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const auto none = rows(dir.file("none.db")), full = rows(dir.file("full.db"));
    ASSERT_EQ(none.size(), 4u);
    for (const auto& [key, rec] : none) {
        ASSERT_EQ(rec.status, "ok") << rec.error;
        EXPECT_EQ(rec.numerics, "none");
        ASSERT_TRUE(stat(rec, "run.numerics"));
        EXPECT_EQ(stat(rec, "run.numerics")->s, "none");
        ASSERT_TRUE(stat(rec, "config.overlays.0.path"));
        EXPECT_EQ(stat(rec, "config.overlays.0.path")->s, "slow_act.yaml");  // resolved against the spec's directory, "."
        ASSERT_TRUE(stat(rec, "core.act.clock_ghz"));
        EXPECT_EQ(stat(rec, "core.act.clock_ghz")->d, 0.7);
        // Timing-only runs take the same time as full ones: the same places in the study (the
        // keys differ: numerics is one of a point's inputs), the same times.
        const PointRecord* found = nullptr;
        for (const auto& [k, fr] : full)
            if (fr.coord_key == rec.coord_key) found = &fr;
        ASSERT_TRUE(found) << rec.coord_key;
        EXPECT_NE(found->point_key, key);
        const PointRecord& f = *found;
        EXPECT_EQ(stat(f, "run.numerics")->s, "full");
        ASSERT_TRUE(stat(rec, "core.simulated_ps") && stat(f, "core.simulated_ps"));
        EXPECT_EQ(stat(rec, "core.simulated_ps")->i, stat(f, "core.simulated_ps")->i);
    }

    dir.write("bad.yaml", "act:\n  clock_ghz: -1\n");
    dir.write("spec.yaml", "traces: [" + kSrc + "/traces/softmax.trace]\noverlays: [bad.yaml]\n");
    r = test::run_cli_in(dir.path(), "sweep spec.yaml -o bad.db");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("spec.yaml: overlays: on mariana: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("bad.yaml"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("bad.db")));
    r = test::run_cli_in(dir.path(), "sweep spec.yaml --numerics fast");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--numerics: expected full or none, got \"fast\""), std::string::npos) << r.err;
}

}  // namespace
}  // namespace neuronsim::sweep
