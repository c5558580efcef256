#include "sweep/utf8.h"

namespace neuronsim::sweep {

namespace {

// The length of the well-formed UTF-8 sequence at p (no overlong forms, surrogates or code
// points past U+10FFFF), 0 when there is none.
size_t sequence_length(const unsigned char* p, const unsigned char* end) {
    const unsigned c = *p;
    size_t n = 0;
    unsigned min = 0, cp = 0;
    if (c < 0x80) return 1;
    if ((c & 0xe0) == 0xc0) {
        n = 1, min = 0x80, cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        n = 2, min = 0x800, cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        n = 3, min = 0x10000, cp = c & 0x07;
    } else {
        return 0;
    }
    if (size_t(end - p) <= n) return 0;
    for (size_t i = 1; i <= n; ++i) {
        if ((p[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return n + 1;
}

}  // namespace

bool valid_utf8(const std::string& t) {
    const auto* p = reinterpret_cast<const unsigned char*>(t.data());
    const auto* end = p + t.size();
    while (p < end) {
        const size_t n = sequence_length(p, end);
        if (n == 0) return false;
        p += n;
    }
    return true;
}

std::string make_valid_utf8(const std::string& t) {
    const auto* p = reinterpret_cast<const unsigned char*>(t.data());
    const auto* end = p + t.size();
    std::string out;
    out.reserve(t.size());
    while (p < end) {
        const size_t n = sequence_length(p, end);
        if (n == 0) {
            out += "\xEF\xBF\xBD";  // U+FFFD
            ++p;
        } else {
            out.append(reinterpret_cast<const char*>(p), n);
            p += n;
        }
    }
    return out;
}

}  // namespace neuronsim::sweep
