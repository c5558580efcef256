// `neuronsim compare A B`: the stats of two runs or sweep points side by side (sweep/compare.h).
#include <cstdio>

#include "apps/commands.h"
#include "sweep/compare.h"

namespace neuronsim::apps {

namespace {

int run_compare(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("a", po::value<std::string>()->required(), "the first run: an output directory, a stats.json, or DB:POINT_KEY")(
        "b", po::value<std::string>()->required(), "the second, likewise")("stats", po::value<std::vector<std::string>>()->multitoken(),
                                                                           "globs of the stats to compare (as a sweep spec's stats:; default: its compact "
                                                                           "default, every key but the per-instance breakdowns)")(
        "all", po::bool_switch(), "list equal stats too")("tsv", po::bool_switch(), "tab-separated: key, A, B, B-A, (B-A)/|A|");
    po::positional_options_description pos;
    pos.add("a", 1).add("b", 1);
    po::variables_map vm;
    if (parse_options(prog,
                      "Compares the stats of two runs (output directories or stats.json files) or two points of\n"
                      "sweep databases (DB:POINT_KEY): a row per stat that differs, with both values, the\n"
                      "difference and the relative change of numbers. Exit status 0 whether or not they differ.",
                      opts, args, vm, &pos, "A B [--stats GLOB...] [--all] [--tsv]"))
        return 0;
    const std::vector<std::string> globs = vm.count("stats") ? vm["stats"].as<std::vector<std::string>>() : sweep::default_stat_globs();
    const auto a = sweep::stats_of_source(vm["a"].as<std::string>()), b = sweep::stats_of_source(vm["b"].as<std::string>());
    const std::vector<sweep::StatDelta> rows = sweep::compare_stats(a, b, globs, vm["all"].as<bool>());
    const bool tsv = vm["tsv"].as<bool>();
    if (!tsv) std::printf("%-56s %20s %20s %16s %9s\n", "stat", "A", "B", "B - A", "change");
    for (const sweep::StatDelta& d : rows) {
        if (tsv) {
            std::printf("%s\t%s\t%s\t%s\t%s\n", d.key.c_str(), d.a.c_str(), d.b.c_str(), d.numeric ? std::to_string(d.difference).c_str() : "",
                        d.numeric ? std::to_string(d.relative).c_str() : "");
            continue;
        }
        char diff[32] = "", change[32] = "";
        if (d.numeric) {
            std::snprintf(diff, sizeof diff, "%.6g", d.difference);
            std::snprintf(change, sizeof change, "%+.2f%%", 100.0 * d.relative);
        }
        std::printf("%-56s %20s %20s %16s %9s\n", d.key.c_str(), d.a.empty() ? "-" : d.a.c_str(), d.b.empty() ? "-" : d.b.c_str(), diff, change);
    }
    if (!tsv) std::printf("%zu stat(s) %s\n", rows.size(), vm["all"].as<bool>() ? "listed" : "differ");
    return 0;
}

}  // namespace

Command compare_command() { return {"compare", "the stats of two runs or sweep points side by side, with their differences", run_compare}; }

}  // namespace neuronsim::apps
