#pragma once
// The core's counting semaphores (hardware-facts §J.2: 256 signed 32-bit). An engine stalls
// while its bundle's wait does not hold; the update is applied when the bundle completes, and
// the engines see it sync.semaphore_latency_ns later (the hand-off); the host's register
// writes take effect at once.
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <systemc>

#include "model/isa/bundle.h"
#include "model/isa/hazard_detector.h"
#include "platform/core/stats.h"

namespace neuronsim::platform {

class Semaphores : public sc_core::sc_module, public StatsProvider {
public:
    SC_HAS_PROCESS(Semaphores);
    Semaphores(sc_core::sc_module_name name, uint32_t count, double latency_ns = 0);

    // The instruction that last updated a semaphore: the release a stall report names.
    struct Updater {
        const std::string* engine = nullptr;
        uint64_t index = 0;
        sc_core::sc_time at;
    };

    bool holds(const model::isa::Events& e) const;
    // Throws on an index out of range or overflow; `engine`/`index` name the updater. Waiting
    // engines see it after the hand-off latency, or at once with `at_once` (the host).
    // `released` (the hazard detector's, when it looks): what the update releases, published
    // to the detector when the engines see the update.
    void update(const model::isa::Events& e, const std::string* engine = nullptr, uint64_t index = 0, bool at_once = false,
                const model::isa::HazardDetector::Clock* released = nullptr);
    void set_hazard_detector(model::isa::HazardDetector* d) { detector_ = d; }
    const Updater& last_update(uint32_t idx) const { return updaters_[idx]; }
    void check_index(uint32_t idx) const;  // throws naming the index and the count
    int32_t value(uint32_t idx) const { return values_[idx]; }  // as the engines see it now
    // With every update applied, hand-offs still on their way included (what the host's
    // register read returns: the hand-off latency is between engines).
    int32_t latest(uint32_t idx) const { return static_cast<int32_t>(future_[idx]); }
    const sc_core::sc_event& changed() const { return changed_; }

    void collect_stats(nlohmann::ordered_json& node) const override;

private:
    void apply();  // the hand-offs whose time has come

    std::vector<int32_t> values_;  // as the engines see them
    std::vector<int64_t> future_;  // with every update applied (overflow is checked here)
    std::vector<uint64_t> seen_;  // per semaphore: the last update applied
    std::vector<Updater> updaters_;
    struct HandOff {
        sc_core::sc_time at;
        uint32_t idx;
        int32_t value;
        uint64_t seq;
        Updater by;  // becomes the semaphore's last update when the engines see it
        model::isa::HazardDetector::Clock released;
    };
    model::isa::HazardDetector* detector_ = nullptr;
    std::deque<HandOff> pending_;
    sc_core::sc_time latency_;
    sc_core::sc_event changed_, hand_off_;
    uint64_t updates_ = 0;
};

std::string describe_wait(const model::isa::Events& e);  // "semaphore 3 >= 2"

}  // namespace neuronsim::platform
