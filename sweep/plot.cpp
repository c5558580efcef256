#include "sweep/plot.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "model/common/error.h"
#include "model/io/json_path.h"
#include "model/io/write_file.h"
#include "sweep/child_process.h"
#include "sweep/record_fields.h"
#include "sweep/results_db.h"
#include "sweep/time_units.h"

namespace neuronsim::sweep {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    while (true) {
        const size_t p = s.find(sep, start);
        out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
        if (p == std::string::npos) break;
        start = p + 1;
    }
    return out;
}

// Every user-supplied string reaches the script through these: a line break (or any control
// character) would end the line and let the rest run as gnuplot commands (`system(...)`).
bool control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

// Text for a comment line.
std::string comment_text(const std::string& s) {
    std::string q;
    for (char c : s) q += control(c) ? ' ' : c;
    return q;
}

// A category in a data block: double-quoted, without quotes or control characters.
std::string data_text(const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += (c == '"' || control(c)) ? ' ' : c;
    return q + "\"";
}

std::string num(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// Series styles: 12 colours (Tableau 10 and two more) x 4 dash types, and 8 point types, so
// that 48 series stay told apart.
std::string series_style(size_t i) {
    static const char* const kColours[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
                                           "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#17becf", "#000000"};
    static const int kPoints[] = {7, 5, 9, 11, 13, 4, 6, 8};
    return "linecolor rgb '" + std::string(kColours[i % 12]) + "' dashtype " + std::to_string(1 + (i / 12) % 4) + " pointtype " +
           std::to_string(kPoints[i % 8]);
}

}  // namespace

std::string gp_quoted(const std::string& s) {
    std::string q = "'";  // ('' stands for a quote; no other escapes exist in it)
    for (char c : s) {
        if (c == '\'') q += "''";
        else q += control(c) ? ' ' : c;
    }
    return q + "'";
}

PlotData collect_plot_data(const PlotRequest& r) {
    ResultsDb db(r.db, false);
    const std::vector<WhereFilter> filters = parse_where(r.where);
    const std::vector<std::string> series_keys = r.series.empty() ? std::vector<std::string>{} : split(r.series, ',');
    struct Cell {
        double sum = 0;
        size_t n = 0;
    };
    std::map<std::pair<std::string, std::string>, Cell> cells;
    PlotData d;
    std::set<std::string> xs_seen;
    bool x_found = false, y_found = false;
    size_t ok_points = 0;
    std::set<std::string> failed_xs;
    db.for_each([&](const PointRecord& p) {
        if (!matches_where(p, filters)) return;
        if (p.status != "ok") {  // (a failed point has no stats: its x is a field or a parameter, or unknown)
            ++d.failed_points;
            std::string x;
            if (r.pareto || !record_field(p, r.x, x)) return;  // (counted in the legend, not placed)
            failed_xs.insert(x);
            if (xs_seen.insert(x).second) d.xs.push_back(x);
            return;
        }
        ++ok_points;
        std::string x, y, s;
        const bool hx = record_field(p, r.x, x), hy = record_field(p, r.y, y);
        x_found = x_found || hx;
        y_found = y_found || hy;
        if (!hx || !hy) return;
        for (const std::string& k : series_keys) {
            std::string part;
            if (!record_field(p, k, part)) throw Error("--series " + k + ": point " + p.point_key + " has no such key");
            if (k == "trace") part = fs::path(part).filename().string();  // a legend names the file, not its directory
            s += (s.empty() ? "" : " ") + part;
        }
        double yv = 0;
        if (!parse_number(y, yv)) throw Error("--y " + r.y + ": point " + p.point_key + " has the non-number \"" + y + "\"");
        if (std::find(d.series.begin(), d.series.end(), s) == d.series.end()) {
            d.series.push_back(s);
            d.scatter.emplace_back();
        }
        if (r.pareto) {
            double xv = 0;
            if (!parse_number(x, xv))
                throw Error("--x " + r.x + ": point " + p.point_key + " has the non-number \"" + x + "\" (a Pareto plot needs two numbers)");
            d.scatter[size_t(std::find(d.series.begin(), d.series.end(), s) - d.series.begin())].emplace_back(xv, yv);
            ++d.points;
            return;
        }
        if (xs_seen.insert(x).second) d.xs.push_back(x);
        Cell& c = cells[{s, x}];
        c.sum += yv;
        ++c.n;
        ++d.points;
    });
    if (ok_points == 0) throw Error(r.db + ": no successful points to plot" + (d.failed_points ? " (" + std::to_string(d.failed_points) + " failed)" : ""));
    if (!x_found) throw Error("--x " + r.x + ": no point has this key (a point field, a parameter or a stat; `neuronsim sweep export` lists them all)");
    if (!y_found) throw Error("--y " + r.y + ": no point has this key (a stat such as core.simulated_ps; `neuronsim sweep export` lists them all)");
    if (d.points == 0) throw Error("no point matches the --where filters");
    if (d.series.size() > r.max_series)
        throw Error(std::to_string(d.series.size()) + " series (--series " + r.series + "): more than " + std::to_string(r.max_series) +
                    " cannot be told apart in one chart; split them into panels with --facet KEY, select some with --where, or raise --max-series");
    if (r.pareto) {  // the points no other point beats on both (lower x and lower y are better)
        std::vector<std::pair<double, double>> all;
        for (const auto& sc : d.scatter) all.insert(all.end(), sc.begin(), sc.end());
        std::sort(all.begin(), all.end());
        double best_y = INFINITY;
        for (const auto& pt : all)
            if (pt.second < best_y) {
                d.front.push_back(pt);
                best_y = pt.second;
            }
        return d;
    }
    for (const std::string& x : d.xs) {
        double v = 0;
        d.numeric_x = d.numeric_x && parse_number(x, v);
    }
    if (d.numeric_x)
        std::sort(d.xs.begin(), d.xs.end(),
                  [](const std::string& a, const std::string& b) { return std::strtod(a.c_str(), nullptr) < std::strtod(b.c_str(), nullptr); });
    for (const std::string& x : d.xs)
        if (failed_xs.count(x)) d.failed_xs.push_back(x);
    d.y.assign(d.series.size(), std::vector<double>(d.xs.size(), std::nan("")));
    for (size_t si = 0; si < d.series.size(); ++si)
        for (size_t xi = 0; xi < d.xs.size(); ++xi) {
            auto it = cells.find({d.series[si], d.xs[xi]});
            if (it == cells.end()) continue;
            d.y[si][xi] = it->second.sum / double(it->second.n);
            if (it->second.n > 1) ++d.averaged;
        }
    return d;
}

