#pragma once
// `neuronsim compare A B`: two runs (or two points of sweep databases) side by side, a row per
// numeric stat that differs: both values, the difference and the relative change.
#include <string>
#include <vector>

#include "sweep/flatten.h"

namespace neuronsim::sweep {

// The flattened stats of a source: a run's output directory (its stats.json), a stats.json
// file, or DB:POINT_KEY (a point of a sweep database). An Error naming the source otherwise.
std::vector<FlatStat> stats_of_source(const std::string& source);

struct StatDelta {
    std::string key;
    std::string a, b;  // the values as text ("" when absent)
    double difference = 0;  // b - a (numbers only)
    double relative = 0;  // (b - a) / |a|; 0 when a is 0
    bool numeric = false;
};

// The keys `globs` keep (flatten.h) whose values differ, in A's order then B's own keys. With
// `all`, every kept key, equal or not.
std::vector<StatDelta> compare_stats(const std::vector<FlatStat>& a, const std::vector<FlatStat>& b, const std::vector<std::string>& globs, bool all = false);

}  // namespace neuronsim::sweep
