#pragma once
// A typed stat record: one key of stats.json (or host.json) with its unit and meaning. Writers
// name keys through records (put), readers read them through records (get), and
// docs/stats-schema.md, the sweep's stat_keys table and the schema test all come from the same
// records (stats/stat_records.h), so a stat is declared once.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace neuronsim::stats {

enum class Unit { none, ps, bytes, cycles, ghz, elements, hex, seconds, ns_per_second, per_second, fraction, gbps };

// How the document writes the unit ("-" for a count or a name).
std::string_view unit_name(Unit u);

struct Stat {
    // The key below its group's node, flattened: "busy_ps", "by_mnemonic.<mnemonic>.count",
    // "table_switches[<n>].from". <...> is a key that names something (the group says what).
    std::string_view path;
    Unit unit;
    std::string_view meaning;
    // Present only sometimes (the meaning says when); every other key is in every run.
    bool optional = false;

    // The last named segment: the name a writer gives the value (or the array of values, for
    // "conv_lut[<n>]") in its own node.
    std::string leaf() const {
        std::string_view p = path;
        while (p.size() >= 5 && p.substr(p.size() - 5) == "[<n>]") p.remove_suffix(5);
        const size_t at = p.find_last_of(".]");
        return std::string(at == std::string_view::npos ? p : p.substr(at + 1));
    }
    // The first segment: the node a nested stat sits in ("by_mnemonic" of
    // "by_mnemonic.<mnemonic>.count", "table_switches" of "table_switches[<n>].from").
    std::string head() const { return segment(0); }
    // The i-th named segment ("overlays" is segment 1 of "config.overlays[<n>].path").
    std::string segment(size_t i) const {
        size_t begin = 0;
        for (; i > 0; --i) {
            begin = path.find('.', begin);
            if (begin == std::string_view::npos) return "";
            ++begin;
        }
        const std::string_view rest = path.substr(begin);
        return std::string(rest.substr(0, rest.find_first_of(".[")));
    }
};

using Node = nlohmann::ordered_json;

template <typename T>
void put(Node& node, const Stat& s, T&& value) {
    node[s.leaf()] = std::forward<T>(value);
}

inline const Node& get(const Node& node, const Stat& s) { return node.at(s.leaf()); }
inline bool has(const Node& node, const Stat& s) { return node.is_object() && node.contains(s.leaf()); }

}  // namespace neuronsim::stats
