#pragma once
// What `--x`, `--y`, `--series`, `--where` and `--metric` name in a point of a sweep database:
// a point field (trace, generation, repeat, point_index, wall_seconds, cpu_seconds), a
// parameter (param:KEY or KEY; also the design's labels oat and factor:KEY) or a stat
// (stat:KEY or KEY). One reading for plots, the sensitivity report and compare.
#include <string>
#include <utility>
#include <vector>

#include "sweep/results_db.h"

namespace neuronsim::sweep {

// The value of `key` for r as text; false when the point has no such key.
bool record_field(const PointRecord& r, const std::string& key, std::string& out);

// A finite number in the whole of `s`.
bool parse_number(const std::string& s, double& v);

using WhereFilter = std::pair<std::string, std::string>;
// "KEY=VALUE" filters (an Error names a malformed one, as `--where TEXT`).
std::vector<WhereFilter> parse_where(const std::vector<std::string>& where);
// Every filter holds: the point has the key and the value is the same text or the same number.
bool matches_where(const PointRecord& r, const std::vector<WhereFilter>& filters);

}  // namespace neuronsim::sweep
