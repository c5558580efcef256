// The Activation engine on the platform: whole-tensor numerics against the model-level
// evaluators, dtypes, operand sources, the accumulator, table loads, timing, errors.
#include <cmath>
#include <cstddef>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/pwp/catalog.h"
#include "model/pwp/catalog_writer.h"
#include "model/pwp/closed_forms.h"
#include "model/pwp/roster.h"
#include "model/pwp/table_eval.h"
#include "model/pwp/table_image.h"
#include "model/trace/assembler.h"
#include "neuronsim/act_sets.h"
#include "neuronsim/registers.h"
#include "platform/act/act_timing.h"
#include "platform/config.h"
#include "platform/host/trace_host.h"
#include "tests/support/platform_run.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"
#include "tests/support/systemc_fixture.h"

namespace neuronsim::test {
namespace {

using namespace platform;

// The ACT tests' fixture: a platform run per test (tests/support/platform_run.h).
class ActTest : public PlatformRunTest {};

const char* kAct = "in_bias_dtype=10 out_dtype=10 num_active_channels=128 bias_src_n=1 ";

// Every function of a set, over 128 partitions x 64 inputs (random, specials, clamp regions),
// equals the model-level table-memory evaluator on the same set, bit for bit.
TEST_F(ActTest, WholeTensorNumericsEqualTheModelEvaluatorForEveryFunctionOfASet) {
    for (int set_index : {0, 2, 10}) {
        const auto& rs = model::pwp::builtin_roster(model::pwp::Target::Trainium)[set_index];
        model::pwp::PackedSet set = model::pwp::read_set(model::pwp::default_catalog_dir() + "/pwp_bin_trainium/" + rs.name + ".json");
        model::pwp::TableEvaluator te(set);
        std::mt19937 rng(static_cast<unsigned>(set_index));
        std::vector<float> in(128 * 64);
        for (size_t i = 0; i < in.size(); ++i) {
            if (i % 64 < 8) {
                const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, 1e-30f, -1e30f, 90.0f, -90.0f};
                in[i] = special[i % 64];
            } else {
                in[i] = std::ldexp(std::uniform_real_distribution<float>(-1, 1)(rng), static_cast<int>(rng() % 16) - 8);
            }
        }
        t.write("in.bin", std::string(reinterpret_cast<const char*>(in.data()), in.size() * 4));
        std::string trace = ".data sbuf:0:0x0 partitions=128 file=in.bin\nact load_act_func_set set=" + std::to_string(set_index) + "\n";
        const float scale = 1.5f, bias = -0.25f;
        int k = 0;
        for (const auto& f : set.manifest.profile_meta_data) {
            const uint32_t off = 0x1000 + 0x100 * k++;
            trace += std::string("act activate func=") + std::to_string(f.func_id) + " " + kAct +
                     "scale=1.5 bias=-0.25 src=sbuf:0:0x0 src.step=1,0,0 src.num=64,1,1 " + "dst=sbuf:0:" + std::to_string(off) +
                     " dst.step=1,0,0 dst.num=64,1,1\n";
            trace += ".dump sbuf:0:" + std::to_string(off) + " bytes=256 partitions=128 file=" + f.bare_name() + ".bin\n";
        }
        reset_systemc_context();
        run(trace);
        for (const auto& f : set.manifest.profile_meta_data) {
            std::vector<float> got = floats(out(f.bare_name() + ".bin"));
            ASSERT_EQ(got.size(), in.size());
            for (size_t i = 0; i < in.size(); ++i) {
                float v = scale * in[i];
                v = v + bias;
                // parametric_relu has no table path: its slope is the imm operand (0 here).
                const float want = f.bare_name() == "parametric_relu" ? model::pwp::exact(model::pwp::ActFn::Prelu, v, 0.0f) : te.evaluate(f, v);
                ASSERT_EQ(bits(got[i]), bits(want)) << rs.name << "/" << f.func_name << " element " << i << " input " << in[i];
            }
        }
    }
}

TEST_F(ActTest, ExactNumericsUseTheClosedForms) {
    exact = true;
    run(std::string(".data sbuf:0:0x0 partitions=128 f32 0.5 -3 7\nact load_act_func_set set=0\n") + "act activate func=7 " + kAct +
        "scale=1.0 src=sbuf:0:0 src.num=3,1,1 src.step=1,0,0 dst=sbuf:0:0x100 dst.num=3,1,1 dst.step=1,0,0\n.dump sbuf:0:0x100 bytes=12 file=o.bin\n");
    std::vector<float> got = floats(out("o.bin"));
    EXPECT_EQ(bits(got[0]), bits(std::exp(0.5f)));
    EXPECT_EQ(bits(got[1]), bits(std::exp(-3.0f)));
    EXPECT_EQ(bits(got[2]), bits(std::exp(7.0f)));
}

TEST_F(ActTest, DtypesPointerAndRegisterOperands) {
    // bf16 input, fp16 output; scale from an SBUF pointer (per partition), bias from a register
    // pointing at a bf16 vector (bias_src_n=2), identity function.
    run(".data sbuf:0:0x0 partitions=4 u8 0x80 0x3f 0x00 0xc0\n"  // bf16 1.0, -2.0
        ".data sbuf:0:0x100 partitions=4 f32 3.0\n"
        ".data sbuf:2:0x100 partitions=2 f32 -1.0\n"  // partitions 2, 3 scale -1
        ".data sbuf:0:0x200 partitions=4 u8 0x00 0x3f\n"  // bf16 0.5
        ".reg 7 512\n"  // ADDR4 of sbuf:0:0x200
        "act load_act_func_set set=4\n"
        "act activate func=1 in_bias_dtype=0x66 out_dtype=7 num_active_channels=4 scale_src=1 scale=sbuf:0:0x100 bias_src_n=2 bias=reg:7 "
        "src=sbuf:0:0x0 src.num=2,1,1 src.step=1,0,0 dst=sbuf:0:0x300 dst.num=2,1,1 dst.step=1,0,0\n"
        ".dump sbuf:0:0x300 bytes=4 partitions=4 file=o.bin\n");
    std::string o = out("o.bin");
    auto h = [&](size_t i) { return static_cast<uint16_t>(static_cast<uint8_t>(o[2 * i]) | static_cast<uint8_t>(o[2 * i + 1]) << 8); };
    EXPECT_EQ(h(0), 0x4300);  // fp16 3*1+0.5 = 3.5
    EXPECT_EQ(h(1), 0xc580);  // 3*-2+0.5 = -5.5
    EXPECT_EQ(h(4), 0xb800);  // partition 2: -1*1+0.5 = -0.5
    EXPECT_EQ(h(5), 0x4100);  // -1*-2+0.5 = 2.5
}

TEST_F(ActTest, AccumulatorCommands) {
    // Row of 1, 2, 3 (sum 6) through identity, on partitions 0..31.
    std::string pre = ".data sbuf:0:0x0 partitions=32 f32 1 2 3\nact load_act_func_set set=4\n";
    auto act = [](int cmd, const std::string& imm = "") {
        return std::string("act activate func=1 in_bias_dtype=10 out_dtype=10 num_active_channels=32 bias_src_n=1 scale=1.0 accumulator_cmd=") +
               std::to_string(cmd) + " " + imm + " src=sbuf:0:0 src.num=3,1,1 src.step=1,0,0 dst=sbuf:0:0x40 dst.num=3,1,1 dst.step=1,0,0\n";
    };
    auto read = [](int slot) {
        return "act read_accumulator count=1 dtype=10 num_active_channels=32 dst=sbuf:0:" + std::to_string(0x100 + 4 * slot) + " dst.num=1\n";
    };
    run(pre + act(3) + read(0) +  // ZERO_ACCUMULATE: 6
        act(2) + read(1) +  // ACCUMULATE: 12
        act(0) + read(2) +  // IDLE: 12
        act(4, "imm=100") + read(3) +  // LOAD_ACCUMULATE: 100 + 6
        act(1) + read(4) +  // ZERO: 0
        ".dump sbuf:31:0x100 bytes=20 file=acc.bin\n");
    EXPECT_EQ(floats(out("acc.bin")), (std::vector<float>{6, 12, 12, 106, 0}));
}

TEST_F(ActTest, ParametricReluTakesItsSlopeFromImm) {
    // Seed 003: out = ActFn(in*scale + bias; alpha), alpha is the instruction's third operand
    // (imm); Prelu has no table path. As immediate and as a pointer (per partition).
    const auto& rs = model::pwp::builtin_roster(model::pwp::Target::Trainium);
    int set = -1, func = -1;
    for (size_t i = 0; i < rs.size() && set < 0; ++i) {
        model::pwp::PackedSet ps = model::pwp::read_set(model::pwp::default_catalog_dir() + "/pwp_bin_trainium/" + rs[i].name + ".json");
        for (const auto& f : ps.manifest.profile_meta_data)
            if (f.bare_name() == "parametric_relu") set = static_cast<int>(i), func = f.func_id;
    }
    ASSERT_GE(set, 0);
    const std::string pre =
        ".data sbuf:0:0x0 partitions=2 f32 -2 3 -0.5 0\n.data sbuf:0:0x80 partitions=1 f32 0.25\n.data sbuf:1:0x80 partitions=1 f32 -3\n"
        "act load_act_func_set set=" +
        std::to_string(set) + "\n";
    auto act = [&](const std::string& imm) {
        return "act activate func=" + std::to_string(func) + " in_bias_dtype=10 out_dtype=10 num_active_channels=2 bias_src_n=1 scale=1.0 " + imm +
               " src=sbuf:0:0 src.num=4,1,1 src.step=1,0,0 dst=sbuf:0:0x40 dst.num=4,1,1 dst.step=1,0,0\n.dump sbuf:0:0x40 bytes=16 partitions=2 file=o.bin\n";
    };
    run(pre + act("imm=0.1"));
    std::vector<float> o = floats(out("o.bin"));
    ASSERT_EQ(o.size(), 8u);
    EXPECT_EQ(bits(o[0]), bits(0.1f * -2.0f));  // alpha * x, one rounding
    EXPECT_EQ(bits(o[1]), bits(3.0f));
    EXPECT_EQ(bits(o[2]), bits(0.1f * -0.5f));
    EXPECT_EQ(bits(o[3]), bits(0.1f * 0.0f));  // 0 is not > 0: alpha * 0
    reset_systemc_context();
    run(pre + act("imm_src=1 imm=sbuf:0:0x80"));  // pointer: 0.25 on partition 0, -3 on partition 1
    o = floats(out("o.bin"));
    EXPECT_EQ(bits(o[0]), bits(0.25f * -2.0f));
    EXPECT_EQ(bits(o[4]), bits(-3.0f * -2.0f));
    EXPECT_EQ(bits(o[5]), bits(3.0f));
}

TEST_F(ActTest, AccumulatorAddsElementByElementInElementOrder) {
    // The accumulator takes each result in element order (acc = acc + y_i), in Activate as in
    // Activate2's reduction. With a register of 1 and four elements of 2^-24, each addition
    // rounds back to 1 (ties to even); summing the instruction's elements first (2^-22) and
    // then adding gives 1 + 2^-22. The test fails for that order.
    const std::string tiny = " 5.96046448e-08";  // 2^-24
    auto act = [&](int cmd, const std::string& imm) {
        return std::string("act activate func=1 in_bias_dtype=10 out_dtype=10 num_active_channels=32 bias_src_n=1 scale=1.0 accumulator_cmd=") +
               std::to_string(cmd) + " " + imm + " src=sbuf:0:0 src.num=4,1,1 src.step=1,0,0 dst=sbuf:0:0x40 dst.num=4,1,1 dst.step=1,0,0\n";
    };
    auto read = [](int slot) {
        return "act read_accumulator count=1 dtype=10 num_active_channels=32 dst=sbuf:0:" + std::to_string(0x100 + 4 * slot) + " dst.num=1\n";
    };
    run(".data sbuf:0:0x0 partitions=32 f32" + tiny + tiny + tiny + tiny + "\nact load_act_func_set set=4\n" + act(4, "imm=1.0") +
        read(0) +  // LOAD_ACCUMULATE 1: 1 + y0 + y1 + y2 + y3, one at a time
        act(2, "") + read(1) +  // ACCUMULATE onto 1
        act(3, "") + read(2) +  // ZERO_ACCUMULATE: 4 x 2^-24 = 2^-22 exactly
        "act activate2 func=1 op0=0 op1=0 reduce_cmd=3 reduce_op=4 in_dtype=10 out_dtype=10 num_active_channels=32 "
        "src=sbuf:0:0 src.num=4,1 src.step=1,0 dst=sbuf:0:0x40 dst.num=4,1 dst.step=1,0\n" +
        read(3) + ".dump sbuf:0:0x100 bytes=16 file=acc.bin\n");
    std::vector<float> got = floats(out("acc.bin"));
    ASSERT_EQ(got.size(), 4u);
    const float y = std::ldexp(1.0f, -24);
    EXPECT_EQ(bits(got[0]), bits(1.0f)) << "element by element: each 1 + 2^-24 rounds to 1";
    EXPECT_NE(bits(got[0]), bits(1.0f + 4 * y)) << "not the sum first, then the register";
    EXPECT_EQ(bits(got[1]), bits(1.0f));
    EXPECT_EQ(bits(got[2]), bits(4 * y));
    EXPECT_EQ(bits(got[3]), bits(4 * y));  // Activate2's add reduction: the same order
}

TEST_F(ActTest, Activate2StagesAndReduction) {
    // t = x * 2 - 1, relu, max-reduce; on MARIANA (v4).
    run(".data sbuf:0:0x0 partitions=32 f32 -1 0.25 3 1\nact load_act_func_set set=4\n"
        "act activate2 func=2 op0=6 op1=5 imm0=2 imm1=1 reduce_cmd=3 reduce_op=8 in_dtype=10 out_dtype=10 num_active_channels=32 "
        "src=sbuf:0:0 src.num=4,1 src.step=1,0 dst=sbuf:0:0x40 dst.num=4,1 dst.step=1,0\n"
        "act read_accumulator count=1 dtype=10 num_active_channels=32 dst=sbuf:0:0x80 dst.num=1\n"
        ".dump sbuf:0:0x40 bytes=20 file=o.bin\n.dump sbuf:0:0x80 bytes=4 file=m.bin\n");
    EXPECT_EQ(floats(out("o.bin")).size(), 5u);
    std::vector<float> o = floats(out("o.bin"));
    EXPECT_EQ(std::vector<float>(o.begin(), o.begin() + 4), (std::vector<float>{0, 0, 5, 1}));
    EXPECT_EQ(floats(out("m.bin"))[0], 5.0f);
}

TEST_F(ActTest, ActivateQuantizeToUint8) {
    run(".data sbuf:0:0x0 partitions=32 f32 1 2 -3 100\n.data sbuf:0:0x80 partitions=32 f32 0.5\nact load_act_func_set set=4\n"
        "act activate_quantize func=1 quant_scale=10 dequant_scale=2 bias_addr=sbuf:0:0x80 quant_zero=3 in_bias_dtype=10 out_dtype=3 "
        "num_active_channels=32 src=sbuf:0:0 src.num=4,1,1 src.step=1,0,0 dst=sbuf:0:0x40 dst.num=4,1,1 dst.step=1,0,0\n"
        ".dump sbuf:0:0x40 bytes=4 file=q.bin\n");
    // 10 * (x*2 + 0.5) + 3: 28, 48, -52 -> 0, 2008 -> 255
    EXPECT_EQ(out("q.bin"), std::string("\x1c\x30\x00\xff", 4));
}

TEST_F(ActTest, TableLoadTimeRedundancyAndWhatIsResident) {
    RunReport r = run("act load_act_func_set set=0\nact load_act_func_set set=0\nact load_act_func_set set=4\n");
    const auto& a = r.stats["act"];
    EXPECT_EQ(a["table_loads"], 3u);
    EXPECT_EQ(a["redundant_table_loads"], 1u);
    EXPECT_EQ(r.stats["act"]["act_tables"]["resident_set"], "small");
    // Each load, once the one before has completed: the ACT sequencer's 100 cycles at 1.2 GHz,
    // then a DMA transfer on engine 15: 1300 ns latency, 4 descriptors x 8 ns and (CAM 4096 +
    // PROFILE n*128 + CONTROL words*32 + BUCKET records*32) / 33 B/ns. The stream's first bundle
    // is fetched 250 ns after its doorbell.
    const auto& rs = model::pwp::builtin_roster(model::pwp::Target::Trainium);
    auto bytes = [&](int i) {
        model::pwp::PackedSet s = model::pwp::read_set(model::pwp::default_catalog_dir() + "/pwp_bin_trainium/" + rs[i].name + ".json");
        return 4096 + 128 * s.manifest.profile_meta_data.size() + 32 * s.manifest.ctl_entry_cnt + 32 * s.manifest.bkt_entry_cnt;
    };
    const double ns = 250 + 3 * (100 / 1.2 + 1300 + 4 * 8) + (2.0 * bytes(0) + bytes(4)) / 33.0;
    EXPECT_NEAR(r.simulated.to_seconds() * 1e9, ns, 0.01);
    EXPECT_EQ(a["table_load_bytes"], 2 * bytes(0) + bytes(4));
}

TEST_F(ActTest, TimingFollowsTheFormula) {
    // One Activate alone, from issue to completion: 100 + 60 + 40 + max(64, ceil(N / rate) x
    // slowdown) cycles, N per partition: fp32 at 1 element per partition per cycle, bf16 in and
    // out at 2 on MARIANA (bf16 in, fp32 out at 1), x2 when the innermost stride is 16 bytes or
    // more. The partition count does not matter.
    struct C {
        std::string dt;
        int out_dt;
        int n;
        int step;
        int nch;
        double cycles;
    };
    for (const C& c : {C{"10", 10, 1024, 1, 128, 200 + 1024}, C{"10", 10, 1024, 1, 1, 200 + 1024}, C{"10", 10, 8192, 1, 128, 200 + 8192},
                       C{"0x66", 6, 16384, 1, 128, 200 + 8192}, C{"0x66", 10, 16384, 1, 128, 200 + 16384}, C{"0x66", 6, 32, 1, 128, 200 + 64},
                       C{"10", 10, 8192, 4, 64, 200 + 16384}}) {
        reset_systemc_context();
        const int out_dt = c.out_dt;
        run(std::string("act load_act_func_set set=4\n") + "act activate func=1 in_bias_dtype=" + c.dt + " out_dtype=" + std::to_string(out_dt) +
            " num_active_channels=" + std::to_string(c.nch) + " bias_src_n=1 scale=1.0 src=sbuf:0:0 src.num=" + std::to_string(c.n) +
            ",1,1 src.step=" + std::to_string(c.step) + ",0,0 dst=sbuf:0:0x20000 dst.num=" + std::to_string(c.n / 16 ? c.n / 16 : 1) + "," +
            std::to_string(c.n / 16 ? 16 : c.n) + ",1 dst.step=1," + std::to_string(c.n / 16 ? c.n / 16 : 1) + ",0\n");
        EXPECT_NEAR(csv_field("act", 1, 7) - csv_field("act", 1, 6), c.cycles, 1.0) << c.dt << " n=" << c.n << " step=" << c.step;
    }
}

TEST_F(ActTest, Errors) {
    std::string a = std::string("act activate func=7 ") + kAct + "scale=1.0 src=sbuf:0:0 src.num=4,1,1 dst=sbuf:0:0x40 dst.num=4,1,1\n";
    EXPECT_NE(error_of(a).find("function id 7 is not in the resident set (no set loaded: load_act_func_set first)"), std::string::npos);
    reset_systemc_context();
    EXPECT_NE(error_of("act load_act_func_set set=4\n" + a).find("function id 7 is not in the resident set small"), std::string::npos);
    reset_systemc_context();
    EXPECT_NE(error_of("act load_act_func_set set=21\n").find("load_act_func_set 21: the roster has 21 sets (0..20)"), std::string::npos);
    reset_systemc_context();
    overrides = {"act.tables.bucket_entries=500"};
    std::string m = error_of("act load_act_func_set set=0\n");
    // (The entry count follows the generated catalog's lut sizes.)
    EXPECT_NE(m.find("set exp_and_others does not fit the ACT BUCKET table: it needs "), std::string::npos) << m;
    EXPECT_NE(m.find(" entries, the configuration has 500"), std::string::npos) << m;
    overrides.clear();
    reset_systemc_context();
    gen = "cayman";
    m = error_of("act activate2 func=1\n");
    EXPECT_NE(m.find("opcode 0x25 does not exist on CAYMAN (NC-v3)"), std::string::npos) << m;
    gen = "mariana";
    reset_systemc_context();
    m = error_of(
        "act load_act_func_set set=4\nact activate func=1 in_bias_dtype=10 out_dtype=10 num_active_channels=64 bias_src_n=1 "
        "src=sbuf:16:0 src.num=4,1,1 dst=sbuf:0:0x40 dst.num=4,1,1\n");
    EXPECT_NE(m.find("src starts at partition 16, but 64 active channels must start at 0 or 64"), std::string::npos) << m;
    reset_systemc_context();
    m = error_of(
        "act load_act_func_set set=4\nact activate func=1 in_bias_dtype=10 out_dtype=10 num_active_channels=1 bias_src_n=1 "
        "src=sbuf:0:0 src.num=4,1,1 dst=sbuf:0:0x40 dst.num=3,1,1\n");
    EXPECT_NE(m.find("src has 4 elements per partition, dst 3"), std::string::npos) << m;
    reset_systemc_context();
    m = error_of(
        "act load_act_func_set set=4\nact activate func=1 in_bias_dtype=1 out_dtype=10 num_active_channels=1 src=sbuf:0:0 src.num=1,1,1 dst=sbuf:0:0x40 dst.num=1,1,1\n");
    EXPECT_NE(m.find("input dtype UINT64 is not an ACT input type"), std::string::npos) << m;
    reset_systemc_context();
    m = error_of(
        "act load_act_func_set set=4\nact activate func=1 in_bias_dtype=10 out_dtype=10 num_active_channels=1 bias_src_n=1 "
        "src=sbuf:0:0x3fff8 src.num=4,1,1 src.step=1,0,0 dst=sbuf:0:0x40 dst.num=4,1,1\n");
    EXPECT_NE(m.find("the pattern touches bytes [262136, 262152) of a 262144-byte sbuf partition"), std::string::npos) << m;
    reset_systemc_context();
    m = error_of("act read_accumulator count=2 dtype=10 num_active_channels=1 dst=sbuf:0:0 dst.num=1\n");
    EXPECT_NE(m.find("dst_element_count is 2, must be 1"), std::string::npos) << m;
}

TEST_F(ActTest, TableMemoryWrittenThroughTheSocketDrivesActivate) {
    // No LoadActFuncSet: a virtual platform writes a CAM entry (func 99 -> slot 0), a PROFILE
    // slot whose four clamps point at bucket 0, and bucket 0 = {d0 = 5} through the TLM socket.
    std::string trace = t.write("x.trace",
                                ".data sbuf:0:0 partitions=1 f32 1 -2\nact activate func=99 in_bias_dtype=10 out_dtype=10 "
                                "num_active_channels=1 bias_src_n=1 scale=1.0 src=sbuf:0:0 src.num=2,1,1 src.step=1,0,0 "
                                "dst=sbuf:0:0x40 dst.num=2,1,1 dst.step=1,0,0\n.dump sbuf:0:0x40 bytes=8 file=o.bin\n");
    model::trace::assemble_trace(trace, t.file("streams"));
    RunOptions o;
    o.out_dir = t.file("out");
    Config cfg = parse_config(builtin_config_text("mariana"), "m");
    TraceHost host("host", cfg, model::trace::list_streams(t.file("streams")), t.file("streams/setup.trace"), o);
    // The table memory window of the mmio socket: CAM, PROFILE, CONTROL, BUCKET back to back.
    const ActTablesConfig& g = cfg.act.tables;
    const uint64_t cam = reg::kActTablesWindow, profile = cam + uint64_t{g.cam_entries} * model::pwp::kCamEntryBytes;
    const uint64_t control = profile + uint64_t{g.profile_slots} * model::pwp::kProfileSlotBytes;
    const uint64_t bucket = control + uint64_t{g.control_entries} * g.control_stride_bytes;
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborated: the sockets are bound; the host's thread waits for run()
    auto poke = [&](uint64_t addr, const std::vector<uint8_t>& bytes) { host.mmio().debug_write(addr, bytes.data(), bytes.size()); };
    poke(cam, {0x21, 99, 0, 0, 0x00, 0xFF, 0, 0, 1});
    std::vector<uint8_t> slot(128, 0);
    slot[36] = 1;  // neg_small_signal_pwl_control = 1 (bucket 1 is zero), the rest bucket 0
    slot[56] = slot[60] = 0;
    poke(profile, slot);
    uint32_t five = model::fp::bits_of(5.0f);
    poke(bucket, {static_cast<uint8_t>(five), static_cast<uint8_t>(five >> 8), static_cast<uint8_t>(five >> 16), static_cast<uint8_t>(five >> 24)});
    host.run();
    EXPECT_EQ(floats(out("o.bin")), (std::vector<float>{5.0f, 5.0f}));
}

}  // namespace
}  // namespace neuronsim::test

