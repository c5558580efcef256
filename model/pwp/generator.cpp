#include "model/pwp/generator.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/pwp/accuracy.h"
#include "model/pwp/evaluate.h"
#include "model/pwp/fit.h"

namespace neuronsim::model::pwp {

namespace {

using fp::bits_of;
using fp::float_of;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr int kMaxExtract = 10;  // the largest extract_size the shipped sets use
// What the generator's samples (kPerBucket per bucket) must show inside the certified domain:
// 70% of the bar. The rest is margin for the inputs between samples: the evaluator's float
// rounding and the closed form's own are not smooth, so denser sweeps see more.
constexpr double kCertify = 0.7 * kAccuracyBar;
// Spare buckets (within lut_size) then go where the error is largest against two aims: the
// cubics' own error in exact arithmetic (a tenth of the bar: below it the evaluator's rounding
// dominates and more buckets no longer help), and the relative error of small results, which
// the bar bounds only absolutely.
constexpr double kApproxAim = 0.1 * kAccuracyBar;
constexpr double kRelAim = 1e-6;
constexpr uint32_t kPerBucket = 16;  // scoring samples per bucket, ends included

// One stored side of the table: magnitudes m map to sel = +m (pos) or -m (neg).
struct SideGen {
    bool neg = false;  // region (sel sign)
    SideLayout layout;
    double sat = 0;  // |sel| where the high clamp engages (float value)
    int e_lo = 0;  // lowest stored octave; the low clamp covers |sel| <= 2^e_lo
    int e_top = 0;  // highest stored octave
    uint32_t mant_point = 0;  // high clamp mantissa threshold (0: whole octave clamps)
    Section low{};  // the low clamp's cubic
};

struct OctaveGen {
    int side = 0;  // index into sides
    int e = 0;
    int es = 0;
    std::vector<Section> sections;
    bool has_cert = false;  // some sample lies in the certified domain
    double score = 0;  // max error score over the certified samples
    double approx = 0;  // max score of the certified buckets' cubics in exact arithmetic
    double rel = 0;  // max relative error of the table's own values
};

class Generator {
public:
    explicit Generator(const CatalogFn& fn) : fn_(fn) {}
    Profile run();

private:
    // The value the stored region holds at sel.
    double g(double sel) const { return ideal(fn_, fn_.symmetry == Symmetry::PointStoreNeg ? -sel : sel); }
    // The error weight of a stored value r: the bar scales with the smallest output r feeds,
    // floored at `floor` (0.1: the bar's own score). Sigmoid's negative inputs return 1 - r.
    double weight(double r, double floor) const {
        double out = std::fabs(r);
        if (fn_.symmetry == Symmetry::PointStoreNeg) out = std::min(out, std::fabs(1 - r));
        return 1 / std::max(out, floor);
    }
    FitTarget target(double floor) const {
        return {[this](double s) { return g(s); }, [this, floor](double r) { return weight(r, floor); }};
    }
    FitTarget score_target() const { return target(0.1); }
    // Relative error of the stored values (sigmoid: its negative outputs cancel, keep the score).
    FitTarget rel_target() const { return target(fn_.symmetry == Symmetry::PointStoreNeg ? 0.1 : 1e-300); }
    double find_sat(const SideGen& s) const;
    void choose_low(SideGen& s, int e_start) const;
    uint32_t bucket_count(const SideGen& s, int e, int es) const;
    Section fit_bucket(double lo, double hi, float x) const;
    // Bucket k of octave o in sel terms: [a, b].
    void bucket_bounds(const OctaveGen& o, uint32_t k, double& a, double& b) const;
    void fit_octave(OctaveGen& o) const;
    void score_octave(OctaveGen& o) const;
    void set_es(OctaveGen& o, int es) const {
        o.es = es;
        fit_octave(o);
        score_octave(o);
    }
    void certify(OctaveGen& o) const;
    void spend(std::vector<OctaveGen>& octs) const;
    void polish_octave(OctaveGen& o) const;
    Profile skeleton() const;  // flags and specials, no regions
    std::vector<int> signs(const SideGen& s) const;
    bool in_domain(float v) const;

