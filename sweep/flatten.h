#pragma once
// stats.json as dotted keys: {"core": {"act": {"busy_ps": 5}}} -> core.act.busy_ps = 5;
// arrays by index (core.act.table_switches.0.from). Empty objects and arrays give no key.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace neuronsim::sweep {

struct FlatValue {
    enum class Kind { integer, real, text, null } kind = Kind::null;
    int64_t i = 0;
    double d = 0;
    std::string s;  // text; booleans are the integers 0 and 1
    bool operator==(const FlatValue& o) const { return kind == o.kind && i == o.i && (d == o.d || (d != d && o.d != o.d)) && s == o.s; }
    bool operator!=(const FlatValue& o) const { return !(*this == o); }
    std::string to_text() const;  // for CSV and messages
};

struct FlatStat {
    std::string key;
    FlatValue value;
};

std::vector<FlatStat> flatten(const nlohmann::ordered_json& j);

// Which stats a sweep keeps (the spec's `stats:`, docs/what-if.md): globs over flattened keys,
// `*` within one level (no '.'), `**` across levels; a glob starting with '!' drops what it
// matches. A key is kept when some plain glob matches it and no '!' glob does.
bool stat_key_matches(const std::string& key, const std::string& glob);
bool keeps_stat(const std::vector<std::string>& globs, const std::string& key);
// The default: every key but the per-instance breakdowns (stall causes, mnemonics, DMA engines,
// table switches, final semaphore values, the conv LUT), which make most of a run's keys.
const std::vector<std::string>& default_stat_globs();

}  // namespace neuronsim::sweep
