#pragma once
// Loads one per-function profile JSON in the shipped pwp_jsons/<func>_<N>p.json schema
// (seed 001 §2, §3, §8). Float fields are 6-member boxes of which only ".int" is read, as the
// raw 32-bit pattern; the "float" string is never parsed. Errors name the file and JSON path.
#include <string>

#include "model/pwp/profile.h"

namespace neuronsim::model::pwp {

Profile load_profile(const std::string& path);

// `source` names the text in error messages (a file path, or "<test>").
Profile parse_profile(const std::string& json_text, const std::string& source);

}  // namespace neuronsim::model::pwp
