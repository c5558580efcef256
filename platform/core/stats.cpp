#include "platform/core/stats.h"

namespace neuronsim::platform {

static void walk(const sc_core::sc_object& o, nlohmann::ordered_json& node) {
    if (auto* p = dynamic_cast<const StatsProvider*>(&o)) p->collect_stats(node);
    for (sc_core::sc_object* c : o.get_child_objects()) {
        if (!dynamic_cast<const sc_core::sc_module*>(c)) continue;
        nlohmann::ordered_json child = nlohmann::ordered_json::object();
        walk(*c, child);
        const auto* p = dynamic_cast<const StatsProvider*>(c);
        const std::string name = p && !p->stats_name().empty() ? p->stats_name() : std::string(c->basename());
        if (!child.empty()) node[name] = std::move(child);
    }
}

nlohmann::ordered_json collect_stats_tree(const sc_core::sc_object& root) {
    nlohmann::ordered_json node = nlohmann::ordered_json::object();
    walk(root, node);
    return node;
}

}  // namespace neuronsim::platform
