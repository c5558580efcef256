// The stat records declare every key of stats.json: the stats of every golden run (and of a run
// with an overlay) may hold no key no record declares, and every declared key appears in one of
// them unless its record is optional. docs/stats-schema.md is generated from the records.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "stats/stat_records.h"
#include "stats/stats_schema.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

const std::string kSrc = NEURONSIM_SOURCE_DIR;

// Keys that name things become their placeholder, as the page writes them.
const std::map<std::string, std::string> kNamed = {{"engines", "<E>"},
                                                   {"queues", "<stream>"},
                                                   {"by_mnemonic", "<mnemonic>"},
                                                   {"stalls", "<cause>"},
                                                   {"final_nonzero_values", "<semaphore>"},
                                                   {"cptc_by_kernel", "<kernel>"}};

void flatten(const nlohmann::json& j, const std::string& path, const std::string& parent, std::set<std::string>& out) {
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            const auto named = kNamed.find(parent);
            const std::string seg = named != kNamed.end() ? named->second : it.key();
            flatten(it.value(), path.empty() ? seg : path + "." + seg, it.key(), out);
        }
    } else if (j.is_array()) {
        for (const auto& v : j) flatten(v, path + "[<n>]", "", out);
    } else {
        out.insert(path);
    }
}

struct Declared {
    std::set<std::string> all, optional;
};

// The key patterns the stat records declare.
Declared declared() {
    Declared d;
    for (const stats::Entry& e : stats::stats_json_patterns()) {
        d.all.insert(e.pattern());
        if (e.stat->optional) d.optional.insert(e.pattern());
    }
    return d;
}

TEST(StatsSchema, TheRecordsDeclareExactlyTheKeysOfEveryRun) {
    std::set<std::string> seen;
    int files = 0;
    for (const auto& dir : std::filesystem::recursive_directory_iterator(kSrc + "/tests/golden"))
        if (dir.path().filename() == "stats.json") {
            flatten(nlohmann::json::parse(read_file(dir.path().string())), "", "", seen);
            ++files;
        }
    ASSERT_GE(files, 30);
    TempDir t;
    const std::string overlay = t.write("o.yaml", "act: {clock_ghz: 1.0}\n");
    CliResult r = run_cli("run --config " + overlay + " --numerics none --no-progress --out " + t.file("o"));
    ASSERT_EQ(r.status, 0) << r.err;
    flatten(nlohmann::json::parse(read_file(t.file("o/stats.json"))), "", "", seen);

    const Declared doc = declared();
    ASSERT_GT(doc.all.size(), 60u);
    for (const auto& k : seen) EXPECT_TRUE(doc.all.count(k)) << k << " is in stats.json but no record in stats/stat_records.h declares it";
    for (const auto& k : doc.all)
        if (!doc.optional.count(k)) EXPECT_TRUE(seen.count(k)) << k << " is declared but no run produced it (make its record optional or remove it)";
}

TEST(StatsSchema, TheDocumentIsGeneratedFromTheRecords) {
    EXPECT_EQ(read_file(kSrc + "/docs/stats-schema.md"), stats::schema_markdown())
        << "docs/stats-schema.md is not current: regenerate it with `neuronsim stats schema > docs/stats-schema.md`";
    CliResult r = run_cli("stats schema");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, stats::schema_markdown());
}

TEST(StatsSchema, EveryRecordHasAUnitColumnAndAMeaning) {
    std::set<std::string> patterns;
    for (const stats::Entry& e : stats::stats_json_patterns()) {
        EXPECT_FALSE(e.stat->meaning.empty()) << e.pattern();
        EXPECT_TRUE(patterns.insert(e.pattern()).second) << e.pattern() << " is declared twice";
        // A time in ps is named so, and a key so named is in ps.
        const bool ps_name = e.pattern().size() > 3 && e.pattern().compare(e.pattern().size() - 3, 3, "_ps") == 0;
        EXPECT_EQ(ps_name, e.stat->unit == stats::Unit::ps) << e.pattern();
    }
}

TEST(StatRecord, NamesItsSegments) {
    EXPECT_EQ(stats::engine::busy_ps.leaf(), "busy_ps");
    EXPECT_EQ(stats::engine::mnemonic_count.leaf(), "count");
    EXPECT_EQ(stats::engine::mnemonic_count.head(), "by_mnemonic");
    EXPECT_EQ(stats::act::switch_functions.leaf(), "for_functions");
    EXPECT_EQ(stats::act::switch_functions.head(), "table_switches");
    EXPECT_EQ(stats::pool::conv_lut.leaf(), "conv_lut");
    EXPECT_EQ(stats::run::overlay_path.segment(0), "config");
    EXPECT_EQ(stats::run::overlay_path.segment(1), "overlays");
    EXPECT_EQ(stats::run::overlay_path.segment(2), "path");
    EXPECT_EQ(stats::run::overlay_path.segment(3), "");
    stats::Node n;
    stats::put(n, stats::act::elements, 7);
    EXPECT_EQ(n.dump(), R"({"elements":7})");
    EXPECT_EQ(stats::get(n, stats::act::elements).get<int>(), 7);
    EXPECT_TRUE(stats::has(n, stats::act::elements));
    EXPECT_FALSE(stats::has(n, stats::act::table_loads));
}

// The sweep describes its flattened keys (arrays by index) with the records.
TEST(StatRecord, AFlattenedKeyFindsItsRecord) {
    EXPECT_EQ(stats::record_of_flat_key("core.act.busy_ps"), &stats::engine::busy_ps);
    EXPECT_EQ(stats::record_of_flat_key("core.queues.dma3.1.busy_ps"), &stats::engine::busy_ps);
    EXPECT_EQ(stats::record_of_flat_key("core.queues.dma3.by_mnemonic.copy.busy_ps"), &stats::engine::mnemonic_busy_ps);
    EXPECT_EQ(stats::record_of_flat_key("core.act.table_switches.2.for_functions.0"), &stats::act::switch_functions);
    EXPECT_EQ(stats::record_of_flat_key("core.act.stalls.semaphore 2 >= 1 released by act.stalled_ps"), &stats::engine::stall_ps);
    EXPECT_EQ(stats::record_of_flat_key("core.dma.engines.15.bytes"), &stats::dma::engine_bytes);
    EXPECT_EQ(stats::record_of_flat_key("config.overlays.0.sha256"), &stats::run::overlay_sha256);
    EXPECT_EQ(stats::record_of_flat_key("core.sbuf.bytes"), &stats::memory::bytes);
    EXPECT_EQ(stats::record_of_flat_key("core.act.no_such_stat"), nullptr);
    EXPECT_EQ(stats::record_of_flat_key("core.act.table_switches.x.from"), nullptr);
}

}  // namespace
}  // namespace neuronsim::test