    const CatalogFn& fn_;
    std::vector<SideGen> sides_;
};

int biased_of(float m) { return static_cast<int>(bits_of(m) >> 23); }
uint32_t mant_of(float m) { return bits_of(m) & 0x7FFFFFu; }

double Generator::find_sat(const SideGen& s) const {
    if (s.layout.sat > 0) return s.layout.sat;
    auto holds = [&](double m) {
        double v = g(s.neg ? -m : m);
        if (s.layout.high == HighClamp::Identity) return std::fabs(v - (s.neg ? -m : m)) <= std::ldexp(m, -25);
        double tol = std::max(std::fabs(s.layout.limit) * std::ldexp(1.0, -25), s.layout.tail_abs);
        return std::fabs(v - s.layout.limit) <= tol;
    };
    double m = 256;
    if (!holds(m)) throw Error("generator.cpp: " + fn_.name + ": the tail has not saturated at |x| = 256");
    while (m > 0.25 && holds(m * (1 - 1.0 / 1024))) m *= 1 - 1.0 / 1024;
    return m;
}

std::vector<int> Generator::signs(const SideGen& s) const {
    switch (fn_.symmetry) {
        case Symmetry::Asymmetric: return {s.neg ? -1 : 1};
        case Symmetry::PositiveOnly: return {1};
        default: return {1, -1};
    }
}

bool Generator::in_domain(float v) const {
    if (v < 0 && !fn_.domain_neg) return false;
    double m = std::fabs(static_cast<double>(v));
    return m >= fn_.domain_lo && m <= fn_.domain_hi;
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

// A Taylor low clamp reaches as far up as its one cubic keeps both the score and the relative
// error (tiny results, tanh(1e-9)) within the margins: every octave it covers is one bucket
// fewer. Its d0 is f(0) rounded (fit.h).
void Generator::choose_low(SideGen& s, int e_start) const {
    if (fn_.low == LowClamp::Constant) {
        s.e_lo = fn_.e_lo;
        double edge = std::ldexp(s.neg ? -1.0 : 1.0, s.e_lo);
        s.low = Section{0, static_cast<float>(g(edge)), 0, 0, 0};
        return;
    }
    for (int e = e_start; e >= -40; --e) {
        const double edge = std::ldexp(s.neg ? -1.0 : 1.0, e);
        Section low = fit_minimax_at_zero(rel_target(), edge);
        Profile p = skeleton();
        SatRegion lo{e + 127, 0, low}, hi{e + 127, 1, Section{}};
        (s.neg ? p.sat_neg_low : p.sat_pos_low) = lo;
        (s.neg ? p.sat_neg_high : p.sat_pos_high) = hi;
        double worst = 0;
        for (int oct = e - 1; oct >= e - 40 && worst <= 0.5 * kCertify; --oct) {
            for (uint32_t j = 0; j <= 32; ++j) {
                uint32_t mant = j == 32 ? 0x7FFFFFu : j << 18;
                float m = float_of(static_cast<uint32_t>(oct + 127) << 23 | mant);
                if (oct == e - 1 && j == 32) m = static_cast<float>(std::fabs(edge));
                for (int sign : signs(s)) {
                    float v = sign * m;
                    float c = reference(fn_, v);
                    if (std::isnan(c)) continue;
                    float y = evaluate_generic(p, v);
                    worst = std::max(worst, error_score(y, c));
                    if (std::fabs(c) >= FLT_MIN && !(fn_.symmetry == Symmetry::PointStoreNeg && v < 0))
                        worst = std::max(worst, std::fabs(static_cast<double>(y) - c) / std::fabs(c));
                }
            }
        }
        if (worst <= 0.5 * kCertify) {
            s.e_lo = e;
            s.low = low;
            return;
        }
    }
    throw Error("generator.cpp: " + fn_.name + ": no low clamp reach down to 2^-40 meets the bar");
}

uint32_t Generator::bucket_count(const SideGen& s, int e, int es) const {
    if (e == s.e_top && s.mant_point != 0) {
        uint32_t shift = 23 - es;
        return (s.mant_point + (1u << shift) - 1) >> shift;  // buckets below the threshold
    }
    return 1u << es;
}

// Minimax in the relative error of the stored values where that also meets the bar with
// room to spare (small results keep their digits); else the error floor rises towards the
// bar's own (absolute below 0.1) until it does.
Section Generator::fit_bucket(double lo, double hi, float x) const {
    bool small = false;
    for (int i = 0; i <= 8 && !small; ++i) small = 1 / weight(g(lo + (hi - lo) * i / 8), 0) < 0.1;
    if (fn_.symmetry == Symmetry::PointStoreNeg) {
        // Where half an ulp of r is a large part of the bar on 1 - r, d0 is snapped.
        double r = g((lo + hi) / 2);
        float rf = static_cast<float>(r);
        double half_ulp = (std::nextafter(rf, INFINITY) - rf) / 2.0;
        if (weight(r, 0.1) * half_ulp > 0.1 * kAccuracyBar) return fit_minimax_snapped(score_target(), lo, hi, x, 32);
    }
    if (!small || fn_.symmetry == Symmetry::PointStoreNeg) return fit_minimax(score_target(), lo, hi, x);
    for (double floor : {1e-300, 1e-8, 1e-6, 1e-4, 1e-3, 1e-2}) {
        Section sec = fit_minimax(target(floor), lo, hi, x);
        if (fit_error(score_target(), sec, lo, hi) <= 0.5 * kCertify) return sec;
    }
    return fit_minimax(score_target(), lo, hi, x);
}

void Generator::bucket_bounds(const OctaveGen& o, uint32_t k, double& a, double& b) const {
    const SideGen& s = sides_[static_cast<size_t>(o.side)];
    double lo = std::ldexp(1.0 + static_cast<double>(k) / (1u << o.es), o.e);
    double hi = std::ldexp(1.0 + static_cast<double>(k + 1) / (1u << o.es), o.e);
    if (o.e == s.e_top && s.mant_point != 0) hi = std::min(hi, s.sat);
    a = s.neg ? -hi : lo, b = s.neg ? -lo : hi;
}

void Generator::fit_octave(OctaveGen& o) const {
    const SideGen& s = sides_[static_cast<size_t>(o.side)];
    const uint32_t n = bucket_count(s, o.e, o.es);
    o.sections.clear();
    o.approx = 0;
    const double cert_lo = std::max(fn_.domain_lo, fn_.cert_lo), cert_hi = std::min(fn_.domain_hi, fn_.cert_hi);
    for (uint32_t k = 0; k < n; ++k) {
        double a, b;
        bucket_bounds(o, k, a, b);
        // The centre, as a float inside the bucket: t = sel - x is then exact (Sterbenz).
        o.sections.push_back(fit_bucket(a, b, static_cast<float>((a + b) / 2)));
        if (std::max(std::fabs(a), cert_lo) < std::min(std::fabs(b), cert_hi) || std::max(std::fabs(b), cert_lo) < std::min(std::fabs(a), cert_hi))
            o.approx = std::max(o.approx, fit_error(score_target(), o.sections.back(), a, b));
    }
}

void Generator::score_octave(OctaveGen& o) const {
    const SideGen& s = sides_[static_cast<size_t>(o.side)];
    // A profile where only this octave is in range: everything above and below clamps.
    Profile p = skeleton();
    Region& r = s.neg ? p.neg : p.pos;
    Region::Octave& oct = r.octaves[static_cast<size_t>(o.e + 127)];
    oct.declared = true;
    oct.extract_size = static_cast<uint8_t>(o.es);
    oct.count = static_cast<uint32_t>(o.sections.size());
    r.sections = o.sections;
    SatRegion above{o.e + 128, 0, Section{0, 0, 0, 0, 0}};
    SatRegion below{o.e + 126, 0x7fffff, Section{0, 0, 0, 0, 0}};
    (s.neg ? p.sat_neg_high : p.sat_pos_high) = above;
    (s.neg ? p.sat_neg_low : p.sat_pos_low) = below;

    o.score = o.rel = 0;
    o.has_cert = false;
    const uint32_t shift = 23 - static_cast<uint32_t>(o.es);
    const uint32_t span = (1u << shift) - 1;
    for (uint32_t k = 0; k < o.sections.size(); ++k) {
        for (uint32_t j = 0; j < kPerBucket; ++j) {
            uint32_t mant = (k << shift) + static_cast<uint32_t>((static_cast<uint64_t>(span) * j) / (kPerBucket - 1));
            if (o.e == s.e_top && s.mant_point != 0 && mant >= s.mant_point) continue;
            float m = float_of(static_cast<uint32_t>(o.e + 127) << 23 | mant);
            for (int sign : signs(s)) {
                float v = sign * m;
                if (!in_domain(v)) continue;
                float c = reference(fn_, v);
                if (std::isnan(c)) continue;
                float y = evaluate_generic(p, v);
                if (fn_.certified(m)) {
                    o.has_cert = true;
                    o.score = std::max(o.score, error_score(y, c));
                }
                // Relative error is the table's own: 1 - r for sigmoid's negative inputs
                // cancels whatever the table does, so those inputs only count in the score.
                // Near a root the float sum d0 + d1*t cannot do better than about an ulp of
                // d0, so relative error is measured against at least 2^-22 |d0|.
                if (fn_.symmetry == Symmetry::PointStoreNeg && v < 0) continue;
                if (std::fabs(c) < FLT_MIN) continue;  // as the accuracy report: normal results
                double err = (std::isinf(c) || std::isinf(y)) ? (y == c ? 0.0 : INFINITY) : std::fabs(static_cast<double>(y) - c);
                double floor = std::max(std::ldexp(std::fabs(static_cast<double>(o.sections[k].d0)), -22), static_cast<double>(FLT_MIN));
                o.rel = std::max(o.rel, err / std::max(static_cast<double>(std::fabs(c)), floor));
            }
        }
    }
}

// The fewest buckets that meet the bar on the certified samples. The error of a cubic falls
// as h^4, so a miss by a factor q skips about log2(q)/4 extract sizes at once.
void Generator::certify(OctaveGen& o) const {
    set_es(o, 0);
    int tried_below = -1;  // the largest extract_size known to miss
    auto misses = [](const OctaveGen& t) { return t.has_cert && (t.score > kCertify || t.approx > kCertify); };
    while (misses(o) && o.es < kMaxExtract) {
        // A near miss may be saved by the coefficients' last bits instead of twice the buckets.
        if (std::max(o.score, o.approx) <= 1.1 * kCertify) {
            polish_octave(o);
            if (!misses(o)) break;
        }
        tried_below = o.es;
        int step = std::clamp(static_cast<int>(std::ceil(std::log2(std::max(o.score, o.approx) / kCertify) / 4)), 1, 3);
        set_es(o, std::min(o.es + step, kMaxExtract));
    }
    if (o.es > tried_below + 1 && tried_below >= 0) {  // a jump: one size less may do
        OctaveGen less = o;
        set_es(less, o.es - 1);
        if (!misses(less)) o = std::move(less);
    }
    if (misses(o)) {
        const SideGen& s = sides_[static_cast<size_t>(o.side)];
        char what[160];
        std::snprintf(what, sizeof what, "%s octave %d misses the bar (score %.3g, cubic alone %.3g) even at extract_size %d", s.neg ? "neg" : "pos", o.e,
                      o.score, o.approx, kMaxExtract);
        throw Error("generator.cpp: " + fn_.name + ": " + what + ": its certified domain in catalog.cpp reaches too far");
    }
}

// Spare buckets go to the octave whose error is the largest against the aims, while lut_size
// allows. A refinement that does not cut the error by a quarter per doubling (or later, as
// coarse fits of steep tails get worse before they get better) is undone and the octave
// frozen: it is limited by float rounding, not by its buckets.
void Generator::spend(std::vector<OctaveGen>& octs) const {
    size_t total = 0;
    for (const auto& o : octs) total += o.sections.size();
    auto q = [](const OctaveGen& o) { return std::max(o.approx / kApproxAim, o.rel / kRelAim); };
    std::vector<bool> frozen(octs.size(), false);
    while (true) {
        size_t w = octs.size();
        for (size_t i = 0; i < octs.size(); ++i) {
            if (frozen[i] || q(octs[i]) <= 1 || octs[i].es >= kMaxExtract) continue;
            if (w == octs.size() || q(octs[i]) > q(octs[w])) w = i;
        }
        if (w == octs.size()) break;
        bool improved = false;
        OctaveGen trial = octs[w];
        for (int step = 1; !improved && trial.es < kMaxExtract; ++step) {
            if (total - octs[w].sections.size() + bucket_count(sides_[static_cast<size_t>(trial.side)], trial.e, trial.es + 1) >
                static_cast<size_t>(fn_.max_lut))
                break;
            set_es(trial, trial.es + 1);
            const OctaveGen& o = octs[w];
            const double f = std::pow(0.75, step);
            improved = (o.approx > kApproxAim && trial.approx < f * o.approx) || (o.rel > kRelAim && trial.rel < f * o.rel);
            // Never trade the certificate for relative error.
            if (trial.has_cert && trial.score > kCertify) improved = false;
        }
        if (!improved) {
            frozen[w] = true;
            continue;
        }
        total += trial.sections.size() - octs[w].sections.size();
        octs[w] = std::move(trial);
    }
}

// The last bits of each bucket's coefficients (fit.h: polish_bits). After the cascade's own
// rounding compensation they gain little (0.2% of the cubic's error on average, 11% at most
// over the catalog), so they are searched only where an octave misses the bar narrowly.
void Generator::polish_octave(OctaveGen& o) const {
    o.approx = 0;
    for (uint32_t k = 0; k < o.sections.size(); ++k) {
        double a, b;
        bucket_bounds(o, k, a, b);
        o.sections[k] = polish_bits(score_target(), o.sections[k], a, b);
        o.approx = std::max(o.approx, fit_error(score_target(), o.sections[k], a, b));
    }
    score_octave(o);
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
        choose_low(s, -1);
    }
    // Both sides start at the same octave: the set checker (and the vendor's sets) read the
    // neg block's last ctrl word as the one before the pos side's exp_offset word.
    for (bool again = true; again;) {
        again = false;
        int common = sides_.front().e_lo;
        for (const SideGen& s : sides_) common = std::min(common, s.e_lo);
        for (SideGen& s : sides_)
            if (s.e_lo != common) {
                choose_low(s, common);
                again = true;
            }
    }
    for (size_t i = 0; i < sides_.size(); ++i) {
        const SideGen& s = sides_[i];
        if (s.e_top < s.e_lo) throw Error("generator.cpp: " + fn_.name + ": saturates below its first octave");
        for (int e = s.e_lo; e <= s.e_top; ++e) {
            OctaveGen o;
            o.side = static_cast<int>(i);
            o.e = e;
            certify(o);
            octs.push_back(std::move(o));
        }
    }
    size_t total = 0;
    for (const auto& o : octs) total += o.sections.size();
    if (total > static_cast<size_t>(fn_.max_lut))
        throw Error("generator.cpp: " + fn_.name + ": certifying its domain takes " + std::to_string(total) + " buckets, more than its lut_size " +
                    std::to_string(fn_.max_lut) + " (catalog.cpp)");
    spend(octs);

    Profile p = skeleton();
    double max_score = 0;
    for (const auto& o : octs) {
        Region& r = sides_[static_cast<size_t>(o.side)].neg ? p.neg : p.pos;
        Region::Octave& oct = r.octaves[static_cast<size_t>(o.e + 127)];
        oct.declared = true;
        oct.extract_size = static_cast<uint8_t>(o.es);
        oct.first = static_cast<uint32_t>(r.sections.size());
        oct.count = static_cast<uint32_t>(o.sections.size());
        oct.num_sections = 1 << o.es;
        oct.extract_lsb = 23 - o.es;
        r.sections.insert(r.sections.end(), o.sections.begin(), o.sections.end());
        max_score = std::max(max_score, o.score);
    }
    // Clamps of each stored side.
    for (const SideGen& s : sides_) {
        Section high{0, 0, 0, 0, 0};
        switch (s.layout.high) {
            case HighClamp::Constant: high.d0 = static_cast<float>(s.layout.limit); break;
            case HighClamp::Identity: high.d1 = 1.0f; break;
            case HighClamp::Extrapolate: {
                const Region& r = s.neg ? p.neg : p.pos;
                const Region::Octave& top = r.octaves[static_cast<size_t>(s.e_top + 127)];
                high = r.sections[top.first + top.count - 1];
                break;
            }
        }
        SatRegion hi{biased_of(static_cast<float>(s.sat)), static_cast<int32_t>(s.mant_point), high};
        SatRegion lo{s.e_lo + 127, 0, s.low};
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
    int e_lo = sides_.front().e_lo;
    for (const SideGen& s : sides_) e_lo = std::min(e_lo, s.e_lo);
    p.meta.lut_size = static_cast<int64_t>(p.stored_sections());
    p.meta.sunda_id = fn_.sunda_id;
    p.meta.tonga_id = fn_.tonga_id;
    p.meta.exponent_offset = e_lo;
    p.meta.use_multipass = false;
    p.meta.max_diff = bits_of(static_cast<float>(max_score));
    p.meta.lower_bound = bits_of(static_cast<float>(fn_.domain_neg ? -fn_.domain_hi : fn_.domain_lo));
    p.meta.upper_bound = bits_of(static_cast<float>(fn_.domain_hi));
    return p;
}

// Budget-1 residents: the whole function lives in the four clamps (seed 001 §5).
Profile resident(const CatalogFn& fn) {
    struct Shape {
        Section pos, neg;
        float zero, pinf, ninf;
    };
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
