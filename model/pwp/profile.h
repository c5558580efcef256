#pragma once
// In-memory form of one per-function PWP profile (the reference's AFTable, seed 001 §3).
// Only the live keys drive evaluation; the inert metadata is kept separately for validation
// and reporting (ProfileMeta) and is never read by the evaluator.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace neuronsim::model::pwp {

// One degree-3 bucket about its breakpoint x. Stored as floats loaded from raw bit patterns.
struct Section {
    float x = 0, d0 = 0, d1 = 0, d2 = 0, d3 = 0;
};

// One side (pos or neg) of the two-level table, addressed by biased exponent 0..255.
// Sections of all octaves live in one flat vector; an octave is (first, count, extract_size).
struct Region {
    struct Octave {
        bool declared = false;
        uint8_t extract_size = 0;  // live: bucket = mant >> (23 - extract_size)
        uint32_t first = 0;  // index of the octave's first section in `sections`
        uint32_t count = 0;  // stored sections: the bound of the bucket search
        int32_t num_sections = 0;  // inert: declared addressing span (validation only)
        int32_t extract_lsb = 0;  // inert
    };
    std::array<Octave, 256> octaves{};
    std::vector<Section> sections;

    size_t stored_sections() const { return sections.size(); }
};

// One corner of the 4-way clamp: a (biased exponent, mantissa) threshold and its own cubic.
struct SatRegion {
    int32_t sat_point = 0;
    int32_t mantissa_point = 0;
    Section section;
};

// Generator / hardware metadata: parsed when present, never used by evaluation.
struct ProfileMeta {
    std::optional<int64_t> lut_size;
    std::optional<int64_t> sunda_id;
    std::optional<int64_t> tonga_id;
    std::optional<int64_t> exponent_offset;  // lowest declared octave (the set's exp_offset)
    std::optional<bool> use_multipass;
    // Raw float patterns of the remaining inert boxes (0 when absent).
    uint32_t max_diff = 0, lower_bound = 0, upper_bound = 0, imm_bias = 0, fma_const0 = 0, fma_const1 = 0;
};

struct Profile {
    std::string name;  // the profile's "name" key
    std::string source;  // the file it came from (for error messages)
    bool symmetry_en = false;
    bool symmetry_invert_sign_opt = false;
    bool symmetry_opt_use_neg_region = false;
    float symmetry_point = 0;
    float zero_result = 0;
    float nan_result = 0;  // loaded, never returned: the evaluator has no NaN branch
    float pinf_result = 0;
    float ninf_result = 0;
    Region pos;
    Region neg;
    SatRegion sat_pos_high, sat_pos_low, sat_neg_high, sat_neg_low;
    ProfileMeta meta;
    std::vector<std::string> warnings;  // inert-key inconsistencies found while loading

    size_t stored_sections() const { return pos.stored_sections() + neg.stored_sections(); }
};

}  // namespace neuronsim::model::pwp
