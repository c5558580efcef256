#pragma once
// Whitespace-separated words of a line (what `istream >> std::string` splits on, without a
// stream and its locale per line: trace lines are parsed millions of times).
#include <string>
#include <string_view>
#include <vector>

namespace neuronsim {

inline std::vector<std::string> split_words(std::string_view s) {
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; };
    std::vector<std::string> out;
    out.reserve(8);  // a trace line's words, without regrowing
    size_t i = 0;
    const size_t n = s.size();
    while (i < n) {
        while (i < n && space(s[i])) ++i;
        const size_t b = i;
        while (i < n && !space(s[i])) ++i;
        if (i > b) out.emplace_back(s.substr(b, i - b));
    }
    return out;
}

}  // namespace neuronsim
