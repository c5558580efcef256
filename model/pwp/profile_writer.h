#pragma once
// Writes a Profile in the shipped per-function profile schema: float fields as 6-member boxes
// {float, int, hexstring, sign, exponent, mantissa}, integer sat_point/mantissa_point, octaves
// with exponent/extract_size/extract_lsb/num_sections/pos/exponent_sections. The inverse of
// profile_loader for every live key; inert keys are written from ProfileMeta or as zero.
#include <string>

#include <nlohmann/json.hpp>

#include "model/pwp/profile.h"

namespace neuronsim::model::pwp {

nlohmann::ordered_json float_box(uint32_t bits);
int lowest_declared_exponent(const Profile& p);  // over both regions; 0 when none
nlohmann::ordered_json profile_to_json(const Profile& p);
std::string profile_to_text(const Profile& p);  // pretty-printed, newline-terminated
void write_profile(const Profile& p, const std::string& path);

}  // namespace neuronsim::model::pwp
