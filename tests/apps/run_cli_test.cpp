// `neuronsim run`, `asm`, `disasm` end to end, and the golden results of the example traces
// on every generation (regenerate with scripts/update_goldens.sh after an intended change).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/golden_examples.h"
#include "tests/support/platform_run.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

const std::string kSrc = NEURONSIM_SOURCE_DIR;

std::vector<Example> examples() { return golden_examples(); }

class Golden : public ::testing::TestWithParam<Example> {};

TEST_P(Golden, StatsAndInstructionTimesMatch) {
    const Example& e = GetParam();
    TempDir t;
    // From the source tree with a relative path, as scripts/update_goldens.sh runs it: the
    // source column names traces/<trace>.trace wherever the tree is.
    CliResult r = run_cli_in(kSrc, "run --gen " + e.gen + " --trace traces/" + e.trace + ".trace --out " + t.path() + " --no-progress" + e.extra);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string golden = kSrc + "/tests/golden/" + e.trace + "/" + e.gen + "/";
    EXPECT_EQ(read_file(t.file("stats.json")), read_file(golden + "stats.json"));
    EXPECT_EQ(read_file(t.file("instructions.csv")), read_file(golden + "instructions.csv"));
}

INSTANTIATE_TEST_SUITE_P(ExampleTraces, Golden, ::testing::ValuesIn(examples()),
                         [](const ::testing::TestParamInfo<Example>& i) { return i.param.trace + "_" + i.param.gen; });

TEST(RunCli, EveryExampleTraceHasGoldens) {
    // Guards the list itself: a trace in traces/ that nobody pins would drift unnoticed.
    std::set<std::string> listed;
    for (const Example& e : examples()) listed.insert(e.trace);
    EXPECT_GE(listed.size(), 6u);
    for (const auto& f : std::filesystem::directory_iterator(kSrc + "/traces"))
        if (f.path().extension() == ".trace") {
            EXPECT_TRUE(listed.count(f.path().stem().string())) << f.path();
        }
}

TEST(RunCli, GoldensFollowTheDmaFormula) {
    // Independent of the goldens: pipeline.trace is a chain of 4 transfers, each pinned to one
    // engine: 1300 ns latency, 128 descriptors and 512 KiB at that engine's bandwidth; 4
    // semaphore hand-offs of 20 ns, the first bundle's 250 ns fetch, two ACT syncs of 100 cycles.
    struct G {
        const char* gen;
        double bw, descriptor, act_ghz;
    };
    for (const G& g : {G{"sunda", 17.0, 15, 1.4}, G{"cayman", 23.0, 11, 1.2}, G{"mariana", 33.0, 8, 1.2}}) {
        const std::string gen = g.gen;
        auto j = nlohmann::json::parse(read_file(kSrc + "/tests/golden/pipeline/" + gen + "/stats.json"));
        const double ns = 250 + 4 * (1300 + 128 * g.descriptor + 524288 / g.bw) + 4 * 20 + 200 / g.act_ghz;
        EXPECT_NEAR(j["core"]["simulated_ps"].get<double>() / 1000, ns, 0.01) << gen;
    }
}

