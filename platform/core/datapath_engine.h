#pragma once
// What the datapath engines (ACT, VectorE) share: the four-stage pipeline (stage_pipeline.h)
// and the instructions in flight with the regions they read and write. An instruction enters
// the pipeline once the in-flight instructions whose results it reads have completed
// (docs/timing-model.md), so independent instructions overlap and dependent ones show their
// whole latency.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/common/worker_pool.h"
#include "model/fp/dtype.h"
#include "model/isa/address.h"
#include "model/isa/layouts.h"
#include "model/isa/region.h"
#include "platform/core/engine.h"
#include "platform/core/stage_pipeline.h"
#include "platform/core/tensor_operand.h"
#include "platform/tlm/tlm_port.h"

namespace neuronsim::platform {

class DatapathEngine : public Engine {
public:
    // SBUF and PSUM through DMI: the engine streams whole tensors.
    TlmPort sbuf, psum;

    DatapathEngine(sc_core::sc_module_name name, const std::string& label, EngineContext& ctx, InstructionSource& source, double clock_ghz);
    void bind(CoreMemories& m) override;  // sbuf and psum
    void reset_state() override;  // and the pipeline, the instructions in flight

protected:
    // Enters the pipeline once the instructions in flight whose results it reads have
    // completed (and not before `at`); waits until it issues (then its data may be read),
    // and fills detail_. `ordered` are reads the pipeline itself keeps in order behind the
    // writes in flight (a matmul adding to the bank the matmul before it writes): not waited
    // for, still reported. Returns its times in the pipeline (ps).
    StagePipeline::Slot issue(const StageCycles& st, std::vector<model::isa::Region> reads, std::vector<model::isa::Region> writes,
                              sc_core::sc_time at = sc_core::SC_ZERO_TIME, std::vector<model::isa::Region> ordered = {});
    // The latest completion of an in-flight instruction whose writes overlap `reads` (or, with
    // `any`, whose reads or writes overlap `reads`), and `at`: the instruction's earliest issue.
    sc_core::sc_time results_ready(const std::vector<model::isa::Region>& reads, bool any, sc_core::sc_time at = sc_core::SC_ZERO_TIME);

    uint8_t* memory(model::isa::MemSpace s);  // the DMI view of SBUF or PSUM
    // A TENSOR2D operand over `partitions` partitions, checked against its memory and the
    // start-partition rule.
    Pattern tile(const char* what, const model::isa::Tensor2D& t, model::fp::Dtype d, uint32_t partitions);

    // Runs partition(p) for every p < nch: on the host threads (run.host_threads) when
    // `independent` (no partition reads what another writes), else in order; either way the
    // error thrown is the first partition's.
    void each_partition(uint32_t nch, bool independent, const std::function<void(uint32_t)>& partition);
    bool host_threads() const { return pool_.threads() > 1; }

    // Its part in the NC-v2 port rules (shared_ports.h), when the generation has them.
    enum class PortRole { None, SharesPort, WaitsForPsumWriters };
    PortRole port_role_ = PortRole::None;

    StagePipeline pipe_;
    struct Pending {
        sc_core::sc_time end;
        uint64_t index;
        std::vector<model::isa::Region> reads, writes;
    };
    std::vector<Pending> pending_;  // issued and not yet completed
    model::WorkerPool& pool_;  // the core's host threads (EngineContext::host_pool): an instruction's partitions
    uint64_t index_now_ = 0;  // the instruction execute() works on (set by the subclass)
};

}  // namespace neuronsim::platform
