#include "platform/host/run_record.h"

#include <sys/resource.h>

#include <algorithm>
#include <filesystem>

#include "model/io/sha256.h"
#include "neuronsim/version.h"
#include "stats/stat_records.h"
#include "stats/stats_schema.h"

namespace neuronsim::platform {

std::string streams_sha256(const std::string& dir) {
    model::io::Sha256 h;
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.is_regular_file()) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) h.update(n + "\n" + model::io::sha256_file(dir + "/" + n, "stream file") + "\n");
    return h.hex();
}

nlohmann::ordered_json run_stats(const Config& cfg, const RunInputs& inputs, const DeviceOptions& device, const RunReport& report) {
    namespace r = stats::run;
    using stats::put;
    nlohmann::ordered_json j;
    put(j, r::schema_version, stats::kSchemaVersion);
    put(j, r::neuronsim_version, NEURONSIM_VERSION);
    put(j, r::generation, cfg.generation.name);
    nlohmann::ordered_json trace;
    put(trace, r::trace_path, inputs.trace_path);
    put(trace, r::trace_sha256, inputs.trace_sha256);
    j[r::trace_path.head()] = std::move(trace);
    nlohmann::ordered_json config, overlays = nlohmann::ordered_json::array();
    put(config, r::config_preset, inputs.preset);
    for (const auto& [path, sha] : inputs.overlays) {
        nlohmann::ordered_json o;
        put(o, r::overlay_path, path);
        put(o, r::overlay_sha256, sha);
        overlays.push_back(std::move(o));
    }
    config[r::overlay_path.segment(1)] = std::move(overlays);
    put(config, r::overrides, inputs.overrides);
    put(config, r::config_sha256, inputs.config_sha256);
    j[r::config_preset.head()] = std::move(config);
    nlohmann::ordered_json mode;
    put(mode, r::numerics, device.timing_only ? "none" : "full");
    put(mode, r::act_numerics, device.act_exact ? "exact" : "pwp");
    put(mode, r::uninitialised, device.uninitialised_nan ? "nan" : "zero");
    put(mode, r::status, report.interrupted ? "interrupted" : "complete");
    j[r::numerics.head()] = std::move(mode);
    j["core"] = report.stats;
    return j;
}

nlohmann::ordered_json host_figures(const RunReport& report) {
    namespace h = stats::host;
    rusage u{};
    const uint64_t peak = getrusage(RUSAGE_SELF, &u) == 0 ? static_cast<uint64_t>(u.ru_maxrss) * 1024 : 0;  // Linux reports KiB
    const double wall = report.wall_seconds, sim_ns = report.simulated.to_seconds() * 1e9;
    nlohmann::ordered_json j;
    stats::put(j, h::wall_seconds, wall);
    stats::put(j, h::simulated_ns_per_wall_second, wall > 0 ? sim_ns / wall : 0.0);
    stats::put(j, h::instructions_per_second, wall > 0 ? report.instructions / wall : 0.0);
    stats::put(j, h::peak_rss_bytes, peak);
    stats::put(j, h::dma_copy_wait_seconds, report.copy_wait_seconds);
    return j;
}

}  // namespace neuronsim::platform
