#pragma once
// Where and when: what a sweep records with each point and with the database's writer.
#include <string>

namespace neuronsim::sweep {

// "host" recorded with each point (gethostname).
std::string host_name();
// UTC now as 2026-12-01T05:04:05Z.
std::string utc_now();

}  // namespace neuronsim::sweep
