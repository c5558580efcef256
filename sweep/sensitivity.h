#pragma once
// The sensitivity report of a one-at-a-time study (combine: oat, docs/what-if.md): for each
// trace and generation, each knob's values and the relative change of each metric from the
// baseline point, knobs ordered by their largest change; as a table and as a tornado plot.
#include <string>
#include <vector>

namespace neuronsim::sweep {

struct SensitivityEntry {
    std::string value;  // "x0.5 (16.5)" for a factor, else the value(s) passed
    double metric = 0;  // averaged over repeats
    double change = 0;  // (metric - baseline) / baseline
};

struct SensitivityKnob {
    std::string knob;  // the axis: its key (zipped keys joined by '+')
    std::vector<SensitivityEntry> entries;  // in the study's order of values
    double largest = 0;  // the largest |change|
};

struct SensitivityGroup {
    std::string trace, generation;  // (with the overlays in trace when there are any)
    std::string metric;
    double baseline = 0;
    std::vector<SensitivityKnob> knobs;  // largest first
    size_t failed = 0;  // points of the group that failed (not in the report)
};

struct SensitivityRequest {
    std::string db;
    std::vector<std::string> metrics = {"core.simulated_ps"};
    std::vector<std::string> where;
};

// An Error when the database holds no oat study (no point labelled oat=baseline), a group has no
// successful baseline, or a metric is not a number of the points.
std::vector<SensitivityGroup> sensitivity(const SensitivityRequest& r);
// The report as text (aligned, the times in units that fit) or TSV (a row per value).
std::string sensitivity_text(const std::vector<SensitivityGroup>& groups);
std::string sensitivity_tsv(const std::vector<SensitivityGroup>& groups);
// A tornado plot of the groups of one metric, a panel per group, into out (.svg or .png).
void draw_tornado(const std::vector<SensitivityGroup>& groups, const std::string& metric, const std::string& out, const std::string& script_out = "");
std::string tornado_script(const std::vector<SensitivityGroup>& groups, const std::string& metric, const std::string& title, const std::string& output_path,
                           bool png);

}  // namespace neuronsim::sweep
