#pragma once
// The CPTC compressed-tensor format as neuronsim defines it (docs/cptc-format.md): the
// encode side is not published, so this is a concrete bit-plane layout consistent with every
// known fact (hardware-facts §F): 1..7-bit codes, UINT32 transport in 4-word (16-byte) units,
// a bit-plane interleave undone by the firmware's de-interleave table, per-block scales over
// block_size elements, the global scale and format word in multiplicative_const.
//
// Per partition: groups of 64 elements. Element j of a group is stored at position
// s(j) = ((j & 3) << 4) | (j >> 2); the group holds K bit planes of 8 bytes (plane b, byte
// s/8, bit s%8 = bit b of the code at position s), padded with zeros to whole 16-byte units.
// After the groups: one fp16 scale per block of block_size elements (when the format word
// asks for them), padded to a 16-byte unit. A value is code x s0 x block_scale, with the code
// signed (two's complement) or unsigned according to the decode kernel's leg; the integer leg
// (impl<5>) stores code x s0 with s0 an integer and no block scale.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/fp/dtype.h"

namespace neuronsim::model::cptc {

// The firmware's de-interleave table: output lane j reads source lane t[j] of a 128-lane
// pair, the odd lanes in 4-way order: t[j] = ((j & 3) << 5) | (((j >> 2) << 1) | 1).
const std::array<uint8_t, 64>& deinterleave_table();

// Position of element j inside its group: (t[j] - 1) / 2.
inline unsigned stored_position(unsigned j) { return ((j & 3u) << 4) | (j >> 2); }

inline constexpr unsigned kGroup = 64;
inline constexpr uint16_t kFormatBlockScales = 0x0100;  // multiplicative_const[1] bit 8

// Bytes of one partition's stream: groups, then the block scales if present.
uint64_t stream_bytes(unsigned bits, uint64_t elements, unsigned block_size, bool block_scales);

// The decode kernels as the encoder needs them (docs/cptc-format.md, "Routing and the six
// kernels"). The firmware model keeps its own table (firmware_model/pool_firmware.cpp); the
// round-trip tests run the encoder against it, so the two cannot drift apart unnoticed.
struct KernelLeg {
    bool is_signed;  // two's complement codes (impl<6>: unsigned for a UINT8 output)
    bool integer;  // impl<5>: code x s0 as integers, no block scales
    std::vector<fp::Dtype> outs;  // the out_dtype values it stores; the first is the default
};
const KernelLeg& kernel_leg(unsigned impl);  // impl 1..6
// The value an odd kernel re-checks (impl<1>: 1, <3>: 4, <5>: 3); 0 for the even ones.
unsigned kernel_guard(unsigned impl);

// 3-bit CPTC value -> cptc_decode_impl<N>, as gpsimd.cptc_routing.
using Routing = std::map<unsigned, unsigned>;
const Routing& default_routing();  // {1:1, 2:2, 3:5, 4:3, 5:4, 6:6, 7:6}
// Sets value -> impl as the config does: 1, 3 and 4 are fixed (observed), impl is 1..6.
void set_route(Routing& r, unsigned value, unsigned impl);

// What one decode instruction does with CPTC-K: its kernel, output type and how it reads codes.
struct Target {
    unsigned bits = 4;
    unsigned impl = 3;
    fp::Dtype out = fp::Dtype::Fp16;
    bool is_signed = true;  // as the leg reads the codes for this output
    bool integer = false;  // impl<5>
};
// Routes CPTC-`bits` and checks `out` (or takes the kernel's default output, out = Invalid)
// against the kernel's leg. Refusals say why and which K / output type to use instead.
Target route_target(unsigned bits, const Routing& routing, fp::Dtype out = fp::Dtype::Invalid);
// "cptc_decode_impl<5> (CPTC3 -> impl<5>): unsigned codes 0..7, UINT8 output, integer leg"
std::string describe(const Target& t);
// All codes the leg can read: [-2^(K-1), 2^(K-1)-1] signed, [0, 2^K-1] unsigned.
std::pair<int32_t, int32_t> code_range(const Target& t);

struct Encoded {
    std::vector<uint8_t> bytes;  // one partition's stream
    uint16_t s0 = 0x3c00;  // multiplicative_const[0]: fp16 global scale (impl<5>: integer multiplier)
    uint16_t s1 = 0;  // format word (multiplicative_const[1])
    std::vector<int32_t> codes;  // the codes, as the leg reads them
    std::vector<float> steps;  // per value: what one code step is worth (its block scale x s0)
    std::vector<uint8_t> decoded;  // what the routed kernel stores: one out-type element per value, little-endian
};

// Codes -> stream (codes are taken modulo 2^bits; signed codes in two's complement).
std::vector<uint8_t> pack_codes(const std::vector<int32_t>& codes, unsigned bits);
// Stream -> codes, sign-extended when `is_signed`.
std::vector<int32_t> unpack_codes(const uint8_t* stream, uint64_t elements, unsigned bits, bool is_signed);

// Quantises floats for the target's kernel.
// - Float legs: one fp16 scale per block (s0 = 1.0, mconst1 = kFormatBlockScales). Signed codes
//   use [-(2^(K-1)-1), 2^(K-1)-1], max |x| mapping to the top code; unsigned [0, 2^K-1], max x
//   (negatives clamp to 0). Signed 1-bit codes are {-1, 0}: the block's value of largest
//   magnitude v maps to -1 with the scale -v, values of the other sign clamp to 0.
// - The integer leg (impl<5>): no block scales (mconst1 = 0); s0 is `multiplier` (0: chosen
//   from these values by integer_multiplier), codes round(x / s0) in [0, 2^K-1].
// Codes round to nearest even. `decoded` is what the kernel stores for them.
Encoded encode(const std::vector<float>& values, const Target& t, unsigned block_size, uint16_t multiplier = 0);
// impl<5>'s multiplier: the smallest integer m >= 1 with m x (2^K-1) >= max x, x taken in
// [0, 255] (the UINT8 output's range), so no value is more than half a step from its code.
uint16_t integer_multiplier(const std::vector<float>& values, unsigned bits);
// Codes stored as they are, no block scales: each decodes to code x 1 in the output type.
// Codes outside code_range(t) are errors naming their index.
Encoded encode_codes(const std::vector<int32_t>& codes, const Target& t);

// The decode instruction's fields for streams of `stream_bytes` bytes holding `elements` codes
// per partition, in trace syntax (conv_lut_load or ext spec=7; add src= and dst=), e.g.
// "in_dtype=9 out_dtype=7 lut_dtype=0x1c block_size=64 mconst0=0x3c00 mconst1=0x100 ...".
std::string instruction_fields(const Target& t, unsigned block_size, uint16_t s0, uint16_t s1, uint64_t stream_bytes, uint64_t elements);

// What the target's kernel stores for one code (stage D then F of the decode), into `out`
// (dtype_bytes(t.out) bytes, little-endian).
void reconstruct(const Target& t, int32_t code, uint16_t s0, float block_scale, uint8_t* out);

// Reads the block scale of element i (1 when the format has none).
float block_scale(const uint8_t* stream, unsigned bits, uint64_t elements, unsigned block_size, uint16_t s1, uint64_t i);

}  // namespace neuronsim::model::cptc
