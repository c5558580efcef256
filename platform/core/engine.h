#pragma once
// An engine: an SC_THREAD (the sequencer) that issues the 64-byte bundles of its instruction
// source in order, and a second one that retires them in order. Per bundle the sequencer
// stalls while the EVENTS wait does not hold, then execute() (the subclass) decides when the
// instruction issues and when it completes (docs/timing-model.md): an instruction may complete
// after later ones have issued (ACT's pipeline, a DMA in flight), so costs that the hardware
// overlaps overlap here. Retiring applies the EVENTS update and records the instruction, in
// program order. sync (0xA0) and halt (0xA1) are control instructions for every engine
// (sync.instruction_cycles). O(1) events per instruction. An engine sees only its
// EngineContext (engine_context.h), so it can run alone in a test bench.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <systemc>

#include "model/isa/bundle.h"
#include "model/isa/region.h"
#include "platform/core/busy_intervals.h"
#include "platform/core/cost_model.h"
#include "platform/core/engine_context.h"
#include "platform/core/stats.h"
#include "platform/record/recorder.h"

namespace neuronsim::platform {

struct DmaJob;
class ActTables;
class DmaEngines;
class Memory;

// The core's memories, for an engine to bind its own ports to when the core is built.
struct CoreMemories {
    Memory& sbuf;
    Memory& psum;
    DmaEngines& dma;  // (its act_tables port reaches the ACT table memory)
};

std::string module_name(std::string label);  // "dma3.1" -> "dma3_q1"

class Engine : public sc_core::sc_module, public StatsProvider {
public:
    SC_HAS_PROCESS(Engine);
    // `label` is the stream's engine name (act, pool, dma3, dma3.1, dma.2); the module `name`
    // is the same with '.' (SystemC's hierarchy separator) written as '_q' (module_name()).
    Engine(sc_core::sc_module_name name, const std::string& label, EngineContext& ctx, InstructionSource& source, double clock_ghz);
    const std::string& label() const { return label_; }

    // Where the engine is: for status registers and the end-of-run report (deadlock).
    bool busy() const { return in_flight_ > 0; }  // instructions fetched and not yet retired
    bool waiting() const { return waiting_; }
    uint64_t current_index() const { return index_; }
    const model::isa::Events& waiting_on() const { return waiting_on_; }
    uint8_t current_opcode() const { return opcode_; }
    uint64_t instructions() const { return count_; }
    sc_core::sc_time busy_time() const { return busy_; }
    // When it was busy (the union of its instructions' [start, end]): busy_time() is its total.
    const BusyIntervals& busy_spans() const { return busy_spans_; }
    double clock_ghz() const { return ghz_; }
    // The times of the first instruction's start and the last one's end (the busy window).
    sc_core::sc_time first_start() const { return first_start_; }
    sc_core::sc_time last_end() const { return last_end_; }

    // Binds the engine's own ports to the core's memories (each engine binds what it uses; the
    // DMA queues' engines have none: they go through the DMA engines).
    virtual void bind(CoreMemories&) {}
    // The table memory the engine holds, which the core's tables window shows (ACT's); null
    // for the others.
    virtual ActTables* table_memory() { return nullptr; }

    void collect_stats(nlohmann::ordered_json& node) const override;
    std::string stats_name() const override { return label_; }
    // The device's RESET (docs/vp-integration.md): every instruction fetched so far is
    // abandoned wherever it is (waiting, issuing, executing, its DMA in flight): it never
    // retires, updates no semaphore and is not counted; the engine is idle at once and its
    // threads drop what they held when they next wake (at the latest a delta later). Callable
    // from any process (the host's b_transport).
    virtual void reset_state();
    // --cost-model: per mnemonic, the simulated time and the estimates' sum.
    void collect_cost_model(nlohmann::ordered_json& node) const;

protected:
    // Executes one bundle other than sync/halt (the sequencer holds it from the call): sets
    // detail_.start (when it issues; execute() waits until then itself, before touching
    // data) and detail_.end (when it completes), or triggers a DMA with trigger_dma() (it then
    // completes with the transfer), and seq_free_ (when the sequencer may take the next
    // bundle). Returns false when the opcode is not one this engine models.
    virtual bool execute(const model::isa::Bundle& b, uint64_t index) = 0;
    // Engines of the generation (ACT, POOL) report zeros when idle, so that every run's stats
    // have their keys; the DMA queues report only when they ran.
    virtual bool reports_when_idle() const { return true; }
    sc_core::sc_time cycles(double n) const { return sc_core::sc_time(n / ghz_, sc_core::SC_NS); }
    sc_core::sc_time now() const { return sc_core::sc_time_stamp(); }
    // Triggers `job` as the current instruction's transfer now: first waits while this stream
    // has dma.queue_depth transfers in flight (a "busy queue" stall); the instruction
    // completes when the transfer does. At its end `at_end` runs, then, unless the transfer
    // failed, `on_done`.
    void trigger_dma(DmaJob job, std::function<void()> on_done = {}, std::function<void()> at_end = {});
    // Waits while this stream has dma.queue_depth transfers in flight (a "busy queue" stall when
    // called before the instruction's start is decided, as the ACT and POOL copies do).
    void wait_dma_slot();
    // execute()'s waits: they end early at a RESET, which abandons the instruction (thrown
    // through execute(); nothing of it happens after the wait).
    void hold(const sc_core::sc_time& t);
    void hold(const sc_core::sc_event& e);
    // After a wait inside someone else's code (a DRAM target's b_transport may wait): throws
    // when a RESET came meanwhile.
    struct Abandoned {};
    void check_epoch() const {
        if (issuing_epoch_ != epoch_) throw Abandoned{};
    }
    // What the instruction being issued reads and writes, for the hazard detector (when one
    // looks): execute() says it as the instruction issues.
    // `async`: a transfer the engine triggered and does not wait for (trigger_dma on ACT, POOL).
    void note_access(const std::vector<model::isa::Region>& reads, const std::vector<model::isa::Region>& writes, bool async = false);
    // Whether the engine's own later instructions wait for the transfers it triggers: a DMA
    // queue's instructions are its transfers, in order; ACT and POOL go on without them.
    virtual bool waits_for_own_transfers() const { return false; }
    EngineContext& ctx_;

