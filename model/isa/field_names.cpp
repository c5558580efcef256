#include "model/isa/field_names.h"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

#include "model/fp/dtype.h"
#include "model/pwp/catalog.h"
#include "model/pwp/roster.h"

namespace neuronsim::model::isa {

namespace {

using Names = std::vector<std::pair<std::string, uint8_t>>;  // the first name of a code is the one printed

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

const Names& dtype_names() {
    static const Names n = [] {
        Names v;
        for (unsigned c = 1; c < 0x20; ++c) {
            const std::string name = fp::dtype_name(static_cast<uint8_t>(c));
            if (name.rfind("0x", 0) != 0) v.emplace_back(lower(name), static_cast<uint8_t>(c));
        }
        for (const auto& [alias, dt] : {std::pair{"bf16", fp::Dtype::Bfloat16}, {"f16", fp::Dtype::Fp16}, {"f32", fp::Dtype::Fp32}})
            v.emplace_back(alias, static_cast<uint8_t>(dt));
        return v;
    }();
    return n;
}

const Names& alu_names() {
    static const Names n = {
        {"bypass", 0x00}, {"add", 0x04}, {"subtract", 0x05}, {"sub", 0x05},     {"mult", 0x06}, {"mul", 0x06},    {"divide", 0x07},
        {"max", 0x08},    {"min", 0x09}, {"abs_max", 0x0A},  {"abs_min", 0x0B}, {"relu", 0x22}, {"square", 0x23}, {"symmetric_clamp", 0x24}};
    return n;
}

const Names& func_names() {
    static const Names n = [] {
        Names v;
        for (const pwp::CatalogFn& f : pwp::catalog())
            if (f.sunda_id > 0 && f.sunda_id < 256 && std::none_of(v.begin(), v.end(), [&](const auto& e) { return e.first == f.name; }))
                v.emplace_back(f.name, static_cast<uint8_t>(f.sunda_id));
        return v;
    }();
    return n;
}

const Names& set_names() {
    static const Names n = [] {
        Names v;
        const auto& sets = pwp::builtin_roster(pwp::Target::Trainium);
        for (size_t i = 0; i < sets.size() && i < 256; ++i) v.emplace_back(sets[i].name, static_cast<uint8_t>(i));
        return v;
    }();
    return n;
}

const Names* names_of(const std::string& field) {
    static const Names acc = {{"idle", 0}, {"zero", 1}, {"accumulate", 2}, {"zero_accumulate", 3}, {"load", 4}};
    static const Names reduce = {{"idle", 0}, {"reset", 1}, {"reduce", 2}, {"reset_reduce", 3}};
    static const Names source = {{"immediate", 0}, {"pointer", 1}, {"register", 2}};
    static const Names bias_source = {{"pointer", 0}, {"immediate", 1}, {"register", 2}};
    if (field == "func") return &func_names();
    if (field == "set") return &set_names();
    if (field == "in_dtype" || field == "out_dtype" || field == "dtype" || field == "lut_dtype" || field == "in0_dtype" || field == "in1_dtype" ||
        field == "operand_dtype")
        return &dtype_names();
    if (field == "accumulator_cmd") return &acc;
    if (field == "op" || field == "op0" || field == "op1" || field == "reduce_op") return &alu_names();
    if (field == "reduce_cmd") return &reduce;
    if (field == "scale_src" || field == "imm_src" || field == "relu_param_src" || field == "operand0_src" || field == "operand1_src") return &source;
    if (field == "bias_src_n") return &bias_source;
    return nullptr;
}

std::optional<uint8_t> code_in(const Names& n, const std::string& text) {
    const std::string t = lower(text);
    for (const auto& [name, code] : n)
        if (name == t) return code;
    return std::nullopt;
}

std::string name_in(const Names& n, uint8_t code) {
    for (const auto& [name, c] : n)
        if (c == code) return name;
    return "";
}

}  // namespace

bool field_has_names(const std::string& field) { return field == "in_bias_dtype" || names_of(field); }

std::optional<uint8_t> field_code(const std::string& field, const std::string& text) {
    if (field == "in_bias_dtype") {  // IN or IN:BIAS
        const size_t colon = text.find(':');
        const auto in = code_in(dtype_names(), text.substr(0, colon));
        if (!in || *in > 0x0F) return std::nullopt;
        if (colon == std::string::npos) return *in;
        const auto bias = code_in(dtype_names(), text.substr(colon + 1));
        if (!bias || *bias > 0x0F) return std::nullopt;
        return static_cast<uint8_t>(*in | *bias << 4);
    }
    const Names* n = names_of(field);
    return n ? code_in(*n, text) : std::nullopt;
}

std::string field_name(const std::string& field, uint8_t code) {
    if (field == "in_bias_dtype") {
        const std::string in = name_in(dtype_names(), code & 0x0F), bias = name_in(dtype_names(), code >> 4);
        if (in.empty() || (code >> 4 && bias.empty())) return "";
        return code >> 4 ? in + ":" + bias : in;
    }
    const Names* n = names_of(field);
    return n ? name_in(*n, code) : "";
}

std::string field_names_list(const std::string& field) {
    const Names* n = names_of(field == "in_bias_dtype" ? "in_dtype" : field);
    if (!n) return "";
    std::string s;
    for (const auto& [name, code] : *n) s += (s.empty() ? "" : ", ") + name;
    return field == "in_bias_dtype" ? "IN or IN:BIAS, each one of " + s : s;
}

}  // namespace neuronsim::model::isa
