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
// averaged, and the count is reported.
#include <string>
#include <vector>

namespace neuronsim::sweep {

struct PlotRequest {
    std::string db, x, y, series, out;
    std::vector<std::string> where;  // KEY=VALUE filters, all must hold
    bool bar = false;
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
};

// Reads the points of the request from the database.
PlotData collect_plot_data(const PlotRequest& r);
// The gnuplot script that draws `d` into r.out.
std::string gnuplot_script(const PlotRequest& r, const PlotData& d, const std::string& output_path);
// Draws the plot; returns a note for the user (averaged cells) or "". Errors: no points, an
// unknown key, gnuplot missing (NEURONSIM_GNUPLOT names another executable) or failing.
std::string draw_plot(const PlotRequest& r);
// gnuplot on PATH (or NEURONSIM_GNUPLOT), "" when not found.
std::string find_gnuplot();

}  // namespace neuronsim::sweep
