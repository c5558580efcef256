#pragma once
// An engine: an SC_THREAD that runs its stream of 64-byte bundles in order. Per bundle it
// stalls while the EVENTS wait does not hold, executes (the subclass waits for the
// instruction's time: O(1) events per instruction), applies the EVENTS update and records
// the instruction. sync (0xA0) and halt (0xA1) are handled here for every engine.
#include <cstdint>
#include <map>
#include <tuple>
#include <memory>
#include <string>

#include <systemc>

#include "model/isa/bundle.h"
#include "model/trace/assembler.h"
#include "platform/cost_model.h"
#include "platform/recorder.h"
#include "platform/stats.h"

namespace neuronsim::platform {

class Platform;

std::string module_name(std::string label);  // "dma3.1" -> "dma3_q1"

class Engine : public sc_core::sc_module, public StatsProvider {
public:
    SC_HAS_PROCESS(Engine);
    // `label` is the stream's engine name (act, pool, dma3, dma3.1); the module `name` is the
    // same with '.' (SystemC's hierarchy separator) written as '_q' (module_name()).
    Engine(sc_core::sc_module_name name, const std::string& label, Platform& platform, const std::string& stream_path, double clock_ghz);
    const std::string& label() const { return label_; }

    // Where the engine stopped: for the end-of-run report (deadlock, unfinished streams).
    bool finished() const { return finished_; }
    bool waiting() const { return waiting_; }
    uint64_t current_index() const { return index_; }
    const model::isa::Events& waiting_on() const { return waiting_on_; }
    uint8_t current_opcode() const { return opcode_; }
    uint64_t instructions() const { return count_; }
    sc_core::sc_time busy() const { return busy_; }
    double clock_ghz() const { return ghz_; }
    uint64_t stream_length() const { return stream_.count(); }

    void collect_stats(nlohmann::ordered_json& node) const override;
    // --cost-model: per mnemonic, the simulated time and the estimates' sum.
    void collect_cost_model(nlohmann::ordered_json& node) const;

protected:
    // What execute() tells the record of its instruction (instructions.csv, timeline, the
    // cost model): reset before each instruction.
    struct Detail {
        InstructionShape shape;      // n, rows, bytes, dtypes (opcode set by run())
        std::string function;        // ACT: the activation function
        uint64_t elements = 0;       // elements computed over all partitions
        sc_core::sc_time queued;     // waited inside execute for a busy resource
        const std::string* resource = nullptr;  // ... which one ("dma15"), a long-lived name
    };
    Detail detail_;

    // Executes one bundle other than sync/halt; waits for its time. Returns false when the
    // opcode is not one this engine models (the caller reports or skips it).
    virtual bool execute(const model::isa::Bundle& b, uint64_t index) = 0;
    sc_core::sc_time cycles(double n) const { return sc_core::sc_time(n / ghz_, sc_core::SC_NS); }
    Platform& platform_;

private:
    void run();

    std::string label_;
    model::trace::BundleStream stream_;
    double ghz_;
    bool finished_ = false, waiting_ = false;
    uint64_t index_ = 0;
    uint8_t opcode_ = 0;
    model::isa::Events waiting_on_;
    uint64_t count_ = 0, skipped_ = 0;
    sc_core::sc_time busy_ = sc_core::SC_ZERO_TIME, stalled_ = sc_core::SC_ZERO_TIME;
    struct Tally {
        uint64_t count = 0;
        sc_core::sc_time time = sc_core::SC_ZERO_TIME;
        double model_ns = 0;  // --cost-model: the estimates' sum
    };
    std::map<const std::string*, Tally> by_mnemonic_;  // by the opcode table's names (sorted when reported)
    // By cause: the wait (mode, semaphore, value), the releasing engine, the busy resource.
    using StallKey = std::tuple<int, int, uint32_t, const std::string*, const std::string*>;
    std::map<StallKey, Tally> stalls_;
    model::trace::SourceLines lines_;
    void record(InstructionRecord& r, const model::isa::Bundle& b);
};

// A DMA queue stream (dma<E> or dma<E>.<Q>): copy instructions on DMA engine E.
class DmaQueueEngine : public Engine {
public:
    DmaQueueEngine(sc_core::sc_module_name name, const std::string& label, Platform& platform, const std::string& stream_path,
                   uint32_t dma_engine);

protected:
    bool execute(const model::isa::Bundle& b, uint64_t index) override;

private:
    uint32_t dma_engine_;
    std::string resource_;  // "dma<E>", the busy resource a queued copy names
};

// ACT and POOL until their engines are modelled: they run sync and halt only.
class ControlOnlyEngine : public Engine {
public:
    using Engine::Engine;

protected:
    bool execute(const model::isa::Bundle&, uint64_t) override { return false; }
};

}  // namespace neuronsim::platform
