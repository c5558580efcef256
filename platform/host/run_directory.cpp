#include "platform/host/run_directory.h"

#include <csignal>
#include <filesystem>
#include <sstream>

#include "model/io/json_path.h"
#include "model/io/sha256.h"
#include "model/io/write_file.h"
#include "platform/host/simulate.h"

namespace neuronsim::platform {

namespace {

namespace fs = std::filesystem;

const char* const kManifest = ".neuronsim-outputs";
const char* const kOutputs[] = {"stats.json",  "instructions.csv", "timeline.json", "host.json", "config.yaml",
                                "hazards.txt", kRunIncomplete,     "demo.trace",    "streams",   "inputs"};

void write_file(const std::string& path, const std::string& text) { model::io::write_file_atomic(path, text); }

}  // namespace

// A directory is an earlier run's only when it holds the manifest; force then removes what
// the manifest lists and nothing else. A directory without one is the user's: neuronsim writes
// there only if none of its output names is taken, and never removes anything from it.
void prepare_run_directory(const std::string& out, bool force) {
    std::error_code ec;
    if (fs::exists(out, ec) && !fs::is_directory(out, ec)) throw Error(out + ": --out names a file, not a directory");
    if (fs::is_directory(out, ec) && !fs::is_empty(out, ec)) {
        const fs::path manifest = fs::path(out) / kManifest;
        if (!fs::exists(manifest, ec)) {
            std::string taken;
            for (const char* f : kOutputs)
                if (fs::exists(fs::symlink_status(fs::path(out) / f, ec))) taken += (taken.empty() ? "" : ", ") + std::string(f);
            if (!taken.empty())
                throw RunDirectoryRefused(out + " holds " + taken + ", which neuronsim did not write (there is no " + kManifest +
                                          "): move them or choose another --out; --force replaces only an earlier run's outputs");
        } else {
            if (!force)
                throw RunDirectoryRefused(out + " holds an earlier run's outputs; give --force to replace them (it removes what neuronsim wrote there, as " +
                                          kManifest + " lists) or choose another --out");
            std::vector<std::string> old;
            std::istringstream in(model::io::read_text_file(manifest.string()));
            for (std::string line; std::getline(in, line);) {
                const fs::path rel(line);
                bool inside = !line.empty() && rel.is_relative();
                for (const auto& part : rel) inside = inside && part != "..";
                if (inside) old.push_back(line);  // (anything else in a manifest is not ours to follow)
            }
            for (const std::string& f : old) {
                fs::remove_all(fs::path(out) / f, ec);
                if (ec) throw Error(out + "/" + f + ": cannot remove the earlier run's output: " + ec.message());
            }
            fs::remove(manifest, ec);
        }
    }
    model::io::make_directories(out);
    write_run_manifest(out, {});
    write_file(out + "/" + kRunIncomplete, "running\n");
}

void write_run_manifest(const std::string& out, const std::vector<std::string>& extra) {
    std::string text;
    for (const char* f : kOutputs) text += std::string(f) + "\n";
    for (const std::string& f : extra) text += f + "\n";
    write_file(out + "/" + kManifest, text);
}

RunReport run_into_directory(const Config& cfg, RunInputs& inputs, const std::string& streams_dir, const RunOptions& options) {
    const std::string& out = options.out_dir;
    try {
        const std::string config_yaml = config_to_yaml(cfg);
        write_file(out + "/config.yaml", config_yaml);
        inputs.config_sha256 = model::io::sha256_hex(config_yaml);
        const RunReport rep = simulate_streams(cfg, streams_dir, options);
        write_run_manifest(out, rep.dumps);
        write_file(out + "/stats.json", run_stats(cfg, inputs, options.device, rep).dump(2) + "\n");
        write_file(out + "/host.json", host_figures(rep).dump(2) + "\n");
        if (options.device.hazards != DeviceOptions::Hazards::Off) {
            std::string text;
            for (const std::string& line : rep.hazard_text) text += line + "\n";
            write_file(out + "/hazards.txt", text);
        }
        if (rep.interrupted) {
            write_file(out + "/" + kRunIncomplete, std::string("interrupted by ") + (rep.interrupted == SIGTERM ? "SIGTERM" : "SIGINT") + " after " +
                                                       std::to_string(rep.instructions) +
                                                       " instructions; stats.json, instructions.csv and timeline.json cover what completed; "
                                                       "no dumps were written\n");
        } else {
            fs::remove(fs::path(out) / kRunIncomplete);  // every output is in place
        }
        return rep;
    } catch (const std::exception& e) {
        write_file(out + "/" + kRunIncomplete, std::string("failed: ") + e.what() + "\n");
        throw;
    }
}

}  // namespace neuronsim::platform
