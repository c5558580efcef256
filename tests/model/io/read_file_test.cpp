// Checked whole-file reads: size limits, special files refused before a byte is read, the
// bytes read against the file's size, streaming reads.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/io/json_path.h"
#include "model/io/read_file.h"
#include "tests/support/asan.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::test {
namespace {

using namespace model::io;

std::string error_of(const std::string& path, uint64_t max = 1 << 20, const std::string& what = "test input") {
    try {
        read_file_checked(path, max, what);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(ReadFile, ReadsAWholeRegularFile) {
    TempDir t;
    std::string data(100000, '\0');
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
    EXPECT_EQ(read_file_checked(t.write("a.bin", data), 100000, "blob"), data);
    std::vector<uint8_t> b = read_bytes_checked(t.file("a.bin"), 100000, "blob");
    ASSERT_EQ(b.size(), data.size());
    EXPECT_EQ(b[99999], static_cast<uint8_t>(data[99999]));
    EXPECT_EQ(read_file_checked(t.write("empty", ""), 0, "blob"), "");
}

TEST(ReadFile, RefusesAFileOverItsLimitBeforeReading) {
    TempDir t;
    std::string m = error_of(t.write("big.json", std::string(2000, ' ')), 1000, "profile");
    EXPECT_NE(m.find("big.json: is 2000 bytes, over the limit of 1000 bytes for this profile"), std::string::npos) << m;
    EXPECT_EQ(error_of(t.file("big.json"), 2000), "(no error)");
}

TEST(ReadFile, RefusesSpecialFilesNamingThem) {
    TempDir t;
    std::string m = error_of("/dev/zero", UINT64_MAX, ".data file");
    EXPECT_NE(m.find("/dev/zero: is a character device, not a regular file; refusing to read this .data file"), std::string::npos) << m;
    // A FIFO is refused at once, not waited on (no writer ever comes).
    ASSERT_EQ(mkfifo(t.file("fifo").c_str(), 0600), 0);
    m = error_of(t.file("fifo"));
    EXPECT_NE(m.find("fifo: is a FIFO (named pipe)"), std::string::npos) << m;
    m = error_of(t.path());
    EXPECT_NE(m.find(t.path() + ": is a directory"), std::string::npos) << m;
    m = error_of(t.file("nonexistent"));
    EXPECT_NE(m.find("nonexistent: cannot open: No such file or directory"), std::string::npos) << m;
}

TEST(ReadFile, ChecksTheBytesReadAgainstTheSize) {
    // /proc files say size 0 and hold more: what is read differs from the size, an error.
    std::string m = error_of("/proc/self/status");
    EXPECT_NE(m.find("/proc/self/status: holds more than the 0 bytes its size said"), std::string::npos) << m;
}

TEST(ReadFile, ReadTextFileKeepsItsDefaultLimit) {
    TempDir t;
    EXPECT_EQ(read_text_file(t.write("c.yaml", "a: 1\n")), "a: 1\n");
    try {
        read_text_file("/dev/zero");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("/dev/zero: is a character device"), std::string::npos) << e.what();
    }
}

TEST(ByteStream, StreamsThroughASmallBuffer) {
    TempDir t;
    std::string data = "abcdefghijklmnopqrstuvwxyz";
    ByteStream s(t.write("s.txt", data), UINT64_MAX, "test input", 4);
    EXPECT_EQ(s.size(), data.size());
    EXPECT_EQ(s.get(), 'a');
    uint8_t buf[10];
    EXPECT_EQ(s.read(buf, 10), 10u);
    EXPECT_EQ(std::string(buf, buf + 10), "bcdefghijk");
    EXPECT_EQ(s.offset(), 11u);
    std::string rest;
    for (int c; (c = s.get()) >= 0;) rest.push_back(static_cast<char>(c));
    EXPECT_EQ(rest, "lmnopqrstuvwxyz");
    EXPECT_EQ(s.get(), -1);
    EXPECT_THROW(ByteStream("/dev/zero", UINT64_MAX, "trace"), Error);
}

TEST(ReadFile, SizeText) {
    EXPECT_EQ(size_text(12), "12 bytes");
    EXPECT_EQ(size_text(3u << 20), "3.0 MiB (3145728 bytes)");
    EXPECT_EQ(size_text(uint64_t{3} << 29), "1.5 GiB (1610612736 bytes)");
}

}  // namespace
}  // namespace neuronsim::test

namespace neuronsim::test {
namespace {

// An allocation that fails is an error naming the file, not std::bad_alloc. (Skipped under
// ASan, which needs its address space unlimited.)
TEST(ReadFile, AnAllocationFailureNamesTheFile) {
    if (NEURONSIM_ASAN) GTEST_SKIP() << "ASan reserves terabytes of address space";
    TempDir t;
    const std::string big = t.file("big.bin");
    t.write("big.bin", "");
    std::filesystem::resize_file(big, uint64_t{1} << 30);  // sparse: 1 GiB read, no disk used
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        rlimit lim{uint64_t{512} << 20, uint64_t{512} << 20};
        setrlimit(RLIMIT_AS, &lim);
        try {
            read_file_checked(big, uint64_t{2} << 30, "bkt blob");
        } catch (const Error& e) {
            _exit(std::string(e.what()).find("big.bin: cannot allocate 1.0 GiB (1073741824 bytes) to read this bkt blob") != std::string::npos ? 0 : 3);
        } catch (const std::bad_alloc&) {
            _exit(4);
        }
        _exit(5);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(ByteStream, ReadLineAgreesWithByteByByteSplittingAtEveryBufferSize) {
    // Lines of 0..12 bytes (some exactly at the limit, some over it), a last line with and
    // without a newline, read through buffers of 1..9 bytes: the delimiter at, before and after
    // every buffer boundary. The oracle reads byte by byte with get().
    TempDir t;
    std::mt19937 rng(3);
    for (int trial = 0; trial < 300; ++trial) {
        std::string text;
        const int lines = static_cast<int>(rng() % 6);
        for (int l = 0; l < lines; ++l) {
            text += std::string(rng() % 13, static_cast<char>('a' + l));
            if (l + 1 < lines || rng() % 2) text += '\n';
        }
        const std::string path = t.write("f.txt", text);
        const size_t max = 1 + rng() % 10, buffer = 1 + rng() % 9;
        ByteStream oracle(path, 1 << 20, "f", buffer), fast(path, 1 << 20, "f", buffer);
        for (;;) {
            std::string want;
            int c;
            bool too_long = false;
            while ((c = oracle.get()) >= 0 && c != '\n') {
                if (want.size() >= max) {
                    too_long = true;
                    break;
                }
                want.push_back(static_cast<char>(c));
            }
            std::string got = "stale";
            const ByteStream::Line end = fast.read_line(got, max);
            if (too_long) {
                EXPECT_EQ(end, ByteStream::Line::TooLong) << "trial " << trial;
                EXPECT_EQ(got, want);
                break;  // the reader stops at an over-long line
            }
            EXPECT_EQ(got, want) << "trial " << trial;
            EXPECT_EQ(end, c < 0 ? ByteStream::Line::End : ByteStream::Line::Delim) << "trial " << trial;
            if (c < 0) break;
        }
    }
}

}  // namespace
}  // namespace neuronsim::test
