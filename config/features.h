#pragma once
// What a generation has, by name: the one place where generation.nc_version and the gpsimd
// switches of a configuration become features (hardware-facts §F.4, §F.9, §F.10). Code that
// gates on a feature asks here, never compares nc_version itself. (The GPSIMD firmware model
// is the exception: it reproduces firmware that reads the NeuronCore version.)
#include <functional>
#include <string>
#include <vector>

#include "neuronsim/config.h"

namespace neuronsim {

// The ISA names the CPTC dtypes (lut_dtype 0x19..0x1f; from NC-v4).
bool isa_has_cptc_dtypes(const Config& c);
// The generation's GPSIMD firmware ships the CPTC library (EXTISA_3; from NC-v3 where
// gpsimd.cptc_library says so).
bool gpsimd_ships_cptc_library(const Config& c);
// ... and this core can stage it: the PERF core type (a run still opts in with
// gpsimd.cptc_flag or NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE).
bool gpsimd_can_stage_cptc_library(const Config& c);
// A kernel may decode CPTC tensors on this generation: the dtypes exist and the library stages.
bool can_decode_cptc(const Config& c);

// The features by name, for selections (`neuronsim config generations`, the goldens' list).
struct Feature {
    std::string name;  // cptc_decode
    std::string description;
    std::function<bool(const Config&)> has;
};
const std::vector<Feature>& features();

// The built-in generations (lower case, by nc_version) a selection names: "all", a feature's
// name (the generations whose preset has it), "no_" and a feature's name, or a comma list of
// generation names. An unknown word is an Error naming it and what is accepted.
std::vector<std::string> select_generations(const std::string& selection);

// The built-in generations (upper case, by nc_version) whose preset has the feature, e.g.
// {MARIANA, MARIANA_PLUS, MAVERICK} for isa_has_cptc_dtypes.
std::vector<std::string> generations_with(const std::function<bool(const Config&)>& feature);

// The generation names for messages: "SUNDA, CAYMAN, MARIANA, MARIANA_PLUS or MAVERICK"
// (`upper`), or the lower-case preset names.
std::string generation_list(bool upper, const std::string& last_separator = " or ");

}  // namespace neuronsim
