#pragma once
// `core.derived` of stats.json (stats/stat_records.h, namespace derived): utilisations, the
// overlap of DMA with compute, ACT's table-load share, achieved DMA bandwidth against the
// core's peak and the critical engine, from the device's stats and its engines' busy spans.
#include <cstdint>

#include <nlohmann/json.hpp>

#include "platform/config.h"
#include "platform/core/busy_intervals.h"

namespace neuronsim::platform {

struct DerivedInputs {
    const nlohmann::ordered_json* core = nullptr;  // the `core` node so far (act, pool, dma)
    const BusyIntervals* act = nullptr;  // when ACT and POOL were busy (null: no such engine)
    const BusyIntervals* pool = nullptr;
    const BusyIntervals* dve = nullptr;  // VectorE (null: it ran nothing)
    const BusyIntervals* pe = nullptr;  // TensorE (null: it ran nothing)
    BusyIntervals dma;  // when some DMA engine moved data
    uint64_t simulated_ps = 0;
    double dma_peak_bytes_per_ns = 0;
};

nlohmann::ordered_json derived_stats(const DerivedInputs& in);

}  // namespace neuronsim::platform
