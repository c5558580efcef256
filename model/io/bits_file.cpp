#include "model/io/bits_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/io/json_path.h"

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

Elements read_elements(const std::string& path, ElementFormat format) {
    const std::string data = read_text_file(path);
    Elements out;
    if (format == ElementFormat::F32) {
        if (data.size() % 4 != 0)
            throw Error(path + ": byte offset " + std::to_string(data.size() - data.size() % 4) +
                        ": " + std::to_string(data.size() % 4) +
                        " trailing byte(s); f32 files hold whole 4-byte little-endian binary32 values");
        out.values.resize(data.size() / 4);
        for (size_t i = 0; i < out.values.size(); ++i) {
            const unsigned char* p = reinterpret_cast<const unsigned char*>(data.data()) + 4 * i;
            uint32_t u = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
            out.values[i] = fp::float_of(u);
        }
        return out;
    }
    size_t line_no = 0, pos = 0;
    while (pos < data.size()) {
        size_t nl = data.find('\n', pos);
        size_t end = nl == std::string::npos ? data.size() : nl;
        ++line_no;
        std::string field = trim(data.substr(pos, end - pos));
        if (!field.empty() && field[0] == '#') {  // a comment line: says where the values came from
            pos = end + 1;
            continue;
        }
        uint32_t u;
        if (!fp::parse_hex8(field, u))
            throw Error(path + ":" + std::to_string(line_no) + ": expected one binary32 bit pattern as 8 hex digits (e.g. 3f800000), got \"" + field + "\"");
        out.values.push_back(fp::float_of(u));
        out.lines.push_back(line_no);
        pos = end + 1;
    }
    return out;
}

void write_elements(const std::string& path, ElementFormat format, const std::vector<float>& values) {
    std::string data;
    if (format == ElementFormat::F32) {
        data.resize(values.size() * 4);
        for (size_t i = 0; i < values.size(); ++i) {
            uint32_t u = fp::bits_of(values[i]);
            for (int b = 0; b < 4; ++b) data[4 * i + b] = static_cast<char>((u >> (8 * b)) & 0xFF);
        }
    } else {
        data.reserve(values.size() * 9);
        for (float v : values) {
            data += fp::hex8(fp::bits_of(v));
            data += '\n';
        }
    }
    std::ofstream f(path, std::ios::binary);
    if (!f) throw Error(path + ": cannot create: " + std::strerror(errno));
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!f) throw Error(path + ": write error");
}

std::string element_place(const std::string& path, ElementFormat format, const Elements& e, size_t i) {
    if (format == ElementFormat::Hex && i < e.lines.size()) return path + ":" + std::to_string(e.lines[i]);
    return path + ": byte offset " + std::to_string(4 * i);
}

}  // namespace neuronsim::model::io
