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
            r.logx = p.logx;
            r.logy = p.logy;
            r.pareto = p.pareto;
            r.facet = p.facet;
            r.where = p.where;
            out.push_back(r);
        }
        return out;
    }
    const std::string stem = (fs::path(db).parent_path() / fs::path(db).stem()).string();
    std::vector<std::string> sources = spec.traces;
    for (const KernelSpec& k : spec.kernels) sources.push_back(k.label);
    // A factors column is drawn against its factor (its values differ by generation).
    auto x_of = [](const AxisColumn& c) { return c.factors.empty() ? "param:" + c.key : "param:factor:" + c.key; };
    for (const std::string& trace : sources)
        for (const Axis& a : spec.axes) {
            const AxisColumn& c = a.columns.front();
            PlotRequest r;
            r.db = db;
            r.x = x_of(c);
            r.y = std::string("stat:") + kDefaultPlotStat;
            r.series = "generation";
            r.where.push_back("trace=" + trace);
            if (spec.combine == "oat") r.where.push_back("param:oat=" + a.name());  // (the others at the baseline)
            else
                for (const Axis& other : spec.axes)
                    if (&other != &a)
                        for (const AxisColumn& oc : other.columns)
                            r.where.push_back(x_of(oc) + "=" + (oc.factors.empty() ? oc.values.front() : oc.factors.front()));
            r.title = trace + ": " + kDefaultPlotStat + " vs " + c.key;
            const std::string name = trace.rfind("kernel:", 0) == 0 ? trace.substr(7) : fs::path(trace).stem().string();
            r.out = stem + "-" + file_safe(name) + "-" + file_safe(c.key) + ".svg";
            out.push_back(r);
        }
    return out;
}

}  // namespace neuronsim::sweep
