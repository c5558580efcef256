#include "model/pwp/generator.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/pwp/evaluate.h"
#include "model/pwp/fit.h"

namespace neuronsim::model::pwp {

namespace {

using fp::bits_of;
using fp::float_of;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr int kMaxExtract = 10;        // the largest extract_size the shipped sets use
constexpr double kNormTarget = 0.1;    // issue metric: err / max(1e-5|f|, 1e-6), aim 10x better
constexpr double kRelTarget = 1e-6;    // then relative error, where the budget allows

// One stored side of the table: magnitudes m map to sel = +m (pos) or -m (neg).
struct SideGen {
    bool neg = false;             // region (sel sign)
    SideLayout layout;
    double sat = 0;               // |sel| where the high clamp engages (float value)
    int e_top = 0;                // highest stored octave
    uint32_t mant_point = 0;      // high clamp mantissa threshold (0: whole octave clamps)
};

struct OctaveGen {
    int side = 0;                 // index into sides
    int e = 0;
    int es = 0;
    std::vector<Section> sections;
    double norm = 0, rel = 0;     // scores
};

class Generator {
public:
    explicit Generator(const CatalogFn& fn) : fn_(fn) {}
    Profile run();

private:
    double table_value(const SideGen& s, double m) const {
        // The value the stored region holds at sel = +-m.
        double sel = s.neg ? -m : m;
        if (fn_.symmetry == Symmetry::PointStoreNeg) return ideal(fn_, -sel);
        return ideal(fn_, sel);
    }
    double find_sat(const SideGen& s) const;
    uint32_t bucket_count(const SideGen& s, int e, int es) const;
    void fit_octave(OctaveGen& o) const;
    void score_octave(OctaveGen& o) const;
    Profile skeleton() const;  // flags and specials, no regions
    bool in_domain(float v) const;

