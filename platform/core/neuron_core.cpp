// neuronsim::NeuronCore (include/neuronsim/neuron_core.h): the core's components, its
// instruction queues in DRAM, the register map of registers.h and the error/interrupt logic.
#include "neuronsim/neuron_core.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <unordered_set>

#include "model/common/error.h"
#include "model/common/log.h"
#include "model/common/worker_pool.h"
#include "model/fp/bits.h"
#include "model/isa/address_map.h"
#include "model/isa/opcodes.h"
#include "neuronsim/version.h"
#include "platform/act/act_tables.h"
#include "platform/core/derived_stats.h"
#include "platform/core/engine.h"
#include "platform/core/hazard_report.h"
#include "platform/core/semaphores.h"
#include "platform/core/shared_ports.h"
#include "platform/core/stats.h"
#include "platform/core/work_budget.h"
#include "platform/dma/dma_engines.h"
#include "platform/record/recorder.h"
#include "platform/tlm/memory.h"
#include "platform/tlm/systemc_log.h"
#include "platform/tlm/tlm_port.h"
#include "stats/stat_records.h"

namespace neuronsim {

using namespace platform;
using model::isa::MemSpace;

namespace {
constexpr uint64_t kBundle = 64;
constexpr uint32_t kMaxQueueEntries = 1u << 24;  // registers.h: SIZE is 2..2^24
uint32_t lo32(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t hi32(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
}  // namespace

// One instruction queue: a ring of 64-byte bundles in DRAM, fed by the host through the
// queue registers; the engine of the queue fetches from it.
struct Queue : InstructionSource {
    NeuronCoreDevice::Impl& dev;
    uint32_t index;
    std::string label;
    uint64_t base = 0;
    uint32_t size = 0, head = 0, tail = 0;
    std::deque<std::pair<sc_core::sc_time, uint32_t>> pending;  // doorbells annotated into the future
    bool halted = false;
    uint64_t fetched = 0, completed = 0, rung = 0;  // bundles fetched, retired, doorbelled (since reset)
    // When the bundles up to a count `rung` became fetchable: device.instruction_fetch_ns after
    // their doorbell took effect (the sequencer prefetches from then on).
    std::deque<std::pair<sc_core::sc_time, uint64_t>> fetchable;
    sc_core::sc_event doorbell;
    Engine* engine = nullptr;

    Queue(NeuronCoreDevice::Impl& d, uint32_t q, std::string l) : dev(d), index(q), label(std::move(l)) {}
    bool busy() const { return head != tail || !pending.empty() || (engine && engine->busy()); }
    bool next(uint8_t* bundle, uint64_t& index) override;
    bool fetch(uint8_t* bundle);  // the bundle at head; false: an error latched or a RESET came
    void done(bool halt) override;
    // A doorbell takes effect at `at`: the bundles up to `new_tail` can be fetched.
    void set_tail(uint32_t new_tail, const sc_core::sc_time& at);
};

struct NeuronCoreDevice::Impl : EngineContext {
    NeuronCoreDevice& self;
    Config cfg;
    DeviceOptions opt;
    model::isa::AddressMap map;
    TlmPort mem_port;
    std::unique_ptr<Recorder> recorder_;
    std::unique_ptr<Memory> sbuf, psum;
    std::unique_ptr<Semaphores> sem;
    std::unique_ptr<model::isa::HazardDetector> hz;  // DeviceOptions::hazards
    WorkBudget work;
    std::unique_ptr<model::WorkerPool> pool;  // before the engines that use it: destroyed after them
    std::unique_ptr<DmaEngines> dma_;
    std::vector<std::unique_ptr<Queue>> queues;
    std::vector<std::unique_ptr<Engine>> engines;  // in stats order
    ActTables* tables = nullptr;  // the ACT engine's, behind the tables window
    std::unique_ptr<TlmPort> sbuf_window, psum_window, tables_window;

    uint32_t regs[256] = {};
    uint32_t irq_status = 0, irq_mask = 0;
    uint32_t error_code = reg::kErrorNone, error_queue = 0, error_opcode = 0;
    uint64_t error_index = 0;
    std::string error_message;
    uint32_t refused_writes = 0, refused_address = 0, refused_value = 0;
    std::string refused_message;
    bool halted_ = false;
    uint64_t epoch = 0;  // RESETs so far: what a fetch or an engine began before one is dropped
    sc_core::sc_event reset_event;
    ActSetDirectory sets;
    std::vector<uint32_t> drained;
    bool started = false;
    sc_core::sc_time first_doorbell = sc_core::SC_ZERO_TIME, last_completion = sc_core::SC_ZERO_TIME;

    Impl(NeuronCoreDevice& s, const Config& c, const DeviceOptions& o);

    // EngineContext
    const Config& config() const override { return cfg; }
    const model::isa::AddressMap& address_map() const override { return map; }
    Semaphores& semaphores() override { return *sem; }
    DmaEngines& dma() override { return *dma_; }
    TlmPort& dram() override { return mem_port; }
    Recorder* recorder() override { return recorder_.get(); }
    uint32_t reg(uint32_t i) const override { return regs[i & 0xFF]; }
    const DeviceOptions& options() const override { return opt; }
    ActSetDirectory act_sets() const override { return sets; }
    WorkBudget& budget() override { return work; }
    model::WorkerPool& host_pool() override { return *pool; }
    bool halted() const override { return halted_; }
    void fail(const EngineFailure& f) override { latch(reg::kErrorInstruction, engine_queue(f.engine), f.index, f.opcode, f.summary()); }
    bool runs_queue(const std::string& label) const override { return opt.queues.empty() || running.count(label); }
    model::isa::HazardDetector* hazards() override { return hz.get(); }
    SharedPorts ports;
    SharedPorts* shared_ports() override { return cfg.vector.v2_port_rules ? &ports : nullptr; }
    // The host wrote SBUF/PSUM bytes through window `w` at `off` (a window is the memory's
    // partitions one after another): they count as written.
    void host_wrote(TlmPort* w, uint64_t off, uint64_t len) {
        const Memory* m = w == sbuf_window.get() ? sbuf.get() : w == psum_window.get() ? psum.get() : nullptr;
        if (!hz || !m || !len) return;
        const uint64_t per = m->size() / cfg.memory.partitions;
        const model::isa::MemSpace space = m == sbuf.get() ? model::isa::MemSpace::Sbuf : model::isa::MemSpace::Psum;
        for (uint64_t at = off; at < off + len;) {
            const uint64_t p = at / per, in = at % per, n = std::min(off + len - at, per - in);
            hz->host_wrote({space, static_cast<uint32_t>(p), static_cast<uint32_t>(p + 1), static_cast<int64_t>(in), static_cast<int64_t>(in + n)});
            at += n;
        }
    }
    std::unordered_set<std::string> running;  // the labels of DeviceOptions::queues

    uint32_t engine_queue(const std::string& label) const {
        for (const auto& q : queues)
            if (q->label == label) return q->index;
        return 0;
    }
    void latch(uint32_t code, uint32_t queue, uint64_t index, uint32_t opcode, const std::string& message) {
        if (error_code != reg::kErrorNone) return;  // the first error stays
        error_code = code;
        error_queue = queue;
        error_index = index;
        error_opcode = opcode;
        error_message = message.size() < reg::kErrorMessageBytes ? message : message.substr(0, reg::kErrorMessageBytes - 4) + "...";
        halted_ = true;
        raise(reg::kIrqError);
    }
    // A register write refused: the REFUSED_WRITE_* registers say which and why.
    void refuse(uint64_t address, uint32_t value, const std::string& why) {
        ++refused_writes;
        refused_address = static_cast<uint32_t>(address);
        refused_value = value;
        refused_message = why.size() < reg::kRefusedWriteMessageBytes ? why : why.substr(0, reg::kRefusedWriteMessageBytes - 4) + "...";
    }
    void raise(uint32_t bits) {
        irq_status |= bits;
        update_irq();
    }
    sc_core::sc_event irq_changed;
    void update_irq() { irq_changed.notify(sc_core::SC_ZERO_TIME); }
    void mark_drained(uint32_t q) {
        drained[q / 32] |= 1u << (q % 32);
        last_completion = sc_core::sc_time_stamp();
        raise(reg::kIrqDrained);
    }
    // CONTROL.RESET (docs/vp-integration.md, "Reset"): at once, every queue is empty and idle
    // and every instruction fetched, waiting, executing or with its DMA in flight is
    // abandoned; the memories and the semaphores keep their contents.
    void reset() {
        ++epoch;
        ports.reset();  // what was in flight is gone
        if (hz) hz->reset();
        for (auto& e : engines) e->reset_state();
        dma_->reset();
        error_code = reg::kErrorNone;
        error_message.clear();
        refused_writes = refused_address = refused_value = 0;
        refused_message.clear();
        halted_ = false;
        for (auto& q : queues) {
            q->head = q->tail = 0;
            q->pending.clear();
            q->fetchable.clear();
            q->halted = false;
            q->fetched = q->completed = q->rung = 0;  // indices and DONE count from the reset
        }
        std::fill(drained.begin(), drained.end(), 0);
        irq_status = 0;
        update_irq();
        reset_event.notify(sc_core::SC_ZERO_TIME);
    }

    // Registers: false when the address is not a register (or not writable).
    bool read_reg(uint64_t a, uint32_t& v) const;
    bool write_reg(uint64_t a, uint32_t v, const sc_core::sc_time& delay, std::string& why);
    TlmPort* window(uint64_t addr, uint64_t len, uint64_t& offset) const;
    // The queued copies over [offset, +len) of window `w` land first (the host's access sees
    // them; the table memory's window has none).
    void settle_window(TlmPort* w, uint64_t offset, uint64_t len) const;
    // The bytes of SBUF or PSUM a DMI grant over window `w` covers; 0 where there is no DMI
    // (the table memory's window, or a memory behind it that grants none).
    uint64_t dmi_window_size(TlmPort* w) const {
        if (dma_->copies().queuing()) return 0;  // (a pointer would read past the copies queued)
        const uint64_t size = w == sbuf_window.get() ? sbuf->size() : w == psum_window.get() ? psum->size() : 0;
        return size && w->direct(0, size) ? size : 0;
    }
    bool in_text(uint64_t addr, uint64_t len, std::string& text) const;
    void doorbell(Queue& q, uint32_t tail, const sc_core::sc_time& delay);
};

void Queue::set_tail(uint32_t new_tail, const sc_core::sc_time& at) {
    const uint32_t added = size ? (new_tail + size - tail) % size : 0;
    tail = new_tail;
    if (!added) return;
    rung += added;
    fetchable.push_back({at + sc_core::sc_time(dev.cfg.device.instruction_fetch_ns, sc_core::SC_NS), rung});
}

bool Queue::next(uint8_t* bundle, uint64_t& idx) {
    for (;;) {
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        // Doorbells whose annotated time has come take effect.
        while (!pending.empty() && pending.front().first <= now) {
            set_tail(pending.front().second, pending.front().first);
            pending.pop_front();
        }
        const bool runnable = !dev.halted_ && !halted;
        if (runnable && head != tail) {
            // The next bundle is fetched device.instruction_fetch_ns after its doorbell.
            while (!fetchable.empty() && fetchable.front().second <= fetched) fetchable.pop_front();
            const sc_core::sc_time ready = fetchable.empty() ? now : fetchable.front().first;
            if (ready <= now && fetch(bundle)) break;
            if (ready > now) sc_core::wait(ready - now, doorbell | dev.reset_event);
            continue;
        }
        if (!pending.empty() && runnable) sc_core::wait(pending.front().first - now, doorbell | dev.reset_event);
        else sc_core::wait(doorbell | dev.reset_event);
    }
    head = (head + 1) % size;
    idx = fetched++;
    return true;
}

bool Queue::fetch(uint8_t* bundle) {
    const uint64_t epoch = dev.epoch;
    const uint64_t at = base + uint64_t{head} * kBundle;
    try {
        // A memory that annotates a delay makes the engine wait for it.
        dev.dma_->copies().settle_dram(at, kBundle);
        const sc_core::sc_time annotated = dev.mem_port.read(at, bundle, kBundle);
        const sc_core::sc_time until = after_now(annotated, "the bundle's annotated delay");
        while (sc_core::sc_time_stamp() < until && dev.epoch == epoch) sc_core::wait(until - sc_core::sc_time_stamp(), dev.reset_event);
    } catch (const Error& e) {
        if (dev.epoch == epoch)
            dev.latch(reg::kErrorFetch, index, fetched, 0, "queue " + label + ": instruction fetch at DRAM " + model::fp::hex(at) + ": " + e.what());
        return false;  // halted: next() waits for a reset
    }
    // A RESET during the fetch (the memory may wait inside its transport): the bundle belongs
    // to the ring of before and is dropped.
    return dev.epoch == epoch;
}

void Queue::done(bool halt) {
    ++completed;
    dev.last_completion = sc_core::sc_time_stamp();
    if (halt) halted = true;
    // Drained: every bundle doorbelled has been fetched and has retired.
    if (halted || (head == tail && pending.empty() && completed == fetched)) dev.mark_drained(index);
}

// The queue a stream name rings: 0 act, 1 pool, then each engine's DMA queues, then the spread
// ones, then dve and pe (last, so that the earlier queues keep their numbers).
uint32_t NeuronCoreDevice::queue_index(const Config& c, const std::string& stream) {
    const model::isa::StreamName n = model::isa::parse_stream_name(stream);
    if (n.cls == model::isa::kOnAct) return 0;
    if (n.cls == model::isa::kOnPool) return 1;
    if (n.cls == model::isa::kOnDve) return 2 + (c.dma.engines + 1) * c.dma.queues_per_engine;
    if (n.cls == model::isa::kOnPe) return 3 + (c.dma.engines + 1) * c.dma.queues_per_engine;
    if (n.cls == model::isa::kOnDma) {
        if (n.spread) {
            if (n.dma_queue >= c.dma.queues_per_engine)
                throw Error("stream " + stream + " names DMA queue " + std::to_string(n.dma_queue) + ", but " + c.generation.name + "'s engines have " +
                            std::to_string(c.dma.queues_per_engine) + " queues");
            return 2 + c.dma.engines * c.dma.queues_per_engine + n.dma_queue;
        }
        if (n.dma_engine >= c.dma.engines || n.dma_queue >= c.dma.queues_per_engine)
            throw Error("stream " + stream + " names DMA engine " + std::to_string(n.dma_engine) + " queue " + std::to_string(n.dma_queue) + ", but " +
                        c.generation.name + " has " + std::to_string(c.dma.engines) + " engines x " + std::to_string(c.dma.queues_per_engine) + " queues");
        return 2 + n.dma_engine * c.dma.queues_per_engine + n.dma_queue;
    }
    throw Error("'" + stream + "' is not a stream name (act, pool, dve, pe, dma<E>, dma<E>.<Q>, dma, dma.<Q>)");
}

NeuronCoreDevice::Impl::Impl(NeuronCoreDevice& s, const Config& c, const DeviceOptions& o)
    : self(s), cfg(c), opt(o), map(c.memory), mem_port("DRAM"), work(c.run) {
    if (!o.record_dir.empty() || o.progress || o.cost_model)
        recorder_ = std::make_unique<Recorder>(o, o.process_name.empty() ? std::string(s.name()) : o.process_name);
    const uint64_t sbuf_bytes = uint64_t{cfg.memory.partitions} * cfg.memory.sbuf_bytes_per_partition;
    const uint64_t psum_bytes = uint64_t{cfg.memory.partitions} * cfg.memory.psum_bytes_per_partition();
    if (sbuf_bytes > reg::kMmioSize - reg::kSbufWindow || psum_bytes > reg::kSbufWindow - reg::kPsumWindow)
        throw Error(cfg.source + ": SBUF or PSUM is larger than its mmio window");
    sbuf = std::make_unique<Memory>("sbuf", sbuf_bytes, cfg.memory.partitions);
    psum = std::make_unique<Memory>("psum", psum_bytes, cfg.memory.partitions);
    if (o.uninitialised_nan) {
        sbuf->fill(0xff);
        psum->fill(0xff);
    }
    sem = std::make_unique<Semaphores>("semaphores", cfg.semaphores, cfg.sync.semaphore_latency_ns);
    if (o.hazards != DeviceOptions::Hazards::Off) {
        hz = std::make_unique<model::isa::HazardDetector>();
        sem->set_hazard_detector(hz.get());
        if (o.hazards == DeviceOptions::Hazards::Warn)
            hz->on_found = [this](const model::isa::HazardDetector::Hazard& h) {
                model::log(model::LogLevel::Warning, "hazard", public_hazard(*hz, h).describe());
            };
    }
    pool = std::make_unique<model::WorkerPool>(cfg.run.host_threads);
    const CopiesInFlight::Mode copies = o.dma_copies == DeviceOptions::DmaCopies::Background ? CopiesInFlight::Mode::Background
                                        : o.dma_copies == DeviceOptions::DmaCopies::Deferred ? CopiesInFlight::Mode::Deferred
                                                                                             : CopiesInFlight::Mode::Inline;
    dma_ = std::make_unique<DmaEngines>("dma", cfg, map, mem_port, recorder_.get(), *pool, copies, &work, o.timing_only, o.cancel);
    dma_->sbuf.socket().bind(sbuf->socket);
    dma_->psum.socket().bind(psum->socket);
    // One queue and one engine per stream the core can run: ACT, POOL, every DMA queue, VectorE, TensorE.
    std::vector<std::pair<std::string, uint32_t>> labels = {{"act", 0}, {"pool", 1}};
    for (uint32_t e = 0; e < cfg.dma.engines; ++e)
        for (uint32_t q = 0; q < cfg.dma.queues_per_engine; ++q)
            labels.push_back({"dma" + std::to_string(e) + (q ? "." + std::to_string(q) : ""), 2 + e * cfg.dma.queues_per_engine + q});
    for (uint32_t q = 0; q < cfg.dma.queues_per_engine; ++q)  // spread over the engines
        labels.push_back({"dma." + std::to_string(q), 2 + cfg.dma.engines * cfg.dma.queues_per_engine + q});
    labels.push_back({"dve", NeuronCoreDevice::queue_index(cfg, "dve")});
    labels.push_back({"pe", NeuronCoreDevice::queue_index(cfg, "pe")});
    queues.resize(labels.size());
    for (const auto& [label, q] : labels) queues[q] = std::make_unique<Queue>(*this, q, label);
    for (const std::string& name : o.queues) {
        try {
            running.insert(queues[NeuronCoreDevice::queue_index(cfg, name)]->label);
        } catch (const Error& e) {
            throw Error("DeviceOptions::queues: " + std::string(e.what()));
        }
    }
    drained.assign((queues.size() + 31) / 32, 0);
    std::sort(labels.begin(), labels.end());  // stats in name order: act, dma0, dma0.1, ..., pool
    for (const auto& [label, q] : labels) {
        const model::isa::StreamName n = model::isa::parse_stream_name(label);
        // A DMA queue no doorbell reaches has no engine at all (an idle one reports nothing);
        // ACT, POOL, VectorE and TensorE always exist (the table memory and ACT's and POOL's
        // stats are the core's; VectorE and TensorE report only when they ran).
        if (n.cls == model::isa::kOnDma && !runs_queue(label)) continue;
        EngineSpec spec{label, n.spread ? -1 : static_cast<int>(n.dma_engine), n.dma_queue};
        engines.push_back(make_engine(n.cls, spec, *this, *queues[q]));
        queues[q]->engine = engines.back().get();
        CoreMemories mems{*sbuf, *psum, *dma_};
        engines.back()->bind(mems);
        if (ActTables* t = engines.back()->table_memory()) tables = t;
    }
    if (!tables) throw Error(cfg.source + ": no engine of the core has the ACT table memory");
    sbuf_window = std::make_unique<TlmPort>("sbuf_window", "SBUF");
    psum_window = std::make_unique<TlmPort>("psum_window", "PSUM");
    tables_window = std::make_unique<TlmPort>("act_tables_window", "the ACT table memory");
    sbuf_window->socket().bind(sbuf->socket);
    psum_window->socket().bind(psum->socket);
    tables_window->socket().bind(tables->socket);
}

bool NeuronCoreDevice::Impl::read_reg(uint64_t a, uint32_t& v) const {
    if (a >= reg::kQueues && a < reg::kQueues + queues.size() * reg::kQueueStride) {
        const Queue& q = *queues[(a - reg::kQueues) / reg::kQueueStride];
        switch ((a - reg::kQueues) % reg::kQueueStride) {
            case reg::kQueueBaseLo: v = lo32(q.base); return true;
            case reg::kQueueBaseHi: v = hi32(q.base); return true;
            case reg::kQueueSize: v = q.size; return true;
            case reg::kQueueHead: v = q.head; return true;
            case reg::kQueueTail: v = q.pending.empty() ? q.tail : q.pending.back().second; return true;
            case reg::kQueueStatus:
                v = (q.busy() ? reg::kQueueBusy : 0) | (q.engine && q.engine->waiting() ? reg::kQueueWaiting : 0) | (q.halted ? reg::kQueueHalted : 0);
                return true;
            case reg::kQueueDoneLo: v = lo32(q.completed); return true;
            case reg::kQueueDoneHi: v = hi32(q.completed); return true;
        }
        return false;
    }
    if (a >= reg::kSemaphores && a < reg::kSemaphores + 4ull * cfg.semaphores) {
        v = static_cast<uint32_t>(sem->latest(static_cast<uint32_t>((a - reg::kSemaphores) / 4)));
        return true;
    }
    if (a >= reg::kRegisters && a < reg::kRegisters + 4 * 256) {
        v = regs[(a - reg::kRegisters) / 4];
        return true;
    }
    if (a >= reg::kDrained && a < reg::kDrained + 4 * drained.size()) {
        v = drained[(a - reg::kDrained) / 4];
        return true;
    }
    switch (a) {
        case reg::kMagic: v = reg::kMagicValue; return true;
        case reg::kVersion: v = NEURONSIM_VERSION_NUMBER; return true;
        case reg::kNcVersion: v = static_cast<uint32_t>(cfg.generation.nc_version); return true;
        case reg::kNumQueues: v = static_cast<uint32_t>(queues.size()); return true;
        case reg::kStatus: {
            bool busy = false;
            for (const auto& q : queues) busy = busy || q->busy();
            v = (busy ? reg::kStatusBusy : 0) | (error_code != reg::kErrorNone ? reg::kStatusError : 0);
            return true;
        }
        case reg::kControl: v = 0; return true;
        case reg::kIrqStatus: v = irq_status; return true;
        case reg::kIrqMask: v = irq_mask; return true;
        case reg::kErrorCode: v = error_code; return true;
        case reg::kErrorQueue: v = error_queue; return true;
        case reg::kErrorIndexLo: v = lo32(error_index); return true;
        case reg::kErrorIndexHi: v = hi32(error_index); return true;
        case reg::kErrorOpcode: v = error_opcode; return true;
        case reg::kErrorMessageLength: v = static_cast<uint32_t>(error_message.size()); return true;
        case reg::kRefusedWrites: v = refused_writes; return true;
        case reg::kRefusedWriteAddress: v = refused_address; return true;
        case reg::kRefusedWriteValue: v = refused_value; return true;
        case reg::kRefusedWriteMessageLength: v = static_cast<uint32_t>(refused_message.size()); return true;
        case reg::kActSetsBaseLo: v = lo32(sets.base); return true;
        case reg::kActSetsBaseHi: v = hi32(sets.base); return true;
        case reg::kActSetsCount: v = sets.count; return true;
    }
    return false;
}

void NeuronCoreDevice::Impl::doorbell(Queue& q, uint32_t tail, const sc_core::sc_time& delay) {
    const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
    if (!started || at < first_doorbell) first_doorbell = at;
    started = true;
    drained[q.index / 32] &= ~(1u << (q.index % 32));  // it has work again
    if (delay == sc_core::SC_ZERO_TIME && q.pending.empty()) q.set_tail(tail, at);
    else q.pending.push_back({at, tail});
    q.doorbell.notify(delay);
}

bool NeuronCoreDevice::Impl::write_reg(uint64_t a, uint32_t v, const sc_core::sc_time& delay, std::string& why) {
    if (a >= reg::kQueues && a < reg::kQueues + queues.size() * reg::kQueueStride) {
        Queue& q = *queues[(a - reg::kQueues) / reg::kQueueStride];
        const uint64_t field = (a - reg::kQueues) % reg::kQueueStride;
        if (field != reg::kQueueTail && q.busy()) {
            why = "queue " + q.label + " is busy: BASE and SIZE change only while it is idle";
            return false;
        }
        switch (field) {
            case reg::kQueueBaseLo:
                if (v % kBundle) {
                    why = "queue " + q.label + ": BASE " + model::fp::hex(v) + " is not 64-byte aligned";
                    return false;
                }
                q.base = (q.base & ~uint64_t{0xFFFFFFFF}) | v;
                return true;
            case reg::kQueueBaseHi: q.base = (q.base & 0xFFFFFFFF) | uint64_t{v} << 32; return true;
            case reg::kQueueSize:
                if (v < 2 || v > kMaxQueueEntries) {
                    why = "queue " + q.label + ": SIZE " + std::to_string(v) + " is outside 2.." + std::to_string(kMaxQueueEntries);
                    return false;
                }
                q.size = v, q.head = q.tail = 0;
                return true;
            case reg::kQueueTail:
                if (!runs_queue(q.label)) {
                    why = "queue " + q.label + " does not run on this device: DeviceOptions::queues leaves it out";
                    return false;
                }
                if (q.size == 0) {
                    why = "queue " + q.label + ": TAIL written before the ring: program BASE and SIZE first";
                    return false;
                }
                if (v >= q.size) {
                    why = "queue " + q.label + ": TAIL " + std::to_string(v) + " is not below SIZE " + std::to_string(q.size);
                    return false;
                }
                if (delay >= sc_core::sc_max_time() - sc_core::sc_time_stamp()) {  // (at the maximum: never)
                    why = "queue " + q.label + ": the doorbell's annotated delay " + delay.to_string() + " passes the end of simulated time";
                    return false;
                }
                doorbell(q, v, delay);
                return true;
        }
        why = "queue " + q.label + ": " + model::fp::hex(a) + " is a read-only queue register";
        return false;
    }
    if (a >= reg::kSemaphores && a < reg::kSemaphores + 4ull * cfg.semaphores) {
        model::isa::Events e;
        e.update = model::isa::UpdateMode::Set;
        e.update_idx = static_cast<uint8_t>((a - reg::kSemaphores) / 4);
        e.value = v;
        sem->update(e, nullptr, 0, true);
        return true;
    }
    if (a >= reg::kRegisters && a < reg::kRegisters + 4 * 256) {
        regs[(a - reg::kRegisters) / 4] = v;
        return true;
    }
    if (a >= reg::kDrained && a < reg::kDrained + 4 * drained.size()) {
        drained[(a - reg::kDrained) / 4] &= ~v;
        return true;
    }
    switch (a) {
        case reg::kControl:
            if (v & reg::kControlReset) reset();
            return true;
        case reg::kIrqStatus:
            irq_status &= ~v;
            update_irq();
            return true;
        case reg::kIrqMask:
            irq_mask = v;
            update_irq();
            return true;
        case reg::kActSetsBaseLo: sets.base = (sets.base & ~uint64_t{0xFFFFFFFF}) | v; return true;
        case reg::kActSetsBaseHi: sets.base = (sets.base & 0xFFFFFFFF) | uint64_t{v} << 32; return true;
        case reg::kActSetsCount: sets.count = v; return true;
    }
    why = model::fp::hex(a) + " is a read-only register";
    return false;
}

TlmPort* NeuronCoreDevice::Impl::window(uint64_t addr, uint64_t len, uint64_t& offset) const {
    struct W {
        uint64_t base, size;
        TlmPort* port;
    };
    const W ws[3] = {{reg::kSbufWindow, sbuf->size(), sbuf_window.get()},
                     {reg::kPsumWindow, psum->size(), psum_window.get()},
                     {reg::kActTablesWindow, tables->size(), tables_window.get()}};
    for (const W& w : ws)
        if (addr >= w.base && addr - w.base < w.size) {
            if (len > w.size - (addr - w.base)) return nullptr;
            offset = addr - w.base;
            settle_window(w.port, offset, len);
            return w.port;
        }
    return nullptr;
}

void NeuronCoreDevice::Impl::settle_window(TlmPort* w, uint64_t offset, uint64_t len) const {
    if (w != sbuf_window.get() && w != psum_window.get()) return;
    const bool in_sbuf = w == sbuf_window.get();
    const uint64_t per = in_sbuf ? cfg.memory.sbuf_bytes_per_partition : cfg.memory.psum_bytes_per_partition();
    const uint64_t first = offset / per, last = (offset + std::max<uint64_t>(len, 1) - 1) / per;
    // (one partition: its bytes; more: every byte of those partitions, a bounding box)
    const int64_t lo = first == last ? static_cast<int64_t>(offset % per) : 0;
    const int64_t hi = first == last ? static_cast<int64_t>(offset % per + std::max<uint64_t>(len, 1)) : static_cast<int64_t>(per);
    const std::vector<model::isa::Region> r{
        {in_sbuf ? model::isa::MemSpace::Sbuf : model::isa::MemSpace::Psum, static_cast<uint32_t>(first), static_cast<uint32_t>(last + 1), lo, hi}};
    dma_->copies().settle(r, r);
}

// The text areas (generation name, error message) read with any size.
bool NeuronCoreDevice::Impl::in_text(uint64_t addr, uint64_t len, std::string& text) const {
    auto area = [&](uint64_t base, uint64_t size, const std::string& s) {
        if (addr < base || addr - base >= size || len > size - (addr - base)) return false;
        std::string padded = s;
        padded.resize(size, '\0');
        text = padded.substr(addr - base, len);
        return true;
    };
    return area(reg::kGenerationName, 16, cfg.generation.name) || area(reg::kErrorMessage, reg::kErrorMessageBytes, error_message) ||
           area(reg::kRefusedWriteMessage, reg::kRefusedWriteMessageBytes, refused_message);
}

NeuronCoreDevice::NeuronCoreDevice(sc_core::sc_module_name name, const Config& cfg, const DeviceOptions& options) : sc_core::sc_module(name), irq("irq") {
    log_through_systemc_unless_routed();
    // The SystemC library loaded must be the one neuronsim was compiled against: its classes'
    // layouts are compiled into the device (docs/vp-integration.md, "SystemC and ABI").
    if (std::string(sc_core::sc_release()) != SC_VERSION)
        throw Error(std::string("neuronsim was built against SystemC ") + SC_VERSION + " but the program runs with SystemC " + sc_core::sc_release() +
                    ": rebuild neuronsim against the platform's SystemC");
    impl_ = std::make_unique<Impl>(*this, cfg, options);
    SC_METHOD(drive_irq);
    sensitive << impl_->irq_changed;
    dont_initialize();
}

void NeuronCoreDevice::attach_memory_socket(sc_core::sc_port_b<tlm::tlm_fw_transport_if<>>& mem) { impl_->mem_port.attach(mem); }

void NeuronCoreDevice::drive_irq() { irq.write((impl_->irq_status & impl_->irq_mask) != 0); }

NeuronCoreDevice::~NeuronCoreDevice() = default;

void NeuronCoreDevice::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
    // (a queued copy may hold a pointer into the range: it lands before the pointers go)
    if (end >= start) impl_->dma_->copies().settle_dram(start, end - start == UINT64_MAX ? UINT64_MAX : end - start + 1, true);
    impl_->mem_port.invalidate(start, end);
}

void NeuronCoreDevice::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    try {
        const uint64_t a = t.get_address(), len = t.get_data_length();
        uint8_t* data = t.get_data_ptr();
        if (t.get_byte_enable_ptr() || t.get_streaming_width() < len) {
            t.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
            return;
        }
        uint64_t off = 0;
        if (TlmPort* w = impl_->window(a, len, off)) {
            delay += t.is_write() ? w->write(off, data, len) : t.is_read() ? w->read(off, data, len) : sc_core::SC_ZERO_TIME;
            if (t.is_write()) impl_->host_wrote(w, off, len);
            // The DMI hint (TLM-2.0 LRM 11.2.10) where get_direct_mem_ptr would grant it: an
            // initiator that asks for DMI only when hinted (Accellera's lt_dmi_initiator) then does.
            if (impl_->dmi_window_size(w)) t.set_dmi_allowed(true);
            t.set_response_status(tlm::TLM_OK_RESPONSE);
            return;
        }
        std::string text;
        if (t.is_read() && impl_->in_text(a, len, text)) {
            std::memcpy(data, text.data(), len);
            t.set_response_status(tlm::TLM_OK_RESPONSE);
            return;
        }
        if (a >= reg::kMmioSize || a >= reg::kActTablesWindow) {
            t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        if (len != 4 || a % 4) {
            t.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
            return;
        }
        uint32_t v = 0;
        if (t.is_read()) {
            if (!impl_->read_reg(a, v)) {
                t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
                return;
            }
            std::memcpy(data, &v, 4);
        } else if (t.is_write()) {
            std::memcpy(&v, data, 4);
            std::string why;
            uint32_t probe = 0;
            if (!impl_->write_reg(a, v, delay, why)) {
                const bool mapped = impl_->read_reg(a, probe);
                impl_->refuse(a, v, mapped ? why : "no register at " + model::fp::hex(a));
                t.set_response_status(mapped ? tlm::TLM_COMMAND_ERROR_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
                return;
            }
        }
        t.set_response_status(tlm::TLM_OK_RESPONSE);
    } catch (const sc_core::sc_unwind_exception&) {  // the caller's thread is being killed
        throw;
    } catch (const std::exception&) {  // never an exception into the caller's kernel
        t.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    }
}

unsigned int NeuronCoreDevice::transport_dbg(tlm::tlm_generic_payload& t) {
    try {
        const uint64_t a = t.get_address(), len = t.get_data_length();
        uint64_t off = 0;
        if (TlmPort* w = impl_->window(a, len, off)) {
            if (t.is_write()) {
                w->debug_write(off, t.get_data_ptr(), len);
                impl_->host_wrote(w, off, len);
            } else {
                w->debug_read(off, t.get_data_ptr(), len);
            }
            return static_cast<unsigned int>(len);
        }
        std::string text;
        if (t.is_read() && impl_->in_text(a, len, text)) {
            std::memcpy(t.get_data_ptr(), text.data(), len);
            return static_cast<unsigned int>(len);
        }
        if (len == 4 && a % 4 == 0 && a < reg::kActTablesWindow) {
            uint32_t v = 0;
            if (t.is_read() && impl_->read_reg(a, v)) {
                std::memcpy(t.get_data_ptr(), &v, 4);
                return 4;
            }
        }
    } catch (const std::exception&) {
    }
    return 0;
}

bool NeuronCoreDevice::get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) {
    uint64_t off = 0;
    TlmPort* w = impl_->window(t.get_address(), 1, off);
    if (!w) return false;  // registers: no DMI
    const uint64_t base = t.get_address() - off;
    const uint64_t size = impl_->dmi_window_size(w);
    if (!size) return false;  // the table memory's regions: transactions only
    uint8_t* p = w->direct(0, size);
    // The host may now write the memory unseen: its unwritten bytes can no longer be told.
    if (impl_->hz) impl_->hz->host_has_direct(w == impl_->sbuf_window.get() ? model::isa::MemSpace::Sbuf : model::isa::MemSpace::Psum);
    dmi.allow_read_write();
    dmi.set_dmi_ptr(p);
    dmi.set_start_address(base);
    dmi.set_end_address(base + size - 1);
    dmi.set_read_latency(sc_core::SC_ZERO_TIME);
    dmi.set_write_latency(sc_core::SC_ZERO_TIME);
    return true;
}

const Config& NeuronCoreDevice::config() const { return impl_->cfg; }
uint32_t NeuronCoreDevice::num_queues() const { return static_cast<uint32_t>(impl_->queues.size()); }

uint32_t NeuronCoreDevice::queue_index(const std::string& stream) const { return queue_index(impl_->cfg, stream); }

std::string NeuronCoreDevice::queue_name(uint32_t q) const { return q < impl_->queues.size() ? impl_->queues[q]->label : "?"; }

std::vector<QueueState> NeuronCoreDevice::queue_states() const {
    std::vector<QueueState> out;
    for (const auto& q : impl_->queues) {
        QueueState s;
        s.engine = q->label;
        s.completed = q->completed;
        s.busy = q->busy();
        s.halted = q->halted;
        if (q->engine) {
            s.current_index = q->engine->current_index();
            s.waiting = q->engine->waiting();
            if (s.waiting) {
                s.wait_semaphore = q->engine->waiting_on().wait_idx;
                s.wait_condition = describe_wait(q->engine->waiting_on());
                s.semaphore_value = impl_->sem->value(s.wait_semaphore);
            }
        }
        out.push_back(s);
    }
    return out;
}

std::string NeuronCoreDevice::stats_json() const {
    nlohmann::ordered_json node = collect_stats_tree(*this);
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    namespace s = stats::core;
    stats::put(out, s::neuronsim_version, NEURONSIM_VERSION);
    stats::put(out, s::generation, impl_->cfg.generation.name);
    // The device's own busy window: first doorbell to last completion, in picoseconds.
    const sc_core::sc_time window =
        impl_->started && impl_->last_completion > impl_->first_doorbell ? impl_->last_completion - impl_->first_doorbell : sc_core::SC_ZERO_TIME;
    stats::put(out, s::simulated_ps, window.value());
    stats::put(out, s::instructions, instructions_completed());
    const TlmPort::Counters& m = impl_->mem_port.counters();
    out[s::mem_transactions.head()] = {{s::mem_transactions.leaf(), m.transports},
                                       {s::mem_dmi_accesses.leaf(), m.dmi_accesses},
                                       {s::mem_dmi_grants.leaf(), m.dmi_grants},
                                       {s::mem_dmi_invalidations.leaf(), m.invalidations}};
    // DMA queue streams (dma3, dma3.1) under "queues": the keys above are the same in every run.
    nlohmann::ordered_json queues = nlohmann::ordered_json::object();
    for (auto it = node.begin(); it != node.end(); ++it) {
        if (it.key() != "dma" && model::isa::parse_stream_name(it.key()).cls == model::isa::kOnDma) queues[it.key()] = it.value();  // "dma": the engines
        else out[it.key()] = it.value();
    }
    out["queues"] = std::move(queues);
    {
        namespace h = stats::hazards;
        using Kind = model::isa::HazardDetector::Kind;
        const model::isa::HazardDetector* d = impl_->hz.get();
        auto n = [&](Kind k) -> uint64_t { return d ? d->count(k) : 0; };
        nlohmann::ordered_json node = nlohmann::ordered_json::object();
        stats::put(node, h::checked, d != nullptr);
        stats::put(node, h::read_after_write, n(Kind::ReadAfterWrite));
        stats::put(node, h::write_after_read, n(Kind::WriteAfterRead));
        stats::put(node, h::write_after_write, n(Kind::WriteAfterWrite));
        stats::put(node, h::unwritten_reads, n(Kind::UninitialisedRead));
        out["hazards"] = std::move(node);
    }
    DerivedInputs d;
    d.core = &out;
    for (const auto& e : impl_->engines) {
        if (e->label() == "act") d.act = &e->busy_spans();
        if (e->label() == "pool") d.pool = &e->busy_spans();
        if (e->label() == "dve" && e->instructions()) d.dve = &e->busy_spans();
        if (e->label() == "pe" && e->instructions()) d.pe = &e->busy_spans();
    }
    d.dma = impl_->dma_->busy_union();
    d.simulated_ps = window.value();
    d.dma_peak_bytes_per_ns = impl_->cfg.dma.aggregate_bytes_per_ns;
    out["derived"] = derived_stats(d);
    return out.dump();
}

std::string NeuronCoreDevice::cost_model_json() const {
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    for (const auto& e : impl_->engines) e->collect_cost_model(o);
    return o.dump();
}

std::vector<NeuronCoreDevice::Divergence> NeuronCoreDevice::top_divergences() const {
    std::vector<Divergence> out;
    if (!impl_->recorder_) return out;
    for (const auto& d : impl_->recorder_->top_divergences())
        out.push_back({d.instruction, d.mnemonic, d.source, d.formula, d.simulated_ns, d.model_ns, d.why});
    return out;
}

void NeuronCoreDevice::set_source_lines(const std::string& stream, const std::string& lines_path) {
    if (!impl_->recorder_) return;
    const Queue& q = *impl_->queues[queue_index(stream)];
    if (!q.engine) throw Error("stream " + stream + ": queue " + q.label + " does not run on this device (DeviceOptions::queues leaves it out)");
    impl_->recorder_->set_source_lines(&q.engine->label(), lines_path);
}

void NeuronCoreDevice::finish_recording() {
    if (impl_->recorder_) impl_->recorder_->finish();
}

void NeuronCoreDevice::settle_copies() { impl_->dma_->copies().settle_all(); }

double NeuronCoreDevice::copy_wait_seconds() const { return impl_->dma_->copies().needed_seconds(); }

std::vector<Hazard> NeuronCoreDevice::hazards() const {
    std::vector<Hazard> out;
    if (impl_->hz)
        for (const auto& h : impl_->hz->hazards()) out.push_back(public_hazard(*impl_->hz, h));
    return out;
}

uint64_t NeuronCoreDevice::instructions_completed() const {
    uint64_t n = 0;
    for (const auto& q : impl_->queues) n += q->completed;
    return n;
}

}  // namespace neuronsim
