#pragma once
// What a run was made of and what it took, as `neuronsim run` writes them: stats.json (the
// inputs with their hashes, the run's modes, the device's stats: docs/stats-schema.md) and
// host.json (wall-clock figures). Built from the stat records, so the CLI only writes them.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/config.h"
#include "platform/host/trace_host.h"

namespace neuronsim::platform {

struct RunInputs {
    std::string trace_path;  // as given, the --streams directory, or "(built in) demo.trace"
    std::string trace_sha256;  // trace_file_sha256 or streams_sha256
    std::string preset;  // the generation preset the layers start from ("mariana")
    std::vector<std::pair<std::string, std::string>> overlays;  // --config path, its SHA-256
    std::vector<std::string> overrides;  // -p key=value, in order
    std::string config_sha256;  // of the resolved config.yaml
};

// SHA-256 of a --streams directory: of the sorted list of "name\nsha256(file)\n" of its files.
std::string streams_sha256(const std::string& dir);

// stats.json: `inputs`, the modes of `device`, and the device's stats from `report`.
nlohmann::ordered_json run_stats(const Config& cfg, const RunInputs& inputs, const DeviceOptions& device, const RunReport& report);

// host.json: the report's wall-clock figures and the process's peak resident memory.
nlohmann::ordered_json host_figures(const RunReport& report);

}  // namespace neuronsim::platform
