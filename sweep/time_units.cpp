#include "sweep/time_units.h"

#include <cmath>
#include <cstdio>

namespace neuronsim::sweep {

namespace {
bool ends_with(const std::string& s, const std::string& tail) { return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0; }
}  // namespace

double key_ps_per_unit(const std::string& key) {
    if (ends_with(key, "_ps")) return 1;
    if (ends_with(key, "_ns")) return 1e3;
    if (ends_with(key, "_us")) return 1e6;
    if (ends_with(key, "_ms")) return 1e9;
    if (ends_with(key, "_seconds") || ends_with(key, "_s")) return 1e12;
    return 0;
}

TimeScale fit_time_scale(const std::string& key, double max_abs) {
    const double per = key_ps_per_unit(key);
    if (per == 0) return {};
    static const struct {
        double ps;
        const char* unit;
    } kUnits[] = {{1e3, "ns"}, {1e6, "µs"}, {1e9, "ms"}, {1e12, "s"}};
    const double ps = std::fabs(max_abs) * per;
    size_t i = 0;
    while (i + 1 < std::size(kUnits) && ps >= kUnits[i + 1].ps) ++i;
    return {kUnits[i].ps / per, kUnits[i].unit};
}

std::string format_value(const std::string& key, double v) {
    char buf[64];
    const TimeScale t = fit_time_scale(key, v);
    if (t.unit.empty()) std::snprintf(buf, sizeof buf, "%.6g", v);
    else std::snprintf(buf, sizeof buf, "%.4g %s", v / t.divide_by, t.unit.c_str());
    return buf;
}

}  // namespace neuronsim::sweep
