#include "model/pwp/roster.h"

#include "model/io/json_path.h"
#include "model/pwp/manifest.h"

namespace neuronsim::model::pwp {

namespace {

using Act = std::vector<std::pair<std::string, int>>;

// Trainium packing order: the first hero, eight residents, the other heroes, five residents.
// This reproduces the known offsets of exp_and_others (identity at bkt 781, copy 785,
// tanh 813, square last at 937; seed 000 §1).
Act trainium(const Act& heroes) {
    static const char* first[] = {"identity", "copy", "relu", "leaky_relu", "parametric_relu", "abs", "sign", "memset_zero"};
    static const char* last[] = {"is_finite", "derivative_relu", "derivative_leaky_relu", "derivative_identity", "square"};
    Act a;
    size_t h = 0;
    if (!heroes.empty()) a.push_back(heroes[h++]);
    for (const char* r : first) a.emplace_back(r, 1);
    for (; h < heroes.size(); ++h) a.push_back(heroes[h]);
    for (const char* r : last) a.emplace_back(r, 1);
    return a;
}

Act residents(std::initializer_list<const char*> names) {
    Act a;
    for (const char* n : names) a.emplace_back(n, 1);
    return a;
}

Act concat(Act a, const Act& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

std::vector<RosterSet> build_trainium() {
    return {
        {"exp_and_others", trainium({{"exp", 400}, {"tanh", 4}})},
        {"softplus_and_others", trainium({{"softplus", 40}})},
        {"sigmoid_and_others", trainium({{"sigmoid", 40}, {"tanh", 4}, {"erf", 4}, {"arctan", 4}})},
        {"sqrt_and_others", trainium({{"sqrt", 65536}})},
        {"small", trainium({})},
        {"natural_log", trainium({{"ln", 40}})},
        {"natural_log_exp_and_others", trainium({{"ln", 400}, {"exp", 400}})},
        {"sigmoid_derivative", trainium({{"derivative_sigmoid", 40}})},
        {"tanh_and_derivative", trainium({{"derivative_tanh", 400}, {"tanh", 4}})},
        {"trig_and_small", trainium({{"sin", 4}, {"arctan", 4}})},
        {"gelu_and_others", trainium({{"derivative_gelu", 40}, {"gelu", 4}, {"tanh", 4}})},
        {"gelu_apprx_tanh_and_others", trainium({{"gelu_apprx_tanh", 40}, {"tanh", 4}})},
        {"gelu_apprx_sigmoid_and_others", trainium({{"gelu_apprx_sigmoid", 40}, {"tanh", 4}})},
        {"reciprocal_and_small", trainium({{"reciprocal", 400}})},
        {"reciprocal_sqrt_and_small", trainium({{"reciprocal_sqrt", 40000}})},
        {"abs_reciprocal_sqrt_and_small", trainium({{"abs_reciprocal_sqrt", 40000}})},
        {"mish_and_others", trainium({{"mish", 4}})},
        {"erf_derivative", trainium({{"derivative_erf", 400}})},
        {"silu_and_others", trainium({{"silu", 32}, {"tanh", 4}, {"sin", 4}})},
        {"derivative_silu_and_others", trainium({{"derivative_silu", 32}, {"tanh", 4}, {"sin", 4}})},
        {"derivative_gelu_apprx_sigmoid_and_others", trainium({{"derivative_gelu_apprx_sigmoid", 4096}, {"tanh", 4}})},
    };
}

// with_ln: the act maps of hardware-facts §B.4, in their listed order.
std::vector<RosterSet> build_with_ln() {
    const Act six = residents({"identity", "leaky_relu", "parametric_relu", "relu", "abs", "sign"});
    const Act gelu_six = residents({"relu", "leaky_relu", "parametric_relu", "abs", "sign", "identity"});
    return {
        {"exp_and_others", concat({{"exp", 400}, {"tanh", 4}}, six)},
        {"sigmoid_and_others", concat({{"sigmoid", 40}, {"tanh", 4}}, six)},
        {"softplus_tanh_and_others", concat({{"softplus", 40}, {"tanh", 4}}, six)},
        {"sqrt_and_others", concat({{"sqrt", 65536}}, residents({"identity", "leaky_relu", "parametric_relu", "relu", "sign", "abs", "square"}))},
        {"small", residents({"relu", "leaky_relu", "parametric_relu", "identity", "sign", "abs", "square"})},
        {"natural_log", concat({{"ln", 40}}, residents({"abs"}))},
        {"gelu_and_others", concat({{"gelu", 4}, {"tanh", 4}}, gelu_six)},
        {"gelu_apprx_tanh_and_others", concat({{"gelu_apprx_tanh", 40}, {"tanh", 4}}, gelu_six)},
        {"gelu_apprx_sigmoid_and_others", concat({{"gelu_apprx_sigmoid", 40}, {"tanh", 4}}, gelu_six)},
        {"mish_and_small", concat({{"mish", 4}}, residents({"relu", "leaky_relu", "parametric_relu", "sign", "abs", "identity"}))},
        {"reciprocal_and_small", concat({{"reciprocal", 400}}, residents({"parametric_relu", "sign", "abs", "square"}))},
        {"reciprocal_sqrt_and_small", concat({{"reciprocal_sqrt", 40000}}, residents({"identity", "square", "abs", "sign"}))},
        {"trig_and_small", concat({{"sin", 4}, {"arctan", 4}}, residents({"relu", "abs", "leaky_relu", "parametric_relu", "sign", "identity"}))},
        {"erf_and_others",
         concat({{"erf", 4}, {"tanh", 4}, {"sin", 4}}, residents({"relu", "abs", "leaky_relu", "parametric_relu", "identity", "sign", "square"}))},
    };
}

}  // namespace

const std::vector<RosterSet>& builtin_roster(Target t) {
    static const std::vector<RosterSet> tr = build_trainium();
    static const std::vector<RosterSet> wl = build_with_ln();
    return t == Target::Trainium ? tr : wl;
}

nlohmann::ordered_json act_info_to_json(const std::vector<RosterSet>& sets) {
    nlohmann::ordered_json j;
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const RosterSet& s : sets) {
        nlohmann::ordered_json e;
        e["name"] = s.name;
        e["bkt_bin"] = s.name + "_bkt.bin";
        e["ctrl_bin"] = s.name + "_ctrl.bin";
        e["profile_json"] = s.name + ".json";
        nlohmann::ordered_json act = nlohmann::ordered_json::object();
        for (const auto& [f, b] : s.act) act[f] = b;
        e["act"] = std::move(act);
        arr.push_back(std::move(e));
    }
    j["act_func_sets"] = std::move(arr);
    j["pwp_file_keys"] = {"bkt_bin", "ctrl_bin", "profile_json"};
    return j;
}

std::vector<RosterSet> parse_act_info(const std::string& json_text, const std::string& source) {
    nlohmann::ordered_json doc = io::parse_json_text(json_text, source);
    io::JsonNode root(doc, source);
    io::JsonNode sets = root.at("act_func_sets");
    std::vector<RosterSet> out;
    for (size_t i = 0; i < sets.size(); ++i) {
        io::JsonNode s = sets.at(i);
        RosterSet r;
        io::JsonNode name = s.at("name");
        r.name = name.as_string();
        // <name>.json is read from act_info.json's directory: the name must not leave it.
        if (!is_plain_relative_path(r.name) || r.name.find('/') != std::string::npos) name.fail("a set name (a file stem, without '/')");
        io::JsonNode act = s.at("act");
        act.expect_object();
        for (auto it = act.raw().begin(); it != act.raw().end(); ++it) {
            io::JsonNode b(it.value(), source, act.path() + "." + it.key());
            r.act.emplace_back(it.key(), static_cast<int>(b.as_int(1, INT32_MAX)));
        }
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace neuronsim::model::pwp
