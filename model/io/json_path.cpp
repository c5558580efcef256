#include "model/io/json_path.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/common/error.h"

namespace neuronsim::model::io {

std::string json_type_name(const nlohmann::ordered_json& j) {
    if (j.is_number_integer()) return "integer";
    if (j.is_number_float()) return "non-integer number";
    return j.type_name();
}

void JsonNode::fail(const std::string& expected) const {
    throw Error(source_ + ": " + path_ + ": expected " + expected + ", got " + json_type_name(*j_) +
                (j_->is_primitive() && !j_->is_null() ? " " + j_->dump() : std::string()));
}

JsonNode JsonNode::at(const char* key) const {
    expect_object();
    auto it = j_->find(key);
    if (it == j_->end()) throw Error(source_ + ": " + path_ + ": missing required key \"" + key + "\"");
    return JsonNode(*it, source_, path_ + "." + key);
}

JsonNode JsonNode::at(size_t index) const {
    expect_array();
    if (index >= j_->size())
        throw Error(source_ + ": " + path_ + ": index " + std::to_string(index) + " out of range");
    return JsonNode((*j_)[index], source_, path_ + "[" + std::to_string(index) + "]");
}

size_t JsonNode::size() const {
    expect_array();
    return j_->size();
}

void JsonNode::expect_object() const {
    if (!j_->is_object()) fail("an object");
}

void JsonNode::expect_array() const {
    if (!j_->is_array()) fail("an array");
}

std::string JsonNode::as_string() const {
    if (!j_->is_string()) fail("a string");
    return j_->get<std::string>();
}

int64_t JsonNode::as_int(int64_t lo, int64_t hi) const {
    const std::string range = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    int64_t v;
    if (j_->is_number_unsigned()) {
        uint64_t u = j_->get<uint64_t>();
        if (u > static_cast<uint64_t>(INT64_MAX)) fail(range);
        v = static_cast<int64_t>(u);
    } else if (j_->is_number_integer()) {
        v = j_->get<int64_t>();
    } else {
        fail(range);
    }
    if (v < lo || v > hi) fail(range);
    return v;
}

bool JsonNode::as_bool_or_01() const {
    if (j_->is_boolean()) return j_->get<bool>();
    if (j_->is_number_integer()) {
        int64_t v = j_->get<int64_t>();
        if (v == 0 || v == 1) return v == 1;
    }
    fail("a boolean (true/false or 0/1)");
}

nlohmann::ordered_json parse_json_text(const std::string& text, const std::string& source) {
    try {
        return nlohmann::ordered_json::parse(text);
    } catch (const nlohmann::ordered_json::parse_error& e) {
        // e.byte is 1-based; turn it into line:column.
        size_t byte = e.byte == 0 ? 0 : e.byte - 1;
        if (byte > text.size()) byte = text.size();
        size_t line = 1, col = 1;
        for (size_t i = 0; i < byte; ++i) {
            if (text[i] == '\n') { ++line; col = 1; } else { ++col; }
        }
        std::string msg = e.what();
        auto pos = msg.find("parse error");
        throw Error(source + ":" + std::to_string(line) + ":" + std::to_string(col) +
                    ": malformed JSON (byte offset " + std::to_string(byte) + "): " +
                    (pos == std::string::npos ? msg : msg.substr(pos)));
    }
}

std::string read_text_file(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw Error(path + ": is a directory, expected a file");
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error(path + ": cannot open: " + std::strerror(errno));
    std::ostringstream ss;
    ss << f.rdbuf();
    if (f.bad()) throw Error(path + ": read error");
    return ss.str();
}

}  // namespace neuronsim::model::io
