#pragma once
// The trainium function-set roster (model/pwp/roster.h) as the kernel generator and the
// table-residency advisor use it: a function's name <-> the func_id an Activate carries (the
// catalog's sunda_id, as the built-in sets are packed), and which sets hold a function.
#include <string>
#include <vector>

#include "model/pwp/roster.h"

namespace neuronsim::model::workloads {

const std::vector<pwp::RosterSet>& trainium_sets();
// func_id of a function name ("exp" -> 7); an error names an unknown function.
int func_id(const std::string& function);
// The function of a func_id on trainium ("" when no catalog function has it).
std::string function_of_id(int func_id);
// The position of a set in the roster (its act_func_set_id); an error names an unknown set.
int set_index(const std::string& set_name);
bool set_holds(int set, const std::string& function);
// The compiler's first fit (hardware-facts §C.1): the first set, in roster order, that holds
// every one of `functions`; -1 when none does.
int first_set_covering(const std::vector<std::string>& functions);

}  // namespace neuronsim::model::workloads