    const CatalogFn& fn_;
    std::vector<SideGen> sides_;
};

int biased_of(float m) { return static_cast<int>(bits_of(m) >> 23); }
uint32_t mant_of(float m) { return bits_of(m) & 0x7FFFFFu; }

double Generator::find_sat(const SideGen& s) const {
    if (s.layout.sat > 0) return s.layout.sat;
    auto holds = [&](double m) {
        double g = table_value(s, m);
        if (s.layout.high == HighClamp::Identity) return std::fabs(g - (s.neg ? -m : m)) <= std::ldexp(m, -25);
        double tol = std::max(std::fabs(s.layout.limit) * std::ldexp(1.0, -25), s.layout.tail_abs);
        return std::fabs(g - s.layout.limit) <= tol;
    };
    double m = 256;
    if (!holds(m)) throw Error(fn_.name + ": the tail has not saturated at |x| = 256");
    while (m > std::ldexp(1.0, fn_.e_lo + 1) && holds(m * (1 - 1.0 / 1024))) m *= 1 - 1.0 / 1024;
    return m;
}

uint32_t Generator::bucket_count(const SideGen& s, int e, int es) const {
    if (e == s.e_top && s.mant_point != 0) {
        uint32_t shift = 23 - es;
        return (s.mant_point + (1u << shift) - 1) >> shift;  // buckets below the threshold
    }
    return 1u << es;
}

void Generator::fit_octave(OctaveGen& o) const {
    const SideGen& s = sides_[o.side];
    const uint32_t n = bucket_count(s, o.e, o.es);
    o.sections.clear();
    auto g = [&](double sel) { return fn_.symmetry == Symmetry::PointStoreNeg ? ideal(fn_, -sel) : ideal(fn_, sel); };
    for (uint32_t k = 0; k < n; ++k) {
        double lo = std::ldexp(1.0 + static_cast<double>(k) / (1u << o.es), o.e);
        double hi = std::ldexp(1.0 + static_cast<double>(k + 1) / (1u << o.es), o.e);
        if (o.e == s.e_top && s.mant_point != 0) hi = std::min(hi, s.sat);
        double a = s.neg ? -hi : lo, b = s.neg ? -lo : hi;
        o.sections.push_back(fit_cubic(g, a, b, static_cast<float>((a + b) / 2)));
    }
}

Profile Generator::skeleton() const {
    Profile p;
    p.name = fn_.name;
    p.source = "generated " + fn_.file_name();
    switch (fn_.symmetry) {
        case Symmetry::Odd: p.symmetry_en = p.symmetry_invert_sign_opt = true; break;
        case Symmetry::Even: p.symmetry_en = true; break;
        case Symmetry::PointStoreNeg:
            p.symmetry_en = p.symmetry_invert_sign_opt = p.symmetry_opt_use_neg_region = true;
            p.symmetry_point = 1.0f;
            break;
        default: break;
    }
    p.zero_result = fn_.zero_result;
    p.nan_result = kNaN;
    p.pinf_result = fn_.pinf_result;
    p.ninf_result = fn_.ninf_result;
    return p;
}

bool Generator::in_domain(float v) const {
    if (v < 0 && !fn_.domain_neg) return false;
    double m = std::fabs(static_cast<double>(v));
    return m >= fn_.domain_lo && m <= fn_.domain_hi;
}

void Generator::score_octave(OctaveGen& o) const {
    const SideGen& s = sides_[o.side];
    // A profile where only this octave is in range: everything above and below clamps.
    Profile p = skeleton();
    Region& r = s.neg ? p.neg : p.pos;
    Region::Octave& oct = r.octaves[o.e + 127];
    oct.declared = true;
    oct.extract_size = static_cast<uint8_t>(o.es);
    oct.count = static_cast<uint32_t>(o.sections.size());
    r.sections = o.sections;
    SatRegion above{o.e + 128, 0, Section{0, 0, 0, 0, 0}};
    SatRegion below{o.e + 126, 0x7fffff, Section{0, 0, 0, 0, 0}};
    (s.neg ? p.sat_neg_high : p.sat_pos_high) = above;
    (s.neg ? p.sat_neg_low : p.sat_pos_low) = below;

    std::vector<int> signs;
    switch (fn_.symmetry) {
        case Symmetry::Asymmetric: signs = {s.neg ? -1 : 1}; break;
        case Symmetry::PositiveOnly: signs = {1}; break;
        default: signs = {1, -1}; break;
    }
    o.norm = o.rel = 0;
    const uint32_t shift = 23 - o.es;
    const uint32_t per_bucket = 8;
    for (uint32_t k = 0; k < o.sections.size(); ++k) {
        for (uint32_t j = 0; j <= per_bucket; ++j) {
            uint32_t mant = (k << shift) + static_cast<uint32_t>((static_cast<uint64_t>((1u << shift) - 1) * j) / per_bucket);
            if (o.e == s.e_top && s.mant_point != 0 && mant >= s.mant_point) continue;
            float m = float_of(static_cast<uint32_t>(o.e + 127) << 23 | mant);
            for (int sign : signs) {
                float v = sign * m;
                if (!in_domain(v)) continue;
                float c = closed_form(fn_, v);
                float y = evaluate_generic(p, v);
                if (std::isnan(c)) continue;
                double err = (std::isinf(c) || std::isinf(y)) ? (y == c ? 0.0 : INFINITY)
                                                              : std::fabs(static_cast<double>(y) - c);
                o.norm = std::max(o.norm, err / std::max(1e-5 * std::fabs(c), 1e-6));
                // Relative error is the table's own: 1 - r for sigmoid's negative inputs
                // cancels whatever the table does, so those inputs only count in `norm`.
                // Near a root the float sum d0 + d1*t cannot do better than about an ulp of
                // d0, so relative error is measured against at least 2^-22 |d0|.
                if (fn_.symmetry == Symmetry::PointStoreNeg && v < 0) continue;
                if (std::fabs(c) < FLT_MIN) continue;  // as the accuracy report: normal results
                double floor = std::max(std::ldexp(std::fabs(static_cast<double>(o.sections[k].d0)), -22),
                                        static_cast<double>(FLT_MIN));
                o.rel = std::max(o.rel, err / std::max(static_cast<double>(std::fabs(c)), floor));
            }
        }
    }
}

Profile Generator::run() {
    // The stored sides, in region terms.
    // (push_back rather than assigning an initializer list: GCC 12 warns falsely on that.)
    sides_.clear();
    switch (fn_.symmetry) {
        case Symmetry::Asymmetric:
            sides_.push_back(SideGen{true, fn_.neg});
            sides_.push_back(SideGen{false, fn_.pos});
            break;
        case Symmetry::PointStoreNeg: sides_.push_back(SideGen{true, fn_.neg}); break;
        default: sides_.push_back(SideGen{false, fn_.pos}); break;
    }
    std::vector<OctaveGen> octs;
    for (size_t i = 0; i < sides_.size(); ++i) {
        SideGen& s = sides_[i];
        float sat = static_cast<float>(find_sat(s));
        s.sat = sat;
        s.mant_point = mant_of(sat);
        s.e_top = biased_of(sat) - 127 - (s.mant_point == 0 ? 1 : 0);
        if (s.e_top < fn_.e_lo) throw Error(fn_.name + ": saturates below its first octave");
        for (int e = fn_.e_lo; e <= s.e_top; ++e) {
            OctaveGen o;
            o.side = static_cast<int>(i);
            o.e = e;
            fit_octave(o);
            score_octave(o);
            octs.push_back(std::move(o));
        }
    }
    auto total = [&] {
        size_t n = 0;
        for (const auto& o : octs) n += o.sections.size();
        return n;
    };
    auto set_es = [&](OctaveGen& o, int es) {
        o.es = es;
        fit_octave(o);
        score_octave(o);
    };
    // 1. Each octave gets the fewest buckets that meet the bar (normalised error <= 1).
    //    Octaves that cannot meet it at any extract_size (coefficients beyond the float
    //    range, as for 1/sqrt(x) far below 1) get a fair share of the budget instead.
    const int fair = std::clamp(static_cast<int>(std::floor(std::log2(
                                    static_cast<double>(fn_.max_lut) / static_cast<double>(octs.size())))),
                                0, kMaxExtract);
    std::vector<bool> hopeless(octs.size(), false);
    for (size_t i = 0; i < octs.size(); ++i) {
        OctaveGen& o = octs[i];
        while (o.norm > 1 && o.es < kMaxExtract) set_es(o, o.es + 1);
        if (o.norm > 1) {
            hopeless[i] = true;
            set_es(o, std::min(fair, o.es));
        }
    }
    // Over budget with the bar alone: the largest octaves give buckets back (and will miss
    // the bar; the accuracy report shows where).
    while (total() > static_cast<size_t>(fn_.max_lut)) {
        OctaveGen* big = nullptr;
        for (auto& o : octs)
            if (o.es > 0 && (!big || o.sections.size() > big->sections.size())) big = &o;
        if (!big) throw Error(fn_.name + ": " + std::to_string(octs.size()) + " octaves exceed lut_size " + std::to_string(fn_.max_lut));
        set_es(*big, big->es - 1);
    }
    // 2. Refine the worst octave while the budget allows, by the larger of the aim
    //    (normalised error 0.1) and 1e-6 relative error, so tails of tiny values get their
    //    share too; then what is left goes to the octaves that cannot meet the bar. A
    //    refinement that does not cut the error by a quarter (cancellation-limited octaves)
    //    is undone and the octave frozen.
    for (int phase = 0; phase < 2; ++phase) {
        std::vector<bool> frozen(octs.size(), false);
        auto score = [&](const OctaveGen& o) {
            return phase == 0 ? std::max(o.norm / kNormTarget, o.rel / kRelTarget) : o.norm / kNormTarget;
        };
        while (true) {
            size_t w = octs.size();
            for (size_t i = 0; i < octs.size(); ++i) {
                if (frozen[i] || hopeless[i] != (phase == 1) || score(octs[i]) <= 1 || octs[i].es >= kMaxExtract) continue;
                if (w == octs.size() || score(octs[i]) > score(octs[w])) w = i;
            }
            if (w == octs.size()) break;
            // Coarse fits of steep tails can get worse before they get better: look three
            // refinements ahead before giving up on an octave.
            bool improved = false;
            OctaveGen trial = octs[w];
            for (int step = 1; step <= 3 && !improved && trial.es < kMaxExtract; ++step) {
                trial.es++;
                fit_octave(trial);
                if (total() - octs[w].sections.size() + trial.sections.size() > static_cast<size_t>(fn_.max_lut)) break;
                score_octave(trial);
                // Either measure counts, where it is above its target: near a root the
                // relative error can be limited by the float closed form itself.
                const double f = std::pow(0.75, step);
                const OctaveGen& o = octs[w];
                improved = (o.norm > kNormTarget && trial.norm < f * o.norm) ||
                           (phase == 0 && o.rel > kRelTarget && trial.rel < f * o.rel);
            }
            if (!improved) {
                frozen[w] = true;
                continue;
            }
            octs[w] = std::move(trial);
        }
    }

    Profile p = skeleton();
    double max_rel = 0;
    for (const auto& o : octs) {
        Region& r = sides_[o.side].neg ? p.neg : p.pos;
        Region::Octave& oct = r.octaves[o.e + 127];
        oct.declared = true;
        oct.extract_size = static_cast<uint8_t>(o.es);
        oct.first = static_cast<uint32_t>(r.sections.size());
        oct.count = static_cast<uint32_t>(o.sections.size());
        oct.num_sections = 1 << o.es;
        oct.extract_lsb = 23 - o.es;
        r.sections.insert(r.sections.end(), o.sections.begin(), o.sections.end());
        max_rel = std::max(max_rel, o.rel);
    }
    // Clamps of each stored side.
    for (const SideGen& s : sides_) {
        double edge = std::ldexp(1.0, fn_.e_lo) * (s.neg ? -1 : 1);
        auto g = [&](double sel) { return fn_.symmetry == Symmetry::PointStoreNeg ? ideal(fn_, -sel) : ideal(fn_, sel); };
        Section low = fn_.low == LowClamp::Taylor ? fit_cubic_at_zero(g, edge)
                                                  : Section{0, static_cast<float>(g(edge)), 0, 0, 0};
        Section high{0, 0, 0, 0, 0};
        switch (s.layout.high) {
            case HighClamp::Constant: high.d0 = static_cast<float>(s.layout.limit); break;
            case HighClamp::Identity: high.d1 = 1.0f; break;
            case HighClamp::Extrapolate: {
                const Region& r = s.neg ? p.neg : p.pos;
                high = r.sections[r.octaves[s.e_top + 127].first + r.octaves[s.e_top + 127].count - 1];
                break;
            }
        }
        SatRegion hi{biased_of(static_cast<float>(s.sat)), static_cast<int32_t>(s.mant_point), high};
        SatRegion lo{fn_.e_lo + 127, 0, low};
        if (s.neg) {
            p.sat_neg_high = hi;
            p.sat_neg_low = lo;
        } else {
            p.sat_pos_high = hi;
            p.sat_pos_low = lo;
        }
    }
    // The side no input reaches (the fold never selects it) mirrors the stored one;
    // positive-only functions send every negative input to NaN.
    if (fn_.symmetry == Symmetry::Odd || fn_.symmetry == Symmetry::Even) {
        p.sat_neg_high = p.sat_pos_high;
        p.sat_neg_low = p.sat_pos_low;
    } else if (fn_.symmetry == Symmetry::PointStoreNeg) {
        p.sat_pos_high = p.sat_neg_high;
        p.sat_pos_low = p.sat_neg_low;
    } else if (fn_.symmetry == Symmetry::PositiveOnly) {
        SatRegion nan{0, 0, Section{0, kNaN, 0, 0, 0}};
        p.sat_neg_high = p.sat_neg_low = nan;
    }
    p.meta.lut_size = static_cast<int64_t>(p.stored_sections());
    p.meta.sunda_id = fn_.sunda_id;
    p.meta.tonga_id = fn_.tonga_id;
    p.meta.exponent_offset = fn_.e_lo;
    p.meta.use_multipass = false;
    p.meta.max_diff = bits_of(static_cast<float>(max_rel));
    p.meta.lower_bound = bits_of(static_cast<float>(fn_.domain_neg ? -fn_.domain_hi : fn_.domain_lo));
    p.meta.upper_bound = bits_of(static_cast<float>(fn_.domain_hi));
    return p;
}

// Budget-1 residents: the whole function lives in the four clamps (seed 001 §5).
Profile resident(const CatalogFn& fn) {
    struct Shape { Section pos, neg; float zero, pinf, ninf; };
    const float inf = std::numeric_limits<float>::infinity();
    const Section zero{0, 0, 0, 0, 0}, ident{0, 0, 1, 0, 0};
    auto constant = [](float c) { return Section{0, c, 0, 0, 0}; };
    auto slope = [](float k) { return Section{0, 0, k, 0, 0}; };
    Shape s;
    const std::string& n = fn.name;
    if (n == "identity" || n == "copy") s = {ident, ident, 0, inf, -inf};
    else if (n == "relu" || n == "parametric_relu") s = {ident, zero, 0, inf, 0};  // prelu: alpha at run time
    else if (n == "leaky_relu") s = {ident, slope(0.01f), 0, inf, -inf};
    else if (n == "abs") s = {ident, slope(-1.0f), 0, inf, inf};
    else if (n == "sign") s = {constant(1), constant(-1), 0, 1, -1};
    else if (n == "square") s = {Section{0, 0, 0, 1, 0}, Section{0, 0, 0, 1, 0}, 0, inf, inf};
    else if (n == "memset_zero") s = {zero, zero, 0, 0, 0};
    else if (n == "is_finite") s = {constant(1), constant(1), 1, 0, 0};
    else if (n == "derivative_relu") s = {constant(1), zero, 0, 1, 0};
    else if (n == "derivative_leaky_relu") s = {constant(1), constant(0.01f), 0.01f, 1, 0.01f};
    else if (n == "derivative_identity") s = {constant(1), constant(1), 1, 1, 1};
    else throw Error("no resident shape for '" + n + "'");
    Profile p;
    p.name = n;
    p.source = "generated " + fn.file_name();
    p.zero_result = s.zero;
    p.nan_result = kNaN;
    p.pinf_result = s.pinf;
    p.ninf_result = s.ninf;
    // Thresholds (0, 0): every positive input is at or above the high threshold.
    p.sat_pos_high = p.sat_pos_low = SatRegion{0, 0, s.pos};
    p.sat_neg_high = p.sat_neg_low = SatRegion{0, 0, s.neg};
    // One empty (sentinel) octave, as the shipped residents carry: it gives the function a
    // ctrl word, so even a set of residents alone has a non-empty ctrl table.
    p.pos.octaves[127].declared = true;
    p.meta.lut_size = 0;
    p.meta.sunda_id = fn.sunda_id;
    p.meta.tonga_id = fn.tonga_id;
    p.meta.exponent_offset = 0;
    p.meta.use_multipass = false;
    if (n == "parametric_relu") p.meta.fma_const0 = bits_of(1.0f);
    if (n == "copy" || n == "memset_zero" || n == "is_finite") p.meta.imm_bias = bits_of(1.0f);
    return p;
}

}  // namespace

Profile generate_profile(const CatalogFn& fn) {
    if (fn.resident()) return resident(fn);
    return Generator(fn).run();
}

}  // namespace neuronsim::model::pwp
