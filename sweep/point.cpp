#include "sweep/point.h"

#include <cstdint>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace neuronsim::sweep {

std::string fnv1a64_hex(const std::string& text) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : text) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

std::string Point::identity() const {
    nlohmann::json params_json = nlohmann::json::array();
    for (const Param& p : params) params_json.push_back({p.key, p.value});
    nlohmann::json id = {"neuronsim-point/1", trace, generation, overlays, params_json, run_args, repeat};
    if (!labels.empty()) {  // (absent otherwise: the keys of earlier studies stay as they were)
        nlohmann::json l = nlohmann::json::array();
        for (const Param& p : labels) l.push_back({p.key, p.value});
        id.push_back(l);
    }
    return id.dump();
}

std::string Point::coord_key() const { return fnv1a64_hex(identity()); }

std::string Point::key() const { return inputs.empty() ? coord_key() : fnv1a64_hex(identity() + "\n" + inputs); }

std::string Point::describe() const {
    std::string s = trace + " " + generation;
    for (const std::string& o : overlays) s += " +" + o;
    for (const Param& p : params) s += " " + p.key + "=" + p.value;
    for (const std::string& a : run_args) s += " " + a;
    for (const Param& p : labels) s += " [" + p.key + "=" + p.value + "]";
    s += " #" + std::to_string(repeat);
    return s;
}

std::vector<std::string> run_arguments(const Point& p, const std::string& out_dir, const std::string& numerics) {
    std::vector<std::string> a = {"run", "--trace", p.trace_path, "--gen", p.generation};
    for (const std::string& o : p.overlay_paths) {
        a.push_back("--config");
        a.push_back(o);
    }
    for (const Param& prm : p.params) {
        a.push_back("-p");
        a.push_back(prm.key + "=" + prm.value);
    }
    if (!numerics.empty()) {
        a.push_back("--numerics");
        a.push_back(numerics);
    }
    for (const std::string& x : p.run_args) a.push_back(x);
    for (const char* x : {"--no-progress", "--no-csv", "--no-timeline", "--out"}) a.push_back(x);
    a.push_back(out_dir);
    return a;
}

}  // namespace neuronsim::sweep
