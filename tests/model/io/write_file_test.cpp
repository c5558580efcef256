// All-or-nothing checked writes: outputs appear complete or not at all, write errors (a full
// disk, a file-size limit) are errors naming the file and byte offset.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/io/write_file.h"
#include "model/pwp/packer.h"
#include "tests/support/file_size_limit.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

using namespace model::io;
namespace fs = std::filesystem;

size_t entries(const std::string& dir) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir)) n += !e.path().empty();
    return n;
}

TEST(WriteFile, WritesAndLeavesNoTemporary) {
    TempDir t;
    write_file_atomic(t.file("a.bin"), std::string(3 << 20, 'x'));  // past the 1 MiB buffer
    EXPECT_EQ(fs::file_size(t.file("a.bin")), 3u << 20);
    EXPECT_EQ(entries(t.path()), 1u);
}

TEST(WriteFile, WithoutCommitAnEarlierFileStaysAsItWas) {
    TempDir t;
    t.write("out.txt", "earlier\n");
    {
        AtomicFile f(t.file("out.txt"));
        f.write("half", 4);
    }  // an error on the way: no commit
    EXPECT_EQ(read_file(t.file("out.txt")), "earlier\n");
    EXPECT_EQ(entries(t.path()), 1u);
}

TEST(WriteFile, AFullDiskIsAnErrorNamingTheFile) {
    // /dev/full: every write fails with ENOSPC; a special file is written directly.
    try {
        write_file_atomic("/dev/full", std::string(10, 'x'));
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("/dev/full: write error at byte offset 0: No space left on device"), std::string::npos) << e.what();
    }
    write_file_atomic("/dev/null", std::string(10, 'x'));
    EXPECT_TRUE(fs::exists("/dev/null") && !fs::is_regular_file("/dev/null"));
}

TEST(WriteFile, AFileSizeLimitIsAnErrorAndLeavesNothing) {
    TempDir t;
    const int status = exit_status_under_file_size_limit(4096, [&] {
        try {
            write_file_atomic(t.file("big.bin"), std::string(3 << 20, 'x'));
        } catch (const Error& e) {
            return std::string(e.what()).find("big.bin: write error at byte offset 4096: File too large") != std::string::npos ? 0 : 3;
        }
        return 4;
    });
    EXPECT_EQ(status, 0);
    EXPECT_FALSE(fs::exists(t.file("big.bin")));
    EXPECT_EQ(entries(t.path()), 0u);
}

// Gathered pieces land in order after what was written before (empty ones are no error), and a
// write cut short (here by a file-size limit inside a piece) names the byte offset and leaves
// nothing.
TEST(WriteFile, PiecesAreWrittenInOrderAndALimitInsideOneIsAnError) {
    TempDir t;
    std::string a(5000, 'a'), b(70000, 'b'), c(3, 'c');
    std::vector<iovec> pieces = {{a.data(), a.size()}, {b.data(), b.size()}, {c.data(), 0}, {c.data(), c.size()}};
    {
        AtomicFile f(t.file("p.bin"));
        f.write("head", 4);
        f.write_pieces({{c.data(), 0}, {c.data(), 0}});  // nothing to write is no error
        f.write_pieces(pieces);
        f.write("tail", 4);
        f.commit();
    }
    EXPECT_EQ(read_file(t.file("p.bin")), "head" + a + b + c + "tail");
    const int status = exit_status_under_file_size_limit(8192, [&] {
        try {
            AtomicFile f(t.file("cut.bin"));
            f.write_pieces(pieces);
            f.commit();
        } catch (const Error& e) {
            return std::string(e.what()).find("cut.bin: write error at byte offset 8192: File too large") != std::string::npos ? 0 : 3;
        }
        return 4;
    });
    EXPECT_EQ(status, 0);
    EXPECT_FALSE(fs::exists(t.file("cut.bin")));
}

TEST(WriteFile, DirectoryErrorsNameTheDirectory) {
    TempDir t;
    t.write("f", "");
    try {
        make_directories(t.file("f/sub"));
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(t.file("f/sub") + ": cannot create the directory"), std::string::npos) << e.what();
    }
    EXPECT_THROW(write_file_atomic(t.path(), "x"), Error);
    EXPECT_THROW(write_file_atomic(t.file("nodir/x"), "x"), Error);
}

TEST(WriteFile, AsmLeavesNoStreamsOfAFailedTrace) {
    TempDir t;
    std::string trace = t.write("t.trace", "act sync\npool sync\nact bogus\n");
    CliResult r = run_cli("asm " + trace + " -o " + t.file("s"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("t.trace:3: unknown mnemonic 'bogus'"), std::string::npos) << r.err;
    EXPECT_EQ(entries(t.file("s")), 0u);
}

}  // namespace
}  // namespace neuronsim::test
