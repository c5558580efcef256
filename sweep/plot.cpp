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
#include "sweep/results_db.h"

namespace neuronsim::sweep {

namespace {

namespace fs = std::filesystem;

bool as_number(const std::string& s, double& v) {
    if (s.empty()) return false;
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && std::isfinite(v);
}

// The value of `key` for record r, or false when the point has no such key.
bool lookup(const PointRecord& r, const std::string& key, std::string& out) {
    if (key == "trace") return out = r.trace, true;
    if (key == "generation") return out = r.generation, true;
    if (key == "repeat") return out = std::to_string(r.repeat), true;
    if (key == "point_index") return out = std::to_string(r.point_index), true;
    if (key == "wall_seconds") return out = FlatValue{FlatValue::Kind::real, 0, r.wall_seconds, {}}.to_text(), true;
    if (key == "cpu_seconds") return out = FlatValue{FlatValue::Kind::real, 0, r.cpu_seconds, {}}.to_text(), true;
    const bool want_param = key.rfind("param:", 0) == 0, want_stat = key.rfind("stat:", 0) == 0;
    const std::string k = want_param ? key.substr(6) : want_stat ? key.substr(5) : key;
    if (!want_stat)
        for (const Param& p : r.params)
            if (p.key == k) return out = p.value, true;
    if (!want_param)
        for (const FlatStat& s : r.stats)
            if (s.key == k) return out = s.value.to_text(), true;
    return false;
}

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

// A gnuplot single-quoted string ('' stands for a quote; no other escapes exist in it).
std::string gp_quoted(const std::string& s) {
    std::string q = "'";
    for (char c : s) {
        if (c == '\'') q += "''";
        else q += control(c) ? ' ' : c;
    }
    return q + "'";
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

}  // namespace

PlotData collect_plot_data(const PlotRequest& r) {
    ResultsDb db(r.db, false);
    std::vector<std::pair<std::string, std::string>> filters;
    for (const std::string& w : r.where) {
        const size_t eq = w.find('=');
        if (eq == std::string::npos || eq == 0) throw Error("--where " + w + ": expected KEY=VALUE");
        filters.emplace_back(w.substr(0, eq), w.substr(eq + 1));
    }
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
        for (const auto& [k, v] : filters) {
            std::string have;
            if (!lookup(p, k, have)) return;
            double a = 0, b = 0;
            if (have != v && !(as_number(have, a) && as_number(v, b) && a == b)) return;
        }
        if (p.status != "ok") {  // (a failed point has no stats: its x is a field or a parameter, or unknown)
            std::string x;
            if (!lookup(p, r.x, x)) return;
            ++d.failed_points;
            failed_xs.insert(x);
            if (xs_seen.insert(x).second) d.xs.push_back(x);
            return;
        }
        ++ok_points;
        std::string x, y, s;
        const bool hx = lookup(p, r.x, x), hy = lookup(p, r.y, y);
        x_found = x_found || hx;
        y_found = y_found || hy;
        if (!hx || !hy) return;
        for (const std::string& k : series_keys) {
            std::string part;
            if (!lookup(p, k, part)) throw Error("--series " + k + ": point " + p.point_key + " has no such key");
            if (k == "trace") part = fs::path(part).filename().string();  // a legend names the file, not its directory
            s += (s.empty() ? "" : " ") + part;
        }
        double yv = 0;
        if (!as_number(y, yv)) throw Error("--y " + r.y + ": point " + p.point_key + " has the non-number \"" + y + "\"");
        if (std::find(d.series.begin(), d.series.end(), s) == d.series.end()) d.series.push_back(s);
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
    for (const std::string& x : d.xs) {
        double v = 0;
        d.numeric_x = d.numeric_x && as_number(x, v);
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

std::string gnuplot_script(const PlotRequest& r, const PlotData& d, const std::string& output_path) {
    const std::string ext = fs::path(r.out).extension().string();
    std::string s = "# neuronsim plot: " + comment_text(r.y + " against " + r.x + (r.series.empty() ? "" : " by " + r.series) + " from " + r.db) + "\n";
    if (ext == ".png") s += "set terminal pngcairo size 1000,600 enhanced font 'Sans,10'\n";
    else s += "set terminal svg size 1000,600 dynamic enhanced font 'Sans,10'\n";
    s += "set output " + gp_quoted(output_path) + "\n";
    std::string title = r.title;
    if (title.empty()) {
        title = fs::path(r.db).filename().string();
        for (size_t i = 0; i < r.where.size(); ++i) title += (i ? ", " : ": ") + r.where[i];
    }
    s += "set title " + gp_quoted(title) + " noenhanced\n";
    s += "set xlabel " + gp_quoted(r.x) + " noenhanced\nset ylabel " + gp_quoted(r.y) + " noenhanced\n";
    s += "set grid\nset key below noenhanced\nset datafile missing 'NaN'\n";
    const bool bars = r.bar || !d.numeric_x;
    // Failed points: a red cross on the x axis at each x where one failed, and a legend entry.
    for (const std::string& x : d.failed_xs) {
        const double at = bars ? double(std::find(d.xs.begin(), d.xs.end(), x) - d.xs.begin()) : std::strtod(x.c_str(), nullptr);
        s += "set label '' at first " + num(at) + ", graph 0 point pointtype 2 pointsize 2.5 linewidth 2 linecolor rgb 'red' front\n";
    }
    const std::string failed_key = d.failed_points
                                       ? ", NaN with points pointtype 2 pointsize 2.5 linewidth 2 linecolor rgb 'red' title " +
                                             gp_quoted(std::to_string(d.failed_points) + " failed point" + (d.failed_points == 1 ? "" : "s") + " (no result)")
                                       : std::string();
    s += "$data << EOD\n";
    if (bars) {
        for (size_t xi = 0; xi < d.xs.size(); ++xi) {
            s += data_text(d.xs[xi]);
            for (size_t si = 0; si < d.series.size(); ++si) s += " " + (std::isnan(d.y[si][xi]) ? std::string("NaN") : num(d.y[si][xi]));
            s += "\n";
        }
        s += "EOD\n";
        s += "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8 border -1\nset boxwidth 0.9\n";
        s += "set xtics rotate by -30 noenhanced\nset yrange [0:*]\n";
        s += "plot ";
        for (size_t si = 0; si < d.series.size(); ++si)
            s += std::string(si ? ", '' " : "$data ") + "using " + std::to_string(si + 2) + (si == 0 ? ":xtic(1)" : "") + " title " +
                 gp_quoted(d.series[si].empty() ? r.y : d.series[si]);
        s += failed_key + "\n";
    } else {
        // One block per series, separated by two blank lines (gnuplot's index).
        for (size_t si = 0; si < d.series.size(); ++si) {
            for (size_t xi = 0; xi < d.xs.size(); ++xi)
                if (!std::isnan(d.y[si][xi])) s += num(std::strtod(d.xs[xi].c_str(), nullptr)) + " " + num(d.y[si][xi]) + "\n";  // (numeric x: as a number)
            if (si + 1 < d.series.size()) s += "\n\n";
        }
        s += "EOD\n";
        s += "plot ";
        for (size_t si = 0; si < d.series.size(); ++si)
            s += std::string(si ? ", " : "") + "$data index " + std::to_string(si) + " using 1:2 with linespoints pointtype 7 title " +
                 gp_quoted(d.series[si].empty() ? r.y : d.series[si]);
        s += failed_key + "\n";
    }
    return s;
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

std::string draw_plot(const PlotRequest& r) {
    const std::string ext = fs::path(r.out).extension().string();
    if (ext != ".png" && ext != ".svg") throw Error("--out " + r.out + ": expected a .png or .svg file name");
    const PlotData d = collect_plot_data(r);
    const std::string gnuplot = find_gnuplot();
    if (gnuplot.empty())
        throw Error("gnuplot not found (looked on PATH" + std::string(std::getenv("NEURONSIM_GNUPLOT") ? " and at NEURONSIM_GNUPLOT" : "") +
                    "): install it (Debian: apt-get install gnuplot-nox) or set NEURONSIM_GNUPLOT to its path");
    // gnuplot writes a temporary file beside the output, renamed into place when it succeeded.
    const std::string tmp = r.out + ".tmp-" + std::to_string(::getpid()) + ext;
    const std::string script = gnuplot_script(r, d, tmp);
    if (!r.script_out.empty()) model::io::write_file_atomic(r.script_out, gnuplot_script(r, d, r.out));
    const std::string script_path = r.out + ".tmp-" + std::to_string(::getpid()) + ".gp";
    model::io::write_file_atomic(script_path, script);
    ChildExit e;
    {
        ChildPool pool;
        pool.start(gnuplot, {script_path});
        std::vector<ChildExit> ended;
        while (ended.empty()) ended = pool.wait(1000);
        e = ended.front();
    }
    const std::string err = e.stderr_text;
    std::remove(script_path.c_str());
    if (e.exit_code != 0 || e.signal != 0) {
        std::remove(tmp.c_str());
        throw Error(gnuplot + " failed (exit " + std::to_string(e.exit_code) + "): " + err);
    }
    if (std::rename(tmp.c_str(), r.out.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw Error(r.out + ": cannot write the plot (rename failed)");
    }
    std::string note;
    if (d.averaged) note = std::to_string(d.averaged) + " (series, x) cell(s) averaged over several points (repeats, or an axis not fixed with --where)";
    if (d.failed_points) note += (note.empty() ? "" : "; ") + std::to_string(d.failed_points) + " failed point(s), marked with a red cross on the x axis";
    return note;
}

}  // namespace neuronsim::sweep
