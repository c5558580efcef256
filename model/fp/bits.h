#pragma once
// Raw IEEE-754 binary32 helpers. Bit-exact code compares and stores bit patterns, never decimal
// strings, so every conversion between a float and its pattern goes through here.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace neuronsim::model::fp {

inline uint32_t bits_of(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

inline float float_of(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// "3f800000": eight lowercase hex digits, no prefix.
std::string hex8(uint32_t u);
// "0x1c": a byte-sized code (opcode, dtype) as messages print it, at least two digits.
std::string hex2(unsigned v);
// "0x1f": an address or size as messages print it.
std::string hex(uint64_t v);

// Parses exactly eight hex digits, optionally preceded by 0x/0X. Returns false on anything else.
bool parse_hex8(std::string_view text, uint32_t& out);

// Parses a float32 given either as a bit pattern "0x3f800000" or as a decimal number that must
// be consumed entirely ("0.5", "-1e-3", "inf", "nan"); decimals round to nearest float.
bool parse_float_operand(std::string_view text, float& out);

}  // namespace neuronsim::model::fp
