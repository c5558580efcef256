#pragma once
// NEURON_ISA_TPB_DTYPE (hardware-facts §H) and conversions through fp32, the universal hub:
// every input is converted to fp32, every output from fp32 with round-to-nearest-even.
#include <cstddef>
#include <cstdint>
#include <string>

namespace neuronsim::model::fp {

enum class Dtype : uint8_t {
    Invalid = 0x00,
    Uint64 = 0x01,
    Int8 = 0x02,
    Uint8 = 0x03,
    Int16 = 0x04,
    Uint16 = 0x05,
    Bfloat16 = 0x06,
    Fp16 = 0x07,
    Int32 = 0x08,
    Uint32 = 0x09,
    Fp32 = 0x0A,
    Fp32R = 0x0B,
    Int64 = 0x0C,
    Fp8Exp3 = 0x0D,
    Fp8Exp4 = 0x0E,
    Fp8Exp5 = 0x0F,
};

std::string dtype_name(uint8_t code);  // "FP32", "CPTC4", or "0x17" for unnamed codes

// Per-generation presence (§H): SUNDA/CAYMAN 16 codes (0x00..0x0F), MARIANA(+) 24 (adds FP4
// 0x10 and CPTC1..7 0x19..0x1F), MAVERICK 30 (adds 0x11..0x16). nc_version 2..5.
bool dtype_exists(uint8_t code, int nc_version);
// CPTC transport codes: (code & 0xF8) == 0x18 && (code & 7) != 0; bits = code & 7.
inline bool is_cptc(uint8_t code) { return (code & 0xF8) == 0x18 && (code & 7) != 0; }
inline unsigned cptc_bits(uint8_t code) { return code & 7u; }
size_t dtype_bytes(Dtype d);
bool is_16bit(Dtype d);  // BF16, FP16, INT16, UINT16
// The element types the ACT datapath reads and writes (FP32R on output only); others are
// errors naming the code.
bool act_input_dtype(uint8_t code);
bool act_output_dtype(uint8_t code);

float to_f32(Dtype d, const uint8_t* p);  // little-endian element at p
void from_f32(Dtype d, float v, uint8_t* p);
// n consecutive elements at p, each exactly as to_f32 / from_f32 converts it (the dtype switch
// once per call, not per element: the loops vectorise where the conversion allows).
void to_f32_n(Dtype d, const uint8_t* p, float* out, size_t n);
void from_f32_n(Dtype d, const float* v, uint8_t* p, size_t n);
#if defined(__x86_64__)
// to_f32_n's fp16 loop built for AVX2 (what it runs when model::active_simd_level() is not
// scalar); only on a CPU with AVX2.
void fp16_to_f32_n_avx2(const uint8_t* p, float* out, size_t n);
#endif

// The small floats, RNE. fp8: E3M4 (bias 3) and E4M3 (bias 7) have no infinity (the all-ones
// exponent with all-ones mantissa is NaN) and saturate to their largest finite value; E5M2
// (bias 15) is IEEE-like with infinities. bf16 and fp16 are IEEE. FP32R ("FP22") keeps 13
// mantissa bits (RNE). Integers round to nearest even and saturate; NaN becomes 0.
uint16_t f32_to_bf16(float v);
uint16_t f32_to_fp16(float v);
float bf16_to_f32(uint16_t h);
float fp16_to_f32(uint16_t h);

}  // namespace neuronsim::model::fp
