#include "platform/semaphores.h"

#include "model/common/error.h"

namespace neuronsim::platform {

using model::isa::Events;
using model::isa::UpdateMode;
using model::isa::WaitMode;

Semaphores::Semaphores(sc_core::sc_module_name name, uint32_t count) : sc_core::sc_module(name), values_(count, 0), updaters_(count) {}

void Semaphores::check_index(uint32_t idx) const {
    if (idx >= values_.size())
        throw Error("semaphore " + std::to_string(idx) + " does not exist (the core has " + std::to_string(values_.size()) + ")");
}

bool Semaphores::holds(const Events& e) const {
    if (e.wait == WaitMode::None) return true;
    const int64_t v = values_[e.wait_idx];
    const int64_t want = static_cast<int32_t>(e.value);
    return e.wait == WaitMode::Eq ? v == want : v >= want;
}

void Semaphores::update(const Events& e, const std::string* engine, uint64_t index) {
    if (e.update == UpdateMode::None) return;
    int64_t v = values_[e.update_idx];
    switch (e.update) {
        case UpdateMode::Inc: ++v; break;
        case UpdateMode::Dec: --v; break;
        case UpdateMode::Set: v = static_cast<int32_t>(e.value); break;
        default: break;
    }
    if (v > INT32_MAX || v < INT32_MIN) throw Error("semaphore " + std::to_string(e.update_idx) + " overflows its signed 32 bits");
    values_[e.update_idx] = static_cast<int32_t>(v);
    updaters_[e.update_idx] = {engine, index, sc_core::sc_time_stamp()};
    ++updates_;
    changed_.notify(sc_core::SC_ZERO_TIME);
}

void Semaphores::collect_stats(nlohmann::ordered_json& node) const {
    node["updates"] = updates_;
    nlohmann::ordered_json nonzero = nlohmann::ordered_json::object();
    for (size_t i = 0; i < values_.size(); ++i)
        if (values_[i]) nonzero[std::to_string(i)] = values_[i];
    node["final_nonzero_values"] = std::move(nonzero);
}

std::string describe_wait(const Events& e) {
    return "semaphore " + std::to_string(e.wait_idx) + " " + model::isa::wait_mode_name(e.wait) + " " +
           std::to_string(static_cast<int32_t>(e.value));
}

}  // namespace neuronsim::platform
