#pragma once
// The core's counting semaphores (hardware-facts §J.2: 256 signed 32-bit). An engine stalls
// while its bundle's wait does not hold; the update is applied when the bundle completes.
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "model/isa/bundle.h"
#include "platform/stats.h"

namespace neuronsim::platform {

class Semaphores : public sc_core::sc_module, public StatsProvider {
public:
    Semaphores(sc_core::sc_module_name name, uint32_t count);

    // The instruction that last updated a semaphore: the release a stall report names.
    struct Updater {
        const std::string* engine = nullptr;
        uint64_t index = 0;
        sc_core::sc_time at;
    };

    bool holds(const model::isa::Events& e) const;
    // Throws on an index out of range or overflow; `engine`/`index` name the updater.
    void update(const model::isa::Events& e, const std::string* engine = nullptr, uint64_t index = 0);
    const Updater& last_update(uint32_t idx) const { return updaters_[idx]; }
    void check_index(uint32_t idx) const;        // throws naming the index and the count
    int32_t value(uint32_t idx) const { return values_[idx]; }
    const sc_core::sc_event& changed() const { return changed_; }

    void collect_stats(nlohmann::ordered_json& node) const override;

private:
    std::vector<int32_t> values_;
    std::vector<Updater> updaters_;
    sc_core::sc_event changed_;
    uint64_t updates_ = 0;
};

std::string describe_wait(const model::isa::Events& e);  // "semaphore 3 >= 2"

}  // namespace neuronsim::platform
