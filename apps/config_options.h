#pragma once
// The configuration options every simulating command takes (--gen, --config overlays, -p) and
// the Config they resolve to.
#include <string>
#include <vector>

#include "apps/cli.h"
#include "neuronsim/config.h"

namespace neuronsim::apps {

void add_config_options(po::options_description& opts);
// The generation's preset, then each --config overlay in order, then `extra` and the -p
// overrides in order. Errors name the layer (overlay file and line, or the -p argument).
Config config_from(const po::variables_map& vm, const std::vector<std::string>& extra = {});
// The layers as given, for the record (stats.json): overlays and overrides in order.
std::vector<std::string> config_overlays(const po::variables_map& vm);
std::vector<std::string> config_overrides(const po::variables_map& vm);

}  // namespace neuronsim::apps
