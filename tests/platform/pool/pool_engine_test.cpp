// The GPSIMD (POOL) engine on the platform: the CPTC -> GELU example end to end (every output
// bit against an independent quantiser and the model's table evaluator), decode timing and its
// hand-off to ACT, what each generation accepts, the environment gate, stats.
#include <cmath>
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/fp/dtype.h"
#include "model/pwp/catalog.h"
#include "model/pwp/catalog_writer.h"
#include "model/pwp/roster.h"
#include "model/pwp/table_eval.h"
#include "tests/support/platform_run.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

const std::string kSrc = NEURONSIM_SOURCE_DIR;

class PoolTest : public PlatformRunTest {
protected:
    void SetUp() override {
        PlatformRunTest::SetUp();
        unsetenv("NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE");
    }
};

std::vector<float> weights_hex() {
    std::ifstream f(kSrc + "/traces/data/weights.hex");
    std::vector<float> v;
    for (std::string line; std::getline(f, line);)
        if (!line.empty() && line[0] != '#') v.push_back(flt(static_cast<uint32_t>(std::stoul(line, nullptr, 16))));
    return v;
}

TEST_F(PoolTest, CptcGeluExampleEveryOutputBit) {
    overrides = {"gpsimd.cptc_flag=true"};
    platform::RunReport r = run_file(kSrc + "/traces/cptc_gelu.trace");
    const std::vector<float> w = weights_hex();
    ASSERT_EQ(w.size(), 128u * 128u);
    const std::string stream = read_file(kSrc + "/traces/data/weights_cptc4.bin");
    ASSERT_EQ(stream.size(), 128u * 80u);
    const std::vector<uint16_t> dec = halves(out("weights_fp16.bin"));
    const std::vector<float> act = floats(out("gelu_fp32.bin"));
    ASSERT_EQ(dec.size(), w.size());
    ASSERT_EQ(act.size(), w.size());
    const auto& rs = model::pwp::builtin_roster(model::pwp::Target::Trainium)[10];
    model::pwp::PackedSet set = model::pwp::read_set(model::pwp::default_catalog_dir() + "/pwp_bin_trainium/" + rs.name + ".json");
    model::pwp::TableEvaluator te(set);
    const model::pwp::FuncMeta* gelu = nullptr;
    for (const auto& f : set.manifest.profile_meta_data)
        if (f.func_id == 23) gelu = &f;
    ASSERT_NE(gelu, nullptr);
    for (uint32_t p = 0; p < 128; ++p)
        for (uint32_t i = 0; i < 128; ++i) {
            // The block's fp16 scale sits after the two 32-byte groups; a code is round(w / s)
            // limited to +-7, and the decode stores code x 1.0 x s as fp16.
            const size_t at = p * 80 + 64 + 2 * (i / 64);
            const float s = model::fp::fp16_to_f32(static_cast<uint16_t>(static_cast<uint8_t>(stream[at]) | static_cast<uint8_t>(stream[at + 1]) << 8));
            const int code = static_cast<int>(std::fmin(std::fmax(std::nearbyint(w[p * 128 + i] / s), -7.0f), 7.0f));  // integer: no -0
            const size_t k = p * 128 + i;
            ASSERT_EQ(dec[k], model::fp::f32_to_fp16(static_cast<float>(code) * s)) << "partition " << p << " element " << i;
            float v = 1.0f * model::fp::fp16_to_f32(dec[k]);
            v = v + 0.0f;
            ASSERT_EQ(bits(act[k]), bits(te.evaluate(*gelu, v))) << "partition " << p << " element " << i;
        }
    // POOL, from the public figures (public-figures §2): each core owns 16 partitions, reads
    // and writes 512 bits per cycle on separate ports, and gets 128/8 = 16 elements per cycle
    // of the engine's datapath. 150 start-up; the two blocks' fp16 scales (4 bytes x 16
    // partitions) take 1 read cycle; a group's 4 planes of 8 bytes (x 16) take 8 read cycles,
    // 64 datapath cycles (16 x 64 elements at 16 per cycle) and 32 write cycles (16 x 64 x 2
    // bytes). Pipelined: 1 + 8 + 64 + 64 (second group's datapath) + 32 = 169; 319 cycles.
    // ACT's Activate waits on semaphore 0 and on its own table load.
    EXPECT_EQ(cycles_of("pool", 0), 319);
    EXPECT_NEAR(ns_of("pool", 0), 319 / 1.2, 1e-3);
    EXPECT_NEAR(csv_field("act", 1, 4), std::max(csv_field("act", 0, 5), csv_field("pool", 0, 5) + 20), 1e-3);  // + the semaphore hand-off
    const auto& pool = r.stats["pool"];
    EXPECT_EQ(pool["cptc_decodes"], 1);
    EXPECT_EQ(pool["cptc_decoded_elements"], 128 * 128);
    EXPECT_EQ(pool["cptc_by_kernel"]["cptc_decode_impl<3>"], 1);
}

