#pragma once
// The per-set manifest <set>.json (seed 000 §1, §6): entry counts, the blob names, the
// function -> start-index maps and one 30-field profile_meta_data record per function.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace neuronsim::model::pwp {

// One function's control record: a denormalised copy of its profile's scalar fields plus the
// addresses of its ctrl/bkt blocks. Raw fp32 fields hold bit patterns.
struct FuncMeta {
    std::string func_name;  // profile stem, "exp_400p"
    int64_t func_id = 0;  // sunda_id (trainium) / tonga_id (with_ln)
    uint32_t fzero_result = 0, fpinf_result = 0, fninf_result = 0, fnan_result = 0;
    bool symmetry_opt_en = false, sym_invert_sign_point = false, symmetry_opt_use_neg_region = false;
    uint32_t symmetry_point = 0;
    int64_t imm_bias = 0;
    int64_t exp_offset = 0;  // unbiased exponent of ctrl index 0 of each side
    uint32_t fma_const_0 = 0, fma_const_1 = 0;
    int64_t fma_indirection_src_sel = 0;
    int64_t pwl_control_base_pos = 0, pwl_control_base_neg = 0;  // ctrl-table indices
    int64_t pos_small_signal_pwl_control = 0, neg_small_signal_pwl_control = 0;  // bkt-table
    int64_t pos_large_signal_pwl_control = 0, neg_large_signal_pwl_control = 0;  // indices
    int64_t small_pos_signal_exp_threshold = 0, small_neg_signal_exp_threshold = 0;
    int64_t large_pos_signal_exp_threshold = 0, large_neg_signal_exp_threshold = 0;
    int64_t large_pos_signal_mantissa_threshold = 0, large_neg_signal_mantissa_threshold = 0;
    uint32_t lower_bound = 0, upper_bound = 0;
    bool use_multipass = false;

    std::string bare_name() const;  // func_name without a trailing _<N>p
};

using IndexMap = std::vector<std::pair<std::string, int64_t>>;  // in file order

struct SetManifest {
    std::string bkt_bin, ctl_bin;
    int64_t bkt_entry_cnt = 0, ctl_entry_cnt = 0;
    IndexMap func_to_bkt_start_idx, func_to_ctl_start_idx;
    // Per function: "neg_<e>" / "pos_<e>" -> index of that octave's first bucket / ctrl word.
    nlohmann::ordered_json func_exp_to_bkt_start_idx = nlohmann::ordered_json::object();
    nlohmann::ordered_json func_exp_to_ctl_start_idx = nlohmann::ordered_json::object();
    std::vector<FuncMeta> profile_meta_data;
};

nlohmann::ordered_json manifest_to_json(const SetManifest& m);
SetManifest parse_manifest(const std::string& json_text, const std::string& source);

// A path that stays inside the directory it is relative to: not empty, not absolute, no ".."
// component, no NUL. The blob names of a manifest and the set names of act_info.json must be.
bool is_plain_relative_path(const std::string& s);

// The name without the trailing "_<N>p" budget tag: "exp_400p" -> "exp".
std::string strip_budget(const std::string& stem);

}  // namespace neuronsim::model::pwp
