#pragma once
// The generation options every simulating command takes (--config FILE | --gen NAME, -p
// dotted.key=value) and the configuration they name.
#include <string>
#include <vector>

#include "apps/cli.h"
#include "model/workloads/gen_limits.h"
#include "platform/config/config.h"

namespace neuronsim::apps {

void add_config_options(po::options_description& opts);
// `extra` overrides come first, so -p on the command line still wins.
platform::Config config_from(const po::variables_map& vm, const std::vector<std::string>& extra = {});
// What a generated kernel may use on this configuration.
model::workloads::GenLimits gen_limits(const platform::Config& c);

}  // namespace neuronsim::apps
