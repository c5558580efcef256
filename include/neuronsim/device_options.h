#pragma once
// neuronsim's public API: how a NeuronCore (neuron_core.h) runs — recording, numerics, the
// stop flag. One struct: the engines and the recorder read it as the device got it, and a
// host's own options (neuronsim run's RunOptions) hold one.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

namespace neuronsim {

struct DeviceOptions {
    // Per-instruction recording (instructions.csv, timeline.json) into this directory; "" off.
    std::string record_dir;
    bool record_csv = true, record_timeline = true;
    bool cost_model = false;  // instructions.csv gains the public/compiler estimate
    sc_core::sc_time window_start = sc_core::SC_ZERO_TIME, window_end = sc_core::sc_max_time();
    std::string process_name;  // the timeline's process name ("" = the module name)
    bool progress = false;  // a progress bar on stderr over `progress_total` instructions
    uint64_t progress_total = 0;
    bool skip_unknown = false;  // an unmodelled opcode costs run.skip_unknown_cost_ns instead of an error
    bool act_exact = false;  // Activate uses the closed forms instead of the tables
    // SBUF and PSUM start as 0xFF bytes, a NaN in every float type (fp32 0xffffffff, bf16 and
    // fp16 0xffff, fp8 0xff), instead of zero: a kernel that reads what it never wrote gets NaN,
    // as in nki.simulate_kernel, rather than a plausible gelu(0) = 0.
    bool uninitialised_nan = false;
    // Hazards between the engines (docs/hazards.md): reads and writes of the same bytes by two
    // streams that no semaphore orders, and reads of bytes nothing wrote. Off: not looked for.
    // Collect: listed by NeuronCoreDevice::hazards() and counted in the stats. Warn: each one
    // also a warning through SystemC's report handler (message type neuronsim/hazard) when it
    // is found.
    enum class Hazards { Off, Collect, Warn };
    Hazards hazards = Hazards::Warn;
    // Timing only: no element values are read, computed or written and DMA moves no data;
    // times are those of the full run when the memories annotate no delay (neuronsim run's
    // host); a memory that annotates delays per transaction is not asked, so its time is absent.
    bool timing_only = false;
    // Activate evaluates element by element with the table-memory evaluator on one thread (the
    // kernel before the fast path): the oracle of the fast path's tests and the baseline of
    // neuronsim_bench_act. Results are identical either way.
    bool act_reference_kernel = false;
    // VectorE computes every instruction on its reference path (each operand gathered, the
    // element loops of model/dve/vector_ops.h, the results scattered; one thread): the oracle
    // of its fast path's tests. Results are identical either way.
    bool dve_reference_kernel = false;
    // When it points at a non-zero value (a host's Ctrl-C handler sets it), the engines abandon
    // the instruction in progress within a few milliseconds of wall time and run nothing more:
    // an instruction of many seconds of host work does not delay the host's stop. The host
    // then ends the simulation; the device is not usable afterwards.
    const std::atomic<int>* cancel = nullptr;
    // The instruction queues a host will ring, by stream name (act, pool, dma3, dma3.1, dma.0;
    // as queue_index() takes them); empty: every queue. The others keep their registers and
    // stats but get no engine threads, and a doorbell on one is refused (REFUSED_WRITE_*): a
    // core of 16 DMA engines has 274 queues, and creating their 548 threads costs a short run
    // more than simulating it (neuronsim run names its streams here).
    std::vector<std::string> queues;
    // The DMA's copies (docs/timing-model.md, "DMA copies on the host"). Inline: each copy is
    // made when its rows move, on the simulation thread. Background: copies between DMI regions
    // are queued then and made on a host thread of the core's pool (run.host_threads; with one,
    // at once) while the simulation goes on; everything of the core that reads or writes a
    // memory waits first for the queued copies over its bytes, so results are the same bytes.
    // Deferred: queued copies are made only when something needs their bytes (a check that
    // every access waits: one that did not would read stale bytes every time). Background and
    // Deferred are for a host that owns the core's DRAM: nothing else may read or write it
    // while the simulation runs without calling NeuronCoreDevice::settle_copies() first, and
    // DRAM must outlive the core; the SBUF/PSUM windows then grant no DMI (their transactions
    // wait themselves). Auto: Inline,
    // except under neuronsim run's host (TraceHost), which owns its DRAM: Background.
    enum class DmaCopies { Auto, Inline, Background, Deferred };
    DmaCopies dma_copies = DmaCopies::Auto;
};

}  // namespace neuronsim
