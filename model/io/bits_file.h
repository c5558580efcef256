#pragma once
// Element files for `neuronsim act eval` and friends: binary32 values either as text, one bit
// pattern per line as 8 hex digits ("3f800000"; "0x" accepted on input, output lowercase
// without it; lines starting with '#' are comments), or as raw little-endian binary32 ("f32"). Errors name the file and the line
// (text) or byte offset (f32).
#include <cstddef>
#include <string>
#include <vector>

namespace neuronsim::model::io {

enum class ElementFormat { Hex, F32 };

// "hex" or "f32"; anything else is an error naming the value.
ElementFormat parse_element_format(const std::string& name);

struct Elements {
    std::vector<float> values;
    std::vector<size_t> lines;  // Hex: the 1-based line of each element; empty for F32
};

Elements read_elements(const std::string& path, ElementFormat format);
void write_elements(const std::string& path, ElementFormat format, const std::vector<float>& values);

// "IN:7" (Hex) or "IN: byte offset 24" (F32): where element i came from.
std::string element_place(const std::string& path, ElementFormat format, const Elements& e, size_t i);

}  // namespace neuronsim::model::io
