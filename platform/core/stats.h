#pragma once
// Statistics as a tree collected by walking the SystemC module hierarchy: every module that
// implements StatsProvider contributes its node under its own name (stats_name(): the
// module's basename unless it says otherwise, e.g. an engine's stream name "dma3.1").
#include <nlohmann/json.hpp>
#include <systemc>

namespace neuronsim::platform {

class StatsProvider {
public:
    virtual ~StatsProvider() = default;
    virtual void collect_stats(nlohmann::ordered_json& node) const = 0;
    virtual std::string stats_name() const { return ""; }  // "": the module's basename
};

// {"<basename>": {...its stats..., "<child>": {...}}} for `root` and its descendants.
nlohmann::ordered_json collect_stats_tree(const sc_core::sc_object& root);

}  // namespace neuronsim::platform