namespace neuronsim::test {
namespace {

// A table image read from DRAM is untrusted: counts and indices that do not fit the table
// memory fail the LoadActFuncSet (the error registers latched), never crash the run.
class ActUntrustedImage : public PlatformRunTest {
protected:
    void SetUp() override {
        PlatformRunTest::SetUp();
        overrides = {"memory.dram_bytes=67108864"};
        cfg = platform::parse_config(platform::builtin_config_text("mariana"), "mariana", overrides);
        region = build_act_set_region(cfg, "", cfg.memory.dram_bytes);
    }
    // `bytes` (u32 words) DMA'd from DRAM 0x1000 to `addr`, then set 0 loaded and used.
    std::string poke_then_use(uint64_t addr, const std::vector<uint32_t>& words) {
        std::string t = ".data dram:0x1000 u32";
        for (uint32_t w : words) t += " " + std::to_string(w);
        t += "\ndma0 copy src=dram:0x1000 dst=dram:" + std::to_string(addr) + " partitions=1 bytes=" + std::to_string(4 * words.size()) + " update=0+1\n";
        t += "act load_act_func_set set=0 wait=0>=1\n"
             "act activate func=7 in_bias_dtype=10 out_dtype=10 num_active_channels=128 scale=1.0 bias_src_n=1 src=sbuf:0:0 src.num=16,1,1 src.step=1,0,0 "
             "dst=sbuf:0:0x1000 dst.num=16,1,1 dst.step=1,0,0\n";
        return error_of(t);
    }
    platform::Config cfg;
    ActSetRegion region;
};

TEST_F(ActUntrustedImage, AHugeControlWordCountFailsTheLoad) {
    const uint64_t entry = region.base + offsetof(ActSetEntry, control_words);  // set 0's directory entry
    const std::string m = poke_then_use(entry, {0x7fffffff});
    EXPECT_NE(m.find("engine act, instruction 0"), std::string::npos) << m;
    EXPECT_NE(m.find("gives control_words 2147483647, more than the 512 CONTROL entries (act.tables.control_entries)"), std::string::npos) << m;
}

TEST_F(ActUntrustedImage, ACamEntryPastThePROFILETableFailsTheLoad) {
    ActSetEntry e;
    std::memcpy(&e, region.bytes.data(), sizeof e);
    // CAM entry 64 (of 128) valid, but PROFILE has 64 slots: the image is read from e.image_addr.
    const std::string m = poke_then_use(e.image_addr + 64 * 32 + 8, {1});
    EXPECT_NE(m.find("CAM entry 64 is valid but the PROFILE table has 64 slots"), std::string::npos) << m;
}

TEST_F(ActUntrustedImage, WildControlBasesInEveryProfileSlotEndInAnErrorOrValuesNotACrash) {
    ActSetEntry e;
    std::memcpy(&e, region.bytes.data(), sizeof e);
    std::string t = ".data dram:0x1000 u32 67108864\n";
    const uint32_t slots = e.profile_bytes / 128;
    for (uint32_t s = 0; s < slots; ++s)
        for (int off : {24, 28})  // pwl_control_base_pos, _neg
            t += "dma0 copy src=dram:0x1000 dst=dram:" + std::to_string(e.image_addr + e.cam_bytes + 128 * s + off) + " partitions=1 bytes=4 update=0+1\n";
    t += "act load_act_func_set set=0 wait=0>=" + std::to_string(2 * slots) +
         "\n"
         "act activate func=7 in_bias_dtype=10 out_dtype=10 num_active_channels=128 scale=1.0 bias_src_n=1 src=sbuf:0:0 src.num=16,1,1 src.step=1,0,0 "
         "dst=sbuf:0:0x1000 dst.num=16,1,1 dst.step=1,0,0\n";
    const std::string m = error_of(t);  // the reference's own "unhandled section" for an index past the table, or values
    EXPECT_TRUE(m == "(no error)" || m.find("engine act, instruction 1") != std::string::npos) << m;
}

}  // namespace
}  // namespace neuronsim::test
