#include "sweep/record_fields.h"

#include <cmath>
#include <cstdlib>

#include "model/common/error.h"

namespace neuronsim::sweep {

bool parse_number(const std::string& s, double& v) {
    if (s.empty()) return false;
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && std::isfinite(v);
}

bool record_field(const PointRecord& r, const std::string& key, std::string& out) {
    if (key == "trace") return out = r.trace, true;
    if (key == "generation") return out = r.generation, true;
    if (key == "repeat") return out = std::to_string(r.repeat), true;
    if (key == "point_index") return out = std::to_string(r.point_index), true;
    if (key == "wall_seconds") return out = FlatValue{FlatValue::Kind::real, 0, r.wall_seconds, {}}.to_text(), true;
    if (key == "cpu_seconds") return out = FlatValue{FlatValue::Kind::real, 0, r.cpu_seconds, {}}.to_text(), true;
    const bool want_param = key.rfind("param:", 0) == 0, want_stat = key.rfind("stat:", 0) == 0;
    const std::string k = want_param ? key.substr(6) : want_stat ? key.substr(5) : key;
    if (!want_stat)
        for (const Param& p : r.params)
            if (p.key == k) return out = p.value, true;
    if (!want_param)
        for (const FlatStat& s : r.stats)
            if (s.key == k) return out = s.value.to_text(), true;
    return false;
}

std::vector<WhereFilter> parse_where(const std::vector<std::string>& where) {
    std::vector<WhereFilter> filters;
    for (const std::string& w : where) {
        const size_t eq = w.find('=');
        if (eq == std::string::npos || eq == 0) throw Error("--where " + w + ": expected KEY=VALUE");
        filters.emplace_back(w.substr(0, eq), w.substr(eq + 1));
    }
    return filters;
}

bool matches_where(const PointRecord& r, const std::vector<WhereFilter>& filters) {
    for (const auto& [k, v] : filters) {
        std::string have;
        if (!record_field(r, k, have)) return false;
        double a = 0, b = 0;
        if (have != v && !(parse_number(have, a) && parse_number(v, b) && a == b)) return false;
    }
    return true;
}

}  // namespace neuronsim::sweep