std::vector<PlotData> collect_panels(const PlotRequest& r) {
    if (r.facet.empty()) return {collect_plot_data(r)};
    std::vector<std::string> values;
    {
        ResultsDb db(r.db, false);
        const std::vector<WhereFilter> filters = parse_where(r.where);
        db.for_each([&](const PointRecord& p) {
            std::string v;
            if (!matches_where(p, filters) || !record_field(p, r.facet, v)) return;
            if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
        });
    }
    if (values.empty()) throw Error("--facet " + r.facet + ": no point (of the --where filters) has this key");
    if (values.size() > 16) throw Error("--facet " + r.facet + ": " + std::to_string(values.size()) + " values; at most 16 panels (select some with --where)");
    std::vector<PlotData> panels;
    for (const std::string& v : values) {
        PlotRequest one = r;
        one.where.push_back(r.facet + "=" + v);
        PlotData d;
        try {
            d = collect_plot_data(one);
        } catch (const Error& e) {
            throw Error("--facet " + r.facet + "=" + v + ": " + e.what());
        }
        d.facet_value = v;
        panels.push_back(std::move(d));
    }
    return panels;
}

namespace {

// The scale of an axis over every panel: a time in the unit that fits its largest value.
TimeScale axis_scale(const std::string& key, const std::vector<PlotData>& panels, bool y) {
    double most = 0;
    for (const PlotData& d : panels) {
        if (y)
            for (const auto& row : d.y)
                for (double v : row)
                    if (!std::isnan(v)) most = std::max(most, std::fabs(v));
        if (!y && d.numeric_x)
            for (const std::string& x : d.xs) most = std::max(most, std::fabs(std::strtod(x.c_str(), nullptr)));
        for (const auto& sc : d.scatter)
            for (const auto& [xv, yv] : sc) most = std::max(most, std::fabs(y ? yv : xv));
    }
    return fit_time_scale(key, most);
}

std::string axis_label(const std::string& key, const TimeScale& t) { return t.unit.empty() ? key : key + " (" + t.unit + ")"; }

// One panel's data and plot command.
std::string panel_script(const PlotRequest& r, const PlotData& d, size_t panel, const TimeScale& xs, const TimeScale& ys) {
    std::string s;
    const bool bars = !r.pareto && (r.bar || !d.numeric_x);
    auto X = [&](double v) { return v / xs.divide_by; };
    auto Y = [&](double v) { return v / ys.divide_by; };
    s += "unset label\n";
    for (const std::string& x : d.failed_xs) {
        const double at = bars ? double(std::find(d.xs.begin(), d.xs.end(), x) - d.xs.begin()) : X(std::strtod(x.c_str(), nullptr));
        s += "set label '' at first " + num(at) + ", graph 0 point pointtype 2 pointsize 2.5 linewidth 2 linecolor rgb 'red' front\n";
    }
    const std::string failed_key = d.failed_points
                                       ? ", NaN with points pointtype 2 pointsize 2.5 linewidth 2 linecolor rgb 'red' title " +
                                             gp_quoted(std::to_string(d.failed_points) + " failed point" + (d.failed_points == 1 ? "" : "s") + " (no result)")
                                       : std::string();
    auto title_of = [&](size_t si) { return gp_quoted(d.series[si].empty() ? r.y : d.series[si]); };
    const std::string block = "$data" + std::to_string(panel);
    s += block + " << EOD\n";
    if (r.pareto) {
        for (size_t si = 0; si < d.series.size(); ++si) {
            for (const auto& [xv, yv] : d.scatter[si]) s += num(X(xv)) + " " + num(Y(yv)) + "\n";
            s += "\n\n";
        }
        for (const auto& [xv, yv] : d.front) s += num(X(xv)) + " " + num(Y(yv)) + "\n";
        s += "EOD\nplot ";
        for (size_t si = 0; si < d.series.size(); ++si)
            s += std::string(si ? ", " : "") + block + " index " + std::to_string(si) + " using 1:2 with points " + series_style(si) + " title " + title_of(si);
        s += ", " + block + " index " + std::to_string(d.series.size()) +
             " using 1:2 with linespoints linewidth 2 linecolor rgb '#222222' pointtype 6 pointsize 2 title " +
             gp_quoted("Pareto front (" + std::to_string(d.front.size()) + " of " + std::to_string(d.points) + " points; lower is better on both)");
        return s + failed_key + "\n";
    }
    if (bars) {
        for (size_t xi = 0; xi < d.xs.size(); ++xi) {
            s += data_text(d.xs[xi]);
            for (size_t si = 0; si < d.series.size(); ++si) s += " " + (std::isnan(d.y[si][xi]) ? std::string("NaN") : num(Y(d.y[si][xi])));
            s += "\n";
        }
        s += "EOD\n";
        s += "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8 border -1\nset boxwidth 0.9\n";
        s += "set xtics rotate by -30 noenhanced\n";
        if (!r.logy) s += "set yrange [0:*]\n";
        s += "plot ";
        for (size_t si = 0; si < d.series.size(); ++si)
            s += std::string(si ? ", '' " : block + " ") + "using " + std::to_string(si + 2) + (si == 0 ? ":xtic(1)" : "") + " " +
                 series_style(si).substr(0, series_style(si).find(" dashtype")) + " title " + title_of(si);
        return s + failed_key + "\n";
    }
    // One block per series, separated by two blank lines (gnuplot's index).
    for (size_t si = 0; si < d.series.size(); ++si) {
        for (size_t xi = 0; xi < d.xs.size(); ++xi)
            if (!std::isnan(d.y[si][xi])) s += num(X(std::strtod(d.xs[xi].c_str(), nullptr))) + " " + num(Y(d.y[si][xi])) + "\n";
        if (si + 1 < d.series.size()) s += "\n\n";
    }
    s += "EOD\nplot ";
    for (size_t si = 0; si < d.series.size(); ++si)
        s +=
            std::string(si ? ", " : "") + block + " index " + std::to_string(si) + " using 1:2 with linespoints " + series_style(si) + " title " + title_of(si);
    return s + failed_key + "\n";
}

}  // namespace

