#pragma once
// The simulated NeuronCore assembled from a Config: DRAM, SBUF, PSUM, the semaphores, the DMA
// engines and one engine per instruction stream. Runs the streams to completion and reports.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include "model/trace/trace_reader.h"
#include "platform/act/act_engine.h"
#include "platform/act/act_tables.h"
#include "platform/config/config.h"
#include "platform/pool/pool_engine.h"
#include "platform/dma.h"
#include "platform/engine.h"
#include "platform/memory.h"
#include "platform/recorder.h"
#include "platform/semaphores.h"
#include "platform/stats.h"

namespace neuronsim::platform {

struct RunOptions {
    std::string out_dir;
    std::string pwp_dir;          // a pwp_bin_* directory; empty: the built-in catalog's pwp_bin_trainium
    bool act_exact = false;       // Activate uses the closed forms instead of the tables
    bool skip_unknown = false;  // an unmodelled opcode costs run.skip_unknown_cost_ns and is counted
    bool progress = false;
    RecorderOptions record;       // instructions.csv / timeline.json: which, and a time window
};

struct RunReport {
    sc_core::sc_time simulated;
    uint64_t instructions = 0;
    double wall_seconds = 0;
    nlohmann::ordered_json stats;
};

class Platform : public sc_core::sc_module, public StatsProvider {
public:
    // `streams`: engine name -> stream file; `setup`: the directives file (may be empty).
    Platform(sc_core::sc_module_name name, const Config& cfg, const std::map<std::string, std::string>& streams,
             const std::string& setup, const RunOptions& options);
    ~Platform() override;

    RunReport run();

    // Used by engines.
    const Config& config() const { return cfg_; }
    Semaphores& semaphores() { return *sem_; }
    DmaEngines& dma() { return *dma_; }
    Recorder& recorder() { return *recorder_; }
    const Recorder& recorder() const { return *recorder_; }
    Memory& memory(model::isa::MemSpace s);
    ActTables& act_tables() { return *act_tables_; }
    bool skip_unknown() const { return options_.skip_unknown; }
    uint32_t reg(uint32_t index) const { return regs_[index & 0xFF]; }
    // An engine thread hit an error: remember the first, stop the simulation.
    void fail(const std::string& message);

    void collect_stats(nlohmann::ordered_json& node) const override;
    // --cost-model: "<engine> <mnemonic>" -> count, simulated_ps, model_ns.
    nlohmann::ordered_json cost_model_totals() const;

private:
    void apply(const model::trace::DataDirective& d, const std::string& where);
    void dump(const model::trace::DumpDirective& d);
    uint64_t linear(const model::isa::Location& l, uint64_t bytes, const std::string& where) const;
    void place_act_sets();

    Config cfg_;
    RunOptions options_;
    std::unique_ptr<Recorder> recorder_;
    std::unique_ptr<Memory> dram_, sbuf_, psum_;
    std::unique_ptr<Semaphores> sem_;
    std::unique_ptr<DmaEngines> dma_;
    std::unique_ptr<ActTables> act_tables_;
    std::vector<ActSetImage> act_sets_;
    std::vector<std::unique_ptr<Engine>> engines_;
    std::vector<model::trace::DumpDirective> dumps_;
    std::optional<std::string> error_;
    uint32_t regs_[256] = {};
};

}  // namespace neuronsim::platform
