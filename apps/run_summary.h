#pragma once
// The summary `neuronsim run` prints: results first (time, engines, where the time went:
// per mnemonic, table loads apart from compute, the top stall causes, the cost-model
// comparison), host speed last. Reads only the run's report, its stats through their records
// (stats/stat_records.h).
#include <string>

#include "platform/config.h"
#include "platform/host/trace_host.h"

namespace neuronsim::apps {

void print_run_summary(const platform::Config& cfg, const std::string& trace_name, const std::string& out, const platform::RunReport& rep,
                       const nlohmann::ordered_json& host, bool cost_model);

}  // namespace neuronsim::apps
