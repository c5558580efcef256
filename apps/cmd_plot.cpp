// `neuronsim plot`: a chart of a sweep database with gnuplot (docs/what-if.md). Thin: sweep/plot.h.
#include <cstdio>
#include <filesystem>

#include "apps/commands.h"
#include "sweep/plot.h"

namespace neuronsim::apps {

namespace {

int run_plot(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("db", po::value<std::string>()->required(), "the sweep database (also positional)")(
        "x", po::value<std::string>()->required(),
        "the x axis: a parameter (act.clock_ghz or param:act.clock_ghz), a point field (trace, generation, repeat, wall_seconds, cpu_seconds) or a stat (stat:KEY)")(
        "y", po::value<std::string>()->required(), "the y axis: a stat, e.g. core.simulated_ps (or stat:core.simulated_ps)")(
        "series", po::value<std::string>(), "one line (or bar colour) per value of this key; several keys separated by commas, e.g. trace,generation")(
        "where", po::value<std::vector<std::string>>()->composing(), "KEY=VALUE: only points where KEY has VALUE (repeatable; numbers compare by value)")(
        "out", po::value<std::string>(), "the image: FILE.png or FILE.svg (default: the database's name with .svg)")(
        "bar", po::bool_switch(), "a clustered bar chart (the default for a non-numeric x)")(
        "facet", po::value<std::string>(), "one panel per value of this key (e.g. generation), at most 16, the axes' units shared")(
        "logx", po::bool_switch(), "a logarithmic x axis")("logy", po::bool_switch(), "a logarithmic y axis")(
        "pareto", po::bool_switch(),
        "a scatter plot of every point of two numbers (--x and --y, e.g. two stats) with their Pareto front: the points no other point beats on both, "
        "lower being better (negate neither: choose stats where lower is better)")("max-series", po::value<size_t>()->default_value(24),
                                                                                   "more series than this in one panel is an error (48 styles are distinct)")(
        "title", po::value<std::string>(), "the chart's title (default: the database's file name and the --where filters)")(
        "script", po::value<std::string>(), "also write the gnuplot script (with its data) to FILE, to restyle the chart by hand");
    po::positional_options_description pos;
    pos.add("db", 1);
    po::variables_map vm;
    if (parse_options(prog,
                      "Draws a line chart (or --bar chart) of a stat against a parameter of a sweep database with gnuplot\n"
                      "(Debian: gnuplot-nox; NEURONSIM_GNUPLOT names another executable). Only successful points are\n"
                      "drawn, a failed one is a red cross on the x axis; points sharing a series and x (repeats, axes not\n"
                      "fixed by --where) are averaged. Times (keys ending in _ps, _ns...) are drawn in ns, µs, ms or s,\n"
                      "whichever fits.",
                      opts, args, vm, &pos,
                      "DB --x KEY --y STAT [--series KEY] [--where KEY=VALUE]... [--facet KEY] [--logx] [--logy] [--pareto] [--out FILE.png|.svg] [--bar]"))
        return 0;
    sweep::PlotRequest r;
    r.db = vm["db"].as<std::string>();
    r.x = vm["x"].as<std::string>();
    r.y = vm["y"].as<std::string>();
    if (vm.count("series")) r.series = vm["series"].as<std::string>();
    if (vm.count("where")) r.where = vm["where"].as<std::vector<std::string>>();
    namespace fs = std::filesystem;
    r.out = vm.count("out") ? vm["out"].as<std::string>() : (fs::path(r.db).parent_path() / fs::path(r.db).stem()).string() + ".svg";
    r.bar = vm["bar"].as<bool>();
    r.logx = vm["logx"].as<bool>();
    r.logy = vm["logy"].as<bool>();
    r.pareto = vm["pareto"].as<bool>();
    if (r.pareto && r.bar) throw UsageError(prog + ": --pareto is a scatter plot: leave out --bar");
    if (vm.count("facet")) r.facet = vm["facet"].as<std::string>();
    r.max_series = vm["max-series"].as<size_t>();
    if (r.max_series < 1 || r.max_series > 48) throw UsageError(prog + ": --max-series: expected 1..48 (the distinct styles)");
    if (vm.count("title")) r.title = vm["title"].as<std::string>();
    if (vm.count("script")) r.script_out = vm["script"].as<std::string>();
    const std::string note = sweep::draw_plot(r);
    std::printf("%s\n", r.out.c_str());
    if (!note.empty()) std::fprintf(stderr, "neuronsim plot: %s\n", note.c_str());
    return 0;
}

}  // namespace

Command plot_command() { return {"plot", "chart a stat of a sweep database against a parameter (gnuplot)", run_plot}; }

}  // namespace neuronsim::apps
