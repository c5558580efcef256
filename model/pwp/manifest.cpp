#include "model/pwp/manifest.h"

#include <cctype>
#include <filesystem>

#include "model/common/error.h"
#include "model/io/json_path.h"

namespace neuronsim::model::pwp {

using nlohmann::ordered_json;

std::string strip_budget(const std::string& stem) {
    size_t us = stem.rfind('_');
    if (us == std::string::npos || stem.size() < us + 3 || stem.back() != 'p') return stem;
    for (size_t i = us + 1; i + 1 < stem.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(stem[i]))) return stem;
    return stem.substr(0, us);
}

std::string FuncMeta::bare_name() const { return strip_budget(func_name); }

namespace {

// The 30 fields, in file order, each with its JSON kind.
enum class Kind { Str, Int, Raw32, Bool };
struct Field {
    const char* key;
    Kind kind;
    void* (*at)(FuncMeta&);
};

#define NS_FIELD(name, kind)                                             \
    Field {                                                              \
#name, Kind::kind, [](FuncMeta & m) -> void* { return &m.name; } \
    }
const Field kFields[] = {
    NS_FIELD(func_name, Str),
    NS_FIELD(func_id, Int),
    NS_FIELD(fzero_result, Raw32),
    NS_FIELD(fpinf_result, Raw32),
    NS_FIELD(fninf_result, Raw32),
    NS_FIELD(fnan_result, Raw32),
    NS_FIELD(symmetry_opt_en, Bool),
    NS_FIELD(sym_invert_sign_point, Bool),
    NS_FIELD(symmetry_opt_use_neg_region, Bool),
    NS_FIELD(symmetry_point, Raw32),
    NS_FIELD(imm_bias, Int),
    NS_FIELD(exp_offset, Int),
    NS_FIELD(fma_const_0, Raw32),
    NS_FIELD(fma_const_1, Raw32),
    NS_FIELD(fma_indirection_src_sel, Int),
    NS_FIELD(pwl_control_base_pos, Int),
    NS_FIELD(pwl_control_base_neg, Int),
    NS_FIELD(pos_small_signal_pwl_control, Int),
    NS_FIELD(neg_small_signal_pwl_control, Int),
    NS_FIELD(pos_large_signal_pwl_control, Int),
    NS_FIELD(neg_large_signal_pwl_control, Int),
    NS_FIELD(small_pos_signal_exp_threshold, Int),
    NS_FIELD(small_neg_signal_exp_threshold, Int),
    NS_FIELD(large_pos_signal_exp_threshold, Int),
    NS_FIELD(large_neg_signal_exp_threshold, Int),
    NS_FIELD(large_pos_signal_mantissa_threshold, Int),
    NS_FIELD(large_neg_signal_mantissa_threshold, Int),
    NS_FIELD(lower_bound, Raw32),
    NS_FIELD(upper_bound, Raw32),
    NS_FIELD(use_multipass, Bool),
};
#undef NS_FIELD
static_assert(sizeof(kFields) / sizeof(kFields[0]) == 30, "profile_meta_data has 30 fields");

ordered_json meta_to_json(FuncMeta m) {  // by value: the accessors are shared with parsing
    ordered_json j;
    for (const Field& f : kFields) {
        void* p = f.at(m);
        switch (f.kind) {
            case Kind::Str: j[f.key] = *static_cast<std::string*>(p); break;
            case Kind::Int: j[f.key] = *static_cast<int64_t*>(p); break;
            case Kind::Raw32: j[f.key] = *static_cast<uint32_t*>(p); break;
            case Kind::Bool: j[f.key] = *static_cast<bool*>(p); break;
        }
    }
    return j;
}

FuncMeta parse_meta(const io::JsonNode& n) {
    n.expect_object();
    FuncMeta m;
    for (const Field& f : kFields) {
        io::JsonNode v = n.at(f.key);
        void* p = f.at(m);
        switch (f.kind) {
            case Kind::Str: *static_cast<std::string*>(p) = v.as_string(); break;
            case Kind::Int: *static_cast<int64_t*>(p) = v.as_int(INT32_MIN, UINT32_MAX); break;
            case Kind::Raw32: *static_cast<uint32_t*>(p) = static_cast<uint32_t>(v.as_int(INT32_MIN, UINT32_MAX)); break;
            case Kind::Bool: *static_cast<bool*>(p) = v.as_bool_or_01(); break;
        }
    }
    return m;
}

ordered_json index_map_json(const IndexMap& m) {
    ordered_json j = ordered_json::object();
    for (const auto& [k, v] : m) j[k] = v;
    return j;
}

IndexMap parse_index_map(const io::JsonNode& n) {
    n.expect_object();
    IndexMap m;
    for (auto it = n.raw().begin(); it != n.raw().end(); ++it) {
        io::JsonNode v(it.value(), n.source(), n.path() + "." + it.key());
        m.emplace_back(it.key(), v.as_int(0, INT32_MAX));
    }
    return m;
}

}  // namespace

