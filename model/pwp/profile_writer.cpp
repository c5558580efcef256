#include "model/pwp/profile_writer.h"

#include <cstdio>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/io/write_file.h"

namespace neuronsim::model::pwp {

using nlohmann::ordered_json;

ordered_json float_box(uint32_t bits) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", static_cast<double>(fp::float_of(bits)));
    ordered_json b;
    b["float"] = text;  // decorative and lossy; readers use "int"
    b["int"] = bits;
    b["hexstring"] = fp::hex8(bits);
    b["sign"] = bits >> 31;
    b["exponent"] = (bits >> 23) & 0xFFu;
    b["mantissa"] = bits & 0x7FFFFFu;
    return b;
}

static ordered_json box(float f) { return float_box(fp::bits_of(f)); }

static ordered_json section_json(const Section& s) {
    ordered_json j;
    j["x"] = box(s.x);
    j["d0"] = box(s.d0);
    j["d1"] = box(s.d1);
    j["d2"] = box(s.d2);
    j["d3"] = box(s.d3);
    return j;
}

static ordered_json region_json(const Region& r, bool pos) {
    ordered_json arr = ordered_json::array();
    for (int biased = 0; biased < 256; ++biased) {
        const Region::Octave& o = r.octaves[biased];
        if (!o.declared) continue;
        ordered_json j;
        j["exponent"] = biased - 127;
        j["num_sections"] = 1 << o.extract_size;
        j["extract_size"] = o.extract_size;
        j["extract_lsb"] = 23 - o.extract_size;
        j["pos"] = pos;
        ordered_json secs = ordered_json::array();
        for (uint32_t k = 0; k < o.count; ++k) secs.push_back(section_json(r.sections[o.first + k]));
        j["exponent_sections"] = std::move(secs);
        arr.push_back(std::move(j));
    }
    return arr;
}

static ordered_json sat_json(const SatRegion& s) {
    ordered_json j;
    j["sat_point"] = s.sat_point;
    j["mantissa_point"] = s.mantissa_point;
    ordered_json sec = section_json(s.section);
    for (auto it = sec.begin(); it != sec.end(); ++it) j[it.key()] = it.value();
    return j;
}

int lowest_declared_exponent(const Profile& p) {
    for (int biased = 0; biased < 256; ++biased)
        if (p.pos.octaves[biased].declared || p.neg.octaves[biased].declared) return biased - 127;
    return 0;
}

ordered_json profile_to_json(const Profile& p) {
    ordered_json j;
    j["name"] = p.name;
    j["sunda_id"] = p.meta.sunda_id.value_or(0);
    j["tonga_id"] = p.meta.tonga_id.value_or(0);
    // The 24th key of the shipped schema is not recovered in our sources (seed 001 §2.1 lost
    // its table); we write the catalog's neuron_id column (hardware-facts §B.1) under that name.
    j["neuron_id"] = p.meta.sunda_id.value_or(0);
    j["lut_size"] = p.meta.lut_size.value_or(static_cast<int64_t>(p.stored_sections()));
    j["max_diff"] = float_box(p.meta.max_diff);
    j["symmetry_en"] = p.symmetry_en;
    j["symmetry_invert_sign_opt"] = p.symmetry_invert_sign_opt;
    j["symmetry_opt_use_neg_region"] = p.symmetry_opt_use_neg_region;
    j["symmetry_point"] = box(p.symmetry_point);
    j["zero_result"] = box(p.zero_result);
    j["nan_result"] = box(p.nan_result);
    j["pinf_result"] = box(p.pinf_result);
    j["ninf_result"] = box(p.ninf_result);
    j["exponent_offset"] = p.meta.exponent_offset.value_or(lowest_declared_exponent(p));
    j["lower_bound"] = float_box(p.meta.lower_bound);
    j["upper_bound"] = float_box(p.meta.upper_bound);
    j["imm_bias"] = float_box(p.meta.imm_bias);
    j["fma_const0"] = float_box(p.meta.fma_const0);
    j["fma_const1"] = float_box(p.meta.fma_const1);
    j["use_multipass"] = p.meta.use_multipass.value_or(false);
    j["pos_exponents"] = region_json(p.pos, true);
    j["neg_exponents"] = region_json(p.neg, false);
    ordered_json sat;
    sat["sat_point_pos_high"] = sat_json(p.sat_pos_high);
    sat["sat_point_pos_low"] = sat_json(p.sat_pos_low);
    sat["sat_point_neg_high"] = sat_json(p.sat_neg_high);
    sat["sat_point_neg_low"] = sat_json(p.sat_neg_low);
    j["saturation_points"] = std::move(sat);
    return j;
}

std::string profile_to_text(const Profile& p) { return profile_to_json(p).dump(2) + "\n"; }

void write_profile(const Profile& p, const std::string& path) { io::write_file_atomic(path, profile_to_text(p)); }

}  // namespace neuronsim::model::pwp
