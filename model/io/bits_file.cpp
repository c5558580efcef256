#include "model/io/bits_file.h"

#include <cerrno>
#include <cstring>
#include <new>

#include "model/common/error.h"
#include "model/fp/bits.h"

namespace neuronsim::model::io {

ElementFormat parse_element_format(const std::string& name) {
    if (name == "hex") return ElementFormat::Hex;
    if (name == "f32") return ElementFormat::F32;
    throw Error("--format: expected hex or f32, got \"" + name + "\"");
}

static std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

ElementReader::ElementReader(const std::string& path, ElementFormat format, uint64_t max_bytes) : in_(path, max_bytes, "element file"), format_(format) {
    if (format == ElementFormat::F32 && in_.size() % 4 != 0)
        throw Error(path + ": byte offset " + std::to_string(in_.size() - in_.size() % 4) + ": " + std::to_string(in_.size() % 4) +
                    " trailing byte(s); f32 files hold whole 4-byte little-endian binary32 values");
}

bool ElementReader::next(std::vector<float>& values, size_t max) {
    values.clear();
    lines_.clear();
    batch_first_ = count_;
    if (format_ == ElementFormat::F32) {
        std::vector<uint8_t> raw(4 * max);
        const size_t n = in_.read(raw.data(), raw.size());
        if (n % 4) throw Error(in_.path() + ": byte offset " + std::to_string(in_.offset() - n % 4) + ": the file ended inside a value");
        values.resize(n / 4);
        for (size_t i = 0; i < values.size(); ++i) {
            const uint8_t* p = raw.data() + 4 * i;
            values[i] = fp::float_of(uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24);
        }
        count_ += values.size();
        return !values.empty();
    }
    while (values.size() < max) {
        text_.clear();
        int c;
        while ((c = in_.get()) >= 0 && c != '\n') {
            if (text_.size() >= kMaxElementLineBytes)
                throw Error(in_.path() + ":" + std::to_string(line_ + 1) + ": line longer than " + std::to_string(kMaxElementLineBytes) +
                            " bytes (expected one 8-hex-digit bit pattern per line)");
            text_.push_back(static_cast<char>(c));
        }
        if (c < 0 && text_.empty()) break;
        ++line_;
        const std::string field = trim(text_);
        if (!field.empty() && field[0] == '#') continue;  // a comment line: says where the values came from
        uint32_t u;
        if (!fp::parse_hex8(field, u))
            throw Error(in_.path() + ":" + std::to_string(line_) + ": expected one binary32 bit pattern as 8 hex digits (e.g. 3f800000), got \"" +
                        (field.size() > 40 ? field.substr(0, 40) + "..." : field) + "\"");
        values.push_back(fp::float_of(u));
        lines_.push_back(line_);
        if (c < 0) break;
    }
    count_ += values.size();
    return !values.empty();
}

std::string ElementReader::place(size_t i) const {
    if (format_ == ElementFormat::Hex && i < lines_.size()) return in_.path() + ":" + std::to_string(lines_[i]);
    return in_.path() + ": byte offset " + std::to_string(4 * (batch_first_ + i));
}

ElementWriter::ElementWriter(const std::string& path, ElementFormat format) : out_(path), format_(format) {}

void ElementWriter::write(const float* values, size_t n) {
    buf_.clear();
    if (format_ == ElementFormat::F32) {
        // Little-endian binary32: the values' own bytes on a little-endian host (one copy, not a
        // byte at a time: this loop was a third of `act eval --format f32`).
        buf_.resize(4 * n);
        if constexpr (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
            std::memcpy(buf_.data(), values, 4 * n);
        } else {
            for (size_t i = 0; i < n; ++i) {
                const uint32_t u = fp::bits_of(values[i]);
                for (int b = 0; b < 4; ++b) buf_[4 * i + b] = static_cast<char>((u >> (8 * b)) & 0xFF);
            }
        }
    } else {
        for (size_t i = 0; i < n; ++i) {
            buf_ += fp::hex8(fp::bits_of(values[i]));
            buf_ += '\n';
        }
    }
    out_.write(buf_.data(), buf_.size());
    count_ += n;
}

void ElementWriter::commit() { out_.commit(); }

Elements read_elements(const std::string& path, ElementFormat format, uint64_t max_bytes) {
    ElementReader r(path, format, max_bytes);
    Elements out;
    std::vector<float> batch;
    try {
        while (r.next(batch, 1 << 16)) {
            out.values.insert(out.values.end(), batch.begin(), batch.end());
            if (format == ElementFormat::Hex)
                for (size_t i = 0; i < batch.size(); ++i) out.lines.push_back(r.line(i));
        }
    } catch (const std::bad_alloc&) {
        throw Error(path + ": cannot allocate memory for its " + std::to_string(r.count()) + "+ elements");
    }
    return out;
}

void write_elements(const std::string& path, ElementFormat format, const std::vector<float>& values) {
    ElementWriter w(path, format);
    w.write(values.data(), values.size());
    w.commit();
}

std::string element_place(const std::string& path, ElementFormat format, const Elements& e, size_t i) {
    if (format == ElementFormat::Hex && i < e.lines.size()) return path + ":" + std::to_string(e.lines[i]);
    return path + ": byte offset " + std::to_string(4 * i);
}

}  // namespace neuronsim::model::io
