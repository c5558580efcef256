// What keys a sweep point besides its config (model/trace/trace_digest.h): the trace's bytes
// and each `.data file=` it reads, once per file, in trace order; a changed data file at the
// same path changes the digest; an unreadable one is an error naming the line.
#include "model/trace/trace_digest.h"

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/io/sha256.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::model::trace {
namespace {

TEST(TraceDigest, TheTraceAndEachDataFileOnceInOrder) {
    test::TempDir dir;
    dir.write("b.bin", std::string(64, 'b'));
    dir.write("a.bin", std::string(64, 'a'));
    const std::string text = ".data dram:0x0 file=b.bin\n.data dram:0x100 file=a.bin\n.data dram:0x200 file=b.bin\nact sync\n";
    dir.write("t.trace", text);
    const TraceDigest d = trace_digest(dir.file("t.trace"));
    EXPECT_EQ(d.trace_sha256, io::sha256_hex(text));
    ASSERT_EQ(d.data.size(), 2u) << "b.bin placed twice is hashed once";
    EXPECT_EQ(d.data[0].first.substr(d.data[0].first.size() - 5), "b.bin");
    EXPECT_EQ(d.data[0].second, io::sha256_hex(std::string(64, 'b')));
    EXPECT_EQ(d.data[1].second, io::sha256_hex(std::string(64, 'a')));

    dir.write("a.bin", std::string(64, 'c'));  // regenerated at the same path
    const TraceDigest changed = trace_digest(dir.file("t.trace"));
    EXPECT_EQ(changed.trace_sha256, d.trace_sha256);
    EXPECT_NE(changed.data[1].second, d.data[1].second);
}

TEST(TraceDigest, AMissingDataFileNamesTheTraceLine) {
    test::TempDir dir;
    dir.write("t.trace", "act sync\n.data dram:0x0 file=missing.bin\n");
    try {
        trace_digest(dir.file("t.trace"));
        FAIL() << "no error";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("t.trace:2"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("missing.bin"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace neuronsim::model::trace
