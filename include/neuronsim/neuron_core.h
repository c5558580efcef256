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
#include "neuronsim/device_options.h"
#include "neuronsim/registers.h"

namespace neuronsim {

// What a queue's engine is doing (for hosts' reports; the registers give the same).
struct QueueState {
    std::string engine;  // act, pool, dma3, dma3.1
    uint64_t completed = 0;  // instructions completed since reset
    bool busy = false, halted = false;
    bool waiting = false;  // stalled on a semaphore: ...
    uint32_t wait_semaphore = 0;
    std::string wait_condition;  // "semaphore 3 >= 2"
    int32_t semaphore_value = 0;  // the semaphore's value now
    uint64_t current_index = 0;  // the instruction it is on
};

// A hazard the device found (DeviceOptions::hazards; docs/hazards.md): two instructions of
// different queues touching the same bytes, at least one writing, with no semaphore ordering
// them; or an instruction reading bytes that neither an instruction nor the host wrote.
struct Hazard {
    std::string kind;  // "read after write", "write after read", "write after write", "read of unwritten bytes"
    struct Side {
        std::string engine;  // its queue (act, pool, dma.0, ...); empty for the first of an unwritten read
        uint64_t index = 0;  // in its queue, since the last reset
        std::string mnemonic;
        uint64_t issue_ps = 0;
        bool completed = false;  // its end is known:
        uint64_t end_ps = 0;
    };
    Side first, second;  // the earlier access, the one that found it
    std::string memory;  // sbuf, psum, dram
    // The bounding box of the bytes both touch (of an unwritten read: of the unwritten bytes its
    // operands read, all operands together).
    uint32_t partition_first = 0, partition_last = 0;
    uint64_t byte_first = 0, byte_end = 0;  // in each partition (DRAM: the address), [first, end)
    // One line: "read after write: act#2 (activate) reads sbuf partitions 0-127 bytes
    // [0x0, 0x200), which dma.0#0 (dma_copy) writes, and no semaphore orders them ...". A host
    // that knows the trace lines passes them ("FILE:LINE") to name the instructions by them.
    std::string describe(const std::string& first_place = "", const std::string& second_place = "") const;
};

// The device itself, whatever its bus width: every function of the API. Its sockets are those
// of BasicNeuronCore below.
class NeuronCoreDevice : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(NeuronCoreDevice);
    sc_core::sc_out<bool> irq;

    ~NeuronCoreDevice() override;

    const Config& config() const;
    uint32_t num_queues() const;
    // Queue index of a stream name (act, pool, dma<E>, dma<E>.<Q>); throws naming the limits.
    uint32_t queue_index(const std::string& stream) const;
    // The same for a core of configuration `c`, before one is built (DeviceOptions::queues).
    static uint32_t queue_index(const Config& c, const std::string& stream);
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
    // The hazards found so far (empty with DeviceOptions::hazards Off), in the order found.
    std::vector<Hazard> hazards() const;
    // Returns once every DMA copy queued so far has been made (DeviceOptions::dma_copies): a
    // host that reads or writes the core's DRAM itself calls it first, during the simulation
    // and after it. Inline: returns at once.
    void settle_copies();
    // Host seconds the simulation's thread has spent on queued DMA copies it had to see landed
    // (over an access's bytes, or all of them: settle_copies(), a RESET, the end): waiting for
    // the pool's thread to make them, or making them itself. The part of the copies still on
    // the simulation's own path. 0 when each copy is made as its packet moves (Inline, or
    // Background with one host thread); Deferred counts the copies its settles make.
    double copy_wait_seconds() const;

    struct Impl;  // opaque

protected:
    NeuronCoreDevice(sc_core::sc_module_name name, const Config& cfg, const DeviceOptions& options);
    // The `mem` socket of the derived class, whose width the device does not need to know.
    void attach_memory_socket(sc_core::sc_port_b<tlm::tlm_fw_transport_if<>>& mem);
    // The sockets' callbacks.
    void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);
    void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
    unsigned int transport_dbg(tlm::tlm_generic_payload& t);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi);

private:
    std::unique_ptr<Impl> impl_;
    void drive_irq();  // the one process that writes `irq`
};

// The device with base-protocol sockets of the platform's bus width (the width is part of a
// TLM-2.0 socket's type: a 64-bit bus binds only 64-bit sockets). Only the sockets' types
// depend on it; the device transfers the same bytes at any width.
template <unsigned int BUSWIDTH = 32>
class BasicNeuronCore : public NeuronCoreDevice {
public:
    tlm_utils::simple_initiator_socket<BasicNeuronCore, BUSWIDTH> mem;
    tlm_utils::simple_target_socket<BasicNeuronCore, BUSWIDTH> mmio;

    BasicNeuronCore(sc_core::sc_module_name name, const Config& cfg, const DeviceOptions& options = {})
        : NeuronCoreDevice(name, cfg, options), mem("mem"), mmio("mmio") {
        attach_memory_socket(mem);
        mem.register_invalidate_direct_mem_ptr(this, &BasicNeuronCore::invalidate_direct_mem_ptr);
        mmio.register_b_transport(this, &BasicNeuronCore::b_transport);
        mmio.register_transport_dbg(this, &BasicNeuronCore::transport_dbg);
        mmio.register_get_direct_mem_ptr(this, &BasicNeuronCore::get_direct_mem_ptr);
    }
};

using NeuronCore = BasicNeuronCore<32>;
using NeuronCore64 = BasicNeuronCore<64>;

}  // namespace neuronsim