TEST(RunCli, DefaultRunWritesEverythingAndIsDeterministic) {
    // The built-in demo shows what the product is: data DMA'd in, a CPTC decode on POOL, a
    // table load and GELU on ACT, the result DMA'd out.
    TempDir a, b;
    CliResult r = run_cli("run --out " + a.path());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("neuronsim run: MARIANA (NC-v4), built-in demo.trace (CPTC library opted in)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("DMA: 3 transfers"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("ACT: 16384 elements, resident set gelu_and_others"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("POOL: 1 CPTC decodes (cptc_decode_impl<3> x1), 16384 elements decoded"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("host: "), std::string::npos);
    for (const char* f : {"stats.json", "instructions.csv", "timeline.json", "config.yaml", "host.json", "gelu.bin"})
        EXPECT_TRUE(std::filesystem::exists(a.file(f))) << f;
    EXPECT_NE(read_file(a.file("config.yaml")).find("cptc_flag: true"), std::string::npos);
    const auto host = nlohmann::json::parse(read_file(a.file("host.json")));
    for (const char* k : {"wall_seconds", "simulated_ns_per_wall_second", "instructions_per_second", "peak_rss_bytes", "dma_copy_wait_seconds"})
        EXPECT_TRUE(host.contains(k)) << k;
    EXPECT_LE(host["dma_copy_wait_seconds"].get<double>(), host["wall_seconds"].get<double>());
    {  // one host thread: each copy is made as it is queued, and none is waited for
        TempDir one;
        ASSERT_EQ(run_cli("run --threads 1 --out " + one.path()).status, 0);
        EXPECT_EQ(nlohmann::json::parse(read_file(one.file("host.json")))["dma_copy_wait_seconds"].get<double>(), 0.0);
    }
    auto tl = nlohmann::json::parse(read_file(a.file("timeline.json")));
    size_t slices = 0, stalls = 0, flows = 0;
    for (const auto& e : tl["traceEvents"]) {
        const bool stall = e["ph"] == "X" && e["name"].get<std::string>().rfind("stall: ", 0) == 0;
        slices += e["ph"] == "X" && !stall;
        stalls += stall;
        flows += e["ph"] == "s";
    }
    EXPECT_EQ(slices, 5u + 33u);  // five instructions, 33 DMA packets (16 for each spread copy, the table load's)
    EXPECT_EQ(stalls, 2u);  // pool waits for the weights, dma.1 for the results (ACT's wait is under its table load)
    EXPECT_EQ(flows, stalls);  // each released by an update: an arrow from it
    // GELU of the decoded weights, the same in every partition, near the exact GELU of the
    // values the weights were encoded from ((i % 16 - 7.5) / 4, 4-bit codes: within a step).
    const std::vector<float> g = floats(read_file(a.file("gelu.bin")));
    ASSERT_EQ(g.size(), 128u * 128u);
    for (size_t p = 1; p < 128; ++p) ASSERT_TRUE(std::equal(g.begin(), g.begin() + 128, g.begin() + p * 128)) << p;
    for (size_t i = 0; i < 128; ++i) {
        const double x = (static_cast<double>(i % 16) - 7.5) / 4;
        EXPECT_NEAR(g[i], x * 0.5 * std::erfc(-x / std::sqrt(2.0)), 0.15) << i;
    }
    ASSERT_EQ(run_cli("run --out " + b.path()).status, 0);
    for (const char* f : {"stats.json", "instructions.csv", "timeline.json", "gelu.bin"}) EXPECT_EQ(read_file(a.file(f)), read_file(b.file(f))) << f;
    // SUNDA's ISA has no CPTC types: its demo runs without the decode.
    TempDir s;
    r = run_cli("run --gen sunda --out " + s.path());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("built-in demo_no_cptc.trace"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("ACT: 2048 elements, resident set gelu_and_others"), std::string::npos) << r.out;
}

TEST(RunCli, OverridesAndConfigFile) {
    TempDir t;
    CliResult r = run_cli("run --gen cayman -p dma.fixed_overhead_ns=0 -p dma.bytes_per_ns_per_engine=1 -p dma.bytes_per_ns_per_engine=2 --out " + t.path());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(read_file(t.file("config.yaml")).find("bytes_per_ns_per_engine: 2"), std::string::npos);
    // CAYMAN's demo (no CPTC) brings 128 x 64 B in over the 16 engines, 8 rows each: fetched at
    // 250 ns, no latency, 8 descriptors x 11 ns and 512 B at 2 B/ns.
    EXPECT_NE(read_file(t.file("instructions.csv")).find("dma.0,0,0xd1,copy,250.000,594.000"), std::string::npos) << read_file(t.file("instructions.csv"));
    TempDir u;
    CliResult c = run_cli("run --config " + t.file("config.yaml") + " --out " + u.path());
    ASSERT_EQ(c.status, 0) << c.err;
    // The same configuration by another route: the same results (the record of the inputs differs).
    auto core = [](const std::string& path) { return nlohmann::json::parse(read_file(path))["core"].dump(); };
    EXPECT_EQ(core(u.file("stats.json")), core(t.file("stats.json")));
    const auto inputs = nlohmann::json::parse(read_file(u.file("stats.json")))["config"];
    EXPECT_EQ(inputs["overlays"][0]["path"], t.file("config.yaml"));
    EXPECT_EQ(inputs["sha256"], nlohmann::json::parse(read_file(t.file("stats.json")))["config"]["sha256"]) << "the resolved configs are equal";
    CliResult bad = run_cli("run -p act.lanes=0 --force --out " + u.path());
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.err.find("act.lanes: expected a number in [1, 128], got \"0\""), std::string::npos) << bad.err;
    EXPECT_EQ(run_cli("run --gen tonga").status, 1);
    // An overlay on another generation's preset may not change which generation it is.
    CliResult mixed = run_cli("run --gen mariana --config " + t.file("config.yaml") + " --out " + u.file("m"));
    EXPECT_EQ(mixed.status, 1);
    EXPECT_NE(mixed.err.find(t.file("config.yaml") + ":2: generation.name: CAYMAN differs from the preset's MARIANA"), std::string::npos) << mixed.err;
}

