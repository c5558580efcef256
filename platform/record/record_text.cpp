#include "platform/record/record_text.h"

#include <cstdio>

namespace neuronsim::platform::record {

std::string json_escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
            continue;
        }
        o += c;
    }
    return o;
}

void put_csv(TextWriter& o, const std::string& s) {
    if (csv_plain(s)) return o.put(s);
    o.put('"');
    for (char c : s) {
        if (c == '"') o.put('"');
        o.put(c);
    }
    o.put('"');
}

}  // namespace neuronsim::platform::record
