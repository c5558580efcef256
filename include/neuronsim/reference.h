#pragma once
// neuronsim's public API: the reference results a host checks a NeuronCore's outputs against,
// from the same bit-exact models the device uses (no SystemC): the ACT engine's table
// evaluation and the CPTC codec of docs/cptc-format.md. Standard C++ only.
#include <cstdint>
#include <string>
#include <vector>

namespace neuronsim::reference {

// f(x) as Activate computes it from the resident tables of `set` (a set of the built-in
// catalog's trainium roster, e.g. "gelu_and_others", or the path of a set's JSON manifest in a
// pwp_bin_* directory), for `function` (bare name "gelu", stem, or func_id), bit for bit.
// x is the already scaled and biased input. Throws std::runtime_error naming an unknown set or
// function.
float activation(const std::string& set, const std::string& function, float x);

// The element types' conversions the device uses (round to nearest even).
uint16_t f32_to_fp16(float x);
float fp16_to_f32(uint16_t h);

// CPTC: one partition's codes (sign-extended when `is_signed`), and the block scale that
// applies to element i (1 when mconst1 has no block scales).
std::vector<int32_t> cptc_codes(const uint8_t* stream, uint64_t elements, unsigned bits, bool is_signed);
float cptc_block_scale(const uint8_t* stream, unsigned bits, uint64_t elements, unsigned block_size, uint16_t mconst1, uint64_t i);

}  // namespace neuronsim::reference
