#include "platform/core/derived_stats.h"

#include "stats/stat_records.h"

namespace neuronsim::platform {

namespace {
double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }
}  // namespace

nlohmann::ordered_json derived_stats(const DerivedInputs& in) {
    namespace d = stats::derived;
    const BusyIntervals none;
    const BusyIntervals& act = in.act ? *in.act : none;
    const BusyIntervals& pool = in.pool ? *in.pool : none;
    const BusyIntervals& dve = in.dve ? *in.dve : none;
    const BusyIntervals& pe = in.pe ? *in.pe : none;
    const BusyIntervals compute = BusyIntervals::unite(BusyIntervals::unite(BusyIntervals::unite(act, pool), dve), pe);
    const BusyIntervals overlap = BusyIntervals::intersect(in.dma, compute);
    const double sim = static_cast<double>(in.simulated_ps);
    const uint64_t act_ps = act.total(), pool_ps = pool.total(), dve_ps = dve.total(), pe_ps = pe.total(), dma_ps = in.dma.total();
    uint64_t table_load_ps = 0, dma_bytes = 0;
    const nlohmann::ordered_json& core = *in.core;
    if (core.contains("act") && stats::has(core.at("act"), stats::act::table_load_ps)) table_load_ps = stats::get(core.at("act"), stats::act::table_load_ps);
    if (core.contains("dma") && stats::has(core.at("dma"), stats::dma::bytes)) dma_bytes = stats::get(core.at("dma"), stats::dma::bytes);
    const double gbps = ratio(static_cast<double>(dma_bytes), static_cast<double>(dma_ps) / 1000.0);  // bytes per ns = GB/s
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    stats::put(o, d::act_utilisation, ratio(static_cast<double>(act_ps), sim));
    stats::put(o, d::pool_utilisation, ratio(static_cast<double>(pool_ps), sim));
    stats::put(o, d::dma_utilisation, ratio(static_cast<double>(dma_ps), sim));
    stats::put(o, d::compute_busy_ps, compute.total());
    stats::put(o, d::dma_busy_ps, dma_ps);
    stats::put(o, d::dma_compute_overlap_ps, overlap.total());
    stats::put(o, d::dma_hidden_fraction, ratio(static_cast<double>(overlap.total()), static_cast<double>(dma_ps)));
    stats::put(o, d::act_table_load_share, ratio(static_cast<double>(table_load_ps), static_cast<double>(act_ps)));
    stats::put(o, d::dma_gbps, gbps);
    stats::put(o, d::dma_peak_gbps, in.dma_peak_bytes_per_ns);
    stats::put(o, d::dma_peak_fraction, ratio(gbps, in.dma_peak_bytes_per_ns));
    const char* critical = "none";
    uint64_t most = 0;
    for (const auto& [name, ps] : {std::pair<const char*, uint64_t>{"act", act_ps}, {"pool", pool_ps}, {"dve", dve_ps}, {"pe", pe_ps}, {"dma", dma_ps}})
        if (ps > most) most = ps, critical = name;
    stats::put(o, d::critical_engine, critical);
    return o;
}

}  // namespace neuronsim::platform