std::string gnuplot_script(const PlotRequest& r, const std::vector<PlotData>& panels, const std::string& output_path) {
    const std::string ext = fs::path(r.out).extension().string();
    const size_t n = panels.size(), cols = n <= 1 ? 1 : n <= 4 ? 2 : 3, rows = (n + cols - 1) / cols;
    const size_t series = panels.empty() ? 0 : panels.front().series.size();
    const int width = n > 1 ? int(560 * cols) : 1000, height = n > 1 ? int(420 * rows + 60) : 600;
    std::string s = "# neuronsim plot: " +
                    comment_text(r.y + " against " + r.x + (r.series.empty() ? "" : " by " + r.series) + (r.facet.empty() ? "" : ", a panel per " + r.facet) +
                                 " from " + r.db) +
                    "\n";
    const std::string size = " size " + std::to_string(width) + "," + std::to_string(height);
    if (ext == ".png") s += "set terminal pngcairo" + size + " enhanced font 'Sans,10'\n";
    else s += "set terminal svg" + size + " dynamic enhanced font 'Sans,10'\n";
    s += "set encoding utf8\nset output " + gp_quoted(output_path) + "\n";
    std::string title = r.title;
    if (title.empty()) {
        title = fs::path(r.db).filename().string();
        for (size_t i = 0; i < r.where.size(); ++i) title += (i ? ", " : ": ") + r.where[i];
    }
    const TimeScale xs = r.pareto || (!panels.empty() && panels.front().numeric_x && !r.bar) ? axis_scale(r.x, panels, false) : TimeScale{};
    const TimeScale ys = axis_scale(r.y, panels, true);
    s += "set xlabel " + gp_quoted(axis_label(r.x, xs)) + " noenhanced\nset ylabel " + gp_quoted(axis_label(r.y, ys)) + " noenhanced\n";
    s += "set grid\nset datafile missing 'NaN'\n";
    s += series > 8 && n == 1 ? "set key outside right top vertical noenhanced\n" : "set key below noenhanced\n";
    if (r.logx) s += "set logscale x\n";
    if (r.logy) s += "set logscale y\n";
    if (n > 1) s += "set multiplot layout " + std::to_string(rows) + "," + std::to_string(cols) + " title " + gp_quoted(title) + " noenhanced\n";
    for (size_t i = 0; i < n; ++i) {
        s += "set title " + gp_quoted(n > 1 ? r.facet + " = " + panels[i].facet_value : title) + " noenhanced\n";
        s += panel_script(r, panels[i], i, xs, ys);
    }
    if (n > 1) s += "unset multiplot\n";
    return s;
}

