// `neuronsim sweep export DB --csv FILE`: the database as one flat CSV table, a row per point.
#include <map>

#include "model/io/write_file.h"
#include "sweep/results_db.h"

namespace neuronsim::sweep {

namespace {

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

}  // namespace

size_t export_csv(const std::string& db_path, const std::string& csv) {
    ResultsDb db(db_path, false);
    const std::vector<std::string> params = db.param_keys(), stats = db.stat_keys();
    model::io::AtomicFile f(csv);
    std::string line =
        "point_key,point_index,trace,generation,overlays,repeat,status,exit_code,error,wall_seconds,cpu_seconds,neuronsim_version,numerics,host,coord_key,rerun_reason";
    for (const std::string& k : params) line += "," + csv_field("param:" + k);
    for (const std::string& k : stats) line += "," + csv_field("stat:" + k);
    line += "\n";
    f.write(line.data(), line.size());
    size_t rows = 0;
    db.for_each([&](const PointRecord& r) {
        std::string overlays;
        for (const std::string& o : r.overlays) overlays += (overlays.empty() ? "" : ";") + o;
        std::string l = csv_field(r.point_key) + "," + std::to_string(r.point_index) + "," + csv_field(r.trace) + "," + csv_field(r.generation) + "," +
                        csv_field(overlays) + "," + std::to_string(r.repeat) + "," + r.status + "," + std::to_string(r.exit_code) + "," + csv_field(r.error) +
                        "," + FlatValue{FlatValue::Kind::real, 0, r.wall_seconds, {}}.to_text() + "," +
                        FlatValue{FlatValue::Kind::real, 0, r.cpu_seconds, {}}.to_text() + "," + csv_field(r.neuronsim_version) + "," + csv_field(r.numerics) +
                        "," + csv_field(r.host) + "," + csv_field(r.coord_key) + "," + csv_field(r.rerun_reason);
        std::map<std::string, std::string> p, s;
        for (const Param& x : r.params) p[x.key] = x.value;
        for (const FlatStat& x : r.stats) s[x.key] = x.value.to_text();
        for (const std::string& k : params) l += "," + csv_field(p.count(k) ? p[k] : "");
        for (const std::string& k : stats) l += "," + csv_field(s.count(k) ? s[k] : "");
        l += "\n";
        f.write(l.data(), l.size());
        ++rows;
    });
    f.commit();
    return rows;
}

}  // namespace neuronsim::sweep
