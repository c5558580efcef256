// `neuronsim act eval` and the CLI contract, end to end through the real executable.
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "model/fp/bits.h"
#include "model/io/sha256.h"
#include "model/pwp/catalog_writer.h"
#include "model/pwp/fast_eval.h"
#include "model/pwp/profile_writer.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

namespace fs = std::filesystem;

// exp_400p octave -19 (seed 001 §7) with exp's clamps: values checked in evaluate_test.
Profile exp_like() {
    Profile p;
    p.name = "exp";
    p.zero_result = 1.0f;
    p.pinf_result = flt(0x7f800000);
    add_octave(p.pos, -19, 0, {sec_bits(0x363fffff, 0x3f800018, 0x3f800018, 0x3f000018, 0x3e2aaacb)});
    add_octave(p.neg, -19, 0, {sec_bits(0xb63fffff, 0x3f7fffd0, 0x3f7fffd0, 0x3effffd0, 0x3e2aaa8b)});
    p.sat_pos_high = sat(109, 0, sec_bits(0, 0x7f800000, 0, 0, 0));
    p.sat_neg_high = sat(109, 0, sec(0, 0));
    Section small = sec_bits(0, 0x3f800000, 0x3f800000, 0x3f000000, 0x3e2aaaab);
    p.sat_pos_low = sat(107, 0x7fffff, small);
    p.sat_neg_low = sat(107, 0x7fffff, small);
    return p;
}

struct Files {
    TempDir t;
    std::string profile, dir;
    Files() {
        profile = t.file("exp_400p.json");
        model::pwp::write_profile(exp_like(), profile);
        dir = t.path();
    }
};

