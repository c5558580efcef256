// split_words splits as `istream >> std::string` does (the trace parser relied on that before).
#include <sstream>

#include <gtest/gtest.h>

#include "model/common/words.h"

namespace neuronsim::test {
namespace {

std::vector<std::string> by_stream(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream ss(s);
    for (std::string w; ss >> w;) out.push_back(w);
    return out;
}

TEST(SplitWords, SplitsAsAStreamDoes) {
    for (const std::string& s : std::vector<std::string>{"", " ", "act", "act sync", "  act\tsync  wait=1>=0 \r", "\v\fa\n\nb c\t", "x=1,2,3   y=sbuf:0:0x10",
                                                         std::string("a\0b c", 5)}) {
        EXPECT_EQ(split_words(s), by_stream(s)) << '"' << s << '"';
    }
    EXPECT_EQ(split_words(" act  sync\t"), (std::vector<std::string>{"act", "sync"}));
}

}  // namespace
}  // namespace neuronsim::test
