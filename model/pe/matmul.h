#pragma once
// TensorE (PE) matmul numerics (issue 27): one instruction's product of a stationary tile
// (K partitions x M, K <= 128, M <= 128) and a moving tile (K partitions x N, N <= 512) into
// an M x N PSUM bank region. No bit-exact hardware reference is public; this is neuronsim's
// model (docs/tensor-engine.md):
//   psum[m][n] = (start ? +0.0f : psum[m][n]) + p[0][m][n] + p[1][m][n] + ... + p[K-1][m][n]
//   p[k][m][n] = float(stationary[k][m] * moving[k][n])
// summed left to right (k increasing), every product and every sum rounded to binary32 (no
// FMA, no wider accumulator). Inputs arrive as binary32 (bf16, fp16 and fp8 convert exactly;
// their products are exact in binary32). So an all -0 sum gives +0 after start, and a
// transpose through an identity turns an infinity into NaN (inf * 0), as IEEE arithmetic does.
// NaN payloads are x86's, not modelled.
//
// The order is fixed per output element, so any blocking, SIMD width or split of the rows
// over threads gives the same bits: matmul() (blocked, AVX2) is checked against
// matmul_reference() (the definition as a triple loop), which stays in the tree as its oracle.
#include <cstdint>

#include "model/common/simd_level.h"

namespace neuronsim::model::pe {

constexpr uint32_t kMaxContraction = 128;  // K: the PE array's rows (SBUF partitions)
constexpr uint32_t kMaxStationary = 128;  // M: the PE array's columns (PSUM partitions written)
constexpr uint32_t kMaxMoving = 512;  // N: one PSUM bank of 2 KiB per partition in fp32

// Row-major binary32 operands: stationary[k * lds + m], moving[k * ldm + n], psum[m * ldp + n].
struct MatmulArgs {
    const float* stationary = nullptr;
    uint64_t lds = 0;
    const float* moving = nullptr;
    uint64_t ldm = 0;
    float* psum = nullptr;
    uint64_t ldp = 0;
    uint32_t k = 0, m = 0, n = 0;
    bool start = true;  // the first matmul of an accumulation group: the bank starts at +0
};

// Both throw Error when a size is 0 or over its limit, a pointer is null, or a leading
// dimension is shorter than its row.
void matmul_reference(const MatmulArgs& a);
void matmul(const MatmulArgs& a, SimdLevel level);
inline void matmul(const MatmulArgs& a) { matmul(a, active_simd_level()); }

}  // namespace neuronsim::model::pe
