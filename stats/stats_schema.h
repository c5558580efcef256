#pragma once
// The layout of stats.json and host.json from the records of stat_records.h, in groups:
// the document (docs/stats-schema.md), the key patterns a run's stats must match, and the
// record behind a flattened key (the sweep's stat_keys table).
#include <string>
#include <string_view>
#include <vector>

#include "stats/stat.h"

namespace neuronsim::stats {

// stats.json's layout; bump it when a key moves or changes meaning (the document says why).
inline constexpr int kSchemaVersion = 3;

struct Entry {
    std::string_view root;  // the node the stat sits in: "core.act", "<engine>", "" for the top
    const Stat* stat;
    std::string pattern() const { return root.empty() ? std::string(stat->path) : std::string(root) + "." + std::string(stat->path); }
};

struct Group {
    std::string_view heading;  // "## The core", "### ACT only"
    std::string_view intro;  // a paragraph before the table, may be empty
    bool in_stats_json;  // false: host.json
    std::vector<Entry> entries;
};

const std::vector<Group>& schema();

// Every key pattern of stats.json with its record ("<engine>" expanded to core.act, core.pool
// core.dve, core.pe and core.queues.<stream>); a run's flattened keys ([<n>] for array elements) are among them.
std::vector<Entry> stats_json_patterns();

// The record of a key as the sweep flattens it (core.act.table_switches.0.from), or nullptr.
const Stat* record_of_flat_key(const std::string& key);

// docs/stats-schema.md.
std::string schema_markdown();

}  // namespace neuronsim::stats
