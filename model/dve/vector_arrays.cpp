#include "model/dve/vector_arrays.h"

#include <cmath>
#include <cstdint>

namespace neuronsim::model::dve {

namespace {

// One loop per operator, so that each is a straight loop the compiler vectorises.
template <typename F>
void each(const float* a, const float* b, float* out, size_t n, F f) {
    for (size_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
}
template <typename F>
void each_scalar(float* x, size_t n, F f) {
    for (size_t i = 0; i < n; ++i) x[i] = f(x[i]);
}

// A float's bits as a signed integer whose order is IEEE's total order (-0 < +0); an
// involution on the bits.
inline int32_t order_key(uint32_t u) {
    const int32_t b = static_cast<int32_t>(u);
    return b ^ ((b >> 31) & 0x7fffffff);
}

// The greatest (Max) or least key of x[0, n) and `best`, and whether any x is a NaN: integer
// compares on the bits only, one loop per direction, so that it vectorises.
template <bool Max>
int32_t fold_keys(int32_t best, const float* x, size_t n, bool& nan) {
    uint32_t any = 0;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t u = fp::bits_of(x[i]);
        const int32_t k = order_key(u);
        best = Max ? (k > best ? k : best) : (k < best ? k : best);
        any |= (u & 0x7fffffffu) > 0x7f800000u;  // a NaN
    }
    nan = any != 0;
    return best;
}

}  // namespace

void alu_n(AluOp op, const float* a, const float* b, float* out, size_t n) {
    switch (op) {
        case AluOp::Add: return each(a, b, out, n, [](float x, float y) { return nan_rule(x, y, x + y); });
        case AluOp::Subtract: return each(a, b, out, n, [](float x, float y) { return nan_rule(x, y, x - y); });
        case AluOp::Multiply: return each(a, b, out, n, [](float x, float y) { return nan_rule(x, y, x * y); });
        case AluOp::Divide: return each(a, b, out, n, [](float x, float y) { return nan_rule(x, y, x / y); });
        case AluOp::Max:
        case AluOp::Min:
            for (size_t i = 0; i < n; ++i) out[i] = alu(op, a[i], b[i]);
            return;
    }
}

void scalar_n(AluOp op, bool reverse, float v, float* x, size_t n) {
    switch (reverse ? AluOp::Max : op) {  // (the reversed forms: the general loop)
        case AluOp::Add: return each_scalar(x, n, [v](float e) { return nan_rule(e, v, e + v); });
        case AluOp::Subtract: return each_scalar(x, n, [v](float e) { return nan_rule(e, v, e - v); });
        case AluOp::Multiply: return each_scalar(x, n, [v](float e) { return nan_rule(e, v, e * v); });
        case AluOp::Divide: return each_scalar(x, n, [v](float e) { return nan_rule(e, v, e / v); });
        default:
            if (reverse)
                for (size_t i = 0; i < n; ++i) x[i] = alu(op, v, x[i]);
            else
                for (size_t i = 0; i < n; ++i) x[i] = alu(op, x[i], v);
    }
}

float fold_n(ReduceOp op, float acc, const float* x, size_t n) {
    switch (op) {
        case ReduceOp::Add:
            for (size_t i = 0; i < n; ++i) acc = nan_rule(acc, x[i], acc + x[i]);
            return acc;
        case ReduceOp::Max:
        case ReduceOp::Min: {
            // Without NaNs, IEEE maximum/minimum (with -0 < +0) picks the same value in any
            // order: the greatest (least) under the total order of the keys below, a loop that
            // vectorises. A NaN decides the result by its position (the first one's payload):
            // then the loop in element order.
            const bool max = op == ReduceOp::Max;
            const int32_t from = order_key(fp::bits_of(acc));
            bool nan = false;
            const int32_t best = max ? fold_keys<true>(from, x, n, nan) : fold_keys<false>(from, x, n, nan);
            nan = nan || std::isnan(acc);
            if (!nan) return fp::float_of(static_cast<uint32_t>(order_key(static_cast<uint32_t>(best))));
            const AluOp a = max ? AluOp::Max : AluOp::Min;
            for (size_t i = 0; i < n; ++i) acc = alu(a, acc, x[i]);
            return acc;
        }
    }
    return acc;
}

void reciprocal_n(float* x, size_t n) {
    each_scalar(x, n, [](float e) { return nan_rule(1.0f, e, 1.0f / e); });
}

void bn_stats_row(const float* x, size_t n, float out[6]) {
    for (size_t parity = 0; parity < 2; ++parity) {
        float count = 0.0f, sum = 0.0f, m2 = 0.0f, mean = 0.0f;
        for (size_t i = parity; i < n; i += 2) {
            sum = count == 0.0f ? x[i] : alu(AluOp::Add, sum, x[i]);
            count = count + 1.0f;
        }
        if (count > 0.0f) {
            mean = alu(AluOp::Divide, sum, count);
            for (size_t i = parity; i < n; i += 2) {
                const float d = alu(AluOp::Subtract, x[i], mean);
                const float sq = alu(AluOp::Multiply, d, d);
                m2 = i == parity ? sq : alu(AluOp::Add, m2, sq);
            }
        }
        out[parity * 3] = count;
        out[parity * 3 + 1] = mean;
        out[parity * 3 + 2] = m2;
    }
}

}  // namespace neuronsim::model::dve
