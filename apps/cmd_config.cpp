// `neuronsim config`: the resolved configuration of a set of layers, the field table, and the
// built-in generations with their features.
#include <cstdio>

#include "apps/commands.h"
#include "apps/config_options.h"
#include "config/features.h"

namespace neuronsim::apps {

namespace {

int run_config(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("what", po::value<std::string>()->default_value("show"), "show (the resolved YAML), fields (the Markdown field table) or generations")(
        "select", po::value<std::string>(),
        "with generations: print only the names a selection gives, one per line: all, a feature (cptc_decode, ...), "
        "no_ and a feature, or a comma list of names");
    add_config_options(opts);
    po::positional_options_description pos;
    pos.add("what", 1);
    po::variables_map vm;
    if (parse_options(prog,
                      "show: prints the configuration a run with the same --gen/--config/-p would use, as the\n"
                      "YAML a run writes to OUT/config.yaml. fields: prints the table of every field (key, type,\n"
                      "unit, accepted values, meaning, source) that configs/README.md embeds. generations: the\n"
                      "built-in generations (one per configs/*.yaml), their nc_version and features.",
                      opts, args, vm, &pos, "[show|fields|generations [--select SEL]] [--gen G] [--config OVERLAY.yaml]... [-p key=value]..."))
        return 0;
    const std::string what = vm["what"].as<std::string>();
    if (what == "fields") {
        std::fputs(config_fields_markdown().c_str(), stdout);
        return 0;
    }
    if (what == "generations") {
        if (vm.count("select")) {
            for (const std::string& g : select_generations(vm["select"].as<std::string>())) std::printf("%s\n", g.c_str());
            return 0;
        }
        std::printf("%-14s %-10s %s\n", "generation", "nc_version", "features");
        for (const std::string& g : generation_names()) {
            const Config c = compose_config(g, {});
            std::string has;
            for (const Feature& f : features())
                if (f.has(c)) has += (has.empty() ? "" : " ") + f.name;
            std::printf("%-14s %-10d %s\n", g.c_str(), c.generation.nc_version, has.empty() ? "-" : has.c_str());
        }
        return 0;
    }
    if (vm.count("select")) throw UsageError(prog + ": --select goes with generations");
    if (what != "show") throw UsageError(prog + ": expected show, fields or generations, got \"" + what + "\"");
    std::fputs(config_to_yaml(config_from(vm)).c_str(), stdout);
    return 0;
}

}  // namespace

Command config_command() { return {"config", "print the resolved configuration, the table of config fields or the generations", run_config}; }

}  // namespace neuronsim::apps
