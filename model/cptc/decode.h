#pragma once
// One partition's CPTC decode as the GPSIMD kernels store it (stage A unpack and
// de-interleave, stage D scales, stage F saturating store; docs/cptc-format.md), into a
// contiguous output in element order. decode_reference is the decoder the firmware model used
// before the fast decode, kept as the oracle and the benchmark baseline; decode_fast gives the same
// bytes with AVX-512 (BITALG for the bit-plane transpose, F16C-in-AVX-512F for the fp16
// store), chosen at run time, and falls back to the reference elsewhere.
#include <cstdint>

#include "model/fp/dtype.h"

namespace neuronsim::model::cptc {

struct DecodeParams {
    unsigned bits = 4;  // K, 1..7
    bool is_signed = true;  // codes in two's complement
    bool integer = false;  // impl<5>: code x s0 as integers, clamped to 255
    fp::Dtype out = fp::Dtype::Fp16;
    uint16_t s0 = 0x3c00, s1 = 0;  // multiplicative_const[0] (fp16 or integer), [1] (format word)
    unsigned block_size = 64;  // a non-zero multiple of 8
    uint64_t elements = 0;
};

// `stream`: the partition's stream_bytes(...) bytes; `out`: elements x dtype_bytes(out).
void decode_reference(const DecodeParams& p, const uint8_t* stream, uint8_t* out);
void decode_fast(const DecodeParams& p, const uint8_t* stream, uint8_t* out);

// Whether decode_fast has its SIMD path on this CPU (else it is decode_reference). The
// environment variable NEURONSIM_SIMD set to anything but avx512 (scalar, avx2) turns it off.
bool decode_fast_simd();

}  // namespace neuronsim::model::cptc
