#include "model/workloads/act_functions.h"

#include <algorithm>

#include "model/common/error.h"
#include "model/pwp/catalog.h"

namespace neuronsim::model::workloads {

const std::vector<pwp::RosterSet>& trainium_sets() { return pwp::builtin_roster(pwp::Target::Trainium); }

int func_id(const std::string& function) {
    const pwp::CatalogFn* f = pwp::find_catalog_fn(function);
    if (!f) throw Error("'" + function + "' is not a function of the catalog (neuronsim act list)");
    return f->sunda_id;
}

std::string function_of_id(int id) {
    for (const pwp::CatalogFn& f : pwp::catalog())
        if (f.sunda_id == id) return f.name;
    return "";
}

int set_index(const std::string& set_name) {
    const auto& sets = trainium_sets();
    for (size_t i = 0; i < sets.size(); ++i)
        if (sets[i].name == set_name) return static_cast<int>(i);
    throw Error("'" + set_name + "' is not a set of the trainium roster");
}

bool set_holds(int set, const std::string& function) {
    const auto& sets = trainium_sets();
    if (set < 0 || static_cast<size_t>(set) >= sets.size()) return false;
    const auto& act = sets[static_cast<size_t>(set)].act;
    return std::any_of(act.begin(), act.end(), [&](const auto& a) { return a.first == function; });
}

int first_set_covering(const std::vector<std::string>& functions) {
    const auto& sets = trainium_sets();
    for (size_t s = 0; s < sets.size(); ++s)
        if (std::all_of(functions.begin(), functions.end(), [&](const std::string& f) { return set_holds(static_cast<int>(s), f); }))
            return static_cast<int>(s);
    return -1;
}

}  // namespace neuronsim::model::workloads