ordered_json manifest_to_json(const SetManifest& m) {
    ordered_json j;
    j["bkt_bin"] = m.bkt_bin;
    j["bkt_entry_cnt"] = m.bkt_entry_cnt;
    j["ctl_bin"] = m.ctl_bin;
    j["ctl_entry_cnt"] = m.ctl_entry_cnt;
    j["func_to_bkt_start_idx"] = index_map_json(m.func_to_bkt_start_idx);
    j["func_to_ctl_start_idx"] = index_map_json(m.func_to_ctl_start_idx);
    j["func_exp_to_bkt_start_idx"] = m.func_exp_to_bkt_start_idx;
    j["func_exp_to_ctl_start_idx"] = m.func_exp_to_ctl_start_idx;
    ordered_json metas = ordered_json::array();
    for (const FuncMeta& f : m.profile_meta_data) metas.push_back(meta_to_json(f));
    j["profile_meta_data"] = std::move(metas);
    return j;
}

static std::string blob_file_name(const io::JsonNode& n) {
    const std::string s = n.as_string();
    if (!is_plain_relative_path(s)) n.fail("a file in the set's directory (a relative path without '..')");
    return s;
}

bool is_plain_relative_path(const std::string& s) {
    if (s.empty() || s.find('\0') != std::string::npos) return false;
    const std::filesystem::path p(s);
    if (p.is_absolute() || p.has_root_name()) return false;
    for (const auto& part : p)
        if (part == "..") return false;
    return true;
}

SetManifest parse_manifest(const std::string& json_text, const std::string& source) {
    nlohmann::ordered_json doc = io::parse_json_text(json_text, source);
    io::JsonNode root(doc, source);
    root.expect_object();
    SetManifest m;
    // The blobs are read from the manifest's directory; a name that leaves it is refused.
    m.bkt_bin = blob_file_name(root.at("bkt_bin"));
    m.bkt_entry_cnt = root.at("bkt_entry_cnt").as_int(0, INT32_MAX);
    m.ctl_bin = blob_file_name(root.at("ctl_bin"));
    m.ctl_entry_cnt = root.at("ctl_entry_cnt").as_int(0, INT32_MAX);
    m.func_to_bkt_start_idx = parse_index_map(root.at("func_to_bkt_start_idx"));
    m.func_to_ctl_start_idx = parse_index_map(root.at("func_to_ctl_start_idx"));
    if (root.has("func_exp_to_bkt_start_idx")) m.func_exp_to_bkt_start_idx = root.raw()["func_exp_to_bkt_start_idx"];
    if (root.has("func_exp_to_ctl_start_idx")) m.func_exp_to_ctl_start_idx = root.raw()["func_exp_to_ctl_start_idx"];
    io::JsonNode metas = root.at("profile_meta_data");
    for (size_t i = 0; i < metas.size(); ++i) m.profile_meta_data.push_back(parse_meta(metas.at(i)));
    return m;
}

}  // namespace neuronsim::model::pwp