    // What execute() tells the record of its instruction (instructions.csv, timeline, the
    // cost model): reset before each instruction.
    struct Detail {
        InstructionShape shape;  // n, rows, bytes, dtypes (opcode set by run())
        std::string function;  // ACT: the activation function
        uint64_t elements = 0;  // elements computed over all partitions
        sc_core::sc_time start, end;  // issues, completes (end unused when a DMA completes it)
        const std::string* resource = nullptr;  // it waited for this busy resource ("queue dma.0")...
        const std::string* producer = nullptr;  // ... or for the result of this engine's instruction
        uint64_t producer_index = 0;
    };
    Detail detail_;
    sc_core::sc_time seq_free_ = sc_core::SC_ZERO_TIME;  // the sequencer takes the next bundle from here

private:
    struct InFlight;
    void run();
    void fail_issuing(const std::string& why);  // the instruction the sequencer holds failed
    void retire();
    void record(InstructionRecord& r, InFlight& f, const sc_core::sc_time& idle_stall);

    std::string label_;
    int hazard_stream_ = -1;  // the detector's id of this stream (made on first use)
    int hazard_stream();
    InstructionSource& source_;
    double ghz_;
    bool waiting_ = false;
    uint64_t in_flight_ = 0;
    uint64_t epoch_ = 0, issuing_epoch_ = 0;  // RESETs so far; when the sequencer's bundle was fetched
    sc_core::sc_event reset_event_;
    uint64_t index_ = 0;
    uint8_t opcode_ = 0;
    model::isa::Events waiting_on_;
    std::deque<std::shared_ptr<InFlight>> retiring_;  // issued, in program order
    std::shared_ptr<InFlight> current_;  // the one execute() works on
    sc_core::sc_event retire_event_, retired_event_;
    uint32_t dma_in_flight_ = 0;
    sc_core::sc_event dma_done_;
    std::string queue_resource_;  // "queue <label>"
    uint64_t count_ = 0, skipped_ = 0;
    sc_core::sc_time busy_ = sc_core::SC_ZERO_TIME, stalled_ = sc_core::SC_ZERO_TIME;
    BusyIntervals busy_spans_;
    sc_core::sc_time first_start_ = sc_core::SC_ZERO_TIME, last_end_ = sc_core::SC_ZERO_TIME;
    struct Tally {
        uint64_t count = 0;
        sc_core::sc_time time = sc_core::SC_ZERO_TIME;
        double model_ns = 0;  // --cost-model: the estimates' sum ...
        sc_core::sc_time latency = sc_core::SC_ZERO_TIME;  // ... and the instructions' issue-to-completion times
    };
    std::map<const std::string*, Tally> by_mnemonic_;  // by the opcode table's names (sorted when reported)
    // By cause: the wait (mode, semaphore; its values grouped), the releasing engine, the busy
    // resource, whether it waited for a result of its own engine. A kernel waits on one
    // semaphore for tile after tile (>= 1, >= 2, ...): one cause, with the values' range.
    using StallKey = std::tuple<int, int, const std::string*, const std::string*, bool>;
    struct StallTally {
        uint64_t count = 0;
        sc_core::sc_time time = sc_core::SC_ZERO_TIME;
        int64_t lo = 0, hi = 0;  // the smallest and largest value waited for
    };
    std::map<StallKey, StallTally> stalls_;

protected:
    // An instruction's exclusive share of the busy time by mnemonic (table loads for ACT).
    sc_core::sc_time busy_of(const std::string& mnemonic) const;
};

// A DMA queue stream (dma<E>, dma<E>.<Q>: every row on engine E, queue Q; dma.<Q>: spread over
// the engines by partition, queue Q): each copy is a trigger of the Sync engine.
class DmaQueueEngine : public Engine {
public:
    // `dma_engine` -1: the stream's transfers spread over the engines.
    DmaQueueEngine(sc_core::sc_module_name name, const std::string& label, EngineContext& ctx, InstructionSource& source, int dma_engine, uint32_t dma_queue);

protected:
    bool execute(const model::isa::Bundle& b, uint64_t index) override;
    bool reports_when_idle() const override { return false; }
    bool waits_for_own_transfers() const override { return true; }

private:
    int dma_engine_;
    uint32_t dma_queue_;
};

// Engines are made from a registry keyed by stream class (model/isa/opcodes.h: kOnAct,
// kOnPool, kOnDma), not by if/else: the device asks for the class of each queue.
struct EngineSpec {
    std::string label;  // act, pool, dma3, dma3.1, dma.2
    int dma_engine = 0;  // for DMA queues; -1 spread
    uint32_t dma_queue = 0;
};
using EngineFactory = std::function<std::unique_ptr<Engine>(const EngineSpec&, EngineContext&, InstructionSource&)>;
void register_engine(uint32_t stream_class, EngineFactory f);
std::unique_ptr<Engine> make_engine(uint32_t stream_class, const EngineSpec& spec, EngineContext& ctx, InstructionSource& source);

}  // namespace neuronsim::platform