TEST(RunCli, StreamsAndAsmDisasm) {
    TempDir t;
    CliResult a = run_cli("asm " + kSrc + "/traces/pipeline.trace -o " + t.file("s"));
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_NE(a.out.find("dma0.bin: 2 bundles"), std::string::npos) << a.out;
    CliResult d = run_cli("disasm " + t.file("s/dma2.bin"));
    ASSERT_EQ(d.status, 0) << d.err;
    EXPECT_NE(d.out.find("dma2 copy src=sbuf:0:0x0 dst=dram:0x800000 partitions=128 bytes=4096 dst_stride=4096 wait=10>=1 update=20+1"), std::string::npos)
        << d.out;
    CliResult r = run_cli("run --streams " + t.file("s") + " --gen sunda --out " + t.file("o"));
    ASSERT_EQ(r.status, 0) << r.err;
    // Everything but "mem": the two routes place the rings differently, so the port's bounded
    // DMI cache meets the pages in another order (a grant more or less; no time is charged).
    auto core = [](const std::string& path) {
        nlohmann::json c = nlohmann::json::parse(read_file(path))["core"];
        EXPECT_GT(c["mem"]["dmi_grants"].get<uint64_t>(), 0u);
        c.erase("mem");
        return c.dump();
    };
    EXPECT_EQ(core(t.file("o/stats.json")), core(kSrc + "/tests/golden/pipeline/sunda/stats.json"));
}

