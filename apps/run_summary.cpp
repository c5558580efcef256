#include "apps/run_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

#include "stats/stat_records.h"

namespace neuronsim::apps {

namespace {

using json = nlohmann::ordered_json;
using stats::get;
namespace E = stats::engine;
namespace A = stats::act;
namespace P = stats::pool;
namespace H = stats::host;

double ns_of(const json& ps) { return ps.get<uint64_t>() / 1000.0; }
unsigned long long u(const json& v) { return v.get<unsigned long long>(); }

// DMA queue streams sit under core.queues (docs/stats-schema.md).

// Engines are the stats nodes with busy_ps.
template <typename F>
void for_each_engine(const json& stats, F&& f) {
    // ACT, POOL and the DMA queues that ran (under "queues"), in name order.
    const auto engines = E::nodes_of(stats);
    for (const auto& [name, node] : engines) f(name, *node);
}

void print_time_by_mnemonic(const json& stats) {
    std::printf("  time by instruction (the instructions' exclusive share of their engine's busy ns, in total and per instruction):\n");
    for_each_engine(stats, [](const std::string& e, const json& n) {
        const json& by = n.at(E::mnemonic_count.head());
        for (auto m = by.begin(); m != by.end(); ++m) {
            const unsigned long long count = u(get(m.value(), E::mnemonic_count));
            const double ns = ns_of(get(m.value(), E::mnemonic_busy_ps));
            std::printf("    %-8s %-22s %8llu instr %14.3f ns total %12.3f ns each\n", e.c_str(), m.key().c_str(), count, ns, count ? ns / count : 0.0);
        }
    });
}

void print_act(const json& stats) {
    const json& a = stats.at("act");
    const double load = ns_of(get(a, A::table_load_ps)), compute = ns_of(get(a, A::compute_ps)), busy = ns_of(get(a, E::busy_ps));
    std::printf("  ACT: %llu elements, resident set %s\n", u(get(a, A::elements)),
                get(a.at("act_tables"), stats::act_tables::resident_set).get<std::string>().c_str());
    std::printf("  ACT table loads: %llu (%llu redundant), %llu bytes, %.3f ns = %.1f%% of ACT busy time; computing %.3f ns\n", u(get(a, A::table_loads)),
                u(get(a, A::redundant_table_loads)), u(get(a, A::table_load_bytes)), load, busy > 0 ? 100 * load / busy : 0.0, compute);
    // What the loads after the first cost: switches back and forth between two sets, and
    // reloads of the resident set.
    double later = 0, redundant = 0;
    std::map<std::pair<std::string, std::string>, std::pair<unsigned long long, double>> pairs;  // unordered set pair -> reloads, ns
    const json& switches = a.at(A::switch_from.head());
    for (const json& s : switches) {
        const std::string from = get(s, A::switch_from).get<std::string>(), to = get(s, A::switch_to).get<std::string>();
        if (from == "(none)") continue;
        later += ns_of(get(s, A::switch_load_ps));
        if (from == to) {
            redundant += ns_of(get(s, A::switch_load_ps));
            continue;
        }
        auto& p = pairs[std::minmax(from, to)];
        p.first += u(get(s, A::switch_count));
        p.second += ns_of(get(s, A::switch_load_ps));
    }
    const double sim = ns_of(get(stats, stats::core::simulated_ps));
    if (later > 0)
        std::printf("  table loads after the first cost %.3f ns (%.1f%% of the run)%s\n", later, sim > 0 ? 100 * later / sim : 0.0,
                    redundant > 0
                        ? (", " + std::to_string(redundant).substr(0, std::to_string(redundant).find('.') + 4) + " ns of it reloading the resident set").c_str()
                        : "");
    // A pair of sets loaded in both directions is an alternation.
    auto switched = [&](const std::string& from, const std::string& to) {
        for (const json& s : switches)
            if (get(s, A::switch_from) == from && get(s, A::switch_to) == to) return true;
        return false;
    };
    for (const auto& entry : pairs) {
        const std::string &x = entry.first.first, &y = entry.first.second;
        if (switched(x, y) && switched(y, x))
            std::printf("    alternating %s <-> %s: %llu reloads, %.3f ns\n", x.c_str(), y.c_str(), entry.second.first, entry.second.second);
    }
    for (const json& s : switches) {
        std::string fns;
        for (const json& f : get(s, A::switch_functions)) fns += (fns.empty() ? "" : ", ") + f.get<std::string>();
        const std::string from = get(s, A::switch_from).get<std::string>(), to = get(s, A::switch_to).get<std::string>();
        const unsigned long long count = u(get(s, A::switch_count));
        const double ns = ns_of(get(s, A::switch_load_ps));
        if (from == to) std::printf("    %-44s %4llu loads %12.3f ns total  redundant: already resident\n", ("reload " + to).c_str(), count, ns);
        else std::printf("    %-44s %4llu loads %12.3f ns total%s\n", (from + " -> " + to).c_str(), count, ns, fns.empty() ? "" : ("  for " + fns).c_str());
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
        const json& stalls = n.at(E::stall_count.head());
        for (auto s = stalls.begin(); s != stalls.end(); ++s)
            all.push_back({e, get(s.value(), E::stall_text).get<std::string>(), u(get(s.value(), E::stall_count)), ns_of(get(s.value(), E::stall_ps))});
    });
    if (all.empty()) return;
    std::stable_sort(all.begin(), all.end(), [](const Stall& a, const Stall& b) { return a.ns > b.ns; });
    std::printf("  top stalls:\n");
    for (size_t i = 0; i < all.size() && i < 5; ++i)
        std::printf("    %-8s waits for %-48s %6llu stalls %14.3f ns total\n", all[i].engine.c_str(), all[i].cause.c_str(), all[i].count, all[i].ns);
}

void print_cost_model(const platform::RunReport& rep) {
    const json& totals = rep.cost_model;
    double sim = 0, model = 0;
    for (auto it = totals.begin(); it != totals.end(); ++it) {
        sim += ns_of(it.value()["simulated_ps"]);
        model += it.value()["model_ns"].get<double>();
    }
    std::printf("  cost model (public/compiler formulas): estimates %.3f ns against %.3f ns simulated (each instruction's issue to completion, summed)\n",
                model, sim);
    for (auto it = totals.begin(); it != totals.end(); ++it)
        std::printf("    %-32s %8llu instr  simulated %14.3f ns total  model %14.3f ns total\n", it.key().c_str(), u(it.value()["count"]),
                    ns_of(it.value()["simulated_ps"]), it.value()["model_ns"].get<double>());
    const auto& top = rep.divergences;
    if (!top.empty()) std::printf("  largest divergences (simulated - model):\n");
    for (const auto& d : top) {
        std::printf("    %-10s %-20s %+12.3f ns (simulated %.3f, model %.3f: %s)%s\n", d.instruction.c_str(), d.mnemonic.c_str(), d.simulated_ns - d.model_ns,
                    d.simulated_ns, d.model_ns, d.formula.c_str(), d.source.empty() ? "" : ("  " + d.source).c_str());
        if (!d.why.empty()) std::printf("      why: %s\n", d.why.c_str());
    }
}

}  // namespace

