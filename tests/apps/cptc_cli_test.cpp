// `neuronsim cptc encode` end to end: the printed kernel and fields for CPTC1 (impl<1>, signed
// 1-bit codes) and CPTC3 (impl<5>, the integer leg), pasted into a trace and run: the decode
// stores exactly what --decoded says. Refusals name the reason and what to use instead.
#include <cstring>

#include <gtest/gtest.h>

#include "model/fp/bits.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

std::string hex_values(int n, float (*f)(int)) {
    std::string s;
    for (int i = 0; i < n; ++i) s += model::fp::hex8(bits(f(i))) + "\n";
    return s;
}

// The text after "fields: " on its line.
std::string fields_of(const std::string& out) {
    const size_t at = out.find("fields: ");
    if (at == std::string::npos) return "";
    return out.substr(at + 8, out.find('\n', at) - at - 8);
}

// Decodes w.bin with the printed fields in a run and returns the dumped destination.
std::string run_decode(const TempDir& t, const std::string& fields, int dump_bytes, const std::string& extra = "") {
    t.write("d.trace",
            ".data sbuf:0:0x0 partitions=128 file=w.bin\n"
            "pool conv_lut_load src=sbuf:0:0x0 dst=sbuf:0:0x1000 " +
                fields +
                "\n"
                ".dump sbuf:0:0x1000 bytes=" +
                std::to_string(dump_bytes) + " partitions=128 file=dec.bin\n");
    CliResult r = run_cli("run -p gpsimd.cptc_flag=true " + extra + " --trace " + t.file("d.trace") + " --force --out " + t.file("o") + " --no-progress");
    EXPECT_EQ(r.status, 0) << r.err;
    return read_file(t.file("o/dec.bin"));
}

TEST(CptcCli, OneBitIsSignedForImpl1AndRoundTrips) {
    TempDir t;
    // Blocks of one sign each way, and mixed: -1 holds the block's dominant value.
    const std::string in = t.write("v.hex", hex_values(128 * 64, [](int i) { return static_cast<float>((i % 5) - 3) * (i / 64 % 2 ? 0.5f : -0.25f); }));
    CliResult e = run_cli("cptc encode --bits 1 --in " + in + " --out " + t.file("w.bin") + " --decoded " + t.file("want.bin"));
    ASSERT_EQ(e.status, 0) << e.err;
    EXPECT_NE(e.out.find("wrote " + t.file("w.bin") + ": 128 partitions x 32 bytes (2 16-byte units) of CPTC1, 64 elements each"), std::string::npos) << e.out;
    EXPECT_NE(e.out.find("wrote " + t.file("want.bin") + ": 128 partitions x 256 bytes of FP32, what cptc_decode_impl<1> stores"), std::string::npos) << e.out;
    EXPECT_NE(e.out.find("kernel: cptc_decode_impl<1> (CPTC1 -> impl<1>): signed codes -1..0, FP32 output\n"), std::string::npos) << e.out;
    const std::string fields = fields_of(e.out);
    EXPECT_EQ(fields,
              "in_dtype=9 out_dtype=10 lut_dtype=0x19 block_size=64 mconst0=0x3c00 mconst1=0x100 num_active_rows=128 num_active_cols=128 row_grp=15 "
              "col_grp=15 src.num=4,2 src.step=1,4 dst.num=64,1,1 dst.step=1,0,0");
    const std::string want = read_file(t.file("want.bin"));
    ASSERT_EQ(want.size(), 128u * 256u);
    EXPECT_EQ(run_decode(t, fields, 256), want);  // bit for bit
    // Partition 0 holds 0.75, 0.5, 0.25, 0, -0.25, ...: the dominant 0.75 decodes from code -1
    // (block scale -0.75), 0.25 rounds to 0 and -0.25, of the other sign, clamps to 0.
    // Partition 1 holds 0.5, -1.5, -1, -0.5, 0, ...: -1.5 dominates (block scale 1.5).
    auto at = [&](size_t i) {
        float f;
        std::memcpy(&f, want.data() + 4 * i, 4);
        return f;
    };
    EXPECT_EQ(at(0), 0.75f);
    EXPECT_EQ(at(1), 0.75f);  // 0.5 / 0.75 rounds to the code
    EXPECT_EQ(at(2), 0.0f);
    EXPECT_EQ(at(4), 0.0f);
    EXPECT_EQ(at(64), 0.0f);
    EXPECT_EQ(at(65), -1.5f);
    EXPECT_EQ(at(66), -1.5f);  // -1 / 1.5 rounds to the code
    // --unsigned contradicts the leg: the message says why and where unsigned codes are read.
    CliResult u = run_cli("cptc encode --bits 1 --unsigned --in " + in + " --out " + t.file("x.bin"));
    EXPECT_EQ(u.status, 1);
    EXPECT_NE(
        u.err.find("--unsigned: CPTC1 -> FP32 is decoded by cptc_decode_impl<1>, which reads signed codes; drop --unsigned (the kernel's leg decides), "
                   "or use a width and output read unsigned: CPTC2 (impl<2>, FP16), CPTC3 (impl<5>, UINT8), CPTC6 (impl<6>, UINT8), CPTC7 (impl<6>, UINT8)"),
        std::string::npos)
        << u.err;
    CliResult i8 = run_cli("cptc encode --bits 1 --out-dtype int8 --in " + in + " --out " + t.file("x.bin"));
    EXPECT_EQ(i8.status, 1);
    EXPECT_NE(i8.err.find("CPTC1 is decoded by cptc_decode_impl<1>, which stores FP32, not INT8; for INT8 use CPTC6 (impl<6>) or CPTC7 (impl<6>)"),
              std::string::npos)
        << i8.err;
}

