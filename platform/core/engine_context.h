#pragma once
// What an engine needs from the core around it, and nothing more: the configuration, the
// semaphores, the DMA engines, DRAM (through the device's memory port), the engine registers,
// the recorder (absent when not recording) and where to report a failing instruction. The
// NeuronCore device implements it; a test bench implements it around one engine.
#include <atomic>
#include <cstdint>
#include <string>

#include "model/isa/address_map.h"
#include "model/isa/hazard_detector.h"
#include "neuronsim/device_options.h"
#include "platform/config.h"

namespace neuronsim::model {
class WorkerPool;
}

namespace neuronsim::platform {

class DmaEngines;
class Recorder;
class WorkBudget;
class Semaphores;
class TlmPort;
struct SharedPorts;

// A failing instruction: the engine, its index in the stream, its opcode and what went wrong.
struct EngineFailure {
    std::string engine;
    uint64_t index = 0;
    uint8_t opcode = 0;
    std::string message;  // the engine's own text ("opcode 0x47 is not modelled on engine act")

    // "engine act, instruction 1 (opcode 0x47): " + message, the error register's text; `where`
    // (a host's "FILE byte offset N") goes inside the parentheses.
    std::string summary(const std::string& where = "") const;
};

// Run options that engines honour.

// Thrown (not an Error: nothing failed) where long host work checks DeviceOptions::cancel; the
// engine abandons its instruction and ends.
struct Cancelled {};
inline void check_cancel(const DeviceOptions& o) {
    if (o.cancel && o.cancel->load(std::memory_order_relaxed)) throw Cancelled{};
}

// Where LoadActFuncSet finds the function sets in DRAM (include/neuronsim/act_sets.h).
struct ActSetDirectory {
    uint64_t base = 0;
    uint32_t count = 0;
};

class EngineContext {
public:
    virtual ~EngineContext() = default;
    virtual const Config& config() const = 0;
    virtual const model::isa::AddressMap& address_map() const = 0;  // the core's one map
    virtual Semaphores& semaphores() = 0;
    virtual DmaEngines& dma() = 0;
    virtual TlmPort& dram() = 0;
    virtual Recorder* recorder() = 0;
    virtual uint32_t reg(uint32_t index) const = 0;
    virtual const DeviceOptions& options() const = 0;  // skip_unknown, act_exact, timing_only, cancel, ...
    virtual ActSetDirectory act_sets() const = 0;
    virtual WorkBudget& budget() = 0;  // run.max_* limits, charged before work starts
    // The core's host threads (run.host_threads), one pool for all its engines: they run on the
    // one simulation thread, so never two jobs at once, and a pool each would have one engine's
    // idle workers watching for work (WorkerPool::kSpinMicroseconds) on the cores another
    // engine's job needs.
    virtual model::WorkerPool& host_pool() = 0;
    // An error is latched: an engine that was waiting abandons its instruction.
    virtual bool halted() const = 0;
    // Latches the failure; the engine then asks its source for the next instruction as usual
    // (a halted device gives none until it is reset).
    virtual void fail(const EngineFailure& f) = 0;
    // Whether the engine of queue `label` runs (DeviceOptions::queues): one that does not is
    // built without its threads.
    virtual bool runs_queue(const std::string& label) const {
        (void)label;
        return true;
    }
    // Where the engines tell what their instructions read, write, wait for and release, when
    // hazards are looked for (DeviceOptions::hazards); null otherwise.
    virtual model::isa::HazardDetector* hazards() { return nullptr; }
    // The NC-v2 port rules (shared_ports.h) when the generation has them (vector.v2_port_rules);
    // null otherwise.
    virtual SharedPorts* shared_ports() { return nullptr; }
};

// Where an engine's bundles come from: the device's instruction queue in DRAM, or a test's list.
class InstructionSource {
public:
    virtual ~InstructionSource() = default;
    // Waits until a bundle is available and fetches it; `index` counts the stream's bundles
    // from 0. false: no more, ever (the engine thread ends).
    virtual bool next(uint8_t* bundle64, uint64_t& index) = 0;
    // The bundle from next() completed; `halt`: it was a halt, the stream ends here.
    virtual void done(bool halt) = 0;
};

}  // namespace neuronsim::platform
