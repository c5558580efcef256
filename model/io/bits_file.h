#pragma once
// Element files for `neuronsim act eval` and friends: binary32 values either as text, one bit
// pattern per line as 8 hex digits ("3f800000"; "0x" accepted on input, output lowercase
// without it; lines starting with '#' are comments), or as raw little-endian binary32 ("f32"). Errors name the file and the line
// (text) or byte offset (f32).
//
// Large files stream: ElementReader hands out batches and ElementWriter writes them to a
// temporary file renamed into place only when complete, so memory stays flat and a failed
// run leaves no partial output.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/io/read_file.h"
#include "model/io/write_file.h"

namespace neuronsim::model::io {

enum class ElementFormat { Hex, F32 };

// "hex" or "f32"; anything else is an error naming the value.
ElementFormat parse_element_format(const std::string& name);

// The longest hex-format line (a comment included) read.
inline constexpr size_t kMaxElementLineBytes = 64 * 1024;

// Reads an element file front to back, a batch at a time.
class ElementReader {
public:
    ElementReader(const std::string& path, ElementFormat format, uint64_t max_bytes = UINT64_MAX);
    // Replaces `values` with up to `max` next elements; false when none remain.
    bool next(std::vector<float>& values, size_t max);
    // Where element i of the last batch came from: "IN:7" (hex) or "IN: byte offset 24" (f32).
    std::string place(size_t i) const;
    uint64_t line(size_t i) const { return i < lines_.size() ? lines_[i] : 0; }  // hex: 1-based
    uint64_t count() const { return count_; }  // elements returned so far
    const std::string& path() const { return in_.path(); }

private:
    ByteStream in_;
    ElementFormat format_;
    uint64_t count_ = 0, batch_first_ = 0, line_ = 0;
    std::vector<uint64_t> lines_;  // hex: the line of each element of the last batch
    std::string text_;
};

// Writes an element file through a temporary beside it (write_file.h); commit() renames it
// into place. Without commit() (an error) an existing file at `path` is left as it was.
class ElementWriter {
public:
    ElementWriter(const std::string& path, ElementFormat format);
    void write(const float* values, size_t n);
    void commit();
    uint64_t count() const { return count_; }

private:
    AtomicFile out_;
    ElementFormat format_;
    std::string buf_;
    uint64_t count_ = 0;
};

struct Elements {
    std::vector<float> values;
    std::vector<size_t> lines;  // Hex: the 1-based line of each element; empty for F32
};

// A whole file at once (for tools that need every value, e.g. cptc encode), at most
// `max_bytes` of it.
Elements read_elements(const std::string& path, ElementFormat format, uint64_t max_bytes = kMaxElementFileBytes);
void write_elements(const std::string& path, ElementFormat format, const std::vector<float>& values);

// "IN:7" (Hex) or "IN: byte offset 24" (F32): where element i came from.
std::string element_place(const std::string& path, ElementFormat format, const Elements& e, size_t i);

}  // namespace neuronsim::model::io
