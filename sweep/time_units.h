#pragma once
// Times shown to a person: a stat whose key ends in a time unit (_ps, _ns, _us, _ms, _s,
// _seconds) is shown in the unit that fits its values, ns to s, never ps (plots, reports).
#include <string>

namespace neuronsim::sweep {

// Picoseconds per unit of `key`'s values, by its suffix; 0 when the key names no time unit.
double key_ps_per_unit(const std::string& key);

struct TimeScale {
    double divide_by = 1;  // the key's values divided by this are in `unit`
    std::string unit;  // "ns", "µs", "ms", "s"; "" when the key is no time
};
// The unit in which `max_abs` (in the key's unit) reads 1..999 (ns at the least, s at the most).
TimeScale fit_time_scale(const std::string& key, double max_abs);

// A value of `key` as text: "123.4 µs" for a time, else %.6g.
std::string format_value(const std::string& key, double v);

}  // namespace neuronsim::sweep