TEST(RunCli, TheTraceMayBePositionalAndAStrayArgumentIsAUsageError) {
    TempDir t;
    const std::string tr = t.write("s.trace", "act sync update=3+1\n");
    CliResult r = run_cli("run " + tr + " --out " + t.file("o"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(read_file(t.file("o/stats.json")))["trace"]["path"], tr);
    // A second one used to be dropped silently (and the built-in demo ran in its place).
    r = run_cli("run " + tr + " " + tr + " --out " + t.file("p"));
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("too many positional options"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(t.file("p")));
    r = run_cli("demo stray");
    EXPECT_EQ(r.status, 2);
}

TEST(RunCli, ErrorsExitNonZeroWithPlaces) {
    TempDir t;
    std::string tr = t.write("d.trace", "act sync wait=1>=1\n");
    CliResult r = run_cli("run --trace " + tr + " --force --out " + t.file("o"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("deadlock"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("engine act at instruction 0 (" + tr + ":1) waits for semaphore 1 >= 1, which is 0"), std::string::npos) << r.err;
    tr = t.write(
        "e.trace",
        "act sync\npool raw raw=47100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\n");
    r = run_cli("run --trace " + tr + " --force --out " + t.file("o"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("opcode 0x47 is not modelled on engine pool"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(tr + ":2: engine pool, instruction 0"), std::string::npos) << "a run-time error names the trace line: " << r.err;
    // The output directory says the run is incomplete: no stats; the records up to the error
    // are whole files (for debugging), never half-written ones.
    EXPECT_NE(read_file(t.file("o/RUN_INCOMPLETE")).find("failed: "), std::string::npos);
    for (const char* f : {"stats.json", "host.json"}) EXPECT_FALSE(std::filesystem::exists(t.file(std::string("o/") + f))) << f;
    for (const auto& e : std::filesystem::directory_iterator(t.file("o")))
        EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << "a temporary is left: " << e.path();
    EXPECT_NO_THROW(nlohmann::json::parse(read_file(t.file("o/timeline.json"))));
    r = run_cli("run --trace " + tr + " --skip-unknown --force --out " + t.file("o"));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(std::filesystem::exists(t.file("o/RUN_INCOMPLETE")));
    EXPECT_TRUE(std::filesystem::exists(t.file("o/stats.json")));
    tr = t.write("f.trace", "act sync\nact sync update=1+1 func=2\n");
    r = run_cli("run --trace " + tr + " --force --out " + t.file("o"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("f.trace:2: 'sync' has no field 'func'"), std::string::npos) << r.err;
    EXPECT_EQ(run_cli("run --trace /nonexistent.trace --force --out " + t.file("o")).status, 1);
}

// instructions.csv as rows of fields (RFC 4180 quoting), keyed by "engine#index".
std::map<std::string, std::map<std::string, std::string>> csv_rows(const std::string& text) {
    std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') rows.back().back() += '"', ++i;
            else if (c == '"') quoted = false;
            else rows.back().back() += c;
        } else if (c == '"') quoted = true;
        else if (c == ',') rows.back().emplace_back();
        else if (c == '\n') rows.emplace_back(1);
        else rows.back().back() += c;
    }
    std::map<std::string, std::map<std::string, std::string>> out;
    for (size_t r = 1; r < rows.size(); ++r) {
        if (rows[r].size() != rows[0].size()) continue;
        std::map<std::string, std::string> m;
        for (size_t k = 0; k < rows[0].size(); ++k) m[rows[0][k]] = rows[r][k];
        out[m["engine"] + "#" + m["index"]] = m;
    }
    return out;
}

TEST(RunCli, InstructionsCsvExplainsEveryStall) {
    TempDir t;
    CliResult r = run_cli_in(kSrc, "run --trace traces/softmax.trace --out " + t.path() + " --no-progress");
    ASSERT_EQ(r.status, 0) << r.err;
    auto rows = csv_rows(read_file(t.file("instructions.csv")));
    // dma.1's copy waits for act#5's update (the scaled exp values); act#0 is the table load,
    // whose completion the exp waits for.
    const auto& load = rows.at("act#0");
    EXPECT_EQ(load.at("source"), "traces/softmax.trace:8");
    EXPECT_EQ(load.at("function"), "exp_and_others");
    const auto& exp = rows.at("act#1");
    EXPECT_EQ(exp.at("function"), "exp");
    EXPECT_EQ(exp.at("n"), "16");
    EXPECT_EQ(exp.at("elements"), std::to_string(16 * 128));
    EXPECT_EQ(exp.at("stall_cause"), "data from act");
    EXPECT_EQ(exp.at("released_by"), "act#0");
    EXPECT_EQ(std::stod(exp.at("start_ns")), std::stod(load.at("end_ns")));
    EXPECT_EQ(exp.at("source"), "traces/softmax.trace:9");
    const auto& copy = rows.at("dma.1#0");
    EXPECT_EQ(copy.at("stall_cause"), "semaphore 1 >= 1");
    EXPECT_EQ(copy.at("released_by"), "act#5");
    EXPECT_GT(std::stod(copy.at("stall_ns")), 1000.0);
    EXPECT_EQ(copy.at("bytes"), std::to_string(64 * 128));
    // ready + stall = start, for every row.
    for (const auto& [k, m] : rows) EXPECT_NEAR(std::stod(m.at("ready_ns")) + std::stod(m.at("stall_ns")), std::stod(m.at("start_ns")), 0.0015) << k;
    EXPECT_NE(r.out.find("top stalls:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("dma.1    waits for semaphore 1 >= 1 released by act"), std::string::npos) << r.out;
    // Counts and totals say what they are: softmax.trace has 3 activates, whose busy time is a
    // total, also given per instruction.
    EXPECT_TRUE(std::regex_search(r.out, std::regex("act +activate +3 instr +[0-9.]+ ns total +[0-9.]+ ns each"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("released by act +1 stalls +[0-9.]+ ns total"))) << r.out;
    // The timeline has a flow arrow into each released instruction and the counter tracks.
    auto tl = nlohmann::json::parse(read_file(t.file("timeline.json")));
    std::set<std::string> counters, names;
    for (const auto& e : tl["traceEvents"]) {
        if (e["ph"] == "C") counters.insert(e["name"].get<std::string>());
        if (e["ph"] == "X") names.insert(e["name"].get<std::string>());
    }
    EXPECT_TRUE(counters.count("act resident set"));
    EXPECT_TRUE(counters.count("DMA bytes in flight"));
    EXPECT_TRUE(names.count("activate exp N=16")) << "ACT slices are named by function and N";
    EXPECT_TRUE(names.count("stall: semaphore 1 >= 1"));
}

TEST(RunCli, SetThrashSummarySaysWhatTheAlternationCosts) {
    TempDir t;
    CliResult r = run_cli_in(kSrc, "run --trace traces/set_thrash.trace --out " + t.path() + " --no-progress");
    ASSERT_EQ(r.status, 0) << r.err;
    auto stats = nlohmann::json::parse(read_file(t.file("stats.json")))["core"];
    double switch_ps = 0;
    for (const auto& s : stats["act"]["table_switches"])
        if (s["from"] != s["to"] && s["from"] != "(none)") switch_ps += s["load_ps"].get<double>();
    char want[160];
    std::snprintf(want, sizeof want, "alternating exp_and_others <-> sigmoid_and_others: 3 reloads, %.3f ns", switch_ps / 1000);
    EXPECT_NE(r.out.find(want), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("reload sigmoid_and_others                       1 loads"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("ACT table loads: 5 (1 redundant)"), std::string::npos) << r.out;
    // Table-load time is apart from computing: the two add up to ACT's busy time.
    EXPECT_EQ(stats["act"]["table_load_ps"].get<uint64_t>() + stats["act"]["compute_ps"].get<uint64_t>(), stats["act"]["busy_ps"].get<uint64_t>());
    EXPECT_GT(stats["act"]["by_mnemonic"]["load_act_func_set"]["busy_ps"].get<uint64_t>(), stats["act"]["by_mnemonic"]["activate"]["busy_ps"].get<uint64_t>());
}

TEST(RunCli, CostModelColumnsAndSummary) {
    TempDir t;
    CliResult r = run_cli_in(kSrc, "run --gen sunda --cost-model --trace traces/set_thrash.trace --out " + t.path() + " --no-progress");
    ASSERT_EQ(r.status, 0) << r.err;
    auto rows = csv_rows(read_file(t.file("instructions.csv")));
    // nki.isa on NC-v2: (max(64, 16) + 160) cycles at 1.4 GHz = 160 ns; the load is free.
    EXPECT_NEAR(std::stod(rows.at("act#1").at("model_ns")), 224 / 1.4, 1e-3);
    EXPECT_NE(rows.at("act#1").at("model_formula").find("nki.isa: max(64,N)+160"), std::string::npos);
    EXPECT_EQ(rows.at("act#0").at("model_ns"), "0.000");
    const double sim = std::stod(rows.at("act#0").at("end_ns")) - std::stod(rows.at("act#0").at("start_ns"));
    EXPECT_NEAR(std::stod(rows.at("act#0").at("sim_minus_model_ns")), sim, 2e-3);
    EXPECT_NE(r.out.find("largest divergences (simulated - model):"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("load_act_func_set"), std::string::npos);
    // CoreV4Hwm on MARIANA: floor(172*100/120) + floor(16*100/120) = 143 + 13 ns.
    TempDir m;
    r = run_cli_in(kSrc, "run --cost-model --trace traces/set_thrash.trace --out " + m.path() + " --no-progress");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(csv_rows(read_file(m.file("instructions.csv"))).at("act#1").at("model_ns"), "156.000");
}

TEST(RunCli, OutputsCanBeLimited) {
    TempDir t, w;
    CliResult r = run_cli_in(kSrc, "run --trace traces/softmax.trace --no-csv --no-timeline --out " + t.path() + " --no-progress");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(std::filesystem::exists(t.file("instructions.csv")));
    EXPECT_FALSE(std::filesystem::exists(t.file("timeline.json")));
    EXPECT_TRUE(std::filesystem::exists(t.file("stats.json")));
    // A window: only the instructions overlapping it.
    r = run_cli_in(kSrc, "run --trace traces/set_thrash.trace --window 2500:3000 --out " + w.path() + " --no-progress");
    ASSERT_EQ(r.status, 0) << r.err;
    auto rows = csv_rows(read_file(w.file("instructions.csv")));
    ASSERT_FALSE(rows.empty());
    for (const auto& [k, m] : rows) {
        EXPECT_GE(std::stod(m.at("end_ns")), 2500.0) << k;
        EXPECT_LE(std::stod(m.at("ready_ns")), 3000.0) << k;
    }
    EXPECT_LT(rows.size(), 9u);
    EXPECT_EQ(run_cli("run --window 5:1 --out " + w.path()).status, 2);  // refused before the directory is looked at
    CliResult bad = run_cli("run --window abc --out " + w.path());
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("--window abc: expected START:END in ns"), std::string::npos) << bad.err;
}

// Hazards (docs/hazards.md): the demo with GPSIMD's wait for the DMA left out decodes SBUF the
// copy is still writing. Warned about on stderr with both trace lines, listed in hazards.txt,
// counted in stats.json; --hazards error makes the complete run exit 1; off looks for none.
TEST(RunCli, HazardsAreWarnedListedAndCanFailTheRun) {
    TempDir t;
    std::string demo = read_file(kSrc + "/traces/demo.trace");
    const size_t w = demo.find(" wait=0>=1");
    ASSERT_NE(w, std::string::npos);
    demo.erase(w, std::string(" wait=0>=1").size());
    const std::string trace = t.write("race.trace", demo);
    const std::string args = "run " + trace + " -p gpsimd.cptc_flag=true --no-progress --out ";
    CliResult r = run_cli(args + t.file("warn"));
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string listed = read_file(t.file("warn/hazards.txt"));
    EXPECT_NE(listed.find("write after read: dma.0#0 (copy, " + trace + ":12) writes sbuf partitions 0-127 bytes [0x0, 0x50), which pool#0 (conv_lut_load, " +
                          trace + ":13) reads, and no semaphore orders them"),
              std::string::npos)
        << listed;
    EXPECT_NE(listed.find("read of unwritten bytes: pool#0 (conv_lut_load, " + trace +
                          ":13) reads bytes that nothing had written, within sbuf partitions 0-127 bytes [0x0, 0x50)"),
              std::string::npos)
        << listed;
    EXPECT_NE(r.err.find("neuronsim run: 2 hazards (docs/hazards.md):"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(listed.substr(0, listed.find('\n'))), std::string::npos) << r.err;
    const nlohmann::json h = nlohmann::json::parse(read_file(t.file("warn/stats.json")))["core"]["hazards"];
    EXPECT_EQ(h["checked"], true);
    EXPECT_EQ(h["write_after_read"], 1);
    EXPECT_EQ(h["unwritten_reads"], 1);
    EXPECT_EQ(h["read_after_write"], 0);
    EXPECT_NE(read_file(t.file("warn/.neuronsim-outputs")).find("hazards.txt"), std::string::npos);

    CliResult e = run_cli(args + t.file("error") + " --hazards error");
    EXPECT_EQ(e.status, 1) << e.err;
    EXPECT_NE(e.err.find("--hazards error: exit status 1 (the outputs are complete)"), std::string::npos) << e.err;
    EXPECT_FALSE(std::filesystem::exists(t.file("error/RUN_INCOMPLETE")));
    EXPECT_EQ(read_file(t.file("error/hazards.txt")), listed);
    EXPECT_TRUE(std::filesystem::exists(t.file("error/gelu.bin")));

    CliResult off = run_cli(args + t.file("off") + " --hazards off");
    ASSERT_EQ(off.status, 0) << off.err;
    EXPECT_EQ(off.err.find("hazard"), std::string::npos) << off.err;
    EXPECT_FALSE(std::filesystem::exists(t.file("off/hazards.txt")));
    EXPECT_EQ(nlohmann::json::parse(read_file(t.file("off/stats.json")))["core"]["hazards"]["checked"], false);

    // The demo as written has none: an empty list, and error passes.
    CliResult clean = run_cli("run " + kSrc + "/traces/demo.trace -p gpsimd.cptc_flag=true --no-progress --hazards error --out " + t.file("clean"));
    EXPECT_EQ(clean.status, 0) << clean.err;
    EXPECT_EQ(read_file(t.file("clean/hazards.txt")), "");

    CliResult bad = run_cli("run --hazards maybe --out " + t.file("bad"));
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("--hazards: expected warn, error or off, got \"maybe\""), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace neuronsim::test
