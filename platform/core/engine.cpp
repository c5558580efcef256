#include "platform/core/engine.h"

#include <algorithm>
#include <cstdio>
#include <new>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/isa/layouts.h"
#include "model/isa/opcodes.h"
#include "platform/core/semaphores.h"
#include "platform/dma/dma_copy.h"
#include "platform/dma/dma_engines.h"
#include "stats/stat_records.h"

namespace neuronsim::platform {

using namespace model::isa;

namespace {
std::string opcode_text(uint8_t op) {
    const OpcodeInfo* i = find_opcode(op);
    return model::fp::hex2(op) + (i ? " (" + i->mnemonic + ")" : "");
}
const std::string kUnknown = "unknown", kSkipped = "skipped";
}  // namespace

// An instruction between issue and retirement. The record's strings point into `detail`.
struct Engine::InFlight {
    InstructionRecord r;
    Detail detail;
    Events ev;
    uint64_t index = 0;
    uint8_t opcode = 0;
    bool halt = false;
    bool dma = false;  // a transfer completes it ...
    bool done = false;  // ... or its end is known
    bool failed = false;  // its transfer failed (latched): it never retires
    sc_core::sc_time end;
    model::isa::HazardDetector::Clock knowledge;  // its stream's at issue (for its update's release)
};

std::string module_name(std::string label) {
    auto dot = label.find('.');
    return dot == std::string::npos ? label : label.replace(dot, 1, "_q");
}

Engine::Engine(sc_core::sc_module_name name, const std::string& label, EngineContext& ctx, InstructionSource& source, double clock_ghz)
    : sc_core::sc_module(name), ctx_(ctx), label_(label), source_(source), ghz_(clock_ghz), queue_resource_("queue " + label) {
    if (!ctx.runs_queue(label)) return;  // (no doorbell reaches it)
    SC_THREAD(run);
    SC_THREAD(retire);
}

// The instruction's record: its times, stall, source and what execute() reported; its
// exclusive share of the busy time is already in `busy` of its mnemonic.
void Engine::record(InstructionRecord& r, InFlight& f, const sc_core::sc_time& idle_stall) {
    const Detail& d = f.detail;
    r.engine = &label_;
    r.index = f.index;
    r.opcode = f.opcode;
    r.clock_ghz = ghz_;
    if (!d.function.empty()) r.function = &d.function;
    r.n = d.shape.n;
    r.elements = d.elements;
    r.bytes = d.shape.bytes;
    Recorder* rec = ctx_.recorder();
    if (rec && rec->cost_model()) {
        InstructionShape s = d.shape;
        s.opcode = f.opcode;
        const CostEstimate est = cost_estimate(ctx_.config(), s);
        r.model_ns = est.ns;
        r.model_formula = est.formula;
        r.model_why = divergence_reason(ctx_.config(), s, (r.end - r.start).to_seconds() * 1e9, est.ns);
        Tally& m = by_mnemonic_[r.mnemonic];
        if (est.ns >= 0) m.model_ns += est.ns;
        m.latency += r.end - r.start;
    }
    if (idle_stall > sc_core::SC_ZERO_TIME) {
        StallTally& t = stalls_[StallKey{r.sem_wait ? static_cast<int>(r.wait.wait) : -1, r.sem_wait ? r.wait.wait_idx : -1,
                                         r.dependency ? nullptr : r.released_by, r.busy_resource, r.dependency}];
        const int64_t v = r.sem_wait ? static_cast<int32_t>(r.wait.value) : 0;
        t.lo = t.count ? std::min(t.lo, v) : v;
        t.hi = t.count ? std::max(t.hi, v) : v;
        ++t.count;
        t.time += idle_stall;
    }
    if (rec) rec->instruction(r);
}

int Engine::hazard_stream() {
    if (hazard_stream_ < 0) hazard_stream_ = ctx_.hazards()->stream(label_);
    return hazard_stream_;
}

void Engine::note_access(const std::vector<Region>& reads, const std::vector<Region>& writes, bool async) {
    model::isa::HazardDetector* hz = ctx_.hazards();
    if (!hz || !current_ || (reads.empty() && writes.empty())) return;
    hz->access(hazard_stream(), current_->index, now().value(), current_->r.mnemonic, reads, writes, async);
}

void Engine::wait_dma_slot() {
    const sc_core::sc_time asked = now();
    while (dma_in_flight_ >= ctx_.config().dma.queue_depth) hold(dma_done_);
    if (now() > asked) detail_.resource = &queue_resource_;
}

void Engine::hold(const sc_core::sc_time& t) {
    const sc_core::sc_time until = now() + t;
    while (now() < until) {
        wait(until - now(), reset_event_);
        check_epoch();
    }
}

void Engine::hold(const sc_core::sc_event& e) {
    wait(e | reset_event_);
    check_epoch();
}

void Engine::reset_state() {
    ++epoch_;
    in_flight_ = 0;
    waiting_ = false;
    retiring_.clear();  // (the threads' own references keep what they hold alive)
    dma_in_flight_ = 0;
    seq_free_ = now();
    reset_event_.notify(sc_core::SC_ZERO_TIME);
    dma_done_.notify(sc_core::SC_ZERO_TIME);
    retire_event_.notify(sc_core::SC_ZERO_TIME);
    retired_event_.notify(sc_core::SC_ZERO_TIME);
}

void Engine::trigger_dma(DmaJob job, std::function<void()> on_done, std::function<void()> at_end) {
    wait_dma_slot();
    std::shared_ptr<InFlight> f = current_;
    f->dma = true;
    const uint64_t epoch = epoch_;  // a transfer of an abandoned instruction ends unseen
    auto fail = [this, f, epoch](const std::string& why) {
        if (f->failed || epoch != epoch_) return;
        f->failed = true;
        EngineFailure e;
        e.engine = label_;
        e.index = f->index;
        e.opcode = f->opcode;
        e.message = why;
        ctx_.fail(e);
    };
    job.failed = fail;
    if (ctx_.hazards()) {
        std::vector<Region> reads, writes;
        for (const DmaTransfer& t : job.parts) {
            append_regions(t, t.src, reads);
            append_regions(t, t.dst, writes);
        }
        note_access(reads, writes, !waits_for_own_transfers());
    }
    job.done = [this, f, fail, on_done, at_end, epoch] {
        if (epoch != epoch_) return;
        if (at_end) at_end();
        if (on_done && !f->failed) {  // (a failed transfer delivered nothing)
            try {
                on_done();
            } catch (const Error& e) {
                fail(e.what());
            }
        }
        f->end = now();
        f->done = true;
        --dma_in_flight_;
        dma_done_.notify(sc_core::SC_ZERO_TIME);
        retire_event_.notify(sc_core::SC_ZERO_TIME);
    };
    ++dma_in_flight_;
    try {
        ctx_.dma().submit(std::move(job));
    } catch (...) {
        --dma_in_flight_;
        f->dma = false;
        throw;
    }
}

void Engine::run() {
    Bundle b;
    uint64_t index = 0;
    while (source_.next(b.b.data(), index)) {
        ++in_flight_;
        issuing_epoch_ = epoch_;
        index_ = index;
        opcode_ = b.opcode();
        current_ = std::make_shared<InFlight>();
        InFlight& f = *current_;
        f.index = index;
        f.opcode = opcode_;
        try {
            InstructionRecord& r = f.r;
            const std::string bad = check_header_and_events(b);
            if (!bad.empty()) throw Error(bad);
            const Events ev = read_events(b);
            Semaphores& sem = ctx_.semaphores();
            if (ev.wait != WaitMode::None) sem.check_index(ev.wait_idx);
            if (ev.update != UpdateMode::None) sem.check_index(ev.update_idx);
            // The sequencer takes the bundle once the one before has left it.
            if (seq_free_ > now()) hold(seq_free_ - now());
            r.ready = now();
            // Stall while the wait does not hold; the last update of the semaphore released it.
            if (!sem.holds(ev)) {
                waiting_ = true;
                waiting_on_ = ev;
                while (!sem.holds(ev) && !ctx_.halted()) hold(sem.changed());
                waiting_ = false;
                if (ctx_.halted()) {  // the core failed meanwhile: this instruction never issues
                    --in_flight_;
                    current_.reset();
                    continue;
                }
                r.sem_wait = true;
                r.wait = ev;
                const Semaphores::Updater& u = sem.last_update(ev.wait_idx);
                r.released_by = u.engine;
                r.released_index = u.index;
                r.released_at = u.at;
            }
            const sc_core::sc_time released = now();
            const OpcodeInfo* info = find_opcode(b.opcode());
            r.mnemonic = info ? &info->mnemonic : &kUnknown;
            if (model::isa::HazardDetector* hz = ctx_.hazards()) {
                hz->issued(hazard_stream(), index_);
                if (ev.wait != WaitMode::None) hz->acquire(hazard_stream(), ev.wait_idx);
                if (ev.update != UpdateMode::None) f.knowledge = hz->knowledge(hazard_stream());
            }
            detail_ = Detail{};
            detail_.start = detail_.end = now();
            const bool halt = b.opcode() == kHalt;
            if (halt || b.opcode() == kSync) {
                detail_.end = now() + cycles(ctx_.config().sync.instruction_cycles);
                seq_free_ = detail_.end;
            } else if (!execute(b, index_)) {
                if (!ctx_.options().skip_unknown)
                    throw Error("opcode " + opcode_text(b.opcode()) + " is not modelled on engine " + label_ + (info ? " yet" : "") +
                                " (--skip-unknown gives it run.skip_unknown_cost_ns and counts it)");
                detail_.end = now() + sc_core::sc_time(ctx_.config().run.skip_unknown_cost_ns, sc_core::SC_NS);
                seq_free_ = detail_.end;
                ++skipped_;
                r.mnemonic = &kSkipped;
            }
            r.start = detail_.start;
            // Beyond the semaphore it may have waited for a busy resource or its own engine's result.
            if (r.start > released) {
                r.busy_resource = detail_.resource;
                if (detail_.producer) {
                    r.dependency = true;
                    r.released_by = detail_.producer;
                    r.released_index = detail_.producer_index;
                    r.released_at = r.start;
                }
            }
            f.ev = ev;
            f.halt = halt;
            if (!f.dma) {
                f.end = std::max(detail_.end, r.start);
                f.done = true;
            }
            f.detail = std::move(detail_);
            retiring_.push_back(std::move(current_));
            retire_event_.notify(sc_core::SC_ZERO_TIME);
            // A halt ends the stream: nothing after it is fetched until it has retired.
            if (halt)
                while (in_flight_) wait(retired_event_);
        } catch (const Cancelled&) {
            return;  // the host stops the simulation: nothing more runs here
        } catch (const Abandoned&) {
            current_.reset();  // (reset_state() has cleared the counts)
        } catch (const Error& e) {
            fail_issuing(e.what());
        } catch (const std::bad_alloc&) {  // (an instruction's own buffers: named like any error)
            fail_issuing("the host is out of memory for this instruction's buffers");
        }
    }
}

void Engine::fail_issuing(const std::string& why) {
    if (issuing_epoch_ != epoch_) {  // an error of an instruction a RESET abandoned
        current_.reset();
        return;
    }
    EngineFailure ef;
    ef.engine = label_;
    ef.index = index_;
    ef.opcode = opcode_;
    ef.message = why;
    waiting_ = false;
    --in_flight_;
    current_.reset();
    ctx_.fail(ef);
}

// In program order: an instruction retires when it has completed and every earlier one has.
void Engine::retire() {
    for (;;) {
        while (retiring_.empty() || !retiring_.front()->done) wait(retire_event_);
        std::shared_ptr<InFlight> f = retiring_.front();
        if (f->end > now()) {
            wait(f->end - now(), reset_event_);
            continue;  // (then the front is looked at again: a RESET may have abandoned it)
        }
        retiring_.pop_front();
        auto drop = [&] {  // latched; the core is halted. Its trace line is passed over.
            if (Recorder* rec = ctx_.recorder()) rec->skip(&label_);
            --in_flight_;
            retired_event_.notify(sc_core::SC_ZERO_TIME);
        };
        if (f->failed) {
            drop();
            continue;
        }
        // Its record ends when it completed (its own time); its update is applied now, when it
        // retires, once every earlier instruction of the stream has completed.
        InstructionRecord& r = f->r;
        r.end = f->end;
        // The engine's own stall: the part of the wait with nothing of its own in flight (while
        // an earlier instruction is still executing, the engine is busy, not stalled).
        const sc_core::sc_time idle_from = std::max(r.ready, last_end_);
        const sc_core::sc_time idle_stall = r.start > idle_from ? r.start - idle_from : sc_core::SC_ZERO_TIME;
        stalled_ += idle_stall;
        // Its exclusive share of the busy time: what it adds to the union of the instructions'
        // [start, end] (they start in order; last_end_ is the latest end so far).
        const sc_core::sc_time from = std::max(r.start, last_end_);
        const sc_core::sc_time share = r.end > from ? r.end - from : sc_core::SC_ZERO_TIME;
        busy_ += share;
        if (share > sc_core::SC_ZERO_TIME) busy_spans_.add(from.value(), r.end.value());
        if (!count_) first_start_ = r.start;
        last_end_ = std::max(last_end_, r.end);
        model::isa::HazardDetector* hz = ctx_.hazards();
        try {
            const bool releases = hz && f->ev.update != UpdateMode::None;
            const model::isa::HazardDetector::Clock released = releases ? hz->release(f->knowledge, hazard_stream(), f->index) : f->knowledge;
            ctx_.semaphores().update(f->ev, &label_, f->index, false, releases ? &released : nullptr);
        } catch (const Error& e) {
            EngineFailure ef;
            ef.engine = label_;
            ef.index = f->index;
            ef.opcode = f->opcode;
            ef.message = e.what();
            ctx_.fail(ef);
            drop();
            continue;
        }
        if (hz) hz->completed(hazard_stream(), f->index, r.end.value());
        Tally& m = by_mnemonic_[r.mnemonic];
        ++m.count;
        m.time += share;
        record(r, *f, idle_stall);
        ++count_;
        --in_flight_;
        retired_event_.notify(sc_core::SC_ZERO_TIME);
        source_.done(f->halt);
    }
}

std::string EngineFailure::summary(const std::string& where) const {
    return "engine " + engine + ", instruction " + std::to_string(index) + " (opcode " + opcode_text(opcode) + (where.empty() ? "" : ", " + where) +
           "): " + message;
}

sc_core::sc_time Engine::busy_of(const std::string& mnemonic) const {
    for (const auto& [m, t] : by_mnemonic_)
        if (*m == mnemonic) return t.time;
    return sc_core::SC_ZERO_TIME;
}

void Engine::collect_stats(nlohmann::ordered_json& node) const {
    if (!count_ && !reports_when_idle()) return;  // a DMA queue that ran nothing reports nothing
    namespace s = stats::engine;
    stats::put(node, s::instructions, count_);
    stats::put(node, s::busy_ps, busy_.value());
    stats::put(node, s::stalled_ps, stalled_.value());
    stats::put(node, s::busy_cycles, static_cast<uint64_t>(busy_.to_seconds() * 1e9 * ghz_ + 0.5));
    stats::put(node, s::clock_ghz, ghz_);
    stats::put(node, s::skipped_unknown, skipped_);
    std::map<std::string, const Tally*> by_name;  // sorted by name: deterministic
    for (const auto& [m, t] : by_mnemonic_) by_name[*m] = &t;
    nlohmann::ordered_json by = nlohmann::ordered_json::object();
    for (const auto& [m, t] : by_name) by[m] = {{s::mnemonic_count.leaf(), t->count}, {s::mnemonic_busy_ps.leaf(), t->time.value()}};
    node[s::mnemonic_count.head()] = std::move(by);
    std::map<std::string, std::pair<std::string, const StallTally*>> causes;  // key -> (text, tally)
    for (const auto& [k, t] : stalls_) {
        InstructionRecord r;
        r.sem_wait = std::get<0>(k) >= 0;
        if (r.sem_wait) {
            r.wait.wait = static_cast<WaitMode>(std::get<0>(k));
            r.wait.wait_idx = static_cast<uint8_t>(std::get<1>(k));
            r.wait.value = static_cast<uint32_t>(t.lo);
        }
        r.busy_resource = std::get<3>(k);
        r.dependency = std::get<4>(k);
        r.released_by = &label_;
        std::string text = r.stall_cause();
        if (r.sem_wait && t.hi != t.lo) {  // "semaphore 42 >= 1" -> "semaphore 42 >= 1..512"
            InstructionRecord only;
            only.sem_wait = true;
            only.wait = r.wait;
            const size_t n = only.stall_cause().size();
            text.insert(n, ".." + std::to_string(t.hi));
        }
        if (std::get<2>(k)) text += " released by " + *std::get<2>(k);
        causes[r.stall_cause_key(std::get<2>(k))] = {text, &t};
    }
    nlohmann::ordered_json st = nlohmann::ordered_json::object();
    for (const auto& [key, c] : causes)
        st[key] = {{s::stall_count.leaf(), c.second->count}, {s::stall_ps.leaf(), c.second->time.value()}, {s::stall_text.leaf(), c.first}};
    node[s::stall_count.head()] = std::move(st);
}

void Engine::collect_cost_model(nlohmann::ordered_json& node) const {
    std::map<std::string, const Tally*> by_name;
    for (const auto& [m, t] : by_mnemonic_) by_name[*m] = &t;
    // Each instruction's issue-to-completion time against its estimate (both latencies).
    for (const auto& [m, t] : by_name) node[label_ + " " + m] = {{"count", t->count}, {"simulated_ps", t->latency.value()}, {"model_ns", t->model_ns}};
}

DmaQueueEngine::DmaQueueEngine(sc_core::sc_module_name name, const std::string& label, EngineContext& ctx, InstructionSource& source, int dma_engine,
                               uint32_t dma_queue)
    : Engine(name, label, ctx, source, ctx.config().sync.clock_ghz), dma_engine_(dma_engine), dma_queue_(dma_queue) {}

bool DmaQueueEngine::execute(const Bundle& b, uint64_t index) {
    if (b.opcode() != kDmaCopy) return false;
    DmaJob job = copy_job(b);
    detail_.shape.rows = job.parts[0].rows;
    detail_.shape.bytes = job.parts[0].total();
    job.queue = dma_queue_;
    job.engine = dma_engine_;
    job.label = label() + "#" + std::to_string(index);
    detail_.shape.pinned = dma_engine_ >= 0;
    detail_.shape.busiest_rows = ctx_.dma().busiest_rows(job);
    trigger_dma(std::move(job));
    // The Sync engine issues the trigger (pre-computed descriptors: no generation cost).
    detail_.start = now();
    seq_free_ = now() + cycles(ctx_.config().sync.instruction_cycles);
    return true;
}

}  // namespace neuronsim::platform
