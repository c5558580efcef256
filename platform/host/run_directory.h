#pragma once
// A run's output directory, as `neuronsim run` and the Python package's `run` write it: one
// complete run or one clearly marked incomplete. RUN_INCOMPLETE stays until every output is in
// place (a failed run writes its error there, an interrupted one says so, a killed one leaves
// "running"); .neuronsim-outputs lists what neuronsim wrote, so that a forced reuse removes
// exactly that and never a file of the user's.
#include <string>
#include <vector>

#include "model/common/error.h"
#include "platform/host/run_record.h"

namespace neuronsim::platform {

// The file whose presence marks a directory's run as not complete; it says why.
inline constexpr const char* kRunIncomplete = "RUN_INCOMPLETE";

// The directory is refused: it holds an earlier run and force was not given, or files of the
// outputs' names that neuronsim did not write. (The CLI reports these as usage errors.)
class RunDirectoryRefused : public Error {
public:
    using Error::Error;
};

// The fixed outputs: stats.json, instructions.csv, timeline.json, host.json, config.yaml,
// hazards.txt (one line per hazard found, when they are looked for),
// RUN_INCOMPLETE, demo.trace (the CLI's built-in trace), streams/ (the assembled trace) and
// inputs/ (the trace and inputs the Python package staged).
// Makes `out` ready for a run: created if absent; an earlier run's outputs removed when
// `force` (only what its manifest lists). Then the manifest and RUN_INCOMPLETE ("running").
void prepare_run_directory(const std::string& out, bool force);

// Lists the fixed outputs and `extra` (the dumps) as neuronsim's.
void write_run_manifest(const std::string& out, const std::vector<std::string>& extra);

// Writes config.yaml, simulates `streams_dir` (<engine>.bin and setup.trace) with `options`
// (out_dir is the directory), then the manifest with the dumps, stats.json and host.json; on
// success (not interrupted) removes RUN_INCOMPLETE. A failure writes its error into
// RUN_INCOMPLETE and is rethrown. `inputs.config_sha256` is filled in here.
RunReport run_into_directory(const Config& cfg, RunInputs& inputs, const std::string& streams_dir, const RunOptions& options);

}  // namespace neuronsim::platform
