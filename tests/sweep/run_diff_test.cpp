// `neuronsim diff` on run directories written by hand, so the expected deltas are worked out
// here and not by the simulator; then once end to end on two real runs.
#include "sweep/run_diff.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/support/error_of.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

const char* kHeader =
    "engine,index,opcode,mnemonic,start_ns,end_ns,start_cycle,end_cycle,ready_ns,stall_ns,stall_cause,released_by,source,function,n,elements,bytes\n";

std::string run_dir(TempDir& t, const std::string& name, double simulated_ns, uint64_t act_count, double act_busy_ns, const std::string& rows) {
    std::filesystem::create_directories(t.file(name));
    t.write(name + "/stats.json", "{\"generation\": \"" + name + "\", \"core\": {\"simulated_ps\": " + std::to_string(uint64_t(simulated_ns * 1000)) +
                                      ", \"act\": {\"busy_ps\": 1, \"by_mnemonic\": {\"activate\": {\"count\": " + std::to_string(act_count) +
                                      ", \"busy_ps\": " + std::to_string(uint64_t(act_busy_ns * 1000)) +
                                      "}}}, \"queues\": {\"dma.0\": {\"busy_ps\": 1, \"by_mnemonic\": {\"copy\": {\"count\": 1, \"busy_ps\": 500000}}}}}}");
    t.write(name + "/instructions.csv", std::string(kHeader) + rows);
    return t.file(name);
}

TEST(RunDiff, DeltasMoversAndStallCausesFromTheRecords) {
    TempDir t;
    // A: act#0 stalls 100 ns on a semaphore, runs 200; act#1 runs 50; dma.0#0 600 (only in A).
    const std::string a = run_dir(t, "A", 1000, 2, 250,
                                  "act,0,0x21,activate,100,300,0,0,0,100,semaphore 1 >= 1,dma.0#0,k.trace:3,exp,1,1,0\n"
                                  "act,1,0x21,activate,300,350,0,0,300,0,,,k.trace:4,exp,1,1,0\n"
                                  "dma.0,0,0xd1,copy,0,600,0,0,0,0,,,k.trace:2,,0,0,64\n");
    // B: act#0 no stall, 150; act#1 waits for data, 10 + 60; act#2 is new.
    const std::string b = run_dir(t, "B", 800, 3, 300,
                                  "act,0,0x21,activate,0,150,0,0,0,0,,,k.trace:3,exp,1,1,0\n"
                                  "act,1,0x21,activate,160,220,0,0,150,10,data from act,act#0,k.trace:4,exp,1,1,0\n"
                                  "act,2,0x21,activate,220,240,0,0,220,0,,,k.trace:5,exp,1,1,0\n");
    const sweep::RunDiff d = sweep::diff_runs(a, b, 10);
    EXPECT_EQ(d.a_ns, 1000);
    EXPECT_EQ(d.b_ns, 800);
    EXPECT_EQ(d.matched, 2u);
    EXPECT_EQ(d.only_a, 1u);
    EXPECT_EQ(d.only_b, 1u);
    ASSERT_EQ(d.mnemonics.size(), 2u);  // act activate, dma.0 copy (in name order)
    EXPECT_EQ(d.mnemonics[0].engine, "act");
    EXPECT_EQ(d.mnemonics[0].a_count, 2u);
    EXPECT_EQ(d.mnemonics[0].b_count, 3u);
    EXPECT_EQ(d.mnemonics[0].b_ns - d.mnemonics[0].a_ns, 50);
    EXPECT_EQ(d.mnemonics[1].engine, "dma.0");
    EXPECT_EQ(d.mnemonics[1].b_count, 1u);  // B's stats list it too
    // act#0: 100 + 200 -> 0 + 150 = -150; act#1: 0 + 50 -> 10 + 60 = +20
    ASSERT_EQ(d.movers.size(), 2u);
    EXPECT_EQ(d.movers[0].index, 0u);
    EXPECT_EQ(d.movers[0].delta(), -150);
    EXPECT_EQ(d.movers[1].delta(), 20);
    ASSERT_EQ(d.stall_changes_total, 2u);
    EXPECT_EQ(d.stall_changes[0].a_stall_cause, "semaphore 1 >= 1");
    EXPECT_EQ(d.stall_changes[0].b_stall_cause, "");
    EXPECT_EQ(d.stall_changes[1].b_stall_cause, "data from act");
    const std::string text = sweep::run_diff_text(d);
    EXPECT_NE(text.find("simulated time 1000.000 ns -> 800.000 ns: -200.000 ns (-20.0%)"), std::string::npos) << text;
    EXPECT_NE(text.find("\"semaphore 1 >= 1\" -> \"(none)\""), std::string::npos) << text;
    EXPECT_EQ(sweep::run_diff_json(d)["movers"][0]["delta_ns"], -150);
    // --top 1 keeps the largest
    EXPECT_EQ(sweep::diff_runs(a, b, 1).movers.size(), 1u);
}

TEST(RunDiff, ARunThatIsNotCompleteOrHasNoCsvIsRefused) {
    TempDir t;
    const std::string a = run_dir(t, "A", 1, 0, 0, "");
    std::filesystem::create_directories(t.file("C"));
    t.write("C/stats.json", "{}");
    EXPECT_NE(error_of([&] { sweep::diff_runs(a, t.file("C"), 5); }).find("no instructions.csv"), std::string::npos);
    t.write("A/RUN_INCOMPLETE", "failed: x\n");
    EXPECT_NE(error_of([&] { sweep::diff_runs(a, a, 5); }).find("the run is incomplete"), std::string::npos);
}

TEST(RunDiff, TwoRealRunsFromTheCli) {
    TempDir t;
    ASSERT_EQ(run_cli_in(NEURONSIM_SOURCE_DIR, "run traces/pipeline.trace --gen sunda --no-progress --out " + t.file("a")).status, 0);
    ASSERT_EQ(run_cli_in(NEURONSIM_SOURCE_DIR, "run traces/pipeline.trace --gen cayman --no-progress --out " + t.file("b")).status, 0);
    CliResult r = run_cli("diff " + t.file("a") + " " + t.file("b") + " --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto sa = nlohmann::json::parse(read_file(t.file("a/stats.json"))), sb = nlohmann::json::parse(read_file(t.file("b/stats.json")));
    EXPECT_DOUBLE_EQ(j["a"]["simulated_ns"].get<double>(), sa["core"]["simulated_ps"].get<double>() / 1000);
    EXPECT_DOUBLE_EQ(j["b"]["simulated_ns"].get<double>(), sb["core"]["simulated_ps"].get<double>() / 1000);
    EXPECT_EQ(j["matched"], sa["core"]["instructions"]);
    EXPECT_EQ(j["only_a"], 0);
    EXPECT_GT(j["movers"].size(), 0u);
    r = run_cli("diff " + t.file("a") + " " + t.file("b"));
    EXPECT_NE(r.out.find("top movers"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace neuronsim::test
