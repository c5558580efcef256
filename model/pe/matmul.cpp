#include "model/pe/matmul.h"

#include <immintrin.h>

#include <string>

#include "model/common/error.h"

namespace neuronsim::model::pe {

namespace {

void check(const MatmulArgs& a) {
    auto limit = [](const char* what, uint32_t v, uint32_t max) {
        if (v < 1 || v > max) throw Error(std::string("matmul: ") + what + " " + std::to_string(v) + " is not in 1.." + std::to_string(max));
    };
    limit("K (contraction partitions)", a.k, kMaxContraction);
    limit("M (stationary free size)", a.m, kMaxStationary);
    limit("N (moving free size)", a.n, kMaxMoving);
    if (!a.stationary || !a.moving || !a.psum) throw Error("matmul: a null operand");
    if (a.lds < a.m || a.ldm < a.n || a.ldp < a.n)
        throw Error("matmul: a leading dimension is shorter than its row (lds " + std::to_string(a.lds) + " < M, ldm " + std::to_string(a.ldm) +
                    " < N or ldp " + std::to_string(a.ldp) + " < N)");
}

// Rows [m0, m1) x columns [n0, n1) with scalar arithmetic, in the defined order.
void scalar_block(const MatmulArgs& a, uint32_t m0, uint32_t m1, uint32_t n0, uint32_t n1) {
    for (uint32_t m = m0; m < m1; ++m)
        for (uint32_t n = n0; n < n1; ++n) {
            float acc = a.start ? 0.0f : a.psum[m * a.ldp + n];
            for (uint32_t k = 0; k < a.k; ++k) {
                const float p = a.stationary[k * a.lds + m] * a.moving[k * a.ldm + n];
                acc = acc + p;
            }
            a.psum[m * a.ldp + n] = acc;
        }
}

#define NEURONSIM_AVX2_PE __attribute__((target("avx2")))

NEURONSIM_AVX2_PE inline __m256i lanes(uint32_t width) {  // lanes [0, min(width, 8)) set
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(width > 8 ? 8 : width)), idx);
}

// A register tile of MR rows x 16 columns (two vectors per row, 2*MR independent sums), the
// columns past `width` masked off. Per k: one product per element, then one sum, in k order.
// The row loops are unrolled so that the sums live in registers (GCC -O2 keeps a loop over an
// array of vectors in memory otherwise).
template <int MR>
NEURONSIM_AVX2_PE void tile256(const MatmulArgs& a, uint32_t m0, uint32_t n0, uint32_t width) {
    const __m256i k0 = lanes(width), k1 = lanes(width > 8 ? width - 8 : 0);
    __m256 acc[MR][2];
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
        float* row = a.psum + (m0 + r) * a.ldp + n0;
        acc[r][0] = a.start ? _mm256_setzero_ps() : _mm256_maskload_ps(row, k0);
        acc[r][1] = a.start ? _mm256_setzero_ps() : _mm256_maskload_ps(row + 8, k1);
    }
    const float* s = a.stationary + m0;
    const float* mv = a.moving + n0;
    for (uint32_t k = 0; k < a.k; ++k, s += a.lds, mv += a.ldm) {
        const __m256 b0 = _mm256_maskload_ps(mv, k0), b1 = _mm256_maskload_ps(mv + 8, k1);
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r) {
            const __m256 w = _mm256_set1_ps(s[r]);
            acc[r][0] = _mm256_add_ps(acc[r][0], _mm256_mul_ps(w, b0));
            acc[r][1] = _mm256_add_ps(acc[r][1], _mm256_mul_ps(w, b1));
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
        float* row = a.psum + (m0 + r) * a.ldp + n0;
        _mm256_maskstore_ps(row, k0, acc[r][0]);
        _mm256_maskstore_ps(row + 8, k1, acc[r][1]);
    }
}

constexpr int kRows = 6;  // rows per register tile: 12 sums hide the add latency on two ports

template <void (*T1)(const MatmulArgs&, uint32_t, uint32_t, uint32_t), void (*T2)(const MatmulArgs&, uint32_t, uint32_t, uint32_t),
          void (*T3)(const MatmulArgs&, uint32_t, uint32_t, uint32_t), void (*T4)(const MatmulArgs&, uint32_t, uint32_t, uint32_t),
          void (*T5)(const MatmulArgs&, uint32_t, uint32_t, uint32_t), void (*T6)(const MatmulArgs&, uint32_t, uint32_t, uint32_t)>
void blocked(const MatmulArgs& a, uint32_t cols) {
    // Column blocks outermost: one block of the moving tile (K x cols floats) stays in L1
    // while every row of the stationary tile passes over it.
    for (uint32_t n0 = 0; n0 < a.n; n0 += cols) {
        const uint32_t width = a.n - n0 < cols ? a.n - n0 : cols;
        uint32_t m0 = 0;
        for (; m0 + kRows <= a.m; m0 += kRows) T6(a, m0, n0, width);
        switch (a.m - m0) {
            case 1: T1(a, m0, n0, width); break;
            case 2: T2(a, m0, n0, width); break;
            case 3: T3(a, m0, n0, width); break;
            case 4: T4(a, m0, n0, width); break;
            case 5: T5(a, m0, n0, width); break;
            default: break;
        }
    }
}

}  // namespace

void matmul_reference(const MatmulArgs& a) {
    check(a);
    scalar_block(a, 0, a.m, 0, a.n);
}

void matmul(const MatmulArgs& a, SimdLevel level) {
    check(a);
    if (level > best_simd_level()) level = best_simd_level();
    switch (level) {
        // AVX-512 CPUs run the AVX2 kernel: on this project's AMD EPYC machines a 512-bit
        // version of the same tile was slower (docs/tensor-engine.md, "The code and its oracle").
        case SimdLevel::Avx512:
        case SimdLevel::Avx2: blocked<tile256<1>, tile256<2>, tile256<3>, tile256<4>, tile256<5>, tile256<6>>(a, 16); break;
        default: scalar_block(a, 0, a.m, 0, a.n); break;
    }
}

}  // namespace neuronsim::model::pe
