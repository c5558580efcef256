#pragma once
// An engine: an SC_THREAD that runs the 64-byte bundles of its instruction source in order.
// Per bundle it stalls while the EVENTS wait does not hold, executes (the subclass waits for
// the instruction's time: O(1) events per instruction), applies the EVENTS update and records
// the instruction. sync (0xA0) and halt (0xA1) are handled here for every engine. An engine
// sees only its EngineContext (engine_context.h), so it can run alone in a test bench.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include <systemc>

#include "model/isa/bundle.h"
#include "platform/cost_model.h"
#include "platform/engine_context.h"
#include "platform/recorder.h"
#include "platform/stats.h"

namespace neuronsim::platform {

std::string module_name(std::string label);  // "dma3.1" -> "dma3_q1"

class Engine : public sc_core::sc_module, public StatsProvider {
public:
    SC_HAS_PROCESS(Engine);
    // `label` is the stream's engine name (act, pool, dma3, dma3.1); the module `name` is the
    // same with '.' (SystemC's hierarchy separator) written as '_q' (module_name()).
    Engine(sc_core::sc_module_name name, const std::string& label, EngineContext& ctx, InstructionSource& source, double clock_ghz);
    const std::string& label() const { return label_; }

    // Where the engine is: for status registers and the end-of-run report (deadlock).
    bool busy() const { return busy_now_; }          // between fetching a bundle and completing it
    bool waiting() const { return waiting_; }
    uint64_t current_index() const { return index_; }
    const model::isa::Events& waiting_on() const { return waiting_on_; }
    uint8_t current_opcode() const { return opcode_; }
    uint64_t instructions() const { return count_; }
    sc_core::sc_time busy_time() const { return busy_; }
    double clock_ghz() const { return ghz_; }
    // The times of the first instruction's start and the last one's end (the busy window).
    sc_core::sc_time first_start() const { return first_start_; }
    sc_core::sc_time last_end() const { return last_end_; }

    void collect_stats(nlohmann::ordered_json& node) const override;
    // --cost-model: per mnemonic, the simulated time and the estimates' sum.
    void collect_cost_model(nlohmann::ordered_json& node) const;

protected:
    // Executes one bundle other than sync/halt; waits for its time. Returns false when the
    // opcode is not one this engine models (the caller reports or skips it).
    virtual bool execute(const model::isa::Bundle& b, uint64_t index) = 0;
    // Engines of the generation (ACT, POOL) report zeros when idle, so that every run's stats
    // have their keys; the 256 DMA queues report only when they ran.
    virtual bool reports_when_idle() const { return true; }
    sc_core::sc_time cycles(double n) const { return sc_core::sc_time(n / ghz_, sc_core::SC_NS); }
    EngineContext& ctx_;

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

private:
    void run();
    void record(InstructionRecord& r, const model::isa::Bundle& b);

    std::string label_;
    InstructionSource& source_;
    double ghz_;
    bool busy_now_ = false, waiting_ = false;
    uint64_t index_ = 0;
    uint8_t opcode_ = 0;
    model::isa::Events waiting_on_;
    uint64_t count_ = 0, skipped_ = 0;
    sc_core::sc_time busy_ = sc_core::SC_ZERO_TIME, stalled_ = sc_core::SC_ZERO_TIME;
    sc_core::sc_time first_start_ = sc_core::SC_ZERO_TIME, last_end_ = sc_core::SC_ZERO_TIME;
    struct Tally {
        uint64_t count = 0;
        sc_core::sc_time time = sc_core::SC_ZERO_TIME;
        double model_ns = 0;  // --cost-model: the estimates' sum
    };
    std::map<const std::string*, Tally> by_mnemonic_;  // by the opcode table's names (sorted when reported)
    // By cause: the wait (mode, semaphore, value), the releasing engine, the busy resource.
    using StallKey = std::tuple<int, int, uint32_t, const std::string*, const std::string*>;
    std::map<StallKey, Tally> stalls_;
};

// A DMA queue stream (dma<E> or dma<E>.<Q>): copy instructions on DMA engine E.
class DmaQueueEngine : public Engine {
public:
    DmaQueueEngine(sc_core::sc_module_name name, const std::string& label, EngineContext& ctx, InstructionSource& source, uint32_t dma_engine);

protected:
    bool execute(const model::isa::Bundle& b, uint64_t index) override;
    bool reports_when_idle() const override { return false; }

private:
    uint32_t dma_engine_;
    std::string resource_;  // "dma<E>", the busy resource a queued copy names
};

// Engines are made from a registry keyed by stream class (model/isa/opcodes.h: kOnAct,
// kOnPool, kOnDma), not by if/else: the device asks for the class of each queue.
struct EngineSpec {
    std::string label;       // act, pool, dma3, dma3.1
    uint32_t dma_engine = 0; // for DMA queues
};
using EngineFactory = std::function<std::unique_ptr<Engine>(const EngineSpec&, EngineContext&, InstructionSource&)>;
void register_engine(uint32_t stream_class, EngineFactory f);
std::unique_ptr<Engine> make_engine(uint32_t stream_class, const EngineSpec& spec, EngineContext& ctx, InstructionSource& source);

}  // namespace neuronsim::platform
