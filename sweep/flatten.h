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

}  // namespace neuronsim::sweep
