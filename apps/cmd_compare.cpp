// `neuronsim compare A B`: the stats of two runs or sweep points side by side (sweep/compare.h);
// `neuronsim diff A B`: the instruction times of two runs (sweep/run_diff.h).
#include <cstdio>

#include "apps/commands.h"
#include "sweep/compare.h"
#include "sweep/run_diff.h"

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

int run_diff(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("a", po::value<std::string>()->required(), "the first run's output directory")(
        "b", po::value<std::string>()->required(), "the second run's")("top", po::value<size_t>()->default_value(10),
                                                                       "how many movers and stall-cause changes to list")(
        "json", po::bool_switch(), "the same as JSON (every mnemonic, the movers, the stall changes, the counts)");
    po::positional_options_description pos;
    pos.add("a", 1).add("b", 1);
    po::variables_map vm;
    if (parse_options(prog,
                      "What changed between two runs (output directories of `neuronsim run` or the Python\n"
                      "package's run, with instructions.csv): the simulated time, each engine's busy time per\n"
                      "mnemonic, the instructions whose time (stall + issue to completion) moved most, and the\n"
                      "stall causes that changed. Instructions are matched by engine and index in their\n"
                      "stream: two runs of one trace (other generation, config, -p) or of an edit that keeps\n"
                      "each stream's order; both trace lines are shown. Exit status 0 whether or not they differ.",
                      opts, args, vm, &pos, "A B [--top N] [--json]"))
        return 0;
    const sweep::RunDiff d = sweep::diff_runs(vm["a"].as<std::string>(), vm["b"].as<std::string>(), vm["top"].as<size_t>());
    if (vm["json"].as<bool>()) std::printf("%s\n", sweep::run_diff_json(d).dump(2).c_str());
    else std::fputs(sweep::run_diff_text(d).c_str(), stdout);
    return 0;
}

}  // namespace

Command diff_command() { return {"diff", "what changed between two runs: time per mnemonic and per instruction, stall causes, top movers", run_diff}; }
Command compare_command() { return {"compare", "the stats of two runs or sweep points side by side, with their differences", run_compare}; }

}  // namespace neuronsim::apps
