#include "platform/core/semaphores.h"

#include "model/common/error.h"
#include "stats/stat_records.h"

namespace neuronsim::platform {

using model::isa::Events;
using model::isa::UpdateMode;
using model::isa::WaitMode;

Semaphores::Semaphores(sc_core::sc_module_name name, uint32_t count, double latency_ns)
    : sc_core::sc_module(name), values_(count, 0), future_(count, 0), seen_(count, 0), updaters_(count), latency_(latency_ns, sc_core::SC_NS) {
    SC_METHOD(apply);
    sensitive << hand_off_;
    dont_initialize();
}

void Semaphores::check_index(uint32_t idx) const {
    if (idx >= values_.size()) throw Error("semaphore " + std::to_string(idx) + " does not exist (the core has " + std::to_string(values_.size()) + ")");
}

bool Semaphores::holds(const Events& e) const {
    if (e.wait == WaitMode::None) return true;
    const int64_t v = values_[e.wait_idx];
    const int64_t want = static_cast<int32_t>(e.value);
    return e.wait == WaitMode::Eq ? v == want : v >= want;
}

void Semaphores::update(const Events& e, const std::string* engine, uint64_t index, bool at_once, const model::isa::HazardDetector::Clock* released) {
    if (e.update == UpdateMode::None) return;
    const uint32_t idx = e.update_idx;
    int64_t v = future_[idx];
    switch (e.update) {
        case UpdateMode::Inc: ++v; break;
        case UpdateMode::Dec: --v; break;
        case UpdateMode::Set: v = static_cast<int32_t>(e.value); break;
        default: break;
    }
    if (v > INT32_MAX || v < INT32_MIN) throw Error("semaphore " + std::to_string(idx) + " overflows its signed 32 bits");
    future_[idx] = v;
    const Updater by{engine, index, sc_core::sc_time_stamp()};
    const uint64_t seq = ++updates_;
    if (at_once || latency_ == sc_core::SC_ZERO_TIME) {
        values_[idx] = static_cast<int32_t>(v);
        updaters_[idx] = by;
        seen_[idx] = seq;  // hand-offs still on their way are older
        if (detector_ && released) detector_->publish(idx, *released);
        changed_.notify(sc_core::SC_ZERO_TIME);
        return;
    }
    pending_.push_back(
        {sc_core::sc_time_stamp() + latency_, idx, static_cast<int32_t>(v), seq, by, released ? *released : model::isa::HazardDetector::Clock{}});
    hand_off_.notify(latency_);
}

void Semaphores::apply() {
    bool any = false;
    while (!pending_.empty() && pending_.front().at <= sc_core::sc_time_stamp()) {
        const HandOff& h = pending_.front();
        if (h.seq > seen_[h.idx]) {
            values_[h.idx] = h.value;
            updaters_[h.idx] = h.by;
            seen_[h.idx] = h.seq;
            if (detector_ && !h.released.empty()) detector_->publish(h.idx, h.released);
            any = true;
        }
        pending_.pop_front();
    }
    if (any) changed_.notify(sc_core::SC_ZERO_TIME);
    if (!pending_.empty()) hand_off_.notify(pending_.front().at - sc_core::sc_time_stamp());
}

void Semaphores::collect_stats(nlohmann::ordered_json& node) const {
    stats::put(node, stats::semaphores::updates, updates_);
    nlohmann::ordered_json nonzero = nlohmann::ordered_json::object();
    for (size_t i = 0; i < values_.size(); ++i)
        if (values_[i]) nonzero[std::to_string(i)] = values_[i];
    node[stats::semaphores::final_nonzero.head()] = std::move(nonzero);
}

std::string describe_wait(const Events& e) {
    return "semaphore " + std::to_string(e.wait_idx) + " " + model::isa::wait_mode_name(e.wait) + " " + std::to_string(static_cast<int32_t>(e.value));
}

}  // namespace neuronsim::platform
