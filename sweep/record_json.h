#pragma once
// A PointRecord as JSON, for the MPI messages from workers to the coordinator. Stat values
// keep their kind (integer, real, text, null); doubles round-trip exactly.
#include <string>

#include "sweep/results_db.h"

namespace neuronsim::sweep {

std::string record_to_json(const PointRecord& r, bool interrupted, size_t index);
PointRecord record_from_json(const std::string& text, bool& interrupted, size_t& index);

}  // namespace neuronsim::sweep
