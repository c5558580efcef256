#pragma once
// `neuronsim plot`: a line or bar chart of one stat against one key of a sweep database,
// drawn by gnuplot (run as a process; PNG or SVG by the output's extension).
//   x, series: a point field (trace, generation, repeat, wall_seconds, cpu_seconds, point_index), a
//              parameter (param:KEY or KEY) or a stat (stat:KEY or KEY); series may list
//              several keys separated by commas ("trace,generation"); a trace is named
//              by its file name in the legend
//   y:         a stat (or any key above that is a number)
// Points with status ok are drawn; a failed point (that the filters select) is marked with a red
// cross on the x axis at its x, and the legend counts them, so a failed point is never just
// absent. Points with the same series and x (repeats, or an axis not selected with `where`) are
// averaged, and the count is reported. A time (a key ending in _ps, _ns...) is drawn in the unit
// that fits, ns to s. `facet` draws one panel per value of a key; `pareto` draws every point of
// two stats with the front of the points no other beats on both (lower is better).
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace neuronsim::sweep {

struct PlotRequest {
    std::string db, x, y, series, out;
    std::vector<std::string> where;  // KEY=VALUE filters, all must hold
    bool bar = false, logx = false, logy = false, pareto = false;
    std::string facet;  // a key: one panel per value
    size_t max_series = 24;  // more in one panel is an error (split them with facet or where)
    std::string title;  // default: the database's file name
    std::string script_out;  // also write the gnuplot script here, when not empty
};

struct PlotData {
    bool numeric_x = true;
    std::vector<std::string> series;  // in order of first appearance
    std::vector<std::string> xs;  // categories (or numbers as text), sorted
    std::vector<std::vector<double>> y;  // [series][x], NaN where none
    size_t points = 0, averaged = 0;  // points used; (series, x) cells with more than one
    std::vector<std::string> failed_xs;  // the xs (of `xs`) where a selected point failed
    size_t failed_points = 0;
    std::string facet_value;  // the panel's value of PlotRequest::facet
    // pareto: every point as (x, y) per series, and the front (sorted by x)
    std::vector<std::vector<std::pair<double, double>>> scatter;
    std::vector<std::pair<double, double>> front;
};

// Reads the points of the request from the database (one panel; see collect_panels).
PlotData collect_plot_data(const PlotRequest& r);
// One PlotData per value of r.facet (in order of first appearance), or one without a facet.
std::vector<PlotData> collect_panels(const PlotRequest& r);
// The gnuplot script that draws the panels into output_path.
std::string gnuplot_script(const PlotRequest& r, const std::vector<PlotData>& panels, const std::string& output_path);
std::string gnuplot_script(const PlotRequest& r, const PlotData& d, const std::string& output_path);
// Runs gnuplot on script(path) writing a temporary image renamed to `out` when it succeeded;
// `script_out` (when not empty) also keeps the script that writes `out`.
void render_with_gnuplot(const std::string& out, const std::function<std::string(const std::string&)>& script, const std::string& script_out);
// A gnuplot single-quoted string, control characters replaced (no user text can end a line).
std::string gp_quoted(const std::string& s);
// Draws the plot; returns a note for the user (averaged cells) or "". Errors: no points, an
// unknown key, gnuplot missing (NEURONSIM_GNUPLOT names another executable) or failing.
std::string draw_plot(const PlotRequest& r);
// gnuplot on PATH (or NEURONSIM_GNUPLOT), "" when not found.
std::string find_gnuplot();

}  // namespace neuronsim::sweep