TEST(ActEvalCli, ProfileModeWritesLowercaseHex) {
    Files f;
    std::string in = f.t.write("in.txt", "36400000\n0xB6600000\n00000000\n42c80000\n");
    CliResult r = run_cli("act eval --profile " + f.profile + " --in " + in + " --out " + f.t.file("out.txt"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(f.t.file("out.txt")), "3f800018\n3f7fffc8\n3f800000\n7f800000\n");
}

TEST(ActEvalCli, ProfileModePreScalesOnlyWhenAsked) {
    Files f;
    // -0 without a pre-scale is -0 (zero_result either way); 2^-20 * 4 + 0 lands in octave -18.
    std::string in = f.t.write("in.txt", "35800000\n");
    CliResult r = run_cli("act eval --profile " + f.profile + " --in " + in + " --out " + f.t.file("o1") + " --scale 4");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(f.t.file("o1")), "7f800000\n");  // 2^-18 >= the high clamp
    r = run_cli("act eval --profile " + f.profile + " --in " + in + " --out " + f.t.file("o2"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(read_file(f.t.file("o2")), "7f800000\n");
}

TEST(ActEvalCli, F32Format) {
    Files f;
    std::string in = f.t.write("in.f32", std::string("\x00\x00\x40\x36", 4));
    CliResult r = run_cli("act eval --profile " + f.profile + " --format f32 --in " + in + " --out " + f.t.file("o.f32"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(f.t.file("o.f32")), std::string("\x18\x00\x80\x3f", 4));
}

TEST(ActEvalCli, UnevaluableElementNamesLineAndBitsAndWritesNothing) {
    Files f;
    std::string in = f.t.write("in.txt", "36400000\n3f800000\n");
    Profile p = exp_like();
    p.sat_pos_high = sat(200, 0, sec(0, 0));  // 1.0 now falls into an undeclared octave
    model::pwp::write_profile(p, f.t.file("hole.json"));
    CliResult r = run_cli("act eval --profile " + f.t.file("hole.json") + " --in " + in + " --out " + f.t.file("o"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(in + ":2: element 0x3f800000: Unhandled section in simulation"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(f.t.file("o")), "");
}

TEST(ActEvalCli, BadInputLine) {
    Files f;
    std::string in = f.t.write("in.txt", "36400000\nzz\n");
    CliResult r = run_cli("act eval --profile " + f.profile + " --in " + in + " --out " + f.t.file("o"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(in + ":2: expected one binary32 bit pattern"), std::string::npos) << r.err;
}

TEST(ActEvalCli, PwpDirModeAndExact) {
    Files f;
    std::string in = f.t.write("in.txt", "36400000\n3f800000\n");
    CliResult r = run_cli("act eval --pwp-dir " + f.dir + " --func Exp --in " + in + " --out " + f.t.file("o") + " --scale 0x3f800000 --bias 0");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(f.t.file("o")), "3f800018\n7f800000\n");
    r = run_cli("act eval --pwp-dir " + f.dir + " --func Exp --exact --in " + in + " --out " + f.t.file("e"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(f.t.file("e")).substr(9), "402df854\n");  // expf(1)
    // scale and bias in their documented roles: in*S + B.
    r = run_cli("act eval --pwp-dir " + f.dir + " --func Identity --exact --in " + in + " --out " + f.t.file("i") + " --scale 2 --bias 3");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(f.t.file("i")).substr(9), "40a00000\n");  // 1*2 + 3 = 5
}

TEST(ActEvalCli, Errors) {
    Files f;
    std::string in = f.t.write("in.txt", "3f800000\n");
    std::string io = " --in " + in + " --out " + f.t.file("o");
    CliResult r = run_cli("act eval --pwp-dir " + f.dir + " --func Foo" + io);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("Unsupported activation function Simulator::simulation: Foo"), std::string::npos) << r.err;
    r = run_cli("act eval --pwp-dir " + f.t.file("missing") + " --func Exp" + io);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("does not open"), std::string::npos) << r.err;
    r = run_cli("act eval --profile " + f.profile + " --pwp-dir " + f.dir + io);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("exactly one of --profile, --pwp-dir or --set"), std::string::npos) << r.err;
    r = run_cli("act eval --profile " + f.profile + io + " --scale abc");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--scale: expected a float32"), std::string::npos) << r.err;
    r = run_cli("act eval --profile " + f.profile + " --in " + in);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
    r = run_cli("act eval --profile " + f.t.file("nope.json") + io);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("nope.json: cannot open"), std::string::npos) << r.err;
}

TEST(Cli, HelpAtEveryLevel) {
    for (const char* args : {"--help", "act --help", "act eval --help", "act list --help", "demo --help"}) {
        CliResult r = run_cli(args);
        EXPECT_EQ(r.status, 0) << args << r.err;
        EXPECT_NE(r.out.find("Usage: neuronsim"), std::string::npos) << args << r.out;
    }
    EXPECT_NE(run_cli("act eval --help").out.find("--pwp-dir"), std::string::npos);
}

TEST(Cli, UsageErrorsExitTwo) {
    EXPECT_EQ(run_cli("frobnicate").status, 2);
    EXPECT_EQ(run_cli("--log-level loud demo").status, 2);
    EXPECT_EQ(run_cli("act eval --bogus").status, 2);
    EXPECT_EQ(run_cli("--log-level debug demo").status, 0);
    EXPECT_NE(run_cli("--version").out.find("SystemC 2.3."), std::string::npos);
}

// --version names the host fast paths in use; NEURONSIM_SIMD=scalar turns every one of them
// off, the SHA-256 extensions included (the choice is cached per process: a child process).
TEST(Cli, VersionNamesTheHostFastPathsAndScalarTurnsThemOff) {
    const char* had = std::getenv("NEURONSIM_SIMD");
    const std::string saved = had ? had : "";
    unsetenv("NEURONSIM_SIMD");
    const std::string best = run_cli("--version").out;
    setenv("NEURONSIM_SIMD", "scalar", 1);
    const std::string scalar = run_cli("--version").out;
    if (had) setenv("NEURONSIM_SIMD", saved.c_str(), 1);
    else unsetenv("NEURONSIM_SIMD");
    EXPECT_NE(best.find(model::io::sha256_shani_supported() ? "SHA-256 sha-extensions" : "SHA-256 portable"), std::string::npos) << best;
    EXPECT_NE(best.find(std::string("host fast paths: ACT ") + model::pwp::simd_name(model::pwp::best_simd_level())), std::string::npos) << best;
    EXPECT_NE(scalar.find("host fast paths: ACT scalar, CPTC decode scalar, SHA-256 portable"), std::string::npos) << scalar;
}

TEST(Cli, DemoPrintsATable) {
    CliResult r = run_cli("demo");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("Sigmoid"), std::string::npos);
    EXPECT_NE(r.out.find("0.7310586"), std::string::npos) << r.out;  // sigmoid(1)
    Files f;
    r = run_cli("demo --pwp-dir " + f.dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("PWP tables (evaluate_generic) from " + f.dir), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(no profile)"), std::string::npos) << r.out;  // only exp_400p.json is there
}

TEST(Cli, ActListShowsTheFuncMap) {
    CliResult r = run_cli("act list");
    ASSERT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("Exp"), std::string::npos);
    EXPECT_NE(r.out.find("exp_400p.json"), std::string::npos);
}

// A name in the wrong case for the reference's exact-name dispatch says which one it wants;
// an unknown set lists the built-in ones.
TEST(ActEvalCli, WrongNamesSayWhatIsValid) {
    TempDir t;
    const std::string in = t.write("in.txt", "3f800000\n");
    CliResult r = run_cli("act eval --pwp-dir " + model::pwp::default_catalog_dir() + "/pwp_jsons --func gelu --in " + in + " --out " + t.file("o"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("did you mean 'Gelu'"), std::string::npos) << r.err;
    r = run_cli("act eval --set gelu_and_other --func gelu --in " + in + " --out " + t.file("o"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("its sets: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("gelu_and_others"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(t.file("o")));
}

// --threads splits the batches; the bits do not depend on it.
TEST(ActEvalCli, ThreadsGiveTheSameBits) {
    TempDir t;
    std::string text;
    for (uint32_t i = 0; i < 300000; ++i) text += model::fp::hex8(i * 14327u) + "\n";
    const std::string in = t.write("in.txt", text);
    for (const char* n : {"1", "2"}) {
        CliResult r =
            run_cli(std::string("act eval --set gelu_and_others --func gelu --threads ") + n + " --in " + in + " --out " + t.file(std::string("o") + n));
        ASSERT_EQ(r.status, 0) << r.err;
    }
    EXPECT_EQ(model::io::sha256_file(t.file("o1"), "o1"), model::io::sha256_file(t.file("o2"), "o2"));
}

}  // namespace
}  // namespace neuronsim::test
