#include "sweep/study_plots.h"

#include <filesystem>

namespace neuronsim::sweep {

namespace {

std::string file_safe(const std::string& s) {
    std::string o;
    for (char c : s) o += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
    return o;
}

}  // namespace

std::vector<PlotRequest> study_plots(const Spec& spec, const std::string& db) {
    namespace fs = std::filesystem;
    std::vector<PlotRequest> out;
    if (!spec.plots.empty()) {
        for (const PlotSpec& p : spec.plots) {
            PlotRequest r;
            r.db = db;
            r.x = p.x;
            r.y = p.y;
            r.series = p.series;
            // Relative to the database's directory: a study's plots go beside its results.
            r.out = (fs::path(db).parent_path() / p.out).string();  // (spec.cpp: relative, no ..)
            r.bar = p.bar;
            r.where = p.where;
            out.push_back(r);
        }
        return out;
    }
    const std::string stem = (fs::path(db).parent_path() / fs::path(db).stem()).string();
    std::vector<const AxisColumn*> columns;
    for (const Axis& a : spec.axes)
        for (const AxisColumn& c : a.columns) columns.push_back(&c);
    for (const std::string& trace : spec.traces)
        for (const Axis& a : spec.axes) {
            const AxisColumn& c = a.columns.front();
            PlotRequest r;
            r.db = db;
            r.x = "param:" + c.key;
            r.y = std::string("stat:") + kDefaultPlotStat;
            r.series = "generation";
            r.where.push_back("trace=" + trace);
            for (const Axis& other : spec.axes)
                if (&other != &a)
                    for (const AxisColumn& oc : other.columns) r.where.push_back("param:" + oc.key + "=" + oc.values.front());
            r.title = trace + ": " + kDefaultPlotStat + " vs " + c.key;
            r.out = stem + "-" + file_safe(fs::path(trace).stem().string()) + "-" + file_safe(c.key) + ".svg";
            out.push_back(r);
        }
    return out;
}

}  // namespace neuronsim::sweep
