#include "sweep/record_json.h"

#include <nlohmann/json.hpp>

#include "model/common/error.h"

namespace neuronsim::sweep {

std::string record_to_json(const PointRecord& r, bool interrupted, size_t index) {
    nlohmann::json stats = nlohmann::json::array();
    for (const FlatStat& s : r.stats) {
        nlohmann::json v;
        switch (s.value.kind) {
            case FlatValue::Kind::integer: v = s.value.i; break;
            case FlatValue::Kind::real: v = s.value.d; break;
            case FlatValue::Kind::text: v = s.value.s; break;
            case FlatValue::Kind::null: break;
        }
        stats.push_back({s.key, v});
    }
    nlohmann::json params = nlohmann::json::array();
    for (const Param& p : r.params) params.push_back({p.key, p.value});
    nlohmann::json j = {{"index", index},
                        {"interrupted", interrupted},
                        {"point_key", r.point_key},
                        {"point_index", r.point_index},
                        {"trace", r.trace},
                        {"generation", r.generation},
                        {"overlays", r.overlays},
                        {"params", params},
                        {"run_args", r.run_args},
                        {"repeat", r.repeat},
                        {"status", r.status},
                        {"exit_code", r.exit_code},
                        {"error", r.error},
                        {"wall_seconds", r.wall_seconds},
                        {"cpu_seconds", r.cpu_seconds},
                        {"neuronsim_version", r.neuronsim_version},
                        {"numerics", r.numerics},
                        {"host", r.host},
                        {"finished_at", r.finished_at},
                        {"coord_key", r.coord_key},
                        {"inputs", r.inputs},
                        {"rerun_reason", r.rerun_reason},
                        {"stats", stats}};
    return j.dump();
}

PointRecord record_from_json(const std::string& text, bool& interrupted, size_t& index) {
    PointRecord r;
    try {
        const nlohmann::json j = nlohmann::json::parse(text);
        index = j.at("index").get<size_t>();
        interrupted = j.at("interrupted").get<bool>();
        r.point_key = j.at("point_key").get<std::string>();
        r.point_index = j.at("point_index").get<int64_t>();
        r.trace = j.at("trace").get<std::string>();
        r.generation = j.at("generation").get<std::string>();
        r.overlays = j.at("overlays").get<std::vector<std::string>>();
        for (const auto& p : j.at("params")) r.params.push_back({p.at(0).get<std::string>(), p.at(1).get<std::string>()});
        r.run_args = j.at("run_args").get<std::vector<std::string>>();
        r.repeat = j.at("repeat").get<int64_t>();
        r.status = j.at("status").get<std::string>();
        r.exit_code = j.at("exit_code").get<int64_t>();
        r.error = j.at("error").get<std::string>();
        r.wall_seconds = j.at("wall_seconds").get<double>();
        r.cpu_seconds = j.at("cpu_seconds").get<double>();
        r.neuronsim_version = j.at("neuronsim_version").get<std::string>();
        r.numerics = j.at("numerics").get<std::string>();
        r.host = j.at("host").get<std::string>();
        r.finished_at = j.at("finished_at").get<std::string>();
        r.coord_key = j.at("coord_key").get<std::string>();
        r.inputs = j.at("inputs").get<std::string>();
        r.rerun_reason = j.at("rerun_reason").get<std::string>();
        for (const auto& s : j.at("stats")) {
            FlatStat f;
            f.key = s.at(0).get<std::string>();
            const auto& v = s.at(1);
            if (v.is_number_integer()) {
                f.value.kind = FlatValue::Kind::integer;
                f.value.i = v.get<int64_t>();
            } else if (v.is_number()) {
                f.value.kind = FlatValue::Kind::real;
                f.value.d = v.get<double>();
            } else if (v.is_string()) {
                f.value.kind = FlatValue::Kind::text;
                f.value.s = v.get<std::string>();
            }
            r.stats.push_back(std::move(f));
        }
    } catch (const nlohmann::json::exception& e) {
        throw Error(std::string("a malformed result message from an MPI worker: ") + e.what());
    }
    return r;
}

}  // namespace neuronsim::sweep
