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
// signed (two's complement) or unsigned according to the decode kernel's leg.
#include <array>
#include <cstdint>
#include <vector>

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

struct Encoded {
    std::vector<uint8_t> bytes;   // one partition's stream
    uint16_t s0 = 0x3c00;         // global scale, fp16 (multiplicative_const[0])
    uint16_t s1 = 0;              // format word (multiplicative_const[1])
};

// Codes -> stream (codes are taken modulo 2^bits; signed codes in two's complement).
std::vector<uint8_t> pack_codes(const std::vector<int32_t>& codes, unsigned bits);
// Stream -> codes, sign-extended when `is_signed`.
std::vector<int32_t> unpack_codes(const uint8_t* stream, uint64_t elements, unsigned bits, bool is_signed);

// Quantises floats with one fp16 scale per block: signed codes in [-(2^(K-1)-1), 2^(K-1)-1]
// (max |x| maps to the top code), or unsigned in [0, 2^K-1] (max x; negatives clamp to 0).
Encoded encode(const std::vector<float>& values, unsigned bits, unsigned block_size, bool is_signed);

// Reads the block scale of element i (1 when the format has none).
float block_scale(const uint8_t* stream, unsigned bits, uint64_t elements, unsigned block_size, uint16_t s1, uint64_t i);

}  // namespace neuronsim::model::cptc
