#pragma once
// The evaluation pipeline shared by evaluate_generic (profile in memory) and the table-memory
// evaluator (packed set): special values, symmetry fold, 4-way clamp, bucket, the cubic,
// reconstruction (seed 001 §7). A Table supplies the data:
//   float zero(), pinf(), ninf(), sym_point();  bool sym_en(), sym_invert(), sym_neg();
//   int32_t high_exp(bool neg), high_mant(bool neg), low_exp(bool neg), low_mant(bool neg);
//   Section high(bool neg), low(bool neg);
//   Section nonsat(bool neg, uint32_t sel_bits, uint32_t v_bits)   // may throw
#include <cfloat>
#include <cstdint>

#include "model/fp/bits.h"
#include "model/pwp/profile.h"

namespace neuronsim::model::pwp {

// The degree-3 polynomial about s.x with the reference's exact rounding sequence:
// t = sel - x (float); (t*d1) + d0 (float, two roundings); + t*t*d2 (double);
// + pow(t, 3.0)*d3 (double, libm pow, not t*t*t); final conversion to float.
float cubic(const Section& s, float sel);

template <class Table>
float evaluate_pipeline(const Table& T, float v) {
    using fp::bits_of;
    using fp::float_of;
    // (1) Special values. NaN has no branch: |NaN| > FLT_MAX is false, so it falls through.
    if (v == 0.0f) return T.zero();
    const uint32_t v_bits = bits_of(v);
    const float absv = float_of(v_bits & 0x7FFFFFFFu);
    if (absv > FLT_MAX) return (v <= 0.0f) ? T.ninf() : T.pinf();

    // (2) Symmetry fold.
    uint32_t sel = v_bits;
    if (T.sym_en()) {
        sel = bits_of(absv);
        if (T.sym_neg()) sel ^= 0x80000000u;
    }

    // (3)-(4) The 4-way clamp, then the in-range bucket. The positive side compares the
    // signed exponent; the negative side the (u8) exponent, which drops the sign.
    const bool neg = static_cast<int32_t>(sel) < 0;
    const int32_t expo = neg ? static_cast<int32_t>(static_cast<uint8_t>(static_cast<int32_t>(sel) >> 23)) : static_cast<int32_t>(sel) >> 23;
    const int32_t mant = static_cast<int32_t>(sel & 0x7FFFFFu);
    Section s;
    if (expo > T.high_exp(neg) || (expo == T.high_exp(neg) && mant >= T.high_mant(neg))) s = T.high(neg);
    else if (expo < T.low_exp(neg) || (expo == T.low_exp(neg) && mant <= T.low_mant(neg))) s = T.low(neg);
    else s = T.nonsat(neg, sel, v_bits);

    // (5) The mixed-precision cubic.
    float result = cubic(s, float_of(sel));

    // (6) Reconstruction, only for a negative input (sign bit set). Seed 001 §7 types the test
    // as bits(v) != absv; seed 003 writes it as a float compare, which would also reconstruct a
    // positive NaN. We follow the bit compare (and "only for negative inputs"); the two differ
    // only in the sign of a NaN result, pinned by a test.
    if (v_bits != bits_of(absv) && T.sym_en()) {
        if (T.sym_invert()) result = -result;
        return result + T.sym_point();
    }
    return result;
}

}  // namespace neuronsim::model::pwp
