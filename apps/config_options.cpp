#include "apps/config_options.h"

#include "config/features.h"

namespace neuronsim::apps {

namespace {
// "sunda, cayman, mariana (default), mariana_plus, maverick"
std::string generation_presets_text() {
    std::string t;
    for (const std::string& g : generation_names()) t += (t.empty() ? "" : ", ") + g + (g == default_generation() ? " (default)" : "");
    std::string aliases;
    for (const auto& [alias, name] : generation_aliases()) aliases += (aliases.empty() ? "" : ", ") + alias + " = " + name;
    return t + "; or an instance family: " + aliases;
}
}  // namespace

void add_config_options(po::options_description& opts) {
    opts.add_options()("gen,g", po::value<std::string>(), ("generation preset: " + generation_presets_text()).c_str())(
        "config,c", po::value<std::vector<std::string>>()->composing(),
        "YAML overlay on the preset (repeatable, applied in order): only the keys it gives change. A complete config file "
        "given without --gen selects its own generation's preset")("param,p", po::value<std::vector<std::string>>()->composing(),
                                                                   "override dotted.key=value after the overlays (repeatable, last wins)");
}

std::vector<std::string> config_overlays(const po::variables_map& vm) {
    return vm.count("config") ? vm["config"].as<std::vector<std::string>>() : std::vector<std::string>{};
}

std::vector<std::string> config_overrides(const po::variables_map& vm) {
    return vm.count("param") ? vm["param"].as<std::vector<std::string>>() : std::vector<std::string>{};
}

Config config_from(const po::variables_map& vm, const std::vector<std::string>& extra) {
    std::vector<std::string> overrides = extra;
    for (const auto& p : config_overrides(vm)) overrides.push_back(p);
    return compose_config(vm.count("gen") ? vm["gen"].as<std::string>() : "", config_overlays(vm), overrides);
}

}  // namespace neuronsim::apps
