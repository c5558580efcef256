#include "sweep/point_inputs.h"

#include <nlohmann/json.hpp>

#include "model/io/sha256.h"
#include "model/trace/trace_digest.h"
#include "neuronsim/version.h"
#include "sweep/child_process.h"
#include "sweep/utf8.h"

namespace neuronsim::sweep {

const std::string& build_id() {
    static const std::string id = [] {
        try {
            return model::io::sha256_file(self_executable(), "the neuronsim executable").substr(0, 16);
        } catch (const std::exception&) {
            return std::string("unknown");
        }
    }();
    return id;
}

// Paths stay out of the digests: the same study on a cluster whose nodes mount the files at
// other paths has the same keys (the spec-relative names are in the point's coordinates).
std::string PointInputs::file_digest(const std::string& path, bool trace) {
    auto it = cache_.find(path);
    if (it != cache_.end()) return it->second;
    nlohmann::json j;
    try {
        if (trace) {
            const model::trace::TraceDigest d = model::trace::trace_digest(path);
            j = {{"sha256", d.trace_sha256}, {"data", nlohmann::json::array()}};
            for (const auto& [file, sha] : d.data) j["data"].push_back(sha);
        } else {
            j = {{"sha256", model::io::sha256_file(path, "overlay")}};
        }
    } catch (const std::exception& e) {
        j = {{"unreadable", make_valid_utf8(e.what())}};  // (a message may quote the trace's bytes)
    }
    return cache_[path] = j.dump();
}

void PointInputs::stamp(Point& p) {
    nlohmann::json in;
    in["neuronsim"] = NEURONSIM_VERSION;
    in["build"] = build_id();
    in["numerics"] = numerics_;
    in["stats"] = stats_;
    // A generated kernel is decided by its request and the build that generates it (both here).
    if (p.kernel.empty()) in["trace"] = nlohmann::json::parse(file_digest(p.trace_path, true));
    else in["kernel"] = nlohmann::json::parse(p.kernel);
    in["overlays"] = nlohmann::json::array();
    for (const std::string& o : p.overlay_paths) in["overlays"].push_back(nlohmann::json::parse(file_digest(o, false)));
    p.inputs = in.dump();
}

std::string inputs_change(const std::string& old_inputs, const std::string& new_inputs) {
    if (old_inputs.empty()) return "recorded by a neuronsim that kept no input digests";
    nlohmann::json a, b;
    try {
        a = nlohmann::json::parse(old_inputs);
        b = nlohmann::json::parse(new_inputs);
    } catch (const nlohmann::json::exception&) {
        return "its recorded inputs cannot be read";
    }
    std::string why;
    auto add = [&](const std::string& s) { why += (why.empty() ? "" : "; ") + s; };
    auto text = [](const nlohmann::json& v) {
        const std::string t = v.is_string() ? v.get<std::string>() : v.dump();
        return t.empty() ? std::string("default") : t;
    };
    const nlohmann::json no = nlohmann::json::object();
    auto part = [&](const nlohmann::json& j, const char* key) { return j.contains(key) && j.at(key).is_object() ? j.at(key) : no; };
    if (part(a, "trace").value("sha256", "") != part(b, "trace").value("sha256", "")) add("the trace's content changed");
    else if (part(a, "trace") != part(b, "trace")) add("a data file of the trace changed");
    if (part(a, "kernel") != part(b, "kernel")) add("the kernel's request changed");
    if (a.value("overlays", nlohmann::json()) != b.value("overlays", nlohmann::json())) add("an overlay's content changed");
    if (a.value("numerics", nlohmann::json()) != b.value("numerics", nlohmann::json()))
        add("numerics " + text(a.value("numerics", nlohmann::json(""))) + " -> " + text(b.value("numerics", nlohmann::json(""))));
    if (a.value("stats", nlohmann::json()) != b.value("stats", nlohmann::json())) add("the stats kept (the spec's stats:) changed");
    if (a.value("neuronsim", nlohmann::json()) != b.value("neuronsim", nlohmann::json()))
        add("neuronsim " + text(a.value("neuronsim", nlohmann::json(""))) + " -> " + text(b.value("neuronsim", nlohmann::json(""))));
    else if (a.value("build", nlohmann::json()) != b.value("build", nlohmann::json()))
        add("another build of neuronsim (" + text(a.value("build", nlohmann::json(""))) + " -> " + text(b.value("build", nlohmann::json(""))) + ")");
    return why.empty() ? "its inputs changed" : why;
}

}  // namespace neuronsim::sweep
