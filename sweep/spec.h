#pragma once
// A sweep specification (SPEC.yaml, docs/what-if.md "The SPEC format"): traces, generations,
// overlays, fixed parameters and axes over config keys, combined as a grid (cartesian
// product) or zipped, and repeated. Parsing is strict: an unknown key, a wrong type or an
// empty list is an Error naming the spec file and the YAML path ("spec.yaml: axes[2].values:
// expected a list").
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sweep/flatten.h"
#include "sweep/point.h"

namespace neuronsim::sweep {

// One column of values for one config key: values as written, or factors of the preset's own
// value (`factors: [0.5, 2]`: the generation's value, after the overlays and params, times each).
struct AxisColumn {
    std::string key;
    std::vector<std::string> values;  // -p value texts (empty with factors)
    std::vector<std::string> factors;  // as written
    std::map<std::string, std::vector<std::string>> by_generation;  // factors: the -p texts per generation
    std::string baseline;  // combine: oat: the baseline's value ("": the preset's own)
    std::string where;  // YAML path of the axis, for messages ("axes[1]")
    size_t size() const { return factors.empty() ? values.size() : factors.size(); }
    // The -p texts on `generation` (values, or the factors applied to its preset).
    const std::vector<std::string>& values_for(const std::string& generation) const;
};

// An axis: one column, or several zipped columns of equal length that vary together.
struct Axis {
    std::vector<AxisColumn> columns;
    size_t size() const { return columns.empty() ? 0 : columns.front().size(); }
    std::string name() const;  // its key, or the zipped keys joined by '+'
};

// A kernel generated for each point's generation (`kernels:`, model/workloads), instead of a
// trace file.
struct KernelSpec {
    std::string label;  // "kernel:softmax 4096x2048 dtype=bf16": the point's trace
    std::string request;  // canonical JSON of the request (kernel_request_from_json)
    std::vector<std::string> generations;  // its own generations (empty: the study's)
};

struct PlotSpec {
    std::string x, y, series, out;
    std::vector<std::string> where;  // KEY=VALUE
    bool bar = false, logx = false, logy = false, pareto = false;
    std::string facet;
};

struct Spec {
    std::string source;  // the spec file as named on the command line
    std::string base_dir;  // relative trace and overlay paths are resolved against it
    std::string name;
    std::vector<std::string> traces, trace_paths;
    std::vector<std::vector<std::string>> trace_generations;  // per trace: its own (empty: the study's)
    std::vector<KernelSpec> kernels;
    std::vector<std::string> generations;
    std::vector<std::string> overlays, overlay_paths;
    std::vector<Param> params;  // fixed, for every point
    std::vector<Axis> axes;
    std::string combine = "grid";  // grid | zip | oat (one at a time around a baseline)
    int repeat = 1;
    std::string numerics;  // passed as --numerics when not empty
    double timeout_seconds = -1;  // per point: -1 derived from the point (default_point_timeout), 0 none
    std::vector<std::string> run_args;
    std::vector<PlotSpec> plots;
    std::vector<std::string> stats = default_stat_globs();  // the stats each point keeps (flatten.h)
};

// Parses spec text; `source` names it in errors, `base_dir` resolves relative paths.
// Trace and overlay files must exist (regular files).
Spec parse_spec(const std::string& yaml_text, const std::string& source, const std::string& base_dir);
// A run_args entry that would set an option the sweep sets itself (--trace, --conf=F, -pK=V...).
bool sets_a_reserved_option(const std::string& arg);
Spec load_spec(const std::string& path);

// Every point, in order: traces then kernels (outermost), generations, the axes (the last
// varies fastest; with oat: the baseline, then each axis's values in turn), then the run index.
std::vector<Point> expand(const Spec& spec);
// The same points one at a time, without holding them (`--dry-run` of a million points).
void for_each_point(const Spec& spec, const std::function<void(const Point&)>& fn);

// Formats a number for -p: shortest of %.12g (1.2, 64, 0.001).
std::string format_number(double v);

}  // namespace neuronsim::sweep
