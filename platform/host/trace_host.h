#pragma once
// The standalone host of `neuronsim run`, built from the device's public pieces like any
// virtual platform: a DRAM TLM memory behind the core's `mem` socket, a loader for the trace's
// .data/.dump/.reg directives, and a host thread that places the function sets, writes each
// engine stream into an instruction queue (a ring in DRAM, refilled as it drains), programs
// the queue registers, rings the doorbells and waits for the interrupt. It runs the
// simulation (the device never does) and reports: stats, deadlocks, errors with their trace
// file and line.
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>

#include "model/isa/address_map.h"
#include "model/trace/trace_reader.h"
#include "neuronsim/neuron_core.h"
#include "platform/tlm/memory.h"
#include "platform/tlm/tlm_port.h"

namespace neuronsim::platform {

struct RunOptions {
    std::string out_dir;  // dumps and recordings (instructions.csv, timeline.json) go here
    // false (the CLI, which has cleared out_dir of its own earlier outputs): a file already at a
    // dump's path is the user's, and the trace is refused rather than overwrite it.
    bool dumps_overwrite = true;
    std::string pwp_dir;  // a pwp_bin_* directory; empty: the built-in catalog's pwp_bin_trainium
    uint32_t queue_entries = 4096;  // bundles per instruction ring in DRAM
    // The core's options, passed on as they are, except: record_dir is out_dir when a recording
    // is on, progress_total the trace's instruction count. device.timing_only also means no
    // dumps. device.cancel, set (by a signal handler), asks the run to stop: run() returns what
    // completed with `interrupted` set (polled between slices of simulated time, and by the
    // engines inside long instructions).
    // device.hazards Warn is taken as Collect: the host reports each hazard itself, by its
    // trace lines (RunReport::hazard_text).
    // device.dma_copies Auto is taken as Background: the host owns the core's DRAM and settles
    // the copies before it touches DRAM itself.
    DeviceOptions device;
};

// The names of `neuronsim run --dma-copies`: background, inline, deferred (an Error naming them
// for any other), and back.
DeviceOptions::DmaCopies dma_copies_named(const std::string& name);
const char* dma_copies_name(DeviceOptions::DmaCopies c);

struct RunReport {
    sc_core::sc_time simulated;  // the device's busy window
    uint64_t instructions = 0;
    double wall_seconds = 0;
    // Host wall time outside wall_seconds: reading the .data values into the memories (files and
    // inline bytes), and writing the dumps.
    double load_seconds = 0, dump_seconds = 0;
    double copy_wait_seconds = 0;  // inside wall_seconds (NeuronCoreDevice::copy_wait_seconds)
    nlohmann::ordered_json stats;
    int interrupted = 0;  // the value *stop had when the run stopped early (0: ran to the end)
    std::vector<std::string> dumps;  // files written under out_dir, relative to it
    // With device.cost_model: the totals per "<engine> <mnemonic>" and the largest divergences.
    nlohmann::ordered_json cost_model;
    std::vector<NeuronCore::Divergence> divergences;
    // The hazards the device found (device.hazards), each also as one line naming its
    // instructions' trace lines ("FILE:LINE").
    std::vector<Hazard> hazards;
    std::vector<std::string> hazard_text;
};

class TraceHost : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(TraceHost);
    // `streams`: engine name -> stream file (<engine>.bin, with <engine>.lines beside it when
    // assembled); `setup`: the directives file (may be empty).
    TraceHost(sc_core::sc_module_name name, const Config& cfg, const std::map<std::string, std::string>& streams, const std::string& setup,
              const RunOptions& options);
    ~TraceHost() override;

    // Runs the simulation to the end and reports; throws Error on a device error (naming the
    // trace line), a deadlock or a failed dump.
    RunReport run();
    NeuronCore& core() { return *core_; }
    // The host's initiator onto the core's mmio (tests poke registers and windows with it).
    TlmPort& mmio() { return mmio_; }

private:
    struct Stream;
    void host();
    void apply(const model::trace::DataDirective& d, const std::string& where);
    void dump(const model::trace::DumpDirective& d);
    void check_not_reserved(const model::isa::Location& l, uint64_t bytes, const std::string& where) const;
    uint32_t rd(uint64_t reg);
    void wr(uint64_t reg, uint32_t value);
    void refill(Stream& s);
    std::string describe_error();
    // "FILE:LINE" of a stream's instruction, from its .lines file; empty without one.
    std::string source_place(const Stream& s, uint64_t index) const;
    // rep.hazards and rep.hazard_text from the device, named by their trace lines.
    void describe_hazards(RunReport& rep) const;
    // The same for many (stream, index) pairs, each stream's file read once.
    std::map<std::pair<std::string, uint64_t>, std::string> source_places(std::vector<std::pair<std::string, uint64_t>> wanted) const;

    Config cfg_;
    RunOptions options_;
    model::isa::AddressMap map_;
    std::unique_ptr<Memory> dram_;
    std::unique_ptr<NeuronCore> core_;
    TlmPort mmio_;
    sc_core::sc_signal<bool> irq_;
    std::vector<std::unique_ptr<Stream>> streams_;
    std::vector<std::pair<uint32_t, uint32_t>> regs_;  // .reg directives
    std::vector<model::trace::DumpDirective> dumps_;
    struct WindowWrite {  // a row of SBUF/PSUM .data, streamed at the start
        uint64_t addr;
        std::shared_ptr<const model::trace::DataDirective> data;
        uint64_t offset, bytes;
        std::string where;
    };
    std::vector<WindowWrite> window_writes_;
    double load_seconds_ = 0;  // reading the DRAM values (the constructor does)
    uint64_t reserved_ = 0;  // DRAM from here up: rings and function sets
    uint64_t sets_base_ = 0;
    uint32_t sets_count_ = 0;
    sc_core::sc_event start_;
    bool done_ = false;
    std::string error_;
};

}  // namespace neuronsim::platform
