#include <fstream>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/io/bits_file.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::test {
namespace {

using namespace model::io;

std::string error_of(const std::string& path, ElementFormat f) {
    try {
        read_elements(path, f);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(BitsFile, HexReadAcceptsPrefixAndCrlf) {
    TempDir t;
    auto e = read_elements(t.write("in.txt", "3f800000\n0xBF800000\r\n  7fc00001  \n"), ElementFormat::Hex);
    ASSERT_EQ(e.values.size(), 3u);
    EXPECT_EQ(bits(e.values[0]), 0x3f800000u);
    EXPECT_EQ(bits(e.values[1]), 0xbf800000u);
    EXPECT_EQ(bits(e.values[2]), 0x7fc00001u);
    EXPECT_EQ(e.lines[2], 3u);
}

TEST(BitsFile, HexCommentLinesAreSkippedAndLinesStillCount) {
    TempDir t;
    auto e = read_elements(t.write("c.txt", "# made by hand\n3f800000\n  # another\n40000000\n"), ElementFormat::Hex);
    ASSERT_EQ(e.values.size(), 2u);
    EXPECT_EQ(bits(e.values[1]), 0x40000000u);
    EXPECT_EQ(e.lines[1], 4u);
}

TEST(BitsFile, HexErrorsNameTheLine) {
    TempDir t;
    std::string m = error_of(t.write("in.txt", "3f800000\n\n3f800000\n"), ElementFormat::Hex);
    EXPECT_NE(m.find("in.txt:2: expected one binary32 bit pattern as 8 hex digits"), std::string::npos) << m;
    m = error_of(t.write("b.txt", "3f800000\n1.0\n"), ElementFormat::Hex);
    EXPECT_NE(m.find("b.txt:2:"), std::string::npos) << m;
    EXPECT_NE(m.find("got \"1.0\""), std::string::npos) << m;
}

TEST(BitsFile, F32RoundTripAndTrailingBytes) {
    TempDir t;
    std::vector<float> v = {1.0f, -2.5f, flt(0x7fc00001), flt(0x00000001)};
    write_elements(t.file("x.f32"), ElementFormat::F32, v);
    auto e = read_elements(t.file("x.f32"), ElementFormat::F32);
    ASSERT_EQ(e.values.size(), 4u);
    for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(bits(e.values[i]), bits(v[i]));
    std::string m = error_of(t.write("odd.f32", std::string("\x00\x00\x80\x3f\x01", 5)), ElementFormat::F32);
    EXPECT_NE(m.find("odd.f32: byte offset 4: 1 trailing byte(s)"), std::string::npos) << m;
}

TEST(BitsFile, HexWriteIsLowercaseWithoutPrefix) {
    TempDir t;
    write_elements(t.file("o.txt"), ElementFormat::Hex, {1.0f, flt(0xABCDEF01)});
    auto e = read_elements(t.file("o.txt"), ElementFormat::Hex);
    EXPECT_EQ(bits(e.values[1]), 0xabcdef01u);
    std::ifstream f(t.file("o.txt"));
    std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_EQ(all, "3f800000\nabcdef01\n");
}

TEST(BitsFile, FormatNames) {
    EXPECT_EQ(parse_element_format("hex"), ElementFormat::Hex);
    EXPECT_EQ(parse_element_format("f32"), ElementFormat::F32);
    EXPECT_THROW(parse_element_format("bin"), Error);
}

}  // namespace
}  // namespace neuronsim::test
