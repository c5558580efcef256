#include "model/fp/bits.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace neuronsim::model::fp {

std::string hex8(uint32_t u) {
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", u);
    return std::string(buf, 8);
}

std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

std::string hex2(unsigned v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%02x", v);
    return buf;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool parse_hex8(std::string_view text, uint32_t& out) {
    if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2);
    if (text.size() != 8) return false;
    uint32_t v = 0;
    for (char c : text) {
        int d = hex_digit(c);
        if (d < 0) return false;
        v = (v << 4) | static_cast<uint32_t>(d);
    }
    out = v;
    return true;
}

bool parse_float_operand(std::string_view text, float& out) {
    if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        uint32_t u;
        if (!parse_hex8(text, u)) return false;
        out = float_of(u);
        return true;
    }
    if (text.empty()) return false;
    std::string s(text);
    char* end = nullptr;
    errno = 0;
    float v = std::strtof(s.c_str(), &end);
    if (end != s.c_str() + s.size()) return false;
    if (errno == ERANGE && (v == HUGE_VALF || v == -HUGE_VALF)) return false;  // overflow, not a float
    out = v;
    return true;
}

}  // namespace neuronsim::model::fp