TEST(CptcCli, ThreeBitUsesTheIntegerLegAndRoundTrips) {
    TempDir t;
    // 0..21 in steps of 3: the multiplier is ceil(21 / 7) = 3, no block scales.
    const std::string in = t.write("v.hex", hex_values(128 * 64, [](int i) { return static_cast<float>(3 * (i % 8)); }));
    CliResult e = run_cli("cptc encode --bits 3 --unsigned --in " + in + " --out " + t.file("w.bin") + " --decoded " + t.file("want.bin"));
    ASSERT_EQ(e.status, 0) << e.err;
    EXPECT_NE(e.out.find("128 partitions x 32 bytes (2 16-byte units) of CPTC3, 64 elements each"), std::string::npos) << e.out;
    EXPECT_NE(e.out.find("kernel: cptc_decode_impl<5> (CPTC3 -> impl<5>): unsigned codes 0..7, UINT8 output, integer leg"), std::string::npos) << e.out;
    const std::string fields = fields_of(e.out);
    EXPECT_EQ(fields,
              "in_dtype=9 out_dtype=3 lut_dtype=0x1b block_size=64 mconst0=0x3 mconst1=0x0 num_active_rows=128 num_active_cols=128 row_grp=15 "
              "col_grp=15 src.num=4,2 src.step=1,4 dst.num=64,1,1 dst.step=1,0,0");
    EXPECT_NE(e.out.find("quantisation error: max abs 0, max 0 steps of mconst0 = 3 (unsigned codes)"), std::string::npos) << e.out;
    const std::string want = read_file(t.file("want.bin"));
    ASSERT_EQ(want.size(), 128u * 64u);
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(static_cast<uint8_t>(want[i]), 3 * (i % 8)) << i;
    EXPECT_EQ(run_decode(t, fields, 64), want);
    // Integer codes as they are: mconst0 = 1.
    CliResult c = run_cli("cptc encode --bits 3 --codes --in " + t.write("c.hex", hex_values(128 * 64, [](int i) { return static_cast<float>(i % 8); })) +
                          " --out " + t.file("w.bin"));
    ASSERT_EQ(c.status, 0) << c.err;
    EXPECT_NE(c.out.find("mconst0=0x1 mconst1=0x0"), std::string::npos) << c.out;
    const std::string codes = run_decode(t, fields_of(c.out), 64);
    ASSERT_EQ(codes.size(), 128u * 64u);
    for (size_t i = 0; i < codes.size(); ++i) ASSERT_EQ(static_cast<uint8_t>(codes[i]), i % 8) << i;
    // Refusals.
    CliResult neg = run_cli("cptc encode --bits 3 --codes --partitions 1 --in " + t.write("n.hex", "00000000\nbf800000\n") + " --out " + t.file("x.bin"));
    EXPECT_NE(neg.err.find("n.hex:2: code -1 is not an integer in [0, 7] (unsigned CPTC3, read by cptc_decode_impl<5> for UINT8)"), std::string::npos)
        << neg.err;
    CliResult f16 = run_cli("cptc encode --bits 3 --out-dtype fp16 --in " + in + " --out " + t.file("x.bin"));
    EXPECT_EQ(f16.status, 1);
    EXPECT_NE(f16.err.find("CPTC3 is decoded by cptc_decode_impl<5>, which stores UINT8, not FP16; for FP16 use CPTC2 (impl<2>), CPTC4 (impl<3>)"),
              std::string::npos)
        << f16.err;
    CliResult fixed = run_cli("cptc encode --bits 3 --route 3=2 --in " + in + " --out " + t.file("x.bin"));
    EXPECT_EQ(fixed.status, 2);
    EXPECT_NE(fixed.err.find("--route 3=2: CPTC3 is fixed to impl<5> (observed in the firmware)"), std::string::npos) << fixed.err;
    CliResult dt = run_cli("cptc encode --bits 3 --out-dtype fp64 --in " + in + " --out " + t.file("x.bin"));
    EXPECT_EQ(dt.status, 2);
    EXPECT_NE(dt.err.find("--out-dtype: expected fp16, fp32, int8 or uint8, got \"fp64\""), std::string::npos) << dt.err;
}

TEST(CptcCli, RouteFollowsTheConfigsRouting) {
    // CPTC7 to impl<4> (fp32), as -p gpsimd.cptc_routing.7=4 does in a run.
    TempDir t;
    const std::string in = t.write("v.hex", hex_values(128 * 64, [](int i) { return static_cast<float>(i % 23) * 0.37f - 4.0f; }));
    CliResult e = run_cli("cptc encode --bits 7 --route 7=4 --out-dtype fp32 --in " + in + " --out " + t.file("w.bin") + " --decoded " + t.file("want.bin"));
    ASSERT_EQ(e.status, 0) << e.err;
    EXPECT_NE(e.out.find("kernel: cptc_decode_impl<4> (CPTC7 -> impl<4>): signed codes -64..63, FP32 output"), std::string::npos) << e.out;
    EXPECT_EQ(run_decode(t, fields_of(e.out), 256, "-p gpsimd.cptc_routing.7=4"), read_file(t.file("want.bin")));
    CliResult g = run_cli("cptc encode --bits 7 --route 7=5 --in " + in + " --out " + t.file("x.bin"));
    EXPECT_NE(g.err.find("CPTC7 is routed to cptc_decode_impl<5>, which serves only CPTC3"), std::string::npos) << g.err;
}

}  // namespace
}  // namespace neuronsim::test
