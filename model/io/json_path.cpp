#include "model/io/json_path.h"

#include <new>
#include <unordered_set>
#include <vector>

#include "model/common/error.h"

namespace neuronsim::model::io {

std::string json_type_name(const nlohmann::ordered_json& j) {
    if (j.is_number_integer()) return "integer";
    if (j.is_number_float()) return "non-integer number";
    return j.type_name();
}

void JsonNode::fail(const std::string& expected) const {
    std::string got;
    if (j_->is_primitive() && !j_->is_null()) {
        got = " " + j_->dump();
        if (got.size() > 81) got = got.substr(0, 77) + "...";  // a 60 MiB string is not quoted whole
    }
    throw Error(source_ + ": " + path_ + ": expected " + expected + ", got " + json_type_name(*j_) + got);
}

JsonNode JsonNode::at(const char* key) const {
    expect_object();
    auto it = j_->find(key);
    if (it == j_->end()) throw Error(source_ + ": " + path_ + ": missing required key \"" + key + "\"");
    return JsonNode(*it, source_, path_ + "." + key);
}

JsonNode JsonNode::at(size_t index) const {
    expect_array();
    if (index >= j_->size()) throw Error(source_ + ": " + path_ + ": index " + std::to_string(index) + " out of range");
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

namespace {

using Json = nlohmann::ordered_json;

// "LINE:COL" of a byte offset.
std::string line_col(const std::string& text, size_t byte) {
    if (byte > text.size()) byte = text.size();
    size_t line = 1, col = 1;
    for (size_t i = 0; i < byte; ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return std::to_string(line) + ":" + std::to_string(col);
}

// Builds the document from nlohmann's SAX events, so that every error can name the place: a
// syntax error or a number out of range (1e999) gets line, column, byte offset and the JSON
// path being parsed; a duplicate key (nlohmann keeps one silently) is an error; nesting is
// bounded. Objects are appended to directly: ordered_json's own insertion searches linearly,
// which makes a large object quadratic.
class Builder {
public:
    Builder(Json& root, const std::string& text, const std::string& source) : root_(root), text_(text), source_(source) {}

    bool null() { return value(Json(nullptr)); }
    bool boolean(bool v) { return value(Json(v)); }
    bool number_integer(Json::number_integer_t v) { return value(Json(v)); }
    bool number_unsigned(Json::number_unsigned_t v) { return value(Json(v)); }
    bool number_float(Json::number_float_t v, const Json::string_t&) { return value(Json(v)); }
    bool string(Json::string_t& v) { return value(Json(std::move(v))); }
    bool binary(Json::binary_t& v) { return value(Json::binary(std::move(v))); }
    bool start_object(std::size_t) { return open(Json::object(), false); }
    bool start_array(std::size_t) { return open(Json::array(), true); }
    bool end_object() {
        stack_.pop_back();
        return true;
    }
    bool end_array() {
        stack_.pop_back();
        return true;
    }
    bool key(Json::string_t& k) {
        Frame& f = stack_.back();
        if (!f.keys.insert(k).second) throw Error(source_ + ": " + path() + "." + k + ": duplicate key \"" + k + "\" (a JSON object names each key once)");
        f.key = std::move(k);
        return true;
    }

    template <class Exception>
    bool parse_error(std::size_t position, const std::string& token, const Exception& ex) {
        std::string msg = ex.what();
        // nlohmann's position is 1-based: the byte after the offending one.
        size_t byte = position == 0 ? 0 : position - 1;
        if (ex.id == 406) {  // number overflow: point at the number's first byte
            byte = position >= token.size() ? position - token.size() : 0;
            throw Error(source_ + ":" + line_col(text_, byte) + ": number " + token + " is out of range for a double (byte offset " + std::to_string(byte) +
                        ", at " + path_of_value() + ")");
        }
        auto pos = msg.find("parse error");
        throw Error(source_ + ":" + line_col(text_, byte) + ": malformed JSON (byte offset " + std::to_string(byte) + ", at " + path_of_value() +
                    "): " + (pos == std::string::npos ? msg : msg.substr(pos)));
    }

private:
    struct Frame {
        Json* j;
        bool array;
        std::string key;  // objects: the key of the member being parsed
        std::unordered_set<std::string> keys;  // objects: the keys seen
    };

    // Where the value being parsed goes.
    Json* place(Json v) {
        if (stack_.empty()) {
            root_ = std::move(v);
            return &root_;
        }
        Frame& f = stack_.back();
        if (f.array) {
            f.j->get_ref<Json::array_t&>().push_back(std::move(v));
            return &f.j->get_ref<Json::array_t&>().back();
        }
        auto& members = f.j->get_ref<Json::object_t&>();
        members.Container::emplace_back(f.key, std::move(v));  // the key is new (checked in key())
        return &members.Container::back().second;
    }
    bool value(Json v) {
        place(std::move(v));
        return true;
    }
    bool open(Json v, bool array) {
        if (stack_.size() >= kMaxJsonDepth)
            throw Error(source_ + ": " + path_of_value() + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        Json* j = place(std::move(v));
        stack_.push_back(Frame{j, array, {}, {}});
        return true;
    }
    // The path of the innermost open container.
    std::string path() const {
        std::string p = "$";
        for (size_t i = 0; i + 1 < stack_.size(); ++i) {
            const Frame& f = stack_[i];
            p += f.array ? "[" + std::to_string(f.j->size() - 1) + "]" : "." + f.key;
        }
        return p;
    }
    // The path of the value being parsed (the next element, or the current key's value).
    std::string path_of_value() const {
        if (stack_.empty()) return "$";
        const Frame& f = stack_.back();
        return path() + (f.array ? "[" + std::to_string(f.j->size()) + "]" : f.key.empty() ? "" : "." + f.key);
    }

    Json& root_;
    const std::string& text_;
    const std::string& source_;
    std::vector<Frame> stack_;
};

}  // namespace

nlohmann::ordered_json parse_json_text(const std::string& text, const std::string& source) {
    Json doc;
    Builder b(doc, text, source);
    try {
        Json::sax_parse(text, &b);
    } catch (const Error&) {
        throw;
    } catch (const nlohmann::json::exception& e) {  // any other nlohmann error still names the file
        throw Error(source + ": JSON error: " + e.what());
    } catch (const std::bad_alloc&) {
        throw Error(source + ": out of memory while parsing its " + std::to_string(text.size()) + " bytes of JSON");
    }
    return doc;
}

std::string read_text_file(const std::string& path, uint64_t max_bytes, const std::string& what) { return read_file_checked(path, max_bytes, what); }

}  // namespace neuronsim::model::io
