#pragma once
// neuronsim's public API: one NeuronCore of a configured generation as a SystemC/TLM-2.0
// device for a virtual platform (docs/vp-integration.md). It holds the ACT engine with its
// table memory, the GPSIMD (POOL) engine, the DMA engines, SBUF, PSUM and the semaphores.
//   mem   initiator socket: everything the core reads or writes in DRAM (instruction fetch,
//         DMA, LoadActFuncSet); annotated delays are charged, DMI is used when granted.
//   mmio  target socket: the registers of registers.h (queues, doorbells, status, errors,
//         interrupts, semaphores) and windows onto SBUF, PSUM and the ACT table memory.
//   irq   raised while (IRQ_STATUS & IRQ_MASK) != 0.
// The device never stops the simulation, never exits and never changes SystemC's report
// settings: a failing instruction latches the error registers, raises irq and halts the core.
// Several instances, of any generations, share nothing. Includes only SystemC/TLM and the
// standard library besides other public headers.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "neuronsim/config.h"
#include "neuronsim/registers.h"

namespace neuronsim {

struct DeviceOptions {
    // Per-instruction recording (instructions.csv, timeline.json) into this directory; "" off.
    std::string record_dir;
    bool record_csv = true, record_timeline = true;
    bool cost_model = false;          // instructions.csv gains the public/compiler estimate
    sc_core::sc_time window_start = sc_core::SC_ZERO_TIME, window_end = sc_core::sc_max_time();
    std::string process_name;         // the timeline's process name ("" = the module name)
    bool progress = false;            // a progress bar on stderr over `progress_total` instructions
    uint64_t progress_total = 0;
    bool skip_unknown = false;        // an unmodelled opcode costs run.skip_unknown_cost_ns instead of an error
    bool act_exact = false;           // Activate uses the closed forms instead of the tables
    // Timing only: no element values are read, computed or written and DMA moves no data;
    // times are those of the full run when the memories annotate no delay (neuronsim run's
    // host); a memory that annotates delays per transaction is not asked, so its time is absent.
    bool timing_only = false;
    // Activate evaluates element by element with the table-memory evaluator on one thread (the
    // kernel before the fast path): the oracle of the fast path's tests and the baseline of
    // neuronsim_bench_act. Results are identical either way.
    bool act_reference_kernel = false;
    // When it points at a non-zero value (a host's Ctrl-C handler sets it), the engines abandon
    // the instruction in progress within a few milliseconds of wall time and run nothing more:
    // an instruction of many seconds of host work does not delay the host's stop. The host
    // then ends the simulation; the device is not usable afterwards.
    const std::atomic<int>* cancel = nullptr;
};

// What a queue's engine is doing (for hosts' reports; the registers give the same).
struct QueueState {
    std::string engine;               // act, pool, dma3, dma3.1
    uint64_t completed = 0;           // instructions completed since reset
    bool busy = false, halted = false;
    bool waiting = false;             // stalled on a semaphore: ...
    uint32_t wait_semaphore = 0;
    std::string wait_condition;       // "semaphore 3 >= 2"
    int32_t semaphore_value = 0;      // the semaphore's value now
    uint64_t current_index = 0;       // the instruction it is on
};

class NeuronCore : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(NeuronCore);
    tlm_utils::simple_initiator_socket<NeuronCore> mem;
    tlm_utils::simple_target_socket<NeuronCore> mmio;
    sc_core::sc_out<bool> irq;

    NeuronCore(sc_core::sc_module_name name, const Config& cfg, const DeviceOptions& options = {});
    ~NeuronCore() override;

    const Config& config() const;
    uint32_t num_queues() const;
    // Queue index of a stream name (act, pool, dma<E>, dma<E>.<Q>); throws naming the limits.
    uint32_t queue_index(const std::string& stream) const;
    std::string queue_name(uint32_t queue) const;
    std::vector<QueueState> queue_states() const;

    // The device's statistics as JSON text: busy window (first doorbell to last completion),
    // engines, DMA, memory port, table loads.
    std::string stats_json() const;
    // --cost-model totals per "<engine> <mnemonic>" as JSON text.
    std::string cost_model_json() const;
    struct Divergence {
        std::string instruction, mnemonic, source, formula;
        double simulated_ns = 0, model_ns = 0;
        std::string why;  // which of neuronsim's rules the formula leaves out
    };
    std::vector<Divergence> top_divergences() const;
    // Names the trace lines of a queue's instructions in its records (an <engine>.lines file
    // beside an assembled stream: "# source FILE", then one line number per bundle).
    void set_source_lines(const std::string& stream, const std::string& lines_path);
    // Closes the recording; throws naming the file when a write failed. Idempotent.
    void finish_recording();
    uint64_t instructions_completed() const;

    struct Impl;  // opaque

private:
    std::unique_ptr<Impl> impl_;

    void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);
    void drive_irq();  // the one process that writes `irq`
    void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
    unsigned int transport_dbg(tlm::tlm_generic_payload& t);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi);
};

}  // namespace neuronsim
