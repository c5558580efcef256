#pragma once
// One point of a sweep: a trace, a generation, overlays, `-p` parameters and a run index,
// which together make one `neuronsim run`: its coordinates in the spec. Its key hashes those and
// the contents that decide the run (point_inputs.h), so the same point of the same inputs has
// the same key in every database, shard and rank (resume, merge), and a changed input runs it
// again.
#include <string>
#include <vector>

namespace neuronsim::sweep {

struct Param {
    std::string key;  // dotted config key, e.g. act.clock_ghz
    std::string value;  // the text passed to -p key=value (YAML flow form)
};

struct Point {
    size_t index = 0;  // position in the spec's expansion order
    std::string trace;  // as written in the spec
    std::string trace_path;  // resolved (relative to the spec's directory)
    std::string generation;  // lower case, e.g. mariana
    std::vector<std::string> overlays;  // as written in the spec, applied in order
    std::vector<std::string> overlay_paths;  // resolved
    std::vector<Param> params;  // the spec's fixed params, then the axes' values
    // What the design says of the point, recorded with its parameters but not passed to the run:
    // oat=baseline or oat=KNOB (combine: oat), factor:KEY=F (a factors axis).
    std::vector<Param> labels;
    std::string kernel;  // a generated kernel's request (KernelSpec::request); trace_path is then set when it is built
    std::vector<std::string> run_args;  // extra `neuronsim run` arguments of the spec
    int repeat = 0;  // run index, 0 .. repeat-1
    std::string inputs;  // canonical JSON of the digests of what decides the run (PointInputs::stamp)

    // The identity the key hashes, as canonical JSON:
    // ["neuronsim-point/1", trace, generation, [overlays], [[key, value]...], [run_args], repeat]
    // and, when there are any, [[label, value]...]
    std::string identity() const;
    // 16 hex digits: FNV-1a 64 of identity(): the point's place in the study, whatever its inputs.
    std::string coord_key() const;
    // 16 hex digits: FNV-1a 64 of identity() and inputs (coord_key() while inputs is empty).
    std::string key() const;
    // One line for --dry-run and messages: "softmax.trace mariana act.clock_ghz=1.2 #0".
    std::string describe() const;
};

// The `neuronsim run` arguments of a point (after the executable and "run"), writing into
// `out_dir`. `numerics` (when not empty) is passed as --numerics.
std::vector<std::string> run_arguments(const Point& p, const std::string& out_dir, const std::string& numerics);

// FNV-1a 64 of `text` as 16 lower-case hex digits.
std::string fnv1a64_hex(const std::string& text);

}  // namespace neuronsim::sweep
