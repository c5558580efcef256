#pragma once
// The function-set rosters (act_info.json, hardware-facts §B.2-§B.4): which functions, at
// which budget, each set of each target holds; the set's position is its act_func_set_id.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/pwp/blob.h"

namespace neuronsim::model::pwp {

struct RosterSet {
    std::string name;
    std::vector<std::pair<std::string, int>> act;  // bare function name -> budget, packing order
};

// The built-in rosters: 21 trainium sets (each with the 13 residents), 14 with_ln sets.
const std::vector<RosterSet>& builtin_roster(Target t);

nlohmann::ordered_json act_info_to_json(const std::vector<RosterSet>& sets);
std::vector<RosterSet> parse_act_info(const std::string& json_text, const std::string& source);

}  // namespace neuronsim::model::pwp
