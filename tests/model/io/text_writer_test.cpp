// The recording's text output: what is appended is what the file holds, across buffer hand-offs
// to the writer thread; numbers format as the library does; write errors surface at commit(),
// naming the file and byte offset, and leave no file.
#include <cstdio>
#include <filesystem>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/io/text_writer.h"
#include "tests/support/file_size_limit.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

using model::io::TextWriter;
namespace fs = std::filesystem;

TEST(TextWriter, HoldsExactlyWhatWasAppendedAcrossManyBuffers) {
    TempDir t;
    std::string expected;
    {
        TextWriter w(t.file("out.txt"));
        std::mt19937_64 rng(7);
        // About 5 MiB: several hand-offs of the 1 MiB buffers, pieces straddling their ends.
        while (expected.size() < (5u << 20)) {
            switch (rng() % 5) {
                case 0: {
                    const uint64_t v = rng() >> (rng() % 64);
                    w.u64(v);
                    expected += std::to_string(v);
                    break;
                }
                case 1: {
                    const uint64_t v = rng() >> (rng() % 64);
                    const int digits = static_cast<int>(rng() % 10);
                    w.fixed(v, digits);
                    uint64_t unit = 1;
                    for (int i = 0; i < digits; ++i) unit *= 10;
                    std::string frac = std::to_string(v % unit);
                    expected += std::to_string(v / unit);
                    if (digits) expected += "." + std::string(digits - frac.size(), '0') + frac;
                    break;
                }
                case 2: {
                    const std::string s(rng() % 3000, static_cast<char>('a' + rng() % 26));  // long pieces too
                    w.put(s);
                    expected += s;
                    break;
                }
                case 3:
                    w.lit(",\n{\"name\": \"");
                    expected += ",\n{\"name\": \"";
                    break;
                default: w.put('#'); expected += '#';
            }
        }
        w.put(std::string(3u << 20, 'z'));  // one piece larger than both buffers
        expected += std::string(3u << 20, 'z');
        w.commit();
    }
    const std::string got = read_file(t.file("out.txt"));
    ASSERT_EQ(got.size(), expected.size());
    EXPECT_TRUE(got == expected);
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(t.path())) n += !e.path().empty();
    EXPECT_EQ(n, 1u) << "no temporary is left";
}

TEST(TextWriter, NumbersAtTheirLimits) {
    char b[24];
    for (uint64_t v : {uint64_t{0}, uint64_t{9}, uint64_t{10}, uint64_t{99}, uint64_t{100}, uint64_t{101}, uint64_t{999999999999},
                       uint64_t{10000000000000000000ull}, std::numeric_limits<uint64_t>::max()})
        EXPECT_EQ(std::string(b, TextWriter::format_u64(b, v)), std::to_string(v));
    TempDir t;
    {
        TextWriter w(t.file("n.txt"));
        w.fixed(0, 3), w.put(' '), w.fixed(1, 6), w.put(' '), w.fixed(1234567, 3), w.put(' '), w.fixed(42, 0), w.put(' ');
        w.fixed(std::numeric_limits<uint64_t>::max(), 9);
        w.commit();
    }
    EXPECT_EQ(read_file(t.file("n.txt")), "0.000 0.000001 1234.567 42 18446744073.709551615");
}

TEST(TextWriter, WithoutCommitNothingAppears) {
    TempDir t;
    {
        TextWriter w(t.file("out.txt"));
        w.put(std::string(3u << 20, 'x'));  // some of it already written by the thread
    }
    EXPECT_TRUE(fs::is_empty(t.path()));
}

TEST(TextWriter, AFullDiskIsAnErrorAtCommitNamingTheFile) {
    TextWriter w("/dev/full");
    for (int i = 0; i < 300000; ++i) w.lit("0123456789");  // appends never throw
    try {
        w.commit();
        FAIL() << "a full disk must fail the commit";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("/dev/full: write error at byte offset 0: No space left on device"), std::string::npos) << e.what();
    }
    EXPECT_THROW(w.commit(), Error);
}

TEST(TextWriter, AFileSizeLimitIsAnErrorAndLeavesNothing) {
    TempDir t;
    const int status = exit_status_under_file_size_limit(4096, [&] {
        try {
            TextWriter w(t.file("big.csv"));
            w.put(std::string(3 << 20, 'x'));
            w.commit();
        } catch (const Error& e) {
            return std::string(e.what()).find("big.csv: write error at byte offset 4096: File too large") != std::string::npos ? 0 : 3;
        }
        return 4;
    });
    EXPECT_EQ(status, 0);
    EXPECT_TRUE(fs::is_empty(t.path()));
}

}  // namespace
}  // namespace neuronsim::test
