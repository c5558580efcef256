#pragma once
// Typed accessors over nlohmann::ordered_json that carry a JSON path ("$.a[3].b") so every error
// names the file, the place and what was expected.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "model/io/read_file.h"

namespace neuronsim::model::io {

class JsonNode {
public:
    JsonNode(const nlohmann::ordered_json& j, std::string source, std::string path = "$") : j_(&j), source_(std::move(source)), path_(std::move(path)) {}

    const nlohmann::ordered_json& raw() const { return *j_; }
    const std::string& path() const { return path_; }
    const std::string& source() const { return source_; }

    bool has(const char* key) const { return j_->is_object() && j_->contains(key); }
    JsonNode at(const char* key) const;  // error if missing (or not an object)
    JsonNode at(size_t index) const;  // error if not an array or out of range
    size_t size() const;  // array length; error if not an array

    void expect_object() const;
    void expect_array() const;
    std::string as_string() const;
    int64_t as_int(int64_t lo, int64_t hi) const;  // integer within [lo, hi]
    bool as_bool_or_01() const;  // true/false or the integers 0/1

    [[noreturn]] void fail(const std::string& expected) const;

private:
    const nlohmann::ordered_json* j_;
    std::string source_;
    std::string path_;
};

// The deepest nesting parse_json_text accepts (real files nest 4 levels).
inline constexpr size_t kMaxJsonDepth = 256;

// Parses JSON text. Every error is an Error naming the source and the place: a syntax error
// or an out-of-range number (1e999) its line, column, byte offset and JSON path; a duplicate
// key its JSON path. No nlohmann exception escapes.
nlohmann::ordered_json parse_json_text(const std::string& text, const std::string& source);

// Reads a whole regular file of at most `max_bytes` (read_file.h); an error names the file
// and the reason.
std::string read_text_file(const std::string& path, uint64_t max_bytes = kMaxJsonFileBytes, const std::string& what = "JSON or YAML input");

// "number", "string", ... for messages.
std::string json_type_name(const nlohmann::ordered_json& j);

}  // namespace neuronsim::model::io
