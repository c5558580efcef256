#include "sweep/sensitivity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "model/common/error.h"
#include "sweep/plot.h"
#include "sweep/record_fields.h"
#include "sweep/time_units.h"

namespace neuronsim::sweep {

namespace {

std::vector<std::string> split_plus(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (true) {
        const size_t p = s.find('+', start);
        out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
        if (p == std::string::npos) return out;
        start = p + 1;
    }
}

std::string param(const PointRecord& r, const std::string& key) {
    for (const Param& p : r.params)
        if (p.key == key) return p.value;
    return "";
}

struct Sum {
    double sum = 0;
    size_t n = 0;
    double mean() const { return sum / double(n); }
};

std::string percent(double change) {
    char b[32];
    std::snprintf(b, sizeof b, "%+.2f%%", 100.0 * change);
    return b;
}

}  // namespace

std::vector<SensitivityGroup> sensitivity(const SensitivityRequest& r) {
    ResultsDb db(r.db, false);
    const std::vector<WhereFilter> filters = parse_where(r.where);
    std::vector<PointRecord> points;
    std::set<std::string> knob_keys;  // every key an oat knob varies
    db.for_each([&](const PointRecord& p) {
        const std::string oat = param(p, "oat");
        if (oat.empty() || !matches_where(p, filters)) return;
        if (oat != "baseline")
            for (const std::string& k : split_plus(oat)) knob_keys.insert(k);
        points.push_back(p);
    });
    if (points.empty())
        throw Error(r.db + ": no point of a one-at-a-time study" + std::string(r.where.empty() ? "" : " matches the --where filters") +
                    " (a spec with combine: oat labels its points oat=baseline or oat=KNOB)");
    // A group: the same trace, generation, overlays, run arguments, repeat-free fixed params.
    auto group_of = [&](const PointRecord& p) {
        std::string g = p.trace + "\n" + p.generation + "\n";
        for (const std::string& o : p.overlays) g += "+" + o + " ";
        for (const std::string& a : p.run_args) g += a + " ";
        for (const Param& prm : p.params)
            if (prm.key != "oat" && prm.key.rfind("factor:", 0) != 0 && !knob_keys.count(prm.key)) g += prm.key + "=" + prm.value + " ";
        return g;
    };
    std::vector<SensitivityGroup> out;
    for (const std::string& metric : r.metrics) {
        std::vector<std::string> order;
        std::map<std::string, SensitivityGroup> groups;
        std::map<std::string, Sum> baseline;
        // group -> knob -> value label -> metric sum, in first-seen order
        std::map<std::string, std::vector<std::pair<std::string, std::vector<std::pair<std::string, Sum>>>>> knobs;
        bool found = false, any_ok = false;
        for (const PointRecord& p : points) {
            const std::string g = group_of(p);
            if (!groups.count(g)) {
                order.push_back(g);
                SensitivityGroup& sg = groups[g];
                sg.trace = p.trace;
                for (const std::string& o : p.overlays) sg.trace += " +" + o;
                sg.generation = p.generation;
                sg.metric = metric;
            }
            if (p.status != "ok") {
                ++groups[g].failed;
                continue;
            }
            any_ok = true;
            std::string text;
            double v = 0;
            if (!record_field(p, metric, text)) continue;
            found = true;
            if (!parse_number(text, v)) throw Error("--metric " + metric + ": point " + p.point_key + " has the non-number \"" + text + "\"");
            const std::string oat = param(p, "oat");
            if (oat == "baseline") {
                baseline[g].sum += v;
                ++baseline[g].n;
                continue;
            }
            std::string label;
            for (const std::string& k : split_plus(oat)) {
                const std::string f = param(p, "factor:" + k), value = param(p, k);
                label += (label.empty() ? "" : ", ") + (f.empty() ? value : "x" + f + " (" + value + ")");
            }
            auto& ks = knobs[g];
            auto k = std::find_if(ks.begin(), ks.end(), [&](const auto& e) { return e.first == oat; });
            if (k == ks.end()) k = ks.insert(ks.end(), {oat, {}});
            auto e = std::find_if(k->second.begin(), k->second.end(), [&](const auto& x) { return x.first == label; });
            if (e == k->second.end()) e = k->second.insert(k->second.end(), {label, Sum{}});
            e->second.sum += v;
            ++e->second.n;
        }
        if (any_ok && !found) throw Error("--metric " + metric + ": no successful point has this stat (`neuronsim sweep export` lists them all)");
        for (const std::string& g : order) {
            SensitivityGroup sg = groups[g];
            if (!baseline.count(g))
                throw Error(r.db + ": " + sg.trace + " on " + sg.generation + ": no successful baseline point (oat=baseline" +
                            (sg.failed ? ", " + std::to_string(sg.failed) + " point(s) failed" : std::string()) + ")");
            sg.baseline = baseline[g].mean();
            for (const auto& [knob, entries] : knobs[g]) {
                SensitivityKnob k;
                k.knob = knob;
                for (const auto& [label, sum] : entries) {
                    const double m = sum.mean();
                    const double change = sg.baseline != 0 ? (m - sg.baseline) / sg.baseline : (m == 0 ? 0 : INFINITY);
                    k.entries.push_back({label, m, change});
                    k.largest = std::max(k.largest, std::fabs(change));
                }
                sg.knobs.push_back(k);
            }
            std::stable_sort(sg.knobs.begin(), sg.knobs.end(), [](const SensitivityKnob& a, const SensitivityKnob& b) { return a.largest > b.largest; });
            out.push_back(sg);
        }
    }
    return out;
}

std::string sensitivity_text(const std::vector<SensitivityGroup>& groups) {
    std::string s;
    for (const SensitivityGroup& g : groups) {
        s += g.trace + " on " + g.generation + ": " + g.metric + " at the baseline " + format_value(g.metric, g.baseline);
        if (g.failed) s += " (" + std::to_string(g.failed) + " point(s) failed, left out)";
        s += "\n";
        size_t wk = 4, wv = 5;
        for (const SensitivityKnob& k : g.knobs) {
            wk = std::max(wk, k.knob.size());
            for (const SensitivityEntry& e : k.entries) wv = std::max(wv, e.value.size());
        }
        // (padded by characters, not bytes: a time's unit may be "µs")
        auto pad = [](const std::string& t, size_t w, bool left) {
            size_t chars = 0;
            for (unsigned char c : t) chars += (c & 0xc0) != 0x80;
            const std::string fill(w > chars ? w - chars : 0, ' ');
            return left ? t + fill : fill + t;
        };
        const std::string short_metric = g.metric.substr(g.metric.rfind('.') + 1);
        const size_t wm = std::max<size_t>(12, short_metric.size());
        s += "  " + pad("knob", wk, true) + "  " + pad("value", wv, true) + "  " + pad(short_metric, wm, false) + "  " + pad("change", 9, false) + "\n";
        for (const SensitivityKnob& k : g.knobs)
            for (const SensitivityEntry& e : k.entries)
                s += "  " + pad(k.knob, wk, true) + "  " + pad(e.value, wv, true) + "  " + pad(format_value(g.metric, e.metric), wm, false) + "  " +
                     pad(percent(e.change), 9, false) + "\n";
    }
    return s;
}

std::string sensitivity_tsv(const std::vector<SensitivityGroup>& groups) {
    std::string s = "trace\tgeneration\tmetric\tbaseline\tknob\tvalue\tmetric_value\tchange\n";
    char b[64];
    for (const SensitivityGroup& g : groups)
        for (const SensitivityKnob& k : g.knobs)
            for (const SensitivityEntry& e : k.entries) {
                s += g.trace + "\t" + g.generation + "\t" + g.metric + "\t";
                std::snprintf(b, sizeof b, "%.17g", g.baseline);
                s += std::string(b) + "\t" + k.knob + "\t" + e.value + "\t";
                std::snprintf(b, sizeof b, "%.17g\t%.17g\n", e.metric, e.change);
                s += b;
            }
    return s;
}

std::string tornado_script(const std::vector<SensitivityGroup>& all, const std::string& metric, const std::string& title, const std::string& output_path,
                           bool png) {
    std::vector<const SensitivityGroup*> groups;
    for (const SensitivityGroup& g : all)
        if (g.metric == metric) groups.push_back(&g);
    if (groups.empty()) throw Error("--tornado: no group of the metric " + metric);
    if (groups.size() > 16) throw Error("--tornado: " + std::to_string(groups.size()) + " traces x generations; at most 16 panels (select some with --where)");
    const size_t n = groups.size(), cols = n <= 1 ? 1 : n <= 4 ? 2 : 3, rows = (n + cols - 1) / cols;
    size_t most_knobs = 1;
    for (const SensitivityGroup* g : groups) most_knobs = std::max(most_knobs, g->knobs.size());
    const int width = int(std::max<size_t>(1, cols) * 720), height = int(rows * (120 + 45 * most_knobs) + 60);
    std::string s = "# neuronsim sweep sensitivity: a tornado plot of " + metric + "\n";
    s += (png ? "set terminal pngcairo" : "set terminal svg") + std::string(" size ") + std::to_string(width) + "," + std::to_string(height) +
         (png ? " enhanced font 'Sans,10'\n" : " dynamic enhanced font 'Sans,10'\n");
    s += "set encoding utf8\nset output " + gp_quoted(output_path) + "\n";
    s += "set xlabel " + gp_quoted("change of " + metric + " from the baseline (%)") + " noenhanced\n";
    s += "set grid x\nset lmargin 30\nset style fill solid 0.85 border -1\nunset key\nset offsets 0, 0, 0.6, 0.6\n";
    if (n > 1) s += "set multiplot layout " + std::to_string(rows) + "," + std::to_string(cols) + " title " + gp_quoted(title) + " noenhanced\n";
    for (size_t gi = 0; gi < n; ++gi) {
        const SensitivityGroup& g = *groups[gi];
        s += "set title " + gp_quoted((n > 1 ? "" : title + ": ") + g.trace + " on " + g.generation + " (baseline " + format_value(metric, g.baseline) + ")") +
             " noenhanced\n";
        // The largest knob on top: row y = knobs - 1 - i. A bar per value from 0 to its change;
        // the study's first value of a knob blue, the last orange, others grey.
        std::string ytics, data;
        double most = 0;
        const size_t nk = g.knobs.size();
        for (size_t i = 0; i < nk; ++i) {
            const SensitivityKnob& k = g.knobs[i];
            const double y = double(nk - 1 - i);
            ytics += std::string(ytics.empty() ? "" : ", ") + gp_quoted(k.knob) + " " + std::to_string(int(y));
            const size_t m = k.entries.size();
            for (size_t j = 0; j < m; ++j) {  // (each value its own strip of the knob's row, the first on top)
                const SensitivityEntry& e = k.entries[j];
                const double c = std::isfinite(e.change) ? 100.0 * e.change : 0.0;
                most = std::max(most, std::fabs(c));
                const char* colour = j == 0 ? "0x4e79a7" : j + 1 == m ? "0xf28e2b" : "0xbab0ac";
                const double top = y + 0.4 - 0.8 * double(j) / double(m), bottom = top - 0.8 / double(m);
                char row[256];
                std::snprintf(row, sizeof row, "%.10g %.10g %.10g %.10g %.10g %.10g %s ", c / 2, (top + bottom) / 2, std::min(0.0, c), std::max(0.0, c), bottom,
                              top, colour);
                std::string label = e.value + " " + percent(e.change);
                for (char& ch : label)
                    if (ch == '"' || static_cast<unsigned char>(ch) < 0x20) ch = ' ';
                data += row + std::string("\"") + label + "\" " + std::to_string(c) + "\n";
            }
        }
        s += "set ytics (" + ytics + ") noenhanced\n";
        const double span = most == 0 ? 1 : most * 2.0;  // (room for the labels)
        s += "set xrange [" + std::to_string(-span) + ":" + std::to_string(span) + "]\n";
        s += "$t" + std::to_string(gi) + " << EOD\n" + data + "EOD\n";
        s += "unset arrow\nset arrow from 0, graph 0 to 0, graph 1 nohead linewidth 1.5 front\n";
        // Each value's label beside its bar's end, outwards (a change of 0 to the right).
        s +=
            "plot $t" + std::to_string(gi) + " using 1:2:3:4:5:6:7 with boxxyerror linecolor rgb variable, '' using ($9 < 0 ? $3 : 1/0):2:8 with labels " +
            "right offset character -0.5, 0 font ',8' noenhanced, '' using ($9 >= 0 ? $4 : 1/0):2:8 with labels left offset character 0.5, 0 font ',8' noenhanced\n";
    }
    if (n > 1) s += "unset multiplot\n";
    return s;
}

void draw_tornado(const std::vector<SensitivityGroup>& groups, const std::string& metric, const std::string& out, const std::string& script_out) {
    const bool png = std::filesystem::path(out).extension() == ".png";
    const std::string title = "sensitivity of " + metric;
    render_with_gnuplot(
        out, [&](const std::string& path) { return tornado_script(groups, metric, title, path, png); }, script_out);
}

}  // namespace neuronsim::sweep
