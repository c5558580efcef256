#include "platform/engine.h"

#include <cstdio>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/isa/layouts.h"
#include "model/isa/opcodes.h"
#include "platform/dma.h"
#include "platform/semaphores.h"

namespace neuronsim::platform {

using namespace model::isa;

namespace {
std::string opcode_text(uint8_t op) {
    const OpcodeInfo* i = find_opcode(op);
    return model::fp::hex2(op) + (i ? " (" + i->mnemonic + ")" : "");
}
}  // namespace

namespace {
const std::string kUnknown = "unknown", kSkipped = "skipped";
}

std::string module_name(std::string label) {
    auto dot = label.find('.');
    return dot == std::string::npos ? label : label.replace(dot, 1, "_q");
}

Engine::Engine(sc_core::sc_module_name name, const std::string& label, EngineContext& ctx, InstructionSource& source, double clock_ghz)
    : sc_core::sc_module(name), ctx_(ctx), label_(label), source_(source), ghz_(clock_ghz) {
    SC_THREAD(run);
}

// The instruction's record: its times, stall, source and what execute() reported.
void Engine::record(InstructionRecord& r, const Bundle& b) {
    r.engine = &label_;
    r.index = index_;
    r.opcode = b.opcode();
    r.clock_ghz = ghz_;
    if (!detail_.function.empty()) r.function = &detail_.function;
    r.n = detail_.shape.n;
    r.elements = detail_.elements;
    r.bytes = detail_.shape.bytes;
    Tally& m = by_mnemonic_[r.mnemonic];
    ++m.count;
    m.time += r.end - r.start;
    Recorder* rec = ctx_.recorder();
    if (rec && rec->cost_model()) {
        detail_.shape.opcode = b.opcode();
        const CostEstimate est = cost_estimate(ctx_.config(), detail_.shape);
        r.model_ns = est.ns;
        r.model_formula = est.formula;
        if (est.ns >= 0) m.model_ns += est.ns;
    }
    if (r.start > r.ready) {
        Tally& t = stalls_[StallKey{r.sem_wait ? static_cast<int>(r.wait.wait) : -1, r.sem_wait ? r.wait.wait_idx : -1, r.sem_wait ? r.wait.value : 0,
                                    r.released_by, r.busy_resource}];
        ++t.count;
        t.time += r.start - r.ready;
    }
    if (rec) rec->instruction(r);
}


void Engine::run() {
    Bundle b;
    uint64_t index = 0;
    while (source_.next(b.b.data(), index)) {
        busy_now_ = true;
        index_ = index;
        opcode_ = b.opcode();
        bool halt = false;
        try {
            InstructionRecord r;
            r.ready = sc_core::sc_time_stamp();
            const std::string bad = check_header_and_events(b);
            if (!bad.empty()) throw Error(bad);
            const Events ev = read_events(b);
            Semaphores& sem = ctx_.semaphores();
            if (ev.wait != WaitMode::None) sem.check_index(ev.wait_idx);
            if (ev.update != UpdateMode::None) sem.check_index(ev.update_idx);
            // Stall while the wait does not hold; the last update of the semaphore released it.
            if (!sem.holds(ev)) {
                waiting_ = true;
                waiting_on_ = ev;
                while (!sem.holds(ev) && !ctx_.halted()) wait(sem.changed());
                waiting_ = false;
                if (ctx_.halted()) {  // the core failed meanwhile: this instruction never issues
                    busy_now_ = false;
                    continue;
                }
                stalled_ += sc_core::sc_time_stamp() - r.ready;
                r.sem_wait = true;
                r.wait = ev;
                const Semaphores::Updater& u = sem.last_update(ev.wait_idx);
                r.released_by = u.engine;
                r.released_index = u.index;
                r.released_at = u.at;
            }
            r.start = sc_core::sc_time_stamp();
            const OpcodeInfo* info = find_opcode(b.opcode());
            r.mnemonic = info ? &info->mnemonic : &kUnknown;
            detail_ = Detail{};
            halt = b.opcode() == kHalt;
            if (!halt && b.opcode() != kSync && !execute(b, index_)) {
                if (!ctx_.options().skip_unknown)
                    throw Error("opcode " + opcode_text(b.opcode()) + " is not modelled on engine " + label_ +
                                (info ? " yet" : "") + " (--skip-unknown gives it run.skip_unknown_cost_ns and counts it)");
                wait(sc_core::sc_time(ctx_.config().run.skip_unknown_cost_ns, sc_core::SC_NS));
                ++skipped_;
                r.mnemonic = &kSkipped;
            }
            // Time queued behind a busy resource inside execute() is a stall, not work.
            if (detail_.queued > sc_core::SC_ZERO_TIME) {
                r.busy_resource = detail_.resource;
                r.start += detail_.queued;
                stalled_ += detail_.queued;
            }
            r.end = sc_core::sc_time_stamp();
            busy_ += r.end - r.start;
            if (!count_) first_start_ = r.start;
            last_end_ = r.end;
            sem.update(ev, &label_, index_);
            record(r, b);
            ++count_;
        } catch (const Cancelled&) {
            return;  // the host stops the simulation: nothing more runs here
        } catch (const Error& e) {
            EngineFailure f;
            f.engine = label_;
            f.index = index_;
            f.opcode = opcode_;
            f.message = e.what();
            f.summary = "engine " + label_ + ", instruction " + std::to_string(index_) + " (opcode " + opcode_text(opcode_) + "): " + e.what();
            waiting_ = false;
            busy_now_ = false;
            ctx_.fail(f);
            continue;
        }
        busy_now_ = false;
        source_.done(halt);
    }
}

void Engine::collect_stats(nlohmann::ordered_json& node) const {
    if (!count_ && !reports_when_idle()) return;  // a DMA queue that ran nothing reports nothing
    node["instructions"] = count_;
    node["busy_ps"] = busy_.value();
    node["stalled_ps"] = stalled_.value();
    node["busy_cycles"] = static_cast<uint64_t>(busy_.to_seconds() * 1e9 * ghz_ + 0.5);
    node["clock_ghz"] = ghz_;
    node["skipped_unknown"] = skipped_;
    std::map<std::string, const Tally*> by_name;  // sorted by name: deterministic
    for (const auto& [m, t] : by_mnemonic_) by_name[*m] = &t;
    nlohmann::ordered_json by = nlohmann::ordered_json::object();
    for (const auto& [m, t] : by_name) by[m] = {{"count", t->count}, {"busy_ps", t->time.value()}};
    node["by_mnemonic"] = std::move(by);
    std::map<std::string, const Tally*> causes;
    for (const auto& [k, t] : stalls_) {
        InstructionRecord r;
        r.sem_wait = std::get<0>(k) >= 0;
        if (r.sem_wait) {
            r.wait.wait = static_cast<WaitMode>(std::get<0>(k));
            r.wait.wait_idx = static_cast<uint8_t>(std::get<1>(k));
            r.wait.value = std::get<2>(k);
        }
        r.busy_resource = std::get<4>(k);
        std::string cause = r.stall_cause();
        if (std::get<3>(k)) cause += " released by " + *std::get<3>(k);
        causes[cause] = &t;
    }
    nlohmann::ordered_json st = nlohmann::ordered_json::object();
    for (const auto& [cause, t] : causes) st[cause] = {{"count", t->count}, {"stalled_ps", t->time.value()}};
    node["stalls"] = std::move(st);
}

void Engine::collect_cost_model(nlohmann::ordered_json& node) const {
    std::map<std::string, const Tally*> by_name;
    for (const auto& [m, t] : by_mnemonic_) by_name[*m] = &t;
    for (const auto& [m, t] : by_name) node[label_ + " " + m] = {{"count", t->count}, {"simulated_ps", t->time.value()}, {"model_ns", t->model_ns}};
}

DmaQueueEngine::DmaQueueEngine(sc_core::sc_module_name name, const std::string& label, EngineContext& ctx, InstructionSource& source,
                               uint32_t dma_engine)
    : Engine(name, label, ctx, source, 1.0), dma_engine_(dma_engine), resource_("dma" + std::to_string(dma_engine)) {}

bool DmaQueueEngine::execute(const Bundle& b, uint64_t index) {
    if (b.opcode() != kDmaCopy) return false;
    DmaTransfer t;
    t.src = {static_cast<DmaSpace>(b.u8(offsetof(DmaCopyOp, src_space))), b.u64(offsetof(DmaCopyOp, src_addr)),
             b.u32(offsetof(DmaCopyOp, src_row_stride))};
    t.dst = {static_cast<DmaSpace>(b.u8(offsetof(DmaCopyOp, dst_space))), b.u64(offsetof(DmaCopyOp, dst_addr)),
             b.u32(offsetof(DmaCopyOp, dst_row_stride))};
    if (b.u8(offsetof(DmaCopyOp, src_space)) > 2 || b.u8(offsetof(DmaCopyOp, dst_space)) > 2) throw Error("copy: memory space must be 0 (dram), 1 (sbuf) or 2 (psum)");
    t.rows = b.u16(offsetof(DmaCopyOp, partitions));
    t.bytes = b.u32(offsetof(DmaCopyOp, bytes));
    if (t.rows == 0 || t.bytes == 0) throw Error("copy: partitions and bytes must be at least 1");
    detail_.shape.rows = t.rows;
    detail_.shape.bytes = t.total();
    detail_.resource = &resource_;
    detail_.queued = ctx_.dma().transfer(dma_engine_, t, label() + "#" + std::to_string(index));
    return true;
}

}  // namespace neuronsim::platform
