#include "model/pwp/accuracy.h"

#include <cfloat>
#include <cmath>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/pwp/evaluate.h"

namespace neuronsim::model::pwp {

double error_score(float y, float c) {
    if (std::isinf(c) || std::isinf(y)) return y == c ? 0.0 : INFINITY;
    return std::fabs(static_cast<double>(y) - c) / std::max(std::fabs(static_cast<double>(c)), 0.1);
}

double ulp_distance(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return (std::isnan(a) && std::isnan(b)) ? 0 : INFINITY;
    auto ordered = [](float f) {
        int64_t u = fp::bits_of(f);
        return (u & 0x80000000) ? -(u & 0x7fffffff) : u;
    };
    return static_cast<double>(std::llabs(ordered(a) - ordered(b)));
}

Accuracy measure_accuracy(const CatalogFn& fn, const Profile& p, uint32_t per_octave) {
    Accuracy acc;
    acc.function = fn.file_name().substr(0, fn.file_name().size() - 5);
    acc.lut_size = p.stored_sections();
    double rel_sum = 0;
    uint64_t rel_n = 0;
    const int e_first = static_cast<int>(std::floor(std::log2(fn.domain_lo)));
    const int e_last = std::min(127, static_cast<int>(std::floor(std::log2(fn.domain_hi))));
    for (int e = e_first; e <= e_last; ++e) {
        for (uint32_t j = 0; j < per_octave; ++j) {
            uint32_t mant = static_cast<uint32_t>((static_cast<uint64_t>(j) << 23) / per_octave);
            float m = fp::float_of(static_cast<uint32_t>(e + 127) << 23 | mant);
            if (m < fn.domain_lo || m > fn.domain_hi) continue;
            const bool certified = fn.certified(m);
            for (int sign : {1, -1}) {
                if (sign < 0 && !fn.domain_neg) continue;
                float v = sign * m;
                float c = reference(fn, v);
                if (std::isnan(c)) continue;
                float y;
                try {
                    y = evaluate_generic(p, v);
                } catch (const Error&) {
                    ++acc.unhandled;
                    continue;
                }
                ++acc.samples;
                double err = (std::isinf(c) || std::isinf(y)) ? (y == c ? 0.0 : INFINITY) : std::fabs(static_cast<double>(y) - c);
                double score = error_score(y, c);
                if (certified) {
                    ++acc.certified_samples;
                    if (score > kAccuracyBar) {
                        acc.fail_lo = acc.failing ? std::min(acc.fail_lo, static_cast<double>(m)) : m;
                        acc.fail_hi = std::max(acc.fail_hi, static_cast<double>(m));
                        ++acc.failing;
                    }
                    if (score > acc.max_score || acc.certified_samples == 1) {
                        acc.max_score = std::max(acc.max_score, score);
                        acc.worst_input = fp::bits_of(v);
                        acc.worst_output = fp::bits_of(y);
                        acc.worst_expected = fp::bits_of(c);
                    }
                } else if (score > acc.max_score_outside) {
                    acc.max_score_outside = score;
                    acc.worst_outside_input = fp::bits_of(v);
                }
                if (std::fabs(c) >= FLT_MIN) {  // relative error over normal results
                    double rel = err / std::fabs(c);
                    if (rel > acc.max_rel) {
                        acc.max_rel = rel;
                        acc.worst_rel_input = fp::bits_of(v);
                    }
                    rel_sum += rel;
                    ++rel_n;
                }
                acc.max_ulp = std::max(acc.max_ulp, ulp_distance(y, c));
            }
        }
    }
    acc.mean_rel = rel_n ? rel_sum / static_cast<double>(rel_n) : 0;
    return acc;
}

}  // namespace neuronsim::model::pwp
