// core.derived: busy spans merged in time order, their unions and intersections, and the
// derived figures worked out by hand; over every golden run, the spans agree with the busy
// times the engines accumulate another way (each instruction's share of the union).
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/core/busy_intervals.h"
#include "platform/core/derived_stats.h"

namespace neuronsim::platform {
namespace {

BusyIntervals of(std::initializer_list<std::pair<uint64_t, uint64_t>> spans) {
    BusyIntervals b;
    for (const auto& [s, e] : spans) b.add(s, e);
    return b;
}

TEST(BusyIntervals, MergeInTimeOrderUniteAndIntersect) {
    const BusyIntervals a = of({{0, 10}, {5, 20}, {20, 25}, {30, 40}, {35, 36}, {50, 50}});
    EXPECT_EQ(a.spans(), (std::vector<BusyIntervals::Span>{{0, 25}, {30, 40}}));  // overlapping and touching spans merge; empty ones vanish
    EXPECT_EQ(a.total(), 35u);
    const BusyIntervals b = of({{22, 32}, {38, 60}});
    EXPECT_EQ(BusyIntervals::unite(a, b).spans(), (std::vector<BusyIntervals::Span>{{0, 60}}));
    EXPECT_EQ(BusyIntervals::intersect(a, b).spans(), (std::vector<BusyIntervals::Span>{{22, 25}, {30, 32}, {38, 40}}));
    EXPECT_EQ(BusyIntervals::intersect(a, BusyIntervals()).total(), 0u);
}

TEST(DerivedStats, FiguresWorkedOutByHand) {
    // A 1000 ps run: ACT busy [0, 400), POOL [300, 500), DMA [100, 200) and [600, 900) moving
    // 2000 bytes; ACT's table loads took 100 ps; the peak is 10000 bytes/ns.
    const BusyIntervals act = of({{0, 400}}), pool = of({{300, 500}});
    nlohmann::ordered_json core = {{"act", {{"table_load_ps", 100}}}, {"dma", {{"bytes", 2000}}}};
    DerivedInputs in;
    in.core = &core;
    in.act = &act;
    in.pool = &pool;
    in.dma = of({{100, 200}, {600, 900}});
    in.simulated_ps = 1000;
    in.dma_peak_bytes_per_ns = 10000;
    const nlohmann::ordered_json d = derived_stats(in);
    EXPECT_EQ(d.at("act_utilisation").get<double>(), 0.4);
    EXPECT_EQ(d.at("pool_utilisation").get<double>(), 0.2);
    EXPECT_EQ(d.at("dma_utilisation").get<double>(), 0.4);
    EXPECT_EQ(d.at("compute_busy_ps").get<uint64_t>(), 500u);  // [0, 500)
    EXPECT_EQ(d.at("dma_busy_ps").get<uint64_t>(), 400u);
    EXPECT_EQ(d.at("dma_compute_overlap_ps").get<uint64_t>(), 100u);  // [100, 200) only
    EXPECT_EQ(d.at("dma_hidden_fraction").get<double>(), 0.25);
    EXPECT_EQ(d.at("act_table_load_share").get<double>(), 0.25);
    EXPECT_EQ(d.at("dma_gbps").get<double>(), 5000.0);  // 2000 bytes in 0.4 ns
    EXPECT_EQ(d.at("dma_peak_fraction").get<double>(), 0.5);
    EXPECT_EQ(d.at("critical_engine"), "act");
    // An empty run divides by nothing.
    nlohmann::ordered_json empty = nlohmann::ordered_json::object();
    DerivedInputs none;
    none.core = &empty;
    const nlohmann::ordered_json z = derived_stats(none);
    EXPECT_EQ(z.at("act_utilisation").get<double>(), 0.0);
    EXPECT_EQ(z.at("dma_peak_fraction").get<double>(), 0.0);
    EXPECT_EQ(z.at("critical_engine"), "none");
}

TEST(DerivedStats, EveryGoldenRunsSpansAgreeWithItsEngineBusyTimes) {
    int runs = 0;
    for (const auto& f : std::filesystem::recursive_directory_iterator(std::string(NEURONSIM_SOURCE_DIR) + "/tests/golden")) {
        if (f.path().filename() != "stats.json") continue;
        std::ifstream in(f.path());
        const nlohmann::json core = nlohmann::json::parse(in).at("core");
        const nlohmann::json& d = core.at("derived");
        const double sim = core.at("simulated_ps").get<double>();
        const uint64_t act = core.at("act").at("busy_ps"), pool = core.at("pool").at("busy_ps");
        const uint64_t dve = core.contains("dve") ? core.at("dve").at("busy_ps").get<uint64_t>() : 0;  // (only when VectorE ran)
        EXPECT_EQ(d.at("act_utilisation").get<double>(), sim > 0 ? double(act) / sim : 0.0) << f.path();
        EXPECT_EQ(d.at("pool_utilisation").get<double>(), sim > 0 ? double(pool) / sim : 0.0) << f.path();
        EXPECT_GE(d.at("compute_busy_ps").get<uint64_t>(), std::max({act, pool, dve})) << f.path();
        EXPECT_LE(d.at("compute_busy_ps").get<uint64_t>(), act + pool + dve) << f.path();
        EXPECT_LE(d.at("dma_compute_overlap_ps").get<uint64_t>(), d.at("dma_busy_ps").get<uint64_t>()) << f.path();
        uint64_t engines_busy = 0, most = 0;  // the union of the DMA engines is at most their sum, at least the busiest
        for (const auto& [e, n] : core.at("dma").at("engines").items()) {
            engines_busy += n.at("busy_ps").get<uint64_t>();
            most = std::max(most, n.at("busy_ps").get<uint64_t>());
        }
        EXPECT_LE(d.at("dma_busy_ps").get<uint64_t>(), engines_busy) << f.path();
        EXPECT_GE(d.at("dma_busy_ps").get<uint64_t>(), most) << f.path();
        ++runs;
    }
    EXPECT_GE(runs, 30);
}

}  // namespace
}  // namespace neuronsim::platform
