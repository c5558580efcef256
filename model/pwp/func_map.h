#pragma once
// The reference simulator's FuncMap: profile file name -> activation name. The defaults live
// in configs/pwp_funcmap.json and are compiled in; a user file in the same format replaces them.
#include <string>
#include <utility>
#include <vector>

#include "model/pwp/act_fn.h"

namespace neuronsim::model::pwp {

struct FuncMapEntry {
    std::string file;  // e.g. "exp_400p.json", relative to the profile directory
    ActFn fn;
};

using FuncMap = std::vector<FuncMapEntry>;

// JSON object {"file.json": "ActivationName", ...}; keys starting with '_' are comments.
// Errors name the source and key: unknown names, Prelu (no PWP path), a name mapped twice.
FuncMap parse_func_map(const std::string& json_text, const std::string& source);
FuncMap load_func_map(const std::string& path);
const FuncMap& builtin_func_map();

}  // namespace neuronsim::model::pwp
