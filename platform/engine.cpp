#include "platform/engine.h"

#include <cstdio>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/isa/layouts.h"
#include "model/isa/opcodes.h"
#include "platform/platform.h"

namespace neuronsim::platform {

using namespace model::isa;

namespace {
std::string opcode_text(uint8_t op) {
    const OpcodeInfo* i = find_opcode(op);
    return model::fp::hex2(op) + (i ? " (" + i->mnemonic + ")" : "");
}
}  // namespace

std::string module_name(std::string label) {
    auto dot = label.find('.');
    return dot == std::string::npos ? label : label.replace(dot, 1, "_q");
}

Engine::Engine(sc_core::sc_module_name name, const std::string& label, Platform& platform, const std::string& stream_path, double clock_ghz)
    : sc_core::sc_module(name), platform_(platform), label_(label), stream_(stream_path), ghz_(clock_ghz) {
    SC_THREAD(run);
}

void Engine::run() {
    Bundle b;
    try {
        while (stream_.next(b)) {
            index_ = stream_.index();
            opcode_ = b.opcode();
            const std::string bad = check_header_and_events(b);
            if (!bad.empty()) throw Error(bad);
            const Events ev = read_events(b);
            if (ev.wait != WaitMode::None) platform_.semaphores().check_index(ev.wait_idx);
            if (ev.update != UpdateMode::None) platform_.semaphores().check_index(ev.update_idx);
            // Stall while the wait does not hold.
            if (!platform_.semaphores().holds(ev)) {
                const sc_core::sc_time t0 = sc_core::sc_time_stamp();
                waiting_ = true;
                waiting_on_ = ev;
                while (!platform_.semaphores().holds(ev)) wait(platform_.semaphores().changed());
                waiting_ = false;
                stalled_ += sc_core::sc_time_stamp() - t0;
            }
            const sc_core::sc_time start = sc_core::sc_time_stamp();
            const OpcodeInfo* info = find_opcode(b.opcode());
            std::string mnemonic = info ? info->mnemonic : "unknown";
            if (b.opcode() == kHalt) {
                platform_.semaphores().update(ev);
                platform_.recorder().instruction(label_, index_, b.opcode(), mnemonic, start, start, ghz_);
                ++count_;
                ++by_mnemonic_[mnemonic];
                break;
            }
            if (b.opcode() != kSync && !execute(b, index_)) {
                if (!platform_.skip_unknown())
                    throw Error("opcode " + opcode_text(b.opcode()) + " is not modelled on engine " + label_ +
                                (info ? " yet" : "") + " (--skip-unknown gives it run.skip_unknown_cost_ns and counts it)");
                wait(sc_core::sc_time(platform_.config().run.skip_unknown_cost_ns, sc_core::SC_NS));
                ++skipped_;
                mnemonic = "skipped";
            }
            const sc_core::sc_time end = sc_core::sc_time_stamp();
            busy_ += end - start;
            platform_.semaphores().update(ev);
            platform_.recorder().instruction(label_, index_, b.opcode(), mnemonic, start, end, ghz_);
            ++count_;
            ++by_mnemonic_[mnemonic];
        }
        finished_ = true;
    } catch (const Error& e) {
        platform_.fail("engine " + std::string(label_) + ", instruction " + std::to_string(index_) + " (opcode " +
                       opcode_text(opcode_) + ", " + stream_.path() + " byte offset " + std::to_string(index_ * kBundleBytes) + "): " + e.what());
    }
}

void Engine::collect_stats(nlohmann::ordered_json& node) const {
    node["instructions"] = count_;
    node["busy_ps"] = busy_.value();
    node["stalled_ps"] = stalled_.value();
    node["busy_cycles"] = static_cast<uint64_t>(busy_.to_seconds() * 1e9 * ghz_ + 0.5);
    node["clock_ghz"] = ghz_;
    node["skipped_unknown"] = skipped_;
    nlohmann::ordered_json by = nlohmann::ordered_json::object();
    for (const auto& [m, n] : by_mnemonic_) by[m] = n;
    node["by_mnemonic"] = std::move(by);
}

DmaQueueEngine::DmaQueueEngine(sc_core::sc_module_name name, const std::string& label, Platform& platform, const std::string& stream_path,
                               uint32_t dma_engine)
    : Engine(name, label, platform, stream_path, 1.0), dma_engine_(dma_engine) {}

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
    platform_.dma().transfer(dma_engine_, t, label() + "#" + std::to_string(index));
    return true;
}

}  // namespace neuronsim::platform