std::string gnuplot_script(const PlotRequest& r, const PlotData& d, const std::string& output_path) {
    return gnuplot_script(r, std::vector<PlotData>{d}, output_path);
}

std::string find_gnuplot() {
    if (const char* g = std::getenv("NEURONSIM_GNUPLOT")) return ::access(g, X_OK) == 0 ? g : "";
    const char* path = std::getenv("PATH");
    for (const std::string& dir : split(path ? path : "", ':')) {
        if (dir.empty()) continue;
        const std::string c = dir + "/gnuplot";
        struct stat st {};
        if (::stat(c.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(c.c_str(), X_OK) == 0) return c;
    }
    return "";
}

void render_with_gnuplot(const std::string& out, const std::function<std::string(const std::string&)>& script, const std::string& script_out) {
    const std::string ext = fs::path(out).extension().string();
    if (ext != ".png" && ext != ".svg") throw Error("--out " + out + ": expected a .png or .svg file name");
    const std::string gnuplot = find_gnuplot();
    if (gnuplot.empty())
        throw Error("gnuplot not found (looked on PATH" + std::string(std::getenv("NEURONSIM_GNUPLOT") ? " and at NEURONSIM_GNUPLOT" : "") +
                    "): install it (Debian: apt-get install gnuplot-nox) or set NEURONSIM_GNUPLOT to its path");
    // gnuplot writes a temporary file beside the output, renamed into place when it succeeded.
    const std::string tmp = out + ".tmp-" + std::to_string(::getpid()) + ext;
    if (!script_out.empty()) model::io::write_file_atomic(script_out, script(out));
    const std::string script_path = out + ".tmp-" + std::to_string(::getpid()) + ".gp";
    model::io::write_file_atomic(script_path, script(tmp));
    ChildExit e;
    {
        ChildPool pool;
        pool.start(gnuplot, {script_path});
        std::vector<ChildExit> ended;
        while (ended.empty()) ended = pool.wait(1000);
        e = ended.front();
    }
    std::remove(script_path.c_str());
    if (e.exit_code != 0 || e.signal != 0) {
        std::remove(tmp.c_str());
        throw Error(gnuplot + " failed (exit " + std::to_string(e.exit_code) + "): " + e.stderr_text);
    }
    if (std::rename(tmp.c_str(), out.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw Error(out + ": cannot write the plot (rename failed)");
    }
}

std::string draw_plot(const PlotRequest& r) {
    const std::string ext = fs::path(r.out).extension().string();
    if (ext != ".png" && ext != ".svg") throw Error("--out " + r.out + ": expected a .png or .svg file name");
    const std::vector<PlotData> panels = collect_panels(r);
    render_with_gnuplot(
        r.out, [&](const std::string& path) { return gnuplot_script(r, panels, path); }, r.script_out);
    size_t averaged = 0, failed = 0, front = 0;
    for (const PlotData& d : panels) averaged += d.averaged, failed += d.failed_points, front += d.front.size();
    std::string note;
    if (averaged) note = std::to_string(averaged) + " (series, x) cell(s) averaged over several points (repeats, or an axis not fixed with --where)";
    if (failed)
        note += (note.empty() ? "" : "; ") + std::to_string(failed) + " failed point(s), " +
                (r.pareto ? "counted in the legend" : "marked with a red cross on the x axis");
    if (r.pareto) note += (note.empty() ? "" : "; ") + std::to_string(front) + " point(s) on the Pareto front";
    return note;
}

}  // namespace neuronsim::sweep
