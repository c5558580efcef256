// `neuronsim stats`: the layout of stats.json and host.json, from the stat records.
#include <cstdio>

#include "apps/commands.h"
#include "model/common/error.h"
#include "stats/stat.h"
#include "stats/stats_schema.h"

namespace neuronsim::apps {

namespace {

int run_stats(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("what", po::value<std::string>()->default_value("schema"),
                       "schema (docs/stats-schema.md, the Markdown page) or keys (every stats.json key pattern, its unit and meaning, tab-separated)");
    po::positional_options_description pos;
    pos.add("what", 1);
    po::variables_map vm;
    if (parse_options(prog,
                      "Prints what stats.json and host.json hold, from the stat records the simulator writes them\n"
                      "with: schema is the page docs/stats-schema.md (a test checks that it is current), keys a\n"
                      "line per stats.json key pattern (<...> names something, [<n>] an array element).",
                      opts, args, vm, &pos, "[schema|keys]"))
        return 0;
    const std::string what = vm["what"].as<std::string>();
    if (what == "schema") {
        std::fputs(stats::schema_markdown().c_str(), stdout);
        return 0;
    }
    if (what == "keys") {
        for (const stats::Entry& e : stats::stats_json_patterns())
            std::printf("%s\t%s\t%s\n", e.pattern().c_str(), std::string(stats::unit_name(e.stat->unit)).c_str(), std::string(e.stat->meaning).c_str());
        return 0;
    }
    throw UsageError(prog + ": expected schema or keys, got \"" + what + "\"");
}

}  // namespace

Command stats_command() { return {"stats", "the layout of stats.json: its keys, units and meanings", run_stats}; }

}  // namespace neuronsim::apps
