#include "model/pwp/profile_loader.h"

#include <cmath>
#include <limits>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/io/json_path.h"

namespace neuronsim::model::pwp {

using io::JsonNode;

namespace {

constexpr int64_t kInt32Min = INT32_MIN;
constexpr int64_t kInt32Max = INT32_MAX;

// A float box {float, int, hexstring, sign, exponent, mantissa}: only ".int" is loaded, as the
// raw pattern (the reference LODWORD-stores json_object_get_int64). Negative int32 spellings
// of the same pattern are accepted; the decorative "float" string is never parsed.
float read_box(const JsonNode& parent, const char* key) {
    JsonNode box = parent.at(key);
    if (!box.raw().is_object()) box.fail("a float box object {float, int, hexstring, sign, exponent, mantissa}");
    JsonNode i = box.at("int");
    int64_t v = i.as_int(kInt32Min, static_cast<int64_t>(UINT32_MAX));
    return fp::float_of(static_cast<uint32_t>(v));
}

Section read_section(const JsonNode& n) {
    n.expect_object();
    Section s;
    s.x = read_box(n, "x");
    s.d0 = read_box(n, "d0");
    s.d1 = read_box(n, "d1");
    s.d2 = read_box(n, "d2");
    s.d3 = read_box(n, "d3");
    return s;
}

void read_region(const JsonNode& arr, Region& region, std::vector<std::string>& warnings) {
    arr.expect_array();
    for (size_t i = 0; i < arr.size(); ++i) {
        JsonNode oct = arr.at(i);
        oct.expect_object();
        // exponent is unbiased; the octave lives at index exponent + 127 (a u8 in the search).
        int64_t exponent = oct.at("exponent").as_int(-127, 128);
        int biased = static_cast<int>(exponent + 127);
        Region::Octave& o = region.octaves[biased];
        if (o.declared)
            throw Error(oct.source() + ": " + oct.at("exponent").path() + ": exponent " + std::to_string(exponent) + " is declared twice in this array");
        o.declared = true;
        o.extract_size = static_cast<uint8_t>(oct.at("extract_size").as_int(0, 23));

        JsonNode secs = oct.at("exponent_sections");
        size_t n = secs.size();
        if (n > (size_t{1} << o.extract_size))
            throw Error(secs.source() + ": " + secs.path() + ": " + std::to_string(n) + " sections stored but extract_size " + std::to_string(o.extract_size) +
                        " addresses at most " + std::to_string(size_t{1} << o.extract_size));
        o.first = static_cast<uint32_t>(region.sections.size());
        o.count = static_cast<uint32_t>(n);
        for (size_t k = 0; k < n; ++k) region.sections.push_back(read_section(secs.at(k)));

        // Inert keys: type-checked and cross-checked, never used by evaluation.
        if (oct.has("num_sections")) {
            o.num_sections = static_cast<int32_t>(oct.at("num_sections").as_int(0, kInt32Max));
            if (n > 0 && o.num_sections != (1 << o.extract_size))
                warnings.push_back(oct.path() + ": num_sections " + std::to_string(o.num_sections) + " != 2^extract_size " +
                                   std::to_string(1 << o.extract_size));
        }
        if (oct.has("extract_lsb")) {
            o.extract_lsb = static_cast<int32_t>(oct.at("extract_lsb").as_int(kInt32Min, kInt32Max));
            if (n > 0 && o.extract_lsb != 23 - o.extract_size)
                warnings.push_back(oct.path() + ": extract_lsb " + std::to_string(o.extract_lsb) + " != 23 - extract_size " +
                                   std::to_string(23 - o.extract_size));
        }
        if (oct.has("pos")) oct.at("pos").as_bool_or_01();
    }
}

SatRegion read_sat(const JsonNode& sat, const char* key) {
    JsonNode n = sat.at(key);
    n.expect_object();
    SatRegion r;
    // True integers compared against the biased exponent / mantissa, not float boxes.
    JsonNode sp = n.at("sat_point");
    if (sp.raw().is_object()) sp.fail("a plain integer (sat_point is not a float box)");
    r.sat_point = static_cast<int32_t>(sp.as_int(kInt32Min, kInt32Max));
    JsonNode mp = n.at("mantissa_point");
    if (mp.raw().is_object()) mp.fail("a plain integer (mantissa_point is not a float box)");
    r.mantissa_point = static_cast<int32_t>(mp.as_int(kInt32Min, kInt32Max));
    r.section = read_section(n);
    return r;
}

template <typename T>
void read_optional_int(const JsonNode& root, const char* key, std::optional<T>& out) {
    if (root.has(key)) out = root.at(key).as_int(INT64_MIN, INT64_MAX);
}

}  // namespace

Profile parse_profile(const std::string& json_text, const std::string& source) {
    nlohmann::ordered_json doc = io::parse_json_text(json_text, source);
    JsonNode root(doc, source);
    root.expect_object();

    Profile p;
    p.source = source;
    p.name = root.at("name").as_string();
    p.symmetry_en = root.at("symmetry_en").as_bool_or_01();
    p.symmetry_invert_sign_opt = root.at("symmetry_invert_sign_opt").as_bool_or_01();
    p.symmetry_opt_use_neg_region = root.at("symmetry_opt_use_neg_region").as_bool_or_01();
    p.symmetry_point = read_box(root, "symmetry_point");
    p.zero_result = read_box(root, "zero_result");
    p.nan_result = read_box(root, "nan_result");
    p.pinf_result = read_box(root, "pinf_result");
    p.ninf_result = read_box(root, "ninf_result");

    read_region(root.at("pos_exponents"), p.pos, p.warnings);
    read_region(root.at("neg_exponents"), p.neg, p.warnings);

    JsonNode sat = root.at("saturation_points");
    sat.expect_object();
    p.sat_pos_high = read_sat(sat, "sat_point_pos_high");
    p.sat_pos_low = read_sat(sat, "sat_point_pos_low");
    p.sat_neg_high = read_sat(sat, "sat_point_neg_high");
    p.sat_neg_low = read_sat(sat, "sat_point_neg_low");

    // Inert top-level metadata: read for reporting and cross-checks only.
    read_optional_int(root, "lut_size", p.meta.lut_size);
    read_optional_int(root, "sunda_id", p.meta.sunda_id);
    read_optional_int(root, "tonga_id", p.meta.tonga_id);
    read_optional_int(root, "exponent_offset", p.meta.exponent_offset);
    // Inert values may be boxes or plain numbers in other generators' output; both are read.
    auto inert_box = [&](const char* key, uint32_t& out) {
        if (!root.has(key)) return;
        const JsonNode n = root.at(key);
        if (n.raw().is_number()) {
            // A double beyond float's range has no float (converting it is undefined).
            const double d = n.raw().get<double>();
            if (std::isfinite(d) && std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max())) n.fail("a number in float32's range");
            out = fp::bits_of(static_cast<float>(d));
        } else {
            out = fp::bits_of(read_box(root, key));
        }
    };
    inert_box("max_diff", p.meta.max_diff);
    inert_box("lower_bound", p.meta.lower_bound);
    inert_box("upper_bound", p.meta.upper_bound);
    inert_box("imm_bias", p.meta.imm_bias);
    inert_box("fma_const0", p.meta.fma_const0);
    inert_box("fma_const1", p.meta.fma_const1);
    if (root.has("use_multipass")) p.meta.use_multipass = root.at("use_multipass").as_bool_or_01();
    if (p.meta.lut_size && *p.meta.lut_size != static_cast<int64_t>(p.stored_sections()))
        p.warnings.push_back("$.lut_size " + std::to_string(*p.meta.lut_size) + " != stored sections " + std::to_string(p.stored_sections()));
    return p;
}

Profile load_profile(const std::string& path) { return parse_profile(io::read_text_file(path, io::kMaxJsonFileBytes, "profile"), path); }

}  // namespace neuronsim::model::pwp
