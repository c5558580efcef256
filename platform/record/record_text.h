#pragma once
// The text pieces the recordings share: CSV fields (RFC 4180), JSON string insides, bytes as
// 0x.., times as exact decimal ns/us, a semaphore condition. Appended straight into a
// TextWriter: these run once per instruction.
#include <cstdint>
#include <string>

#include <systemc>

#include "model/io/text_writer.h"
#include "model/isa/bundle.h"

namespace neuronsim::platform::record {

using model::io::TextWriter;

std::string json_escape(const std::string& s);

inline bool csv_plain(const std::string& s) {
    for (char c : s)
        if (c == ',' || c == '"' || c == '\r' || c == '\n') return false;
    return true;
}

inline bool json_plain(const std::string& s) {
    for (char c : s)
        if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return false;
    return true;
}

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
void put_csv(TextWriter& o, const std::string& s);

// s as the inside of a JSON string; most names need no escaping.
inline void put_json(TextWriter& o, const std::string& s) {
    if (json_plain(s)) return o.put(s);
    o.put(json_escape(s));
}

// "0x" and two lowercase hex digits, as printf's 0x%02x of a byte.
inline void put_hex2(TextWriter& o, uint8_t v) {
    static const char digits[] = "0123456789abcdef";
    const char b[4] = {'0', 'x', digits[v >> 4], digits[v & 15]};
    o.put(b, 4);
}

inline double ns(const sc_core::sc_time& t) { return t.to_seconds() * 1e9; }

// Times are integer picoseconds, so ns with 3 decimals and us with 6 are exact.
inline void put_ns(TextWriter& o, const sc_core::sc_time& t) { o.fixed(t.value(), 3); }
inline void put_us(TextWriter& o, const sc_core::sc_time& t) { o.fixed(t.value(), 6); }

// "semaphore 3 >= 2": needs no quoting in CSV nor escaping in JSON. `Out` is a TextWriter or
// anything with its put(char), lit("...") and u64(v).
template <class Out>
void put_semaphore(Out& o, const model::isa::Events& w) {
    o.lit("semaphore ");
    o.u64(w.wait_idx);
    if (w.wait == model::isa::WaitMode::Eq) o.lit(" == ");
    else o.lit(" >= ");
    const int32_t v = static_cast<int32_t>(w.value);
    if (v < 0) o.put('-');
    o.u64(v < 0 ? 0ull - static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v));
}

}  // namespace neuronsim::platform::record
