// `neuronsim sweep merge`: joins the databases of shards (or of separate sweeps) into one.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <map>

#include "model/common/error.h"
#include "sweep/point_inputs.h"
#include "sweep/results_db.h"

namespace neuronsim::sweep {

namespace {

void remove_database_files(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
}

}  // namespace

size_t merge_databases(const std::string& out, const std::vector<std::string>& inputs) {
    if (inputs.empty()) throw Error("merge: no input databases");
    struct stat st {};
    if (::stat(out.c_str(), &st) == 0) throw Error(out + ": exists; merge writes a new database (remove it or choose another name)");
    const std::string tmp = out + ".tmp-" + std::to_string(::getpid());
    remove_database_files(tmp);
    size_t written = 0;
    std::vector<std::string> conflicts;
    try {
        ResultsDb merged(tmp, true);
        std::map<std::string, std::string> from;  // point key -> the input it came from
        std::map<std::string, std::pair<std::string, std::string>> place;  // coord key -> (point key, inputs) kept
        for (const std::string& in : inputs) {
            ResultsDb src(in, false);
            for (const SweepRun& run : src.sweep_runs()) merged.add_sweep_run(run);
            src.for_each([&](const PointRecord& r) {
                // The same place in the study computed from other inputs: which one is right is
                // not merge's to decide.
                auto at = place.find(r.coord_key);
                if (at != place.end() && at->second.first != r.point_key) {
                    conflicts.push_back("point " + r.coord_key + " (" + r.trace + " " + r.generation + ") in " + from[at->second.first] + " and " + in +
                                        " was computed from other inputs: " + inputs_change(at->second.second, r.inputs));
                    return;
                }
                place.emplace(r.coord_key, std::make_pair(r.point_key, r.inputs));
                auto seen = from.find(r.point_key);
                if (seen == from.end()) {
                    merged.record(r);
                    from[r.point_key] = in;
                    ++written;
                    return;
                }
                std::string why;
                if (!same_results(*merged.find(r.point_key), r, &why))
                    conflicts.push_back("point " + r.point_key + " (" + r.trace + " " + r.generation + ") in " + seen->second + " and " + in + ": " + why);
            });
        }
    } catch (...) {
        remove_database_files(tmp);
        throw;
    }
    if (!conflicts.empty()) {
        remove_database_files(tmp);
        std::string msg = "merge: " + std::to_string(conflicts.size()) + " point(s) have different results in different inputs; nothing written:";
        for (size_t i = 0; i < conflicts.size() && i < 20; ++i) msg += "\n  " + conflicts[i];
        if (conflicts.size() > 20) msg += "\n  ... and " + std::to_string(conflicts.size() - 20) + " more";
        throw Error(msg);
    }
    if (std::rename(tmp.c_str(), out.c_str()) != 0) {
        remove_database_files(tmp);
        throw Error(out + ": cannot rename the merged database into place");
    }
    return written;
}

}  // namespace neuronsim::sweep
