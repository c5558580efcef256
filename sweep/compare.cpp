#include "sweep/compare.h"

#include <sys/stat.h>

#include <cmath>
#include <map>

#include "model/common/error.h"
#include "model/io/json_path.h"
#include "sweep/results_db.h"

namespace neuronsim::sweep {

namespace {

bool is_dir(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool number_of(const FlatValue& v, double& out) {
    if (v.kind == FlatValue::Kind::integer) return out = static_cast<double>(v.i), true;
    if (v.kind == FlatValue::Kind::real) return out = v.d, true;
    return false;
}

}  // namespace

std::vector<FlatStat> stats_of_source(const std::string& source) {
    const size_t colon = source.rfind(':');
    if (colon != std::string::npos && colon > 0 && !is_dir(source)) {
        const std::string db = source.substr(0, colon), key = source.substr(colon + 1);
        struct stat st {};
        if (::stat(db.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
            ResultsDb d(db, false);
            const std::unique_ptr<PointRecord> r = d.find(key);
            if (!r) throw Error(source + ": no point " + key + " in " + db + " (`neuronsim sweep export` lists the point keys)");
            if (r->status != "ok") throw Error(source + ": the point failed: " + r->error);
            return r->stats;
        }
    }
    const std::string path = is_dir(source) ? source + "/stats.json" : source;
    return flatten(model::io::parse_json_text(model::io::read_text_file(path, model::io::kMaxJsonFileBytes, "stats.json"), path));
}

std::vector<StatDelta> compare_stats(const std::vector<FlatStat>& a, const std::vector<FlatStat>& b, const std::vector<std::string>& globs, bool all) {
    std::map<std::string, const FlatValue*> in_b;
    for (const FlatStat& s : b) in_b[s.key] = &s.value;
    std::map<std::string, bool> seen;
    std::vector<StatDelta> out;
    auto row = [&](const std::string& key, const FlatValue* va, const FlatValue* vb) {
        if (!keeps_stat(globs, key)) return;
        const bool equal = va && vb && *va == *vb;
        if (equal && !all) return;
        StatDelta d;
        d.key = key;
        d.a = va ? va->to_text() : "";
        d.b = vb ? vb->to_text() : "";
        double x = 0, y = 0;
        if (va && vb && number_of(*va, x) && number_of(*vb, y)) {
            d.numeric = true;
            d.difference = y - x;
            d.relative = x != 0 ? (y - x) / std::fabs(x) : 0.0;
        }
        out.push_back(std::move(d));
    };
    for (const FlatStat& s : a) {
        seen[s.key] = true;
        auto it = in_b.find(s.key);
        row(s.key, &s.value, it == in_b.end() ? nullptr : it->second);
    }
    for (const FlatStat& s : b)
        if (!seen.count(s.key)) row(s.key, nullptr, &s.value);
    return out;
}

}  // namespace neuronsim::sweep
