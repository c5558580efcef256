// What a run leaves behind: --numerics none times like the full run, an earlier run's outputs
// are refused unless --force (which clears exactly what neuronsim wrote), an interrupted run
// says so and exits 130, and pathological work is refused by the run.max_* limits.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/asan.h"
#include "tests/support/golden_examples.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

extern char** environ;

namespace neuronsim::test {
namespace {

const std::string kSrc = NEURONSIM_SOURCE_DIR;

std::vector<Example> examples() { return golden_examples(); }

// The stats without the two things a timing-only run legitimately changes: the record of the
// mode itself, and the memory-port counters (data DMA does not touch memory at all).
std::string comparable_stats(const std::string& path) {
    auto j = nlohmann::ordered_json::parse(read_file(path));
    j.erase("run");
    j["core"].erase("mem");
    return j.dump(1);
}

TEST(RunOutputs, NumericsNoneTimesEveryExampleLikeTheFullRun) {
    for (const Example& e : examples()) {
        TempDir full, none;
        const std::string base = "run --gen " + e.gen + " --trace traces/" + e.trace + ".trace --no-progress" + e.extra;
        CliResult a = run_cli_in(kSrc, base + " --out " + full.path());
        CliResult b = run_cli_in(kSrc, base + " --numerics none --out " + none.path());
        ASSERT_EQ(a.status, 0) << a.err;
        ASSERT_EQ(b.status, 0) << b.err;
        const std::string what = e.trace + " on " + e.gen;
        EXPECT_EQ(comparable_stats(none.file("stats.json")), comparable_stats(full.file("stats.json"))) << what;
        EXPECT_EQ(read_file(none.file("instructions.csv")), read_file(full.file("instructions.csv"))) << what;
        EXPECT_EQ(read_file(none.file("timeline.json")), read_file(full.file("timeline.json"))) << what;
        EXPECT_EQ(nlohmann::json::parse(read_file(none.file("stats.json")))["run"]["numerics"], "none");
        // No values, so no dumps: a dump would hold nothing the trace computed.
        for (const auto& f : std::filesystem::directory_iterator(none.path())) EXPECT_NE(f.path().extension(), ".bin") << what << ": " << f.path();
    }
}

TEST(RunOutputs, NumericsNoneComputesNothing) {
    // The work is counted, not done: no data DMA touches DRAM (the memory port then serves
    // instruction fetches and table images only) and no dump is written.
    TempDir t, f;
    CliResult r = run_cli_in(kSrc, "run --gen mariana --trace traces/gelu.trace --numerics none --no-progress --out " + t.path());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("--numerics none: timing only"), std::string::npos) << r.out;
    const auto s = nlohmann::json::parse(read_file(t.file("stats.json")));
    EXPECT_EQ(s["core"]["act"]["elements"], 128 * 256);
    ASSERT_EQ(run_cli_in(kSrc, "run --gen mariana --trace traces/gelu.trace --no-progress --out " + f.path()).status, 0);
    const auto full = nlohmann::json::parse(read_file(f.file("stats.json")));
    EXPECT_LT(s["core"]["mem"]["dmi_accesses"].get<uint64_t>(), full["core"]["mem"]["dmi_accesses"].get<uint64_t>()) << "no data DMA read or wrote DRAM";
    EXPECT_TRUE(std::filesystem::exists(f.file("gelu_row0.bin")));
    EXPECT_FALSE(std::filesystem::exists(t.file("gelu_row0.bin")));
    EXPECT_EQ(run_cli("run --numerics some --out " + t.file("x")).status, 2);
}

TEST(RunOutputs, StatsRecordTheInputsAndEveryEngine) {
    TempDir t;
    const std::string overlay = t.write("o.yaml", "dma: {bytes_per_ns_per_engine: 40}\n");
    CliResult r =
        run_cli_in(kSrc, "run --gen cayman --config " + overlay + " -p act.clock_ghz=1.5 --trace traces/gelu.trace --no-progress --out " + t.file("o"));
    ASSERT_EQ(r.status, 0) << r.err;
    const auto s = nlohmann::json::parse(read_file(t.file("o/stats.json")));
    EXPECT_EQ(s["schema_version"], 3);
    EXPECT_EQ(s["generation"], "CAYMAN");
    EXPECT_EQ(s["trace"]["path"], "traces/gelu.trace");
    // The hash, independently: coreutils' sha256sum of the same bytes.
    FILE* p = popen(("sha256sum " + kSrc + "/traces/gelu.trace").c_str(), "r");
    ASSERT_NE(p, nullptr);
    char digest[65] = {};
    ASSERT_EQ(fread(digest, 1, 64, p), 64u);
    pclose(p);
    EXPECT_EQ(s["trace"]["sha256"], std::string(digest));
    EXPECT_EQ(s["config"]["preset"], "cayman");
    EXPECT_EQ(s["config"]["overlays"][0]["path"], overlay);
    EXPECT_EQ(s["config"]["overrides"][0], "act.clock_ghz=1.5");
    EXPECT_EQ(s["run"]["status"], "complete");
    // Every engine of the generation, idle or not.
    EXPECT_EQ(s["core"]["pool"]["instructions"], 0);
    EXPECT_EQ(s["core"]["dma"]["engines"].size(), 16u);
    for (int e = 0; e < 16; ++e)  // gelu.trace's load and store, spread over all 16; the table load on 15
        EXPECT_EQ(s["core"]["dma"]["engines"][std::to_string(e)]["packets"], e == 15 ? 3 : 2) << e;
}

// The table-load knob moves table loads only; the data DMA knob moves data DMA only.
// A table load is a DMA transfer of the dma.* model on its own engine and queue: the ACT
// sequencer's static overhead, the transfer's latency, a descriptor per table, the bytes.
TEST(RunOutputs, TableLoadsAreDmaTransfers) {
    auto stats = [](const std::string& p) {
        TempDir t;
        t.write("load.trace", "act load_act_func_set set=10\n");
        CliResult r = run_cli("run --gen mariana --trace " + t.file("load.trace") + " --no-progress --out " + t.file("o") + " " + p);
        EXPECT_EQ(r.status, 0) << r.err;
        return nlohmann::json::parse(read_file(t.file("o/stats.json")))["core"];
    };
    const auto slow = stats("-p dma.bytes_per_ns_per_engine=1 -p dma.fixed_overhead_ns=5000 -p dma.descriptor_ns=100");
    // gelu_and_others: 20832 bytes in 4 tables; 100 ACT cycles at 1.2 GHz.
    EXPECT_NEAR(slow["act"]["table_load_ps"].get<double>(), (100 / 1.2 + 5000 + 4 * 100 + 20832) * 1000, 1);
    EXPECT_EQ(slow["dma"]["engines"]["15"]["descriptors"], 4u) << "act.table_load_dma_engine";
    EXPECT_EQ(slow["dma"]["engines"]["15"]["bytes"], 20832u);
}

TEST(RunOutputs, AnEarlierRunIsRefusedUnlessForcedAndForceClearsOnlyItsOwnFiles) {
    TempDir t;
    const std::string out = t.file("o");
    CliResult a = run_cli_in(kSrc, "run --gen mariana --trace traces/gelu.trace --no-progress --out " + out);
    ASSERT_EQ(a.status, 0) << a.err;
    ASSERT_TRUE(std::filesystem::exists(out + "/gelu_row0.bin"));
    std::ofstream(out + "/notes.txt") << "mine\n";
    CliResult b = run_cli_in(kSrc, "run --gen mariana --trace traces/softmax.trace --no-progress --out " + out);
    EXPECT_EQ(b.status, 2);
    EXPECT_NE(b.err.find("holds an earlier run's outputs; give --force"), std::string::npos) << b.err;
    EXPECT_TRUE(std::filesystem::exists(out + "/gelu_row0.bin")) << "a refused run changes nothing";
    CliResult c = run_cli_in(kSrc, "run --gen mariana --trace traces/softmax.trace --no-progress --force --out " + out);
    ASSERT_EQ(c.status, 0) << c.err;
    EXPECT_FALSE(std::filesystem::exists(out + "/gelu_row0.bin")) << "the earlier run's dump went with it";
    EXPECT_TRUE(std::filesystem::exists(out + "/notes.txt")) << "what neuronsim did not write stays";
    EXPECT_NE(read_file(out + "/.neuronsim-outputs").find("stats.json"), std::string::npos);
    // An empty directory, or one holding only other files, needs no --force.
    TempDir e;
    std::ofstream(e.file("readme")) << "x\n";
    EXPECT_EQ(run_cli("run --no-progress --out " + e.path()).status, 0);
}

// A directory without the manifest is the user's, whatever its files are called.
TEST(RunOutputs, ForceNeverRemovesWhatNeuronsimDidNotWrite) {
    TempDir t;
    const std::string proj = t.file("proj");
    std::filesystem::create_directories(proj + "/streams");
    std::ofstream(proj + "/config.yaml") << "my: own config\n";
    std::ofstream(proj + "/streams/notes.txt") << "x\n";
    for (const char* force : {"", " --force"}) {
        CliResult r = run_cli("run --no-progress" + std::string(force) + " --out " + proj);
        EXPECT_EQ(r.status, 2) << force;
        EXPECT_NE(r.err.find(proj + " holds config.yaml, streams, which neuronsim did not write (there is no .neuronsim-outputs)"), std::string::npos) << r.err;
        EXPECT_EQ(read_file(proj + "/config.yaml"), "my: own config\n");
        EXPECT_TRUE(std::filesystem::exists(proj + "/streams/notes.txt"));
        EXPECT_FALSE(std::filesystem::exists(proj + "/.neuronsim-outputs"));
    }
    // A manifest that names paths outside the directory is not followed.
    const std::string o = t.file("o");
    ASSERT_EQ(run_cli("run --no-progress --out " + o).status, 0);
    std::ofstream(t.file("precious")) << "keep\n";
    std::ofstream(o + "/.neuronsim-outputs", std::ios::app) << "../precious\n" << t.file("precious") << "\n";
    ASSERT_EQ(run_cli("run --no-progress --force --out " + o).status, 0);
    EXPECT_EQ(read_file(t.file("precious")), "keep\n");
    // A dump onto a file of the user's: refused, naming the trace line; the file stays.
    const std::string d = t.file("d");
    std::filesystem::create_directories(d);
    std::ofstream(d + "/x.bin") << "mine\n";
    const std::string tr = t.write("dump.trace", "act sync\n.dump sbuf:0:0x0 bytes=16 file=x.bin\n");
    CliResult r = run_cli("run --trace " + tr + " --no-progress --force --out " + d);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("dump.trace:2: .dump file=x.bin: " + d + "/x.bin exists and neuronsim did not write it"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(d + "/x.bin"), "mine\n");
}

// `neuronsim run --trace TRACE --no-progress --out OUT [extra]` started in the background
// (stdout to /dev/null); returns once the simulation has started (its recording exists).
pid_t start_run(const std::string& trace, const std::string& out, const std::vector<std::string>& extra = {}) {
    const std::string exe = NEURONSIM_EXE;
    std::vector<std::string> args = {exe, "run", "--trace", trace, "--no-progress", "--out", out};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return -1;
    auto recording = [&] {  // the temporary instructions.csv.tmp-PID-K exists
        std::error_code ec;
        for (const auto& e : std::filesystem::directory_iterator(out, ec))
            if (e.path().filename().string().rfind("instructions.csv.tmp", 0) == 0) return true;
        return false;
    };
    for (int i = 0; i < 600 && !recording(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return pid;
}

// The exit status of `pid` after SIGINT, and the wall seconds from the signal to its exit.
std::pair<int, double> interrupt(pid_t pid) {
    const auto t0 = std::chrono::steady_clock::now();
    if (kill(pid, SIGINT) != 0) return {-1, 0};
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return {-1, 0};  // ended by a signal, not by its handler
    return {WEXITSTATUS(status), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
}

// A run of many large Activates, interrupted: what completed is written, the run is marked
// interrupted, the exit status is 130.
TEST(RunOutputs, SigintStopsTheRunWritesWhatCompletedAndExits130) {
    TempDir t;
    std::string trace = ".data sbuf:0:0x0 partitions=128 f32 0.5\nact load_act_func_set set=10\n";
    for (int i = 0; i < 4000; ++i)
        trace +=
            "act activate func=23 in_bias_dtype=0xaa out_dtype=10 num_active_channels=128 scale=1.0 bias=0 src=sbuf:0:0x0 src.step=1,0,0 "
            "src.num=16384,1,1 dst=sbuf:0:0x10000 dst.step=1,0,0 dst.num=16384,1,1\n";
    t.write("long.trace", trace);
    const std::string out = t.file("o");
    const pid_t pid = start_run(t.file("long.trace"), out);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // some Activates done (each 2 M elements), under load or sanitizers too
    EXPECT_EQ(interrupt(pid).first, 130);
    EXPECT_NE(read_file(out + "/RUN_INCOMPLETE").find("interrupted by SIGINT"), std::string::npos);
    const auto s = nlohmann::json::parse(read_file(out + "/stats.json"));
    EXPECT_EQ(s["run"]["status"], "interrupted");
    const uint64_t done = s["core"]["instructions"].get<uint64_t>();
    EXPECT_GT(done, 0u);
    EXPECT_LT(done, 4001u);
    // The recording is whole and covers exactly the completed instructions.
    const std::string csv = read_file(out + "/instructions.csv");
    EXPECT_EQ(static_cast<uint64_t>(std::count(csv.begin(), csv.end(), '\n')), done + 1);
    EXPECT_NO_THROW(nlohmann::json::parse(read_file(out + "/timeline.json")));
}

// Ctrl-C inside one Activate of hours of host work (2^38 elements, the limits raised) stops
// the run within a second of wall time: the engine abandons the instruction.
TEST(RunOutputs, SigintStopsARunInsideALongInstructionWithinASecond) {
    TempDir t;
    t.write("long.trace",
            ".data sbuf:0:0x0 partitions=128 f32 0.5\nact load_act_func_set set=10\n"
            "act activate func=23 in_bias_dtype=0xaa out_dtype=10 num_active_channels=128 scale=1 bias=0 src=sbuf:0:0x0 "
            "src.step=0,0,0 src.num=65535,65535,1 dst=sbuf:0:0x10000 dst.step=0,0,0 dst.num=65535,65535,1\n");
    const std::string out = t.file("o");
    const pid_t pid =
        start_run(t.file("long.trace"), out, {"-p", "run.max_elements_per_instruction=1099511627776", "-p", "run.max_elements_per_run=1125899906842624"});
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // well inside the Activate, under load or sanitizers too
    const auto [status, seconds] = interrupt(pid);
    EXPECT_EQ(status, 130);
    EXPECT_LT(seconds, 1.0);
    const auto s = nlohmann::json::parse(read_file(out + "/stats.json"));
    EXPECT_EQ(s["run"]["status"], "interrupted");
    EXPECT_LE(s["core"]["instructions"].get<uint64_t>(), 1u) << "the Activate did not complete (the table load may have)";
}

// Gaps of more than the run's 100 us slice between two events (public-figures-sized
// instructions at slow settings) finish, and SystemC never warns of a start without activity.
TEST(RunOutputs, GapsLongerThanASliceFinish) {
    TempDir t;
    auto finishes = [&](const std::string& name, const std::string& args) {
        const CliResult r = run_cli("run " + args + " --no-progress --force --out " + t.file(name));
        EXPECT_EQ(r.status, 0) << name << ": " << r.err;
        EXPECT_EQ(r.out.find("W571"), std::string::npos) << name;
        EXPECT_EQ(r.err.find("W571"), std::string::npos) << name;
        EXPECT_NE(r.out.find("simulated time"), std::string::npos) << name;
    };
    t.write("rows.trace", "dma0 copy src=dram:0x0 dst=sbuf:0:0x0 partitions=128 bytes=32768 src_stride=32768\n");
    finishes("rows", "--gen sunda --trace " + t.file("rows.trace"));
    t.write("one.trace", "dma0 copy src=dram:0x0 dst=dram:0x200000 partitions=1 bytes=100001\n");
    finishes("one", "--trace " + t.file("one.trace") + " -p dma.bytes_per_ns_per_engine=1 -p dma.fixed_overhead_ns=0");
    t.write("act.trace",
            ".data sbuf:0:0x0 f32 0.5\nact load_act_func_set set=10\n"
            "act activate func=23 in_bias_dtype=0xa6 out_dtype=6 num_active_channels=128 scale=1 bias=0 src=sbuf:0:0x0 "
            "src.step=1,0,0 src.num=32768,2,1 dst=sbuf:0:0x20000 dst.step=1,0,0 dst.num=32768,2,1\n");
    finishes("act", "--trace " + t.file("act.trace") + " -p act.clock_ghz=0.5");
    finishes("softmax", "--trace " + kSrc + "/traces/softmax.trace -p dma.fixed_overhead_ns=150000");
    CliResult k = run_cli("kernel mlp-act --shape 256x16384 --dma-lanes 1 -o " + t.file("mlp.trace"));
    ASSERT_EQ(k.status, 0) << k.err;
    finishes("mlp", "--trace " + t.file("mlp.trace"));
    k = run_cli("kernel --model llama2-7b --layer 0 --seq 128 -o " + t.file("l.trace"));
    ASSERT_EQ(k.status, 0) << k.err;
    finishes("llama", "--trace " + t.file("l.trace") + " --numerics none -p dma.bytes_per_ns_per_engine=8");
}

TEST(RunOutputs, PathologicalWorkIsRefusedInMilliseconds) {
    TempDir t;
    // 65535^3 elements per partition from a step-0 pattern.
    t.write("p.trace",
            "act load_act_func_set set=10\n"
            "act activate func=23 in_bias_dtype=0xaa out_dtype=10 num_active_channels=128 scale=1.0 bias=0 src=sbuf:0:0x0 "
            "src.step=0,0,0 src.num=65535,65535,65535 dst=sbuf:0:0x0 dst.step=0,0,0 dst.num=65535,65535,65535\n");
    const auto t0 = std::chrono::steady_clock::now();
    CliResult r = run_cli("run --trace " + t.file("p.trace") + " --no-progress --out " + t.file("o"));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("p.trace:2:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("exceed the per-instruction limit of 268435456 (run.max_elements_per_instruction)"), std::string::npos) << r.err;
    EXPECT_LT(s, 30.0) << "refused before the work, not after";
    // The run budget: two instructions of 2^20 elements against a budget of 1.5 x 2^20.
    t.write("b.trace",
            "act load_act_func_set set=10\n"
            "act activate func=23 in_bias_dtype=0xaa out_dtype=10 num_active_channels=128 scale=1.0 bias=0 src=sbuf:0:0x0 "
            "src.step=1,0,0 src.num=8192,1,1 dst=sbuf:0:0x0 dst.step=1,0,0 dst.num=8192,1,1\n"
            "act activate func=23 in_bias_dtype=0xaa out_dtype=10 num_active_channels=128 scale=1.0 bias=0 src=sbuf:0:0x0 "
            "src.step=1,0,0 src.num=8192,1,1 dst=sbuf:0:0x0 dst.step=1,0,0 dst.num=8192,1,1\n");
    r = run_cli("run --trace " + t.file("b.trace") + " -p run.max_elements_per_run=1572864 --no-progress --out " + t.file("b"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("b.trace:3:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("exceed the run's budget of 1572864 (1048576 used; run.max_elements_per_run)"), std::string::npos) << r.err;
    // A DMA of 65535 rows of 4 GiB - 1 bytes (row stride 0).
    t.write("d.trace", "dma0 copy src=dram:0x0 dst=dram:0x0 partitions=65535 bytes=4294967295\n");
    r = run_cli("run --trace " + t.file("d.trace") + " --no-progress --out " + t.file("d"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("(run.max_dma_bytes_per_instruction)"), std::string::npos) << r.err;
    // A 4 GiB dump of DRAM: refused before the run, naming the line.
    t.write("u.trace", "act sync\n.dump dram:0x0 bytes=4294967295 file=x.bin\n");
    r = run_cli("run --trace " + t.file("u.trace") + " --no-progress --out " + t.file("u"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("u.trace:2: the trace's dumps reach 4294967295 bytes, more than run.max_dump_bytes (1073741824)"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(t.file("u/x.bin")));
}

// .data files are streamed where they go, not held: 48 lines loading one
// 32 MiB file into SBUF reached 1.6 GB before the simulation started; now they fit in 1 GB of
// address space. DRAM past its limit names the trace line.
TEST(RunOutputs, DataFilesAreStreamedAndTheirFailuresNameTheLine) {
    TempDir t;
    t.write("w.bin", std::string(32 << 20, '\x5a'));
    std::string trace;
    for (int i = 0; i < 48; ++i) trace += ".data sbuf:0:0x0 partitions=128 file=w.bin\n";
    trace += "act sync\n.dump sbuf:127:0x3fff0 bytes=16 file=tail.bin\n";
    t.write("s.trace", trace);
    if (!NEURONSIM_ASAN) {
        const std::string cmd = "ulimit -v 1048576 && " + std::string(NEURONSIM_EXE) + " run --trace " + t.file("s.trace") + " --no-progress --out " +
                                t.file("o") + " >/dev/null 2>" + t.file("err");
        const int rc = std::system(("/bin/sh -c '" + cmd + "'").c_str());
        ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << read_file(t.file("err"));
        EXPECT_EQ(read_file(t.file("o/tail.bin")), std::string(16, '\x5a'));
    }
    t.write("d.trace", "act sync\n.data dram:0x0 file=w.bin\n");
    CliResult r = run_cli("run --trace " + t.file("d.trace") + " -p run.max_dram_resident_bytes=1048576 --no-progress --out " + t.file("d"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("d.trace:2: host.dram: a write at 0x"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("would take its resident pages past 1048576 bytes (run.max_dram_resident_bytes)"), std::string::npos) << r.err;
}

// DRAM the run writes is host memory: bounded by run.max_dram_resident_bytes,
// and a host that runs out names the instruction instead of SystemC's bare E549.
TEST(RunOutputs, DramPagesAreBoundedAndRunningOutNamesTheInstruction) {
    TempDir t;
    t.write("d.trace", "act sync\ndma0 copy src=dram:0x0 dst=dram:0x40000000 partitions=4 bytes=1048576 src_stride=1048576 dst_stride=1048576\n");
    CliResult r = run_cli("run --trace " + t.file("d.trace") + " -p run.max_dram_resident_bytes=2097152 --no-progress --out " + t.file("o"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("d.trace:2: engine dma0, instruction 0"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("would take its resident pages past 2097152 bytes (run.max_dram_resident_bytes)"), std::string::npos) << r.err;
    EXPECT_TRUE(std::filesystem::exists(t.file("o/RUN_INCOMPLETE")));
    if (NEURONSIM_ASAN) GTEST_SKIP() << "ASan reserves terabytes of address space";
    // 4 rows of 4 GiB - 1 bytes under a 1 GiB address space: the limit is not reached first.
    t.write("h.trace", "dma0 copy src=dram:0x0 dst=dram:0x400000000 partitions=4 bytes=0xFFFFFFFF src_stride=0xFFFFFFFF dst_stride=0xFFFFFFFF\n");
    const std::string cmd = "ulimit -v 1048576 && " + std::string(NEURONSIM_EXE) + " run --trace " + t.file("h.trace") + " --no-progress --out " + t.file("h") +
                            " 2>" + t.file("err");
    const int rc = std::system(("/bin/sh -c '" + cmd + "'").c_str());
    ASSERT_TRUE(WIFEXITED(rc)) << rc;
    EXPECT_EQ(WEXITSTATUS(rc), 1);
    const std::string err = read_file(t.file("err"));
    EXPECT_NE(err.find("h.trace:1: engine dma0, instruction 0"), std::string::npos) << err;
    EXPECT_NE(err.find("the host is out of memory"), std::string::npos) << err;
    EXPECT_EQ(err.find("E549"), std::string::npos) << err;
}

}  // namespace
}  // namespace neuronsim::test