// A long decode (CPTC7 -> fp32, impl<6>) that ACT must wait for.
const char* kLongDecode =
    "pool conv_lut_load src=sbuf:0:0x0 src.num=4,512 src.step=1,4 in_dtype=9 out_dtype=10 num_active_rows=128 num_active_cols=128 "
    "mconst0=0x3c00 mconst1=0 row_grp=15 col_grp=15 block_size=64 lut_dtype=0x1f dst=sbuf:0:0x4000 dst.num=8192,1,1 dst.step=1,0,0 update=0+1\n"
    "act load_act_func_set set=4\n"
    "act activate func=1 wait=0>=1 in_bias_dtype=10 out_dtype=10 num_active_channels=128 bias_src_n=1 scale=1.0 src=sbuf:0:0x4000 src.num=64,1,1 "
    "dst=sbuf:0:0x20000 dst.num=64,1,1\n";

TEST_F(PoolTest, DecodeTimeAndTheHandOffToAct) {
    overrides = {"gpsimd.cptc_flag=true"};
    run(kLongDecode);
    // 128 groups of CPTC7 -> fp32, no block scales: per group 16 read cycles (7 planes of 8
    // bytes padded to 64, x 16 partitions / 64 bytes), 64 datapath, 64 write (16 x 64 x 4 / 64).
    // Overlapped: 16 + 64 + 64 for the first group, then one group per 64 cycles:
    // 150 + 144 + 127 x 64 = 8422 cycles at 1.2 GHz (no overlap would be 150 + 128 x 144).
    EXPECT_EQ(cycles_of("pool", 0), 8422);
    EXPECT_NEAR(csv_field("act", 1, 4) - csv_field("pool", 0, 4), 8422 / 1.2 + 20, 1e-3);  // + the semaphore hand-off
    reset_systemc_context();
    overrides.push_back("gpsimd.startup_cycles=0");
    overrides.push_back("gpsimd.clock_ghz=2.0");
    run(kLongDecode);
    EXPECT_EQ(cycles_of("pool", 0), 8272);
    EXPECT_NEAR(ns_of("pool", 0), 4136.0, 1e-6);
}

TEST_F(PoolTest, CoresAndVectorWidthScaleTheGroupTerm) {
    // The cptc_gelu decode (2 groups of CPTC4 -> fp16, 2 block scales) with other core counts
    // and vector widths, from the same figures: the engine's 128 elements/cycle bound the
    // kernel stage (64 cycles a group whatever the split), the ports scale with partitions.
    // 4 cores (32 partitions each): scales 2, read 16, datapath 64, write 64: 2+16+64+64+64.
    // 1024-bit vectors: the datapath bounds the kernel stage whatever the width: unchanged.
    // 16 cores (8 partitions): scales 1, read 4, datapath 64, write 16: 1+4+64+64+16.
    struct C {
        const char* cores;
        const char* bits;
        double cycles;
    };
    for (const C& c : {C{"8", "512", 319}, C{"4", "512", 150 + 210}, C{"8", "1024", 319}, C{"16", "512", 150 + 149}}) {
        reset_systemc_context();
        overrides = {"gpsimd.cptc_flag=true", std::string("gpsimd.cores=") + c.cores, std::string("gpsimd.vector_bits=") + c.bits};
        platform::RunReport r = run_file(kSrc + "/traces/cptc_gelu.trace");
        EXPECT_EQ(cycles_of("pool", 0), c.cycles) << c.cores << " cores, " << c.bits << " bits";
        EXPECT_EQ(r.stats["pool"]["cptc_decoded_elements"], 128 * 128);  // every core did its share
    }
}

