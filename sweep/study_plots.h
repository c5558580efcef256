#pragma once
// The plots `neuronsim sweep --plot` draws, beside the database: the spec's `plots:` entries
// (a relative `out` is taken in the database's directory), or by default one per
// trace and axis key: core.simulated_ps against the key, a line per generation, the other axes
// held at their first value.
#include <string>
#include <vector>

#include "sweep/plot.h"
#include "sweep/spec.h"

namespace neuronsim::sweep {

inline constexpr const char* kDefaultPlotStat = "core.simulated_ps";

std::vector<PlotRequest> study_plots(const Spec& spec, const std::string& db);

}  // namespace neuronsim::sweep
