// `act eval` streams its element files in batches: results and error places are those of the
// whole file; OUT appears only complete (an earlier OUT is left as it was on error, and no
// temporary remains); special files as IN are refused, /dev/null as OUT is written.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "model/fp/bits.h"
#include "model/io/bits_file.h"
#include "model/pwp/profile_writer.h"
#include "tests/support/asan.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

namespace fs = std::filesystem;

// n elements, in hex: 1, 2, 3, ... as floats (exact), with a comment line first.
std::string counting(size_t n) {
    std::string s = "# counting\n";
    for (size_t i = 1; i <= n; ++i) s += model::fp::hex8(bits(static_cast<float>(i))) + "\n";
    return s;
}

TEST(ActEvalStream, ManyBatchesInOrder) {
    TempDir t;
    const size_t n = 200000;  // four batches of 65536 and a part
    std::string in = t.write("in.txt", counting(n));
    CliResult r = run_cli("act eval --pwp-dir " + t.path() + " --func Identity --exact --scale 2 --in " + in + " --out " + t.file("o.f32") + " --format hex");
    ASSERT_EQ(r.status, 0) << r.err;
    auto out = model::io::read_elements(t.file("o.f32"), model::io::ElementFormat::Hex);
    ASSERT_EQ(out.values.size(), n);
    for (size_t i = 0; i < n; i += 9973) EXPECT_EQ(out.values[i], 2.0f * static_cast<float>(i + 1)) << i;
    EXPECT_EQ(out.values[n - 1], 2.0f * n);
}

// A 27 MB input in 60 MB of address space: holding it (and its values, lines and output)
// would need about 4x its size; streamed it needs a few MB. (Skipped under ASan, which needs
// its address space unlimited.)
TEST(ActEvalStream, MemoryDoesNotGrowWithTheFile) {
    if (NEURONSIM_ASAN) GTEST_SKIP() << "ASan reserves terabytes of address space";
    TempDir t;
    const size_t n = 3000000;
    {
        std::string text;
        text.reserve(9 * n);
        for (size_t i = 0; i < n; ++i) text += model::fp::hex8(static_cast<uint32_t>(0x3f800000 + i % 1000)) + "\n";
        t.write("in.txt", text);
    }
    const std::string cmd = "ulimit -v 60000 && " + std::string(NEURONSIM_EXE) + " act eval --pwp-dir " + t.path() + " --func Identity --exact --in " +
                            t.file("in.txt") + " --out " + t.file("o.txt") + " 2>" + t.file("err");
    const int rc = std::system(("/bin/sh -c '" + cmd + "'").c_str());
    ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << read_file(t.file("err"));
    EXPECT_EQ(fs::file_size(t.file("o.txt")), 9 * n);
}

TEST(ActEvalStream, AnErrorLateInTheFileNamesItsLineAndLeavesOutAlone) {
    TempDir t;
    Profile p = clamp_only("x", sec(0, 1));
    p.sat_pos_high = sat(200, 0, sec(0, 0));  // positive inputs below 2^73 fall into an undeclared octave
    p.sat_pos_low = sat(0, 0, sec(0, 0));
    model::pwp::write_profile(p, t.file("hole.json"));
    std::string text = "# negatives evaluate\n";
    for (int i = 0; i < 150000; ++i) text += "bf800000\n";
    text += "3f800000\n";  // line 150002
    std::string in = t.write("in.txt", text);
    t.write("out.txt", "previous run\n");
    CliResult r = run_cli("act eval --profile " + t.file("hole.json") + " --in " + in + " --out " + t.file("out.txt"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(in + ":150002: element 0x3f800000:"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(t.file("out.txt")), "previous run\n");
    for (const auto& e : fs::directory_iterator(t.path())) EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

TEST(ActEvalStream, SpecialFiles) {
    TempDir t;
    CliResult r = run_cli("act eval --pwp-dir " + t.path() + " --func Exp --exact --in /dev/zero --out " + t.file("o"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("/dev/zero: is a character device, not a regular file; refusing to read this element file"), std::string::npos) << r.err;
    std::string in = t.write("in.txt", "3f800000\n");
    r = run_cli("act eval --pwp-dir " + t.path() + " --func Exp --exact --in " + in + " --out /dev/null");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(fs::exists("/dev/null"));
    r = run_cli("act eval --pwp-dir " + t.path() + " --func Exp --exact --in " + in + " --out " + t.path());
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(t.path() + ": is a directory, expected an output file"), std::string::npos) << r.err;
}

TEST(ActEvalStream, F32TrailingBytesAndPlaces) {
    TempDir t;
    std::string in = t.write("in.f32", std::string(4 * 70000, '\0') + "\x01\x02");
    CliResult r = run_cli("act eval --pwp-dir " + t.path() + " --func Exp --exact --format f32 --in " + in + " --out " + t.file("o"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("in.f32: byte offset 280000: 2 trailing byte(s)"), std::string::npos) << r.err;
    model::io::ElementReader er(t.write("x.f32", std::string(4 * 70000, '\0')), model::io::ElementFormat::F32);
    std::vector<float> batch;
    ASSERT_TRUE(er.next(batch, 65536));
    ASSERT_TRUE(er.next(batch, 65536));
    EXPECT_EQ(batch.size(), 70000u - 65536u);
    EXPECT_EQ(er.place(1), t.file("x.f32") + ": byte offset " + std::to_string(4 * 65537));
    EXPECT_FALSE(er.next(batch, 65536));
}

}  // namespace
}  // namespace neuronsim::test