TEST_F(PoolTest, WhatEachGenerationAccepts) {
    const std::string trace = read_file(kSrc + "/traces/cptc_gelu.trace");
    auto err = [&](const std::string& g, std::vector<std::string> o) {
        reset_systemc_context();
        gen = g;
        overrides = std::move(o);
        try {
            run_file(kSrc + "/traces/cptc_gelu.trace");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    // SUNDA's firmware has no 0xe4 row at all, flag or not.
    EXPECT_NE(err("sunda", {"gpsimd.cptc_flag=true"}).find("engine pool, instruction 0 (opcode 0xe4 (conv_lut_load)"), std::string::npos);
    EXPECT_NE(err("sunda", {"gpsimd.cptc_flag=true"}).find("UNKNOWN OPCODE=0xe4"), std::string::npos);
    // CAYMAN has the decoder but its ISA cannot name CPTC4.
    EXPECT_NE(err("cayman", {"gpsimd.cptc_flag=true"}).find("lut_dtype 0x1c (CPTC4) is not a dtype of CAYMAN's ISA (NC-v3)"), std::string::npos);
    // MARIANA without the opt-in: the library is not staged.
    EXPECT_NE(err("mariana", {}).find("UNKNOWN OPCODE=0xe4 (the CPTC library is staged only on a PERF core type with the opt-in"), std::string::npos);
    EXPECT_NE(err("sunda", {}).find("UNKNOWN OPCODE=0xe4 (SUNDA's GPSIMD firmware has no CPTC library)"), std::string::npos);
    EXPECT_NE(err("maverick", {"gpsimd.cptc_flag=true", "gpsimd.coretype_perf=false"}).find("UNKNOWN OPCODE=0xe4"), std::string::npos);
    for (const char* g : {"mariana", "mariana_plus", "maverick"}) EXPECT_EQ(err(g, {"gpsimd.cptc_flag=true"}), "(no error)") << g;
    // The environment variable stages the library as the runtime does.
    setenv("NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE", "1", 1);
    EXPECT_EQ(err("mariana", {}), "(no error)");
    unsetenv("NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE");
}

TEST_F(PoolTest, CaymanDecodesThroughCodesItsIsaCanName) {
    // The firmware's is_cptc is "not INVALID, not FP32", value = code & 7: on CAYMAN a program
    // reaches impl<3> with lut_dtype 0x0C (INT64 & 7 = 4).
    gen = "cayman";
    overrides = {"gpsimd.cptc_flag=true"};
    const std::string t =
        ".data sbuf:0:0x0 partitions=128 u8 0xff 0xff 0xff 0xff 0xff 0xff 0xff 0xff\n"
        "pool conv_lut_load src=sbuf:0:0x0 src.num=4,2 src.step=1,4 in_dtype=9 out_dtype=7 num_active_rows=128 num_active_cols=128 "
        "mconst0=0x3800 row_grp=15 col_grp=15 block_size=64 lut_dtype=0x0c dst=sbuf:0:0x1000 dst.num=64,1,1 dst.step=1,0,0\n"
        ".dump sbuf:0:0x1000 bytes=128 partitions=1 file=o.bin\n";
    run(t);
    const auto h = halves(out("o.bin"));
    // Plane 0 all ones: codes 1 for every element (bit 0), x 0.5 = 0x3800.
    for (uint16_t x : h) EXPECT_EQ(x, 0x3800);
}

TEST_F(PoolTest, ExtendedOpcodesPerGeneration) {
    const std::string spec7 =
        "pool ext spec=7 src=sbuf:0:0x0 src.num=4,2 src.step=1,4 in_dtype=9 out_dtype=7 num_active_rows=128 num_active_cols=128 mconst0=0x3c00 "
        "row_grp=15 col_grp=15 block_size=64 lut_dtype=0x1c dst=sbuf:0:0x1000 dst.num=64,1,1\n";
    EXPECT_NE(error_of(spec7).find("UNKNOWN EXTENDED OPCODE=7"), std::string::npos);
    reset_systemc_context();
    overrides = {"gpsimd.cptc_flag=true"};
    run(spec7);
    reset_systemc_context();
    const std::string copy =
        ".data sbuf:0:0x0 partitions=128 u8 1 2 3 4\npool ext spec=1 in_dtype=3 num_active_rows=128 src=sbuf:0:0x0 src.num=4,1 src.step=1,0 "
        "dst=sbuf:0:0x100 dst.num=4,1,1 dst.step=1,0,0\npool ext spec=0\n.dump sbuf:0:0x100 bytes=4 partitions=128 file=c.bin\n";
    platform::RunReport r = run(copy);
    const std::string c = out("c.bin");
    ASSERT_EQ(c.size(), 512u);
    EXPECT_EQ(c.substr(508), std::string("\x01\x02\x03\x04", 4));
    EXPECT_EQ(r.stats["pool"]["copies"], 1);
    EXPECT_EQ(cycles_of("pool", 0), 150 + 4);  // start-up + 4 elements per partition, 16 x 8 cores at 128 per cycle: 4 cycles
    EXPECT_EQ(cycles_of("pool", 1), 150);
    reset_systemc_context();
    gen = "sunda";
    EXPECT_NE(error_of(copy).find("UNKNOWN OPCODE=0xf0"), std::string::npos);
}

TEST_F(PoolTest, PartialGroupCountsAndComputesOnlyItsElements) {
    overrides = {"gpsimd.cptc_flag=true"};
    platform::RunReport r =
        run("pool conv_lut_load src=sbuf:0:0x0 src.num=4,4 src.step=1,4 in_dtype=9 out_dtype=7 num_active_rows=128 num_active_cols=128 "
            "mconst0=0x3c00 row_grp=15 col_grp=15 block_size=64 lut_dtype=0x1c dst=sbuf:0:0x1000 dst.num=100,1,1 dst.step=1,0,0\n");
    EXPECT_EQ(r.stats["pool"]["cptc_decoded_elements"], 128 * 100);
    // 100 elements are 2 groups; the second computes and writes only its 36 elements
    // (36 datapath cycles, 18 write), though it reads whole planes. First group: read to 8,
    // datapath to 72, write to 104; second: read to 16, datapath 72..108, write 108..126.
    // A whole second group would end at 168.
    EXPECT_EQ(cycles_of("pool", 0), 150 + 126);
}

TEST_F(PoolTest, RoutingFromTheConfig) {
    overrides = {"gpsimd.cptc_flag=true", "gpsimd.cptc_routing.7=4"};
    const std::string t =
        "pool conv_lut_load src=sbuf:0:0x0 src.num=4,4 src.step=1,4 in_dtype=9 out_dtype=10 num_active_rows=128 num_active_cols=128 "
        "mconst0=0x3c00 row_grp=15 col_grp=15 block_size=64 lut_dtype=0x1f dst=sbuf:0:0x1000 dst.num=64,1,1\n";
    platform::RunReport r = run(t);
    EXPECT_EQ(r.stats["pool"]["cptc_by_kernel"]["cptc_decode_impl<4>"], 1);
    reset_systemc_context();
    overrides = {"gpsimd.cptc_flag=true", "gpsimd.cptc_routing.7=5"};
    EXPECT_NE(error_of(t).find("cptc_decode_impl<5> rejects CPTC value 7 (it serves 3)"), std::string::npos);
    reset_systemc_context();
    overrides = {"gpsimd.cptc_flag=true", "gpsimd.cptc_routing.4=6"};
    EXPECT_THROW(run(t), Error);  // the observed rows are fixed
}

TEST(PoolCli, Spec7LogsTheFirmwaresTraceLinePerCore) {
    TempDir t;
    t.write("s7.trace",
            "pool ext spec=7 src=sbuf:0:0x0 src.num=4,2 src.step=1,4 in_dtype=9 out_dtype=7 num_active_rows=128 num_active_cols=128 "
            "mconst0=0x3c00 row_grp=15 col_grp=15 block_size=64 lut_dtype=0x1c dst=sbuf:0:0x1000 dst.num=64,1,1 dst.step=1,0,0\n");
    CliResult r = run_cli("--log-level debug run -p gpsimd.cptc_flag=true --trace " + t.file("s7.trace") + " --out " + t.file("o") + " --no-progress");
    ASSERT_EQ(r.status, 0) << r.err;
    for (int c = 0; c < 8; ++c)
        EXPECT_NE(r.err.find("P" + std::to_string(c) + ": Decode : ExtendedInstCptcDecode : num_active_chans = 128"), std::string::npos) << r.err;
}

TEST(PoolCli, EncodeThenDecodeRoundTripsThroughRun) {
    TempDir t;
    std::string values;
    for (int i = 0; i < 128 * 64; ++i) values += model::fp::hex8(bits(static_cast<float>(i % 8))) + "\n";
    CliResult e = run_cli("cptc encode --bits 3 --block 64 --in " + t.write("v.hex", values) + " --out " + t.file("w.bin"));
    ASSERT_EQ(e.status, 0) << e.err;
    EXPECT_NE(e.out.find("wrote " + t.file("w.bin") + ": 128 partitions x 32 bytes (2 16-byte units) of CPTC3, 64 elements each"), std::string::npos) << e.out;
    EXPECT_NE(e.out.find("lut_dtype=0x1b block_size=64 mconst0=0x1 mconst1=0x0 num_active_rows=128"), std::string::npos) << e.out;
    EXPECT_NE(e.out.find("max abs 0, max 0 steps"), std::string::npos) << e.out;  // 0..7 is on the grid (multiplier 1)
    // CPTC3 routes to impl<5>, the unsigned integer leg: the encoder gives it unsigned codes,
    // mconst0 = 1 as an integer and no block scales, so it stores the values as UINT8.
    t.write("d.trace",
            ".data sbuf:0:0x0 partitions=128 file=w.bin\n"
            "pool conv_lut_load src=sbuf:0:0x0 src.num=4,2 src.step=1,4 in_dtype=9 out_dtype=3 num_active_rows=128 num_active_cols=128 "
            "mconst0=1 mconst1=0 row_grp=15 col_grp=15 block_size=64 lut_dtype=0x1b dst=sbuf:0:0x1000 dst.num=64,1,1 dst.step=1,0,0\n"
            ".dump sbuf:0:0x1000 bytes=64 partitions=128 file=codes.bin\n");
    CliResult r = run_cli("run -p gpsimd.cptc_flag=true --trace " + t.file("d.trace") + " --out " + t.file("out") + " --no-progress");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string codes = read_file(t.file("out/codes.bin"));
    ASSERT_EQ(codes.size(), 128u * 64u);
    for (size_t i = 0; i < codes.size(); ++i) EXPECT_EQ(static_cast<uint8_t>(codes[i]), i % 8) << i;
    // --codes: an integer tensor stored as it is (raw int32 here), no scales.
    std::string ints;
    for (int32_t c : {4, 3, 0, 1}) ints.append(reinterpret_cast<const char*>(&c), 4);
    CliResult ce = run_cli("cptc encode --bits 3 --codes --partitions 1 --format i32 --in " + t.write("i.bin", ints) + " --out " + t.file("c.bin"));
    ASSERT_EQ(ce.status, 0) << ce.err;
    EXPECT_NE(ce.out.find("mconst0=0x1 mconst1=0x0"), std::string::npos) << ce.out;
    EXPECT_NE(ce.out.find("src.num=4,2"), std::string::npos) << ce.out;
    const std::string cb = read_file(t.file("c.bin"));
    ASSERT_EQ(cb.size(), 32u);
    // Positions 0, 16, 32, 48; plane 0 holds 3 and 1, plane 1 holds 3, plane 2 holds 4.
    std::string want(32, '\0');
    want[2] = want[6] = want[10] = want[16] = 1;
    EXPECT_EQ(cb, want);
    CliResult range = run_cli("cptc encode --bits 3 --codes --partitions 1 --in " + t.write("c.hex", "3f800000\n41000000\n") + " --out " + t.file("c.bin"));
    EXPECT_NE(range.err.find("c.hex:2: code 8 is not an integer in [0, 7] (unsigned CPTC3"), std::string::npos) << range.err;
    CliResult bad = run_cli("cptc encode --bits 8 --in " + t.file("v.hex") + " --out " + t.file("x.bin"));
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("--bits must be 1..7"), std::string::npos) << bad.err;
    CliResult uneven = run_cli("cptc encode --bits 4 --partitions 3 --in " + t.file("v.hex") + " --out " + t.file("x.bin"));
    EXPECT_NE(uneven.err.find("v.hex: 8192 values do not split evenly over 3 partitions"), std::string::npos) << uneven.err;
    CliResult big = run_cli("cptc encode --bits 4 --partitions 1 --in " + t.write("b.hex", "4b000000\n") + " --out " + t.file("x.bin"));
    EXPECT_NE(big.err.find("b.hex: partition 0 (values 0..0 of the file): block 0"), std::string::npos) << big.err;
}

// GpSimd's cores run at once on the host threads unless one writes bytes another reads or
// writes: a copy that moves each row 16 partitions on (core 0 writes the rows core 1 reads,
// and so on) runs them one after another, as the model has it, so the rows cascade: on one
// host thread and on eight alike.
TEST_F(PoolTest, CoresThatTouchEachOthersRowsRunOneAfterAnother) {
    const uint32_t bytes = 2048;
    std::string rows;
    for (uint32_t p = 0; p < 128; ++p) rows += std::string(bytes, static_cast<char>(p));
    t.write("rows.bin", rows);
    const std::string trace =
        ".data sbuf:0:0x0 partitions=128 file=rows.bin\npool ext spec=1 in_dtype=3 num_active_rows=64 src=sbuf:0:0x0 src.num=" + std::to_string(bytes) +
        ",1 src.step=1,0 dst=sbuf:16:0x0 dst.num=" + std::to_string(bytes) + ",1,1 dst.step=1,0,0\n.dump sbuf:0:0x0 bytes=" + std::to_string(bytes) +
        " partitions=128 file=r.bin\n";
    for (const char* threads : {"1", "8"})
        for (int rep = 0; rep < 10; ++rep) {
            reset_systemc_context();
            overrides = {std::string("run.host_threads=") + threads};
            run(trace);
            const std::string r = out("r.bin");
            ASSERT_EQ(r.size(), rows.size());
            std::string wrong;
            for (uint32_t p = 0; p < 128 && wrong.empty(); ++p) {
                const char want = static_cast<char>(p >= 16 && p < 80 ? p % 16 : p);  // moved on, and on again
                if (r.substr(size_t{p} * bytes, bytes) != std::string(bytes, want)) wrong = "partition " + std::to_string(p);
            }
            EXPECT_EQ(wrong, "") << threads << " host threads, run " << rep;
        }
}

}  // namespace
}  // namespace neuronsim::test
