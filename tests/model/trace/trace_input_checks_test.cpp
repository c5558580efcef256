// The trace reader's input checks: .data files that are special files or bigger than the
// memory they describe are refused before reading; .data/.dump ranges stay inside the
// SBUF/PSUM partition windows; a trace that is a FIFO, has endless lines or NUL bytes is
// refused naming the file and line; bundle streams that are not regular files are refused.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/trace/assembler.h"
#include "model/trace/trace_reader.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::test {
namespace {

using namespace model::trace;

std::string error_at(const std::string& line, const std::string& dir = ".") {
    try {
        parse_trace_line(line, "t.trace", 7, dir);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

std::string read_error(const std::string& path) {
    try {
        TraceReader r(path);
        while (r.next()) {
        }
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(TraceInputChecks, DataFileThatIsASpecialFileIsRefused) {
    std::string m = error_at(".data dram:0 file=/dev/zero");
    EXPECT_NE(m.find("t.trace:7: /dev/zero: is a character device, not a regular file; refusing to read this .data file at dram:0x0"), std::string::npos) << m;
    TempDir t;
    ASSERT_EQ(mkfifo(t.file("pipe.bin").c_str(), 0600), 0);
    m = error_at(".data sbuf:0:0 file=pipe.bin", t.path());
    EXPECT_NE(m.find("pipe.bin: is a FIFO (named pipe)"), std::string::npos) << m;
}

TEST(TraceInputChecks, DataFileBiggerThanItsWindowIsRefusedBeforeReading) {
    TempDir t;
    t.write("w.bin", std::string(2 * 0x8000 + 2, '\1'));
    // psum partitions are 32 KiB windows: 2 partitions from offset 0 hold 65536 bytes.
    std::string m = error_at(".data psum:0:0 partitions=2 file=w.bin", t.path());
    EXPECT_NE(m.find("w.bin: is 65538 bytes, over the limit of 65536 bytes for this .data file at psum:0:0x0 x 2 partitions"), std::string::npos) << m;
    t.write("w.bin", std::string(0x8000, '\1'));
    EXPECT_EQ(error_at(".data psum:0:0 partitions=2 file=w.bin", t.path()), "(no error)");
    m = error_at(".data psum:0:0x10 file=w.bin", t.path());
    EXPECT_NE(m.find("over the limit of 32752 bytes"), std::string::npos) << m;
}

TEST(TraceInputChecks, DataAndDumpStayInsideThePartitionWindows) {
    std::string m = error_at(".data sbuf:127:0 partitions=2 u8 1");
    EXPECT_NE(m.find("t.trace:7: .data: partitions 127..128 run past partition 127"), std::string::npos) << m;
    m = error_at(".data sbuf:0:0x3fffe u32 1");
    EXPECT_NE(m.find("t.trace:7: .data: 4 bytes per partition from sbuf:0:0x3fffe run past the sbuf partition's 262144-byte window"), std::string::npos) << m;
    m = error_at(".dump psum:3:0x7000 bytes=8192 file=p.bin");
    EXPECT_NE(m.find("t.trace:7: .dump: 8192 bytes per partition from psum:3:0x7000 run past the psum partition's 32768-byte window"), std::string::npos) << m;
    m = error_at(".dump sbuf:100:0 bytes=16 partitions=29 file=s.bin");
    EXPECT_NE(m.find(".dump: partitions 100..128 run past partition 127"), std::string::npos) << m;
    EXPECT_EQ(error_at(".dump sbuf:100:0 bytes=262144 partitions=28 file=s.bin"), "(no error)");
    EXPECT_EQ(error_at(".dump dram:0 bytes=4294967296 file=d.bin"), "(no error)");  // DRAM: the platform checks its size
}

TEST(TraceInputChecks, TracesThatAreNotTextFilesAreRefused) {
    TempDir t;
    ASSERT_EQ(mkfifo(t.file("t.trace").c_str(), 0600), 0);
    EXPECT_NE(read_error(t.file("t.trace")).find("t.trace: is a FIFO (named pipe), not a regular file; refusing to read this trace"), std::string::npos);
    EXPECT_NE(read_error(t.path()).find(": is a directory"), std::string::npos);
    std::string m = read_error(t.write("long.trace", "act sync\n" + std::string(kMaxTraceLineBytes + 1, 'x')));
    EXPECT_NE(m.find("long.trace:2: line longer than 65536 bytes"), std::string::npos) << m;
    m = read_error(t.write("nul.trace", std::string("act sync\nact sync\0 wait=1>=1\n", 29)));
    EXPECT_NE(m.find("nul.trace:2: holds a NUL byte"), std::string::npos) << m;
    // The last line without a newline is still read.
    TraceReader r(t.write("ok.trace", "act sync\nact halt"));
    EXPECT_TRUE(r.next());
    auto h = r.next();
    ASSERT_TRUE(h);
    EXPECT_EQ(h->line, 2u);
    EXPECT_FALSE(r.next());
}

TEST(TraceInputChecks, StreamsThatAreNotRegularFilesAreRefused) {
    TempDir t;
    ASSERT_EQ(mkfifo(t.file("act.bin").c_str(), 0600), 0);
    try {
        BundleStream s(t.file("act.bin"));
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("act.bin: is a FIFO (named pipe), not a regular file; refusing to read this bundle stream"), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace neuronsim::test
