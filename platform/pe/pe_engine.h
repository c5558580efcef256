#pragma once
// The Tensor engine (TensorE, PE; docs/tensor-engine.md) on its own queue: load_stationary
// holds a K x M tile of SBUF in the array, matmul streams a K x N moving tile through it into
// one PSUM bank (M partitions x N fp32), starting an accumulation group or adding to it. The
// numbers are model/pe/matmul.h's; the time is PeTiming's through the four-stage pipeline the
// datapath engines share.
#include <cstdint>
#include <vector>

#include "model/fp/dtype.h"
#include "platform/config.h"
#include "platform/core/datapath_engine.h"

namespace neuronsim::platform {

// One instruction's cycles (docs/timing-model.md, "TensorE"): no static stage, the access
// start-up, streaming and the array's drain (a load_stationary has no drain: nothing leaves
// the array). A matmul streams max(N, min_ii) cycles (N moving
// columns; the public initiation interval; fp8 e4m3/e5m2 max(N / fp8_speedup, min_ii)), fp32
// x fp32_slowdown;
// load_stationary streams M columns at load_stationary_speedup x that rate.
struct PeTiming {
    const TensorConfig* cfg = nullptr;
    uint64_t stream_cycles(bool stationary, uint64_t columns, model::fp::Dtype in, bool mx = false) const;
    StageCycles stages(bool stationary, uint64_t columns, model::fp::Dtype in, bool mx = false) const {
        return {{0, cfg->access_startup_cycles, stream_cycles(stationary, columns, in, mx), stationary ? 0 : cfg->pipeline_latency_cycles}};
    }
};

class PeEngine : public DatapathEngine {
public:
    PeEngine(sc_core::sc_module_name name, EngineContext& ctx, InstructionSource& source);
    void reset_state() override;  // and the stationary tile

protected:
    bool execute(const model::isa::Bundle& b, uint64_t index) override;
    bool reports_when_idle() const override { return false; }  // (a run without TensorE has no pe stats)

private:
    void load_stationary(const model::isa::Bundle& b);
    void matmul(const model::isa::Bundle& b);

    // A load_stationary fills the array's background buffer beside the matmuls' pipeline
    // ("background LS overlaps MM", public-figures §3): it starts once the buffer's previous
    // tile was taken (the stream start of the first matmul after the previous load) and the
    // load before it is done; a matmul streams once its stationary is loaded.
    sc_core::sc_time ls_free_ = sc_core::SC_ZERO_TIME;  // the previous load is done
    sc_core::sc_time bg_free_ = sc_core::SC_ZERO_TIME;  // the background buffer's tile was taken
    sc_core::sc_time stationary_ready_ = sc_core::SC_ZERO_TIME;  // the latest load is in the array
    bool taken_ = true;  // the latest load's tile is in the foreground (a matmul started with it)
    uint64_t ls_index_ = 0;  // the latest load's instruction (a matmul's stall names it)
    uint64_t bg_index_ = 0;  // the matmul that took the background tile (a load's stall names it)

    PeTiming timing_;
    // The tile the array holds: K x M binary32, row k = partition k (empty before the first
    // load_stationary). Its dtype decides nothing later: matmul's rate follows the moving tile's.
    std::vector<float> stationary_;
    uint32_t k_ = 0, m_ = 0, partition_ = 0;  // its partitions, columns, first partition
    bool loaded_ = false;
};

}  // namespace neuronsim::platform
