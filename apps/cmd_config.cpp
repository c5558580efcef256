// `neuronsim config`: the resolved configuration of a set of layers, and the field table.
#include <cstdio>

#include "apps/commands.h"
#include "apps/config_options.h"

namespace neuronsim::apps {

namespace {

int run_config(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("what", po::value<std::string>()->default_value("show"), "show (the resolved YAML) or fields (the Markdown field table)");
    add_config_options(opts);
    po::positional_options_description pos;
    pos.add("what", 1);
    po::variables_map vm;
    if (parse_options(prog,
                      "show: prints the configuration a run with the same --gen/--config/-p would use, as the\n"
                      "YAML a run writes to OUT/config.yaml. fields: prints the table of every field (key, type,\n"
                      "unit, accepted values, meaning, source) that configs/README.md embeds.",
                      opts, args, vm, &pos, "[show|fields] [--gen G] [--config OVERLAY.yaml]... [-p key=value]..."))
        return 0;
    const std::string what = vm["what"].as<std::string>();
    if (what == "fields") {
        std::fputs(config_fields_markdown().c_str(), stdout);
        return 0;
    }
    if (what != "show") throw UsageError(prog + ": expected show or fields, got \"" + what + "\"");
    std::fputs(config_to_yaml(config_from(vm)).c_str(), stdout);
    return 0;
}

}  // namespace

Command config_command() { return {"config", "print the resolved configuration or the table of config fields", run_config}; }

}  // namespace neuronsim::apps
