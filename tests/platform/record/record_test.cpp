// The recordings' parts on their own: the cost-model ranking (order, ties, the cap), the CSV's
// quoting (RFC 4180) and stall columns, the timeline's tracks, stall slices and flow arrows,
// each file absent until committed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/record/divergence_ranking.h"
#include "platform/record/instruction_csv.h"
#include "platform/record/record_text.h"
#include "platform/record/timeline_writer.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::platform::record {
namespace {

const std::string kAct = "act", kPool = "pool", kActivate = "activate", kCopy = "copy", kFile = "a,b.trace", kFn = "gelu";

InstructionRecord rec(const std::string* engine, uint64_t index, double start_ns, double end_ns, double model_ns = -1) {
    InstructionRecord r;
    r.engine = engine;
    r.index = index;
    r.opcode = 0x21;
    r.mnemonic = &kActivate;
    r.ready = sc_core::sc_time(start_ns, sc_core::SC_NS);
    r.start = r.ready;
    r.end = sc_core::sc_time(end_ns, sc_core::SC_NS);
    r.model_ns = model_ns;
    return r;
}

TEST(DivergenceRanking, KeepsTheFiveLargestFirstAndTiesInCompletionOrder) {
    DivergenceRanking d;
    d.add(rec(&kAct, 0, 0, 10));  // no estimate: not ranked
    d.add(rec(&kAct, 1, 0, 10, 9));  // 1
    d.add(rec(&kAct, 2, 0, 10, 4));  // 6
    d.add(rec(&kAct, 3, 0, 10, 7));  // 3
    d.add(rec(&kAct, 4, 0, 10, 13));  // 3 (a tie, later)
    d.add(rec(&kAct, 5, 0, 10, 8));  // 2
    d.add(rec(&kAct, 6, 0, 10, 20));  // 10
    d.add(rec(&kAct, 7, 0, 10, 9.5));  // 0.5: smaller than every kept one
    std::vector<std::string> names;
    for (const Divergence& x : d.top()) names.push_back(x.instruction);
    EXPECT_EQ(names, (std::vector<std::string>{"act#6", "act#2", "act#3", "act#4", "act#5"}));
    EXPECT_DOUBLE_EQ(d.top()[0].simulated_ns, 10);
    EXPECT_DOUBLE_EQ(d.top()[0].model_ns, 20);
}

TEST(InstructionCsv, QuotesWhatNeedsItAndAppearsOnlyWhenCommitted) {
    test::TempDir t;
    const std::string path = t.file("i.csv");
    {
        InstructionCsv csv(path, true);
        InstructionRecord r = rec(&kAct, 3, 1, 2.5, 1.0);
        r.ready = sc_core::sc_time(0.5, sc_core::SC_NS);
        r.busy_resource = &kCopy;
        r.sem_wait = true;
        r.wait.wait_idx = 4;
        r.wait.value = 2;
        r.source_file = &kFile;
        r.line = 7;
        r.function = &kFn;
        r.model_formula = "N \"cycles\"";
        csv.row(r);
        EXPECT_FALSE(std::filesystem::exists(path));
        csv.commit();
    }
    const std::string text = test::read_file(path);
    const std::string row = text.substr(text.find('\n') + 1);
    EXPECT_EQ(row,
              "act,3,0x21,activate,1.000,2.500,1,3,0.500,0.500,\"semaphore 4 >= 2, then busy copy\",,\"a,b.trace:7\",gelu,0,0,0,"
              "1.000,\"N \"\"cycles\"\"\",0.500\n");
}

TEST(TimelineWriter, StallSlicesAndFlowArrowsFromTheReleasingTrack) {
    test::TempDir t;
    const std::string path = t.file("t.json");
    {
        TimelineWriter tl(path, "run \"x\"");
        tl.instruction(rec(&kPool, 0, 0, 5));
        InstructionRecord r = rec(&kAct, 0, 2, 9);
        r.start = sc_core::sc_time(5, sc_core::SC_NS);
        r.sem_wait = true;
        r.wait.wait_idx = 1;
        r.wait.value = 1;
        r.released_by = &kPool;
        r.released_at = sc_core::sc_time(5, sc_core::SC_NS);
        tl.instruction(r);
        tl.slice("dma0", "copy", sc_core::sc_time(1, sc_core::SC_NS), sc_core::sc_time(3, sc_core::SC_NS), "{\"bytes\": 64}");
        tl.counter("queue depth", sc_core::sc_time(1, sc_core::SC_NS), 2);
        EXPECT_FALSE(std::filesystem::exists(path));
        tl.commit();
    }
    const auto j = nlohmann::json::parse(test::read_file(path));
    const auto& ev = j.at("traceEvents");
    EXPECT_EQ(ev[0]["args"]["name"], "run \"x\"");
    int stalls = 0, flows = 0, counters = 0;
    for (const auto& e : ev) {
        if (e["name"] == "stall: semaphore 1 >= 1") {
            ++stalls;
            EXPECT_DOUBLE_EQ(e["ts"].template get<double>(), 0.002);
            EXPECT_DOUBLE_EQ(e["dur"].template get<double>(), 0.003);
            EXPECT_EQ(e["args"]["released_by"], "pool#0");
        }
        if (e["name"] == "release") ++flows;
        if (e["ph"] == "C") ++counters;
    }
    EXPECT_EQ(stalls, 1);
    EXPECT_EQ(flows, 2);  // its start on pool's track, its end on act's
    EXPECT_EQ(counters, 1);
}

// Tracks appear in a fixed order whatever order they were first used in: ACT, POOL, the DMA
// queue streams by queue, the per-engine streams, the DMA engines by number.
TEST(TimelineWriter, TracksSortAsEnginesThenQueuesThenDmaEngines) {
    test::TempDir t;
    const std::string path = t.file("t.json");
    {
        TimelineWriter tl(path, "run");
        const sc_core::sc_time a(1, sc_core::SC_NS), b(2, sc_core::SC_NS);
        for (const char* track : {"dma engine 10", "dma.1", "dma engine 2", "dma3.1", "pool", "dma.0", "dma3", "act", "dma2.0", "other"})
            tl.slice(track, "x", a, b, "{}");
        tl.commit();
    }
    const auto j = nlohmann::json::parse(test::read_file(path));
    std::map<int, std::string> names;
    std::map<int, long> index;
    for (const auto& e : j.at("traceEvents")) {
        if (e["name"] == "thread_name") names[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
        if (e["name"] == "thread_sort_index") index[e["tid"].get<int>()] = e["args"]["sort_index"].get<long>();
    }
    ASSERT_EQ(index.size(), names.size());
    std::vector<std::pair<long, std::string>> order;
    for (const auto& [tid, name] : names) order.emplace_back(index.at(tid), name);
    std::sort(order.begin(), order.end());
    std::vector<std::string> got;
    for (const auto& o : order) got.push_back(o.second);
    EXPECT_EQ(got, (std::vector<std::string>{"act", "pool", "dma.0", "dma.1", "dma2.0", "dma3", "dma3.1", "dma engine 2", "dma engine 10", "other"}));
}

TEST(RecordText, JsonEscapeAndCsvFields) {
    EXPECT_EQ(json_escape("a\"b\\c\n"), "a\\\"b\\\\c\\u000a");
    EXPECT_TRUE(csv_plain("gelu"));
    EXPECT_FALSE(csv_plain("a,b"));
    EXPECT_FALSE(csv_plain("a\nb"));
}

}  // namespace
}  // namespace neuronsim::platform::record