void print_run_summary(const platform::Config& cfg, const std::string& trace_name, const std::string& out, const platform::RunReport& rep, const json& host,
                       bool cost_model) {
    const json& stats = rep.stats;
    const double sim_ns = rep.simulated.to_seconds() * 1e9;
    std::printf("neuronsim run: %s (NC-v%d), %s -> %s/\n", cfg.generation.name.c_str(), cfg.generation.nc_version, trace_name.c_str(), out.c_str());
    std::printf("  simulated time %.3f ns (%.0f ACT cycles at %.2f GHz), %llu instructions\n", sim_ns, sim_ns * cfg.act.clock_ghz, cfg.act.clock_ghz,
                static_cast<unsigned long long>(rep.instructions));
    std::printf("  %-10s %12s %14s %7s %14s\n", "engine", "instructions", "busy ns", "util %", "stalled ns");
    for_each_engine(stats, [&](const std::string& e, const json& n) {
        const double busy = ns_of(get(n, E::busy_ps));
        std::printf("  %-10s %12llu %14.3f %7.1f %14.3f\n", e.c_str(), u(get(n, E::instructions)), busy, sim_ns > 0 ? 100.0 * busy / sim_ns : 0.0,
                    ns_of(get(n, E::stalled_ps)));
    });
    print_time_by_mnemonic(stats);
    const json& dma = stats.at("dma");
    std::printf("  DMA: %llu transfers, %llu bytes\n", u(get(dma, stats::dma::transfers)), u(get(dma, stats::dma::bytes)));
    const json* act = stats.contains("act") && stats::has(stats["act"], A::elements) ? &stats["act"] : nullptr;
    if (act && (u(get(*act, A::elements)) || u(get(*act, A::table_loads)))) print_act(stats);
    const json* pool = stats.contains("pool") && stats::has(stats["pool"], P::cptc_decodes) ? &stats["pool"] : nullptr;
    if (pool && u(get(*pool, P::cptc_decodes)) + u(get(*pool, P::copies)) + u(get(*pool, P::conv_lut_loads)) > 0) {
        const json& pl = *pool;
        std::string kernels;
        const json& by = pl.at(P::cptc_by_kernel.head());
        for (auto k = by.begin(); k != by.end(); ++k) kernels += (kernels.empty() ? " (" : ", ") + k.key() + " x" + std::to_string(k.value().get<uint64_t>());
        if (!kernels.empty()) kernels += ")";
        std::printf("  POOL: %llu CPTC decodes%s, %llu elements decoded, %llu copies, %llu conversion-LUT loads\n", u(get(pl, P::cptc_decodes)),
                    kernels.c_str(), u(get(pl, P::cptc_decoded_elements)), u(get(pl, P::copies)), u(get(pl, P::conv_lut_loads)));
    }
    if (stats.contains("derived")) {
        namespace D = stats::derived;
        const json& dv = stats.at("derived");
        std::printf("  critical engine %s; DMA moved data %.1f%% of the run at %.1f GB/s (%.1f%% of the %.1f GB/s peak), %.1f%% of it under compute\n",
                    get(dv, D::critical_engine).get<std::string>().c_str(), 100.0 * get(dv, D::dma_utilisation).get<double>(),
                    get(dv, D::dma_gbps).get<double>(), 100.0 * get(dv, D::dma_peak_fraction).get<double>(), get(dv, D::dma_peak_gbps).get<double>(),
                    100.0 * get(dv, D::dma_hidden_fraction).get<double>());
    }
    print_stalls(stats);
    if (cost_model) print_cost_model(rep);
    const double elements = act ? get(*act, A::elements).get<double>() : 0.0;
    std::printf("host: %.3f s wall, %.0f simulated ns per wall second, %.0f instructions/s, %.3g elements/s, %.3g DMA bytes/s\n", rep.wall_seconds,
                get(host, H::simulated_ns_per_wall_second).get<double>(), get(host, H::instructions_per_second).get<double>(),
                rep.wall_seconds > 0 ? elements / rep.wall_seconds : 0.0,
                rep.wall_seconds > 0 ? get(dma, stats::dma::bytes).get<double>() / rep.wall_seconds : 0.0);
}

}  // namespace neuronsim::apps
