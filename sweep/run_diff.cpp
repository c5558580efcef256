#include "sweep/run_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "model/common/error.h"
#include "model/io/csv_reader.h"
#include "model/io/json_path.h"
#include "stats/stat_records.h"

namespace neuronsim::sweep {

namespace {

namespace fs = std::filesystem;

struct Row {
    std::string mnemonic, source, stall_cause;
    double start = 0, end = 0, stall = 0;
};

struct Run {
    std::string generation;
    double ns = 0;
    std::map<std::pair<std::string, std::string>, std::pair<uint64_t, double>> by_mnemonic;
    std::map<std::pair<std::string, uint64_t>, Row> rows;
};

Run read_run(const std::string& dir) {
    const std::string stats_path = dir + "/stats.json", csv_path = dir + "/instructions.csv";
    if (fs::exists(dir + "/RUN_INCOMPLETE")) throw Error(dir + ": the run is incomplete (RUN_INCOMPLETE says why)");
    if (!fs::exists(csv_path))
        throw Error(dir + ": no instructions.csv (a run directory of `neuronsim run` without --no-csv, or the Python package's run(csv=True))");
    Run r;
    const stats::Node st = stats::Node::parse(model::io::read_text_file(stats_path, model::io::kMaxJsonFileBytes, "stats.json"), nullptr, false);
    if (st.is_discarded() || !st.is_object() || !st.contains("core") || !st["core"].is_object())
        throw Error(stats_path + ": not a stats.json of neuronsim run (expected an object with \"core\")");
    const stats::Node& core = st["core"];
    r.generation = st.contains("generation") && st["generation"].is_string() ? st["generation"].get<std::string>() : "";
    if (core.contains("simulated_ps") && core["simulated_ps"].is_number()) r.ns = core["simulated_ps"].get<double>() / 1000;
    for (const auto& [engine, node] : stats::engine::nodes_of(core)) {
        if (!node->contains("by_mnemonic") || !(*node)["by_mnemonic"].is_object()) continue;
        for (auto m = (*node)["by_mnemonic"].begin(); m != (*node)["by_mnemonic"].end(); ++m) {
            const auto& v = m.value();
            const uint64_t count = v.contains("count") && v["count"].is_number_unsigned() ? v["count"].get<uint64_t>() : 0;
            const double ns = v.contains("busy_ps") && v["busy_ps"].is_number() ? v["busy_ps"].get<double>() / 1000 : 0;
            r.by_mnemonic[{engine, m.key()}] = {count, ns};
        }
    }
    const model::io::CsvTable t = model::io::read_csv(csv_path);
    const size_t ce = t.column("engine"), ci = t.column("index"), cm = t.column("mnemonic"), cs = t.column("start_ns"), cn = t.column("end_ns"),
                 cst = t.column("stall_ns"), cc = t.column("stall_cause"), cso = t.column("source");
    for (size_t i = 0; i < t.rows.size(); ++i) {
        const double index = t.number(i, ci);
        Row row{t.rows[i][cm], t.rows[i][cso], t.rows[i][cc], t.number(i, cs), t.number(i, cn), t.number(i, cst)};
        r.rows[{t.rows[i][ce], static_cast<uint64_t>(index)}] = std::move(row);
    }
    return r;
}

std::string ns_text(double ns) {
    char b[64];
    std::snprintf(b, sizeof b, "%.3f ns", ns);
    return b;
}

std::string signed_ns(double ns) {
    char b[64];
    std::snprintf(b, sizeof b, "%+.3f ns", ns);
    return b;
}

std::string change(double a, double b) {
    if (a == 0) return b == 0 ? "" : " (new)";
    char buf[32];
    std::snprintf(buf, sizeof buf, " (%+.1f%%)", 100 * (b - a) / std::fabs(a));
    return buf;
}

}  // namespace

RunDiff diff_runs(const std::string& a_dir, const std::string& b_dir, size_t top) {
    const Run a = read_run(a_dir), b = read_run(b_dir);
    RunDiff d;
    d.a_dir = a_dir;
    d.b_dir = b_dir;
    d.a_generation = a.generation;
    d.b_generation = b.generation;
    d.a_ns = a.ns;
    d.b_ns = b.ns;
    std::map<std::pair<std::string, std::string>, MnemonicDelta> m;
    for (const auto& [k, v] : a.by_mnemonic) m[k] = {k.first, k.second, v.first, 0, v.second, 0};
    for (const auto& [k, v] : b.by_mnemonic) {
        MnemonicDelta& x = m[k];
        x.engine = k.first;
        x.mnemonic = k.second;
        x.b_count = v.first;
        x.b_ns = v.second;
    }
    for (auto& [k, v] : m) d.mnemonics.push_back(v);
    std::vector<InstructionDelta> all;
    for (const auto& [k, ra] : a.rows) {
        const auto it = b.rows.find(k);
        if (it == b.rows.end()) {
            ++d.only_a;
            continue;
        }
        const Row& rb = it->second;
        ++d.matched;
        InstructionDelta x;
        x.engine = k.first;
        x.index = k.second;
        x.mnemonic = ra.mnemonic == rb.mnemonic ? ra.mnemonic : ra.mnemonic + " -> " + rb.mnemonic;
        x.a_source = ra.source;
        x.b_source = rb.source;
        x.a_ns = ra.end - ra.start;
        x.b_ns = rb.end - rb.start;
        x.a_stall_ns = ra.stall;
        x.b_stall_ns = rb.stall;
        x.a_end_ns = ra.end;
        x.b_end_ns = rb.end;
        x.a_stall_cause = ra.stall_cause;
        x.b_stall_cause = rb.stall_cause;
        if (x.a_stall_cause != x.b_stall_cause) {
            ++d.stall_changes_total;
            if (d.stall_changes.size() < top) d.stall_changes.push_back(x);
        }
        all.push_back(std::move(x));
    }
    for (const auto& [k, rb] : b.rows)
        if (!a.rows.count(k)) ++d.only_b;
    // Largest change first; ties in stream order (the map's), so the list is the same every time.
    std::stable_sort(all.begin(), all.end(), [](const InstructionDelta& x, const InstructionDelta& y) { return std::fabs(x.delta()) > std::fabs(y.delta()); });
    for (size_t i = 0; i < all.size() && i < top; ++i)
        if (all[i].delta() != 0) d.movers.push_back(all[i]);
    return d;
}

std::string run_diff_text(const RunDiff& d) {
    std::string o;
    char b[512];
    std::snprintf(b, sizeof b, "neuronsim diff: A %s (%s), B %s (%s)\n  simulated time %s -> %s: %s%s\n", d.a_dir.c_str(), d.a_generation.c_str(),
                  d.b_dir.c_str(), d.b_generation.c_str(), ns_text(d.a_ns).c_str(), ns_text(d.b_ns).c_str(), signed_ns(d.b_ns - d.a_ns).c_str(),
                  change(d.a_ns, d.b_ns).c_str());
    o += b;
    o += "  time by instruction (the engine's busy ns, total over its instructions of each mnemonic):\n";
    for (const MnemonicDelta& m : d.mnemonics) {
        std::snprintf(b, sizeof b, "    %-8s %-22s %8llu -> %-8llu instr %14.3f -> %14.3f ns total  %s%s\n", m.engine.c_str(), m.mnemonic.c_str(),
                      static_cast<unsigned long long>(m.a_count), static_cast<unsigned long long>(m.b_count), m.a_ns, m.b_ns,
                      signed_ns(m.b_ns - m.a_ns).c_str(), change(m.a_ns, m.b_ns).c_str());
        o += b;
    }
    std::snprintf(b, sizeof b, "  instructions: %zu matched (engine and index), %zu only in A, %zu only in B\n", d.matched, d.only_a, d.only_b);
    o += b;
    if (!d.movers.empty()) {
        o += "  top movers (stall + issue to completion, A -> B):\n";
        for (const InstructionDelta& x : d.movers) {
            const std::string src = x.a_source == x.b_source ? x.a_source : x.a_source + " / " + x.b_source;
            std::snprintf(b, sizeof b, "    %-8s #%-6llu %-18s %12.3f -> %12.3f ns  %s  (stall %.3f -> %.3f ns)  %s\n", x.engine.c_str(),
                          static_cast<unsigned long long>(x.index), x.mnemonic.c_str(), x.a_ns + x.a_stall_ns, x.b_ns + x.b_stall_ns,
                          signed_ns(x.delta()).c_str(), x.a_stall_ns, x.b_stall_ns, src.c_str());
            o += b;
        }
    }
    if (d.stall_changes_total) {
        std::snprintf(b, sizeof b, "  stall causes that changed: %zu%s\n", d.stall_changes_total,
                      d.stall_changes_total > d.stall_changes.size() ? " (the first shown)" : "");
        o += b;
        for (const InstructionDelta& x : d.stall_changes) {
            std::snprintf(b, sizeof b, "    %-8s #%-6llu %-18s \"%s\" -> \"%s\"  %s\n", x.engine.c_str(), static_cast<unsigned long long>(x.index),
                          x.mnemonic.c_str(), x.a_stall_cause.empty() ? "(none)" : x.a_stall_cause.c_str(),
                          x.b_stall_cause.empty() ? "(none)" : x.b_stall_cause.c_str(), x.b_source.c_str());
            o += b;
        }
    }
    return o;
}

nlohmann::ordered_json run_diff_json(const RunDiff& d) {
    nlohmann::ordered_json j;
    j["a"] = {{"dir", d.a_dir}, {"generation", d.a_generation}, {"simulated_ns", d.a_ns}};
    j["b"] = {{"dir", d.b_dir}, {"generation", d.b_generation}, {"simulated_ns", d.b_ns}};
    j["mnemonics"] = nlohmann::ordered_json::array();
    for (const MnemonicDelta& m : d.mnemonics)
        j["mnemonics"].push_back(
            {{"engine", m.engine}, {"mnemonic", m.mnemonic}, {"a_count", m.a_count}, {"b_count", m.b_count}, {"a_ns", m.a_ns}, {"b_ns", m.b_ns}});
    auto instr = [](const InstructionDelta& x) {
        return nlohmann::ordered_json{{"engine", x.engine},
                                      {"index", x.index},
                                      {"mnemonic", x.mnemonic},
                                      {"a_source", x.a_source},
                                      {"b_source", x.b_source},
                                      {"a_ns", x.a_ns},
                                      {"b_ns", x.b_ns},
                                      {"a_stall_ns", x.a_stall_ns},
                                      {"b_stall_ns", x.b_stall_ns},
                                      {"a_stall_cause", x.a_stall_cause},
                                      {"b_stall_cause", x.b_stall_cause},
                                      {"delta_ns", x.delta()}};
    };
    j["movers"] = nlohmann::ordered_json::array();
    for (const auto& x : d.movers) j["movers"].push_back(instr(x));
    j["stall_changes_total"] = d.stall_changes_total;
    j["stall_changes"] = nlohmann::ordered_json::array();
    for (const auto& x : d.stall_changes) j["stall_changes"].push_back(instr(x));
    j["matched"] = d.matched;
    j["only_a"] = d.only_a;
    j["only_b"] = d.only_b;
    return j;
}

}  // namespace neuronsim::sweep
