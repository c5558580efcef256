#include "model/pwp/evaluate.h"

#include <cmath>

#include "model/fp/bits.h"

namespace neuronsim::model::pwp {

using fp::hex8;

UnhandledSection::UnhandledSection(const std::string& function, const std::string& source, uint32_t in_bits, uint32_t sel_bits, int biased_octave,
                                   uint32_t bucket, uint32_t stored)
    : Error("Unhandled section in simulation: function '" + function + "' (" + source + "), input 0x" + hex8(in_bits) + " (folded 0x" + hex8(sel_bits) + "), " +
            ((sel_bits >> 31) ? "neg" : "pos") + " octave exponent " + std::to_string(biased_octave - 127) + " (biased " + std::to_string(biased_octave) +
            "): bucket " + std::to_string(bucket) + " but " + std::to_string(stored) + " section(s) stored"),
      input_bits(in_bits) {}

float cubic(const Section& s, float sel) {
    float t = sel - s.x;
    float lo = t * s.d1;
    lo = lo + s.d0;
    double r = static_cast<double>(lo) + static_cast<double>(t) * static_cast<double>(t) * static_cast<double>(s.d2);
    r = std::pow(static_cast<double>(t), 3.0) * static_cast<double>(s.d3) + r;
    return static_cast<float>(r);
}

namespace {

// A Profile seen through the pipeline's Table interface.
struct ProfileTable {
    const Profile& p;
    float zero() const { return p.zero_result; }
    float pinf() const { return p.pinf_result; }
    float ninf() const { return p.ninf_result; }
    bool sym_en() const { return p.symmetry_en; }
    bool sym_invert() const { return p.symmetry_invert_sign_opt; }
    bool sym_neg() const { return p.symmetry_opt_use_neg_region; }
    float sym_point() const { return p.symmetry_point; }
    const SatRegion& hi(bool neg) const { return neg ? p.sat_neg_high : p.sat_pos_high; }
    const SatRegion& lo(bool neg) const { return neg ? p.sat_neg_low : p.sat_pos_low; }
    int32_t high_exp(bool neg) const { return hi(neg).sat_point; }
    int32_t high_mant(bool neg) const { return hi(neg).mantissa_point; }
    int32_t low_exp(bool neg) const { return lo(neg).sat_point; }
    int32_t low_mant(bool neg) const { return lo(neg).mantissa_point; }
    const Section& high(bool neg) const { return hi(neg).section; }
    const Section& low(bool neg) const { return lo(neg).section; }

    // find_pwp_nonsat_section: octave by (u8) biased exponent, bucket by the top
    // extract_size mantissa bits, bounded by the STORED section count (not num_sections).
    const Section& nonsat(bool neg, uint32_t sel_bits, uint32_t v_bits) const {
        const Region& region = neg ? p.neg : p.pos;
        int octave = static_cast<uint8_t>(sel_bits >> 23);
        const Region::Octave& o = region.octaves[octave];
        uint32_t bucket = (sel_bits & 0x7FFFFFu) >> (23 - o.extract_size);
        if (bucket >= o.count) throw UnhandledSection(p.name, p.source, v_bits, sel_bits, octave, bucket, o.count);
        return region.sections[o.first + bucket];
    }
};

}  // namespace

float evaluate_generic(const Profile& p, float v) { return evaluate_pipeline(ProfileTable{p}, v); }

void evaluate_generic_n(const Profile& p, const float* in, float* out, size_t n) {
    const ProfileTable t{p};
    for (size_t i = 0; i < n; ++i) out[i] = evaluate_pipeline(t, in[i]);
}

}  // namespace neuronsim::model::pwp
