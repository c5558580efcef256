#include "apps/run_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

namespace neuronsim::apps {

namespace {

using json = nlohmann::ordered_json;

double ns_of(const json& ps) { return ps.get<uint64_t>() / 1000.0; }
unsigned long long u(const json& v) { return v.get<unsigned long long>(); }

// Engines are the stats nodes with busy_ps.
template <typename F>
void for_each_engine(const json& stats, F&& f) {
    // ACT, POOL and the DMA queues that ran (under "queues"), in name order.
    std::map<std::string, const json*> engines;
    auto collect = [&](const json& node) {
        for (auto it = node.begin(); it != node.end(); ++it)
            if (it.value().is_object() && it.value().contains("busy_ps")) engines[it.key()] = &it.value();
    };
    collect(stats);
    if (stats.contains("queues")) collect(stats["queues"]);
    for (const auto& [name, node] : engines) f(name, *node);
}

void print_time_by_mnemonic(const json& stats) {
    std::printf("  time by instruction (each one's exclusive share of its engine's busy ns):\n");
    for_each_engine(stats, [](const std::string& e, const json& n) {
        for (auto m = n["by_mnemonic"].begin(); m != n["by_mnemonic"].end(); ++m)
            std::printf("    %-8s %-22s %8llu x %14.3f ns\n", e.c_str(), m.key().c_str(), u(m.value()["count"]), ns_of(m.value()["busy_ps"]));
    });
}

void print_act(const json& stats) {
    const json& a = stats["act"];
    const double load = ns_of(a["table_load_ps"]), compute = ns_of(a["compute_ps"]), busy = ns_of(a["busy_ps"]);
    std::printf("  ACT: %llu elements, resident set %s\n", u(a["elements"]), a["act_tables"]["resident_set"].get<std::string>().c_str());
    std::printf("  ACT table loads: %llu (%llu redundant), %llu bytes, %.3f ns = %.1f%% of ACT busy time; computing %.3f ns\n", u(a["table_loads"]),
                u(a["redundant_table_loads"]), u(a["table_load_bytes"]), load, busy > 0 ? 100 * load / busy : 0.0, compute);
    // What the loads after the first cost: switches back and forth between two sets, and
    // reloads of the resident set.
    double later = 0, redundant = 0;
    std::map<std::pair<std::string, std::string>, std::pair<unsigned long long, double>> pairs;  // unordered set pair -> reloads, ns
    std::set<std::string> fns_of_pair;
    for (const json& s : a["table_switches"]) {
        const std::string from = s["from"].get<std::string>(), to = s["to"].get<std::string>();
        if (from == "(none)") continue;
        later += ns_of(s["load_ps"]);
        if (from == to) {
            redundant += ns_of(s["load_ps"]);
            continue;
        }
        auto& p = pairs[std::minmax(from, to)];
        p.first += u(s["count"]);
        p.second += ns_of(s["load_ps"]);
    }
    const double sim = ns_of(stats["simulated_ps"]);
    if (later > 0)
        std::printf("  table loads after the first cost %.3f ns (%.1f%% of the run)%s\n", later, sim > 0 ? 100 * later / sim : 0.0,
                    redundant > 0 ? (", " + std::to_string(redundant).substr(0, std::to_string(redundant).find('.') + 4) + " ns of it reloading the resident set").c_str() : "");
    // A pair of sets loaded in both directions is an alternation.
    auto switched = [&](const std::string& from, const std::string& to) {
        for (const json& s : a["table_switches"])
            if (s["from"] == from && s["to"] == to) return true;
        return false;
    };
    for (const auto& entry : pairs) {
        const std::string &x = entry.first.first, &y = entry.first.second;
        if (switched(x, y) && switched(y, x))
            std::printf("    alternating %s <-> %s: %llu reloads, %.3f ns\n", x.c_str(), y.c_str(), entry.second.first, entry.second.second);
    }
    for (const json& s : a["table_switches"]) {
        std::string fns;
        for (const json& f : s["for_functions"]) fns += (fns.empty() ? "" : ", ") + f.get<std::string>();
        const std::string from = s["from"].get<std::string>(), to = s["to"].get<std::string>();
        if (from == to)
            std::printf("    %-44s %4llu x %12.3f ns  redundant: already resident\n", ("reload " + to).c_str(), u(s["count"]), ns_of(s["load_ps"]));
        else
            std::printf("    %-44s %4llu x %12.3f ns%s\n", (from + " -> " + to).c_str(), u(s["count"]), ns_of(s["load_ps"]),
                        fns.empty() ? "" : ("  for " + fns).c_str());
    }
}

void print_stalls(const json& stats) {
    struct Stall {
        std::string engine, cause;
        unsigned long long count;
        double ns;
    };
    std::vector<Stall> all;
    for_each_engine(stats, [&](const std::string& e, const json& n) {
        for (auto s = n["stalls"].begin(); s != n["stalls"].end(); ++s) all.push_back({e, s.key(), u(s.value()["count"]), ns_of(s.value()["stalled_ps"])});
    });
    if (all.empty()) return;
    std::stable_sort(all.begin(), all.end(), [](const Stall& a, const Stall& b) { return a.ns > b.ns; });
    std::printf("  top stalls:\n");
    for (size_t i = 0; i < all.size() && i < 5; ++i)
        std::printf("    %-8s waits for %-48s %6llu x %14.3f ns\n", all[i].engine.c_str(), all[i].cause.c_str(), all[i].count, all[i].ns);
}

void print_cost_model(const NeuronCore& core) {
    const json totals = json::parse(core.cost_model_json());
    double sim = 0, model = 0;
    for (auto it = totals.begin(); it != totals.end(); ++it) {
        sim += ns_of(it.value()["simulated_ps"]);
        model += it.value()["model_ns"].get<double>();
    }
    std::printf("  cost model (public/compiler formulas): estimates %.3f ns against %.3f ns simulated (each instruction's issue to completion, summed)\n",
                model, sim);
    for (auto it = totals.begin(); it != totals.end(); ++it)
        std::printf("    %-32s %8llu x  simulated %14.3f ns  model %14.3f ns\n", it.key().c_str(), u(it.value()["count"]),
                    ns_of(it.value()["simulated_ps"]), it.value()["model_ns"].get<double>());
    const auto top = core.top_divergences();
    if (!top.empty()) std::printf("  largest divergences (simulated - model):\n");
    for (const auto& d : top) {
        std::printf("    %-10s %-20s %+12.3f ns (simulated %.3f, model %.3f: %s)%s\n", d.instruction.c_str(), d.mnemonic.c_str(), d.simulated_ns - d.model_ns,
                    d.simulated_ns, d.model_ns, d.formula.c_str(), d.source.empty() ? "" : ("  " + d.source).c_str());
        if (!d.why.empty()) std::printf("      why: %s\n", d.why.c_str());
    }
}

}  // namespace

void print_run_summary(const platform::Config& cfg, const std::string& trace_name, const std::string& out, const platform::RunReport& rep,
                       const json& host, const NeuronCore& core, bool cost_model) {
    const json& stats = rep.stats;
    const double sim_ns = rep.simulated.to_seconds() * 1e9;
    std::printf("neuronsim run: %s (NC-v%d), %s -> %s/\n", cfg.generation.name.c_str(), cfg.generation.nc_version, trace_name.c_str(), out.c_str());
    std::printf("  simulated time %.3f ns (%.0f ACT cycles at %.2f GHz), %llu instructions\n", sim_ns, sim_ns * cfg.act.clock_ghz, cfg.act.clock_ghz,
                static_cast<unsigned long long>(rep.instructions));
    std::printf("  %-10s %12s %14s %7s %14s\n", "engine", "instructions", "busy ns", "util %", "stalled ns");
    for_each_engine(stats, [&](const std::string& e, const json& n) {
        const double busy = ns_of(n["busy_ps"]);
        std::printf("  %-10s %12llu %14.3f %7.1f %14.3f\n", e.c_str(), u(n["instructions"]), busy, sim_ns > 0 ? 100.0 * busy / sim_ns : 0.0,
                    ns_of(n["stalled_ps"]));
    });
    print_time_by_mnemonic(stats);
    const json& dma = stats["dma"];
    std::printf("  DMA: %llu transfers, %llu bytes\n", u(dma["transfers"]), u(dma["bytes"]));
    if (stats.contains("act") && stats["act"].contains("elements") && (u(stats["act"]["elements"]) || u(stats["act"]["table_loads"]))) print_act(stats);
    const bool pool_work = stats.contains("pool") && stats["pool"].contains("cptc_decodes") &&
                           u(stats["pool"]["cptc_decodes"]) + u(stats["pool"]["copies"]) + u(stats["pool"]["conv_lut_loads"]) > 0;
    if (pool_work) {
        const json& pl = stats["pool"];
        std::string kernels;
        for (auto k = pl["cptc_by_kernel"].begin(); k != pl["cptc_by_kernel"].end(); ++k)
            kernels += (kernels.empty() ? " (" : ", ") + k.key() + " x" + std::to_string(k.value().get<uint64_t>());
        if (!kernels.empty()) kernels += ")";
        std::printf("  POOL: %llu CPTC decodes%s, %llu elements decoded, %llu copies, %llu conversion-LUT loads\n", u(pl["cptc_decodes"]), kernels.c_str(),
                    u(pl["cptc_decoded_elements"]), u(pl["copies"]), u(pl["conv_lut_loads"]));
    }
    print_stalls(stats);
    if (cost_model) print_cost_model(core);
    const double elements = stats.contains("act") ? stats["act"]["elements"].get<double>() : 0.0;
    std::printf("host: %.3f s wall, %.0f simulated ns per wall second, %.0f instructions/s, %.3g elements/s, %.3g DMA bytes/s\n", rep.wall_seconds,
                host["simulated_ns_per_wall_second"].get<double>(), host["instructions_per_second"].get<double>(),
                rep.wall_seconds > 0 ? elements / rep.wall_seconds : 0.0, rep.wall_seconds > 0 ? dma["bytes"].get<double>() / rep.wall_seconds : 0.0);
}

}  // namespace neuronsim::apps
