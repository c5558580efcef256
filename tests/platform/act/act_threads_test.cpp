// The fast path and host threads of Activate, ActivateQuantize and Activate2 (docs/act-engine.md)
// against the element-by-element kernel on one thread (act_reference_kernel, the oracle): every
// output byte, the accumulators, stats.json, instructions.csv and timeline.json identical for
// run.host_threads 1, 2 and 3, over operand layouts and dtypes that may and may not be batched
// or split across threads.
#include <cmath>
#include <cstring>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/pwp/table_image.h"
#include "model/trace/assembler.h"
#include "neuronsim/registers.h"
#include "platform/config.h"
#include "tests/support/platform_run.h"

namespace neuronsim::test {
namespace {

class ActThreadsTest : public PlatformRunTest {
public:
    using PlatformRunTest::out;
    using PlatformRunTest::t;
};

std::string activate(const std::string& func, const std::string& extra) {
    return "act activate func=" + func + " in_bias_dtype=10 out_dtype=10 bias_src_n=1 " + extra + "\n";
}

// Inputs with specials, NaN payloads, denormals, clamp regions and ordinary values.
std::string inputs(uint32_t partitions, uint32_t n) {
    std::mt19937 rng(42);
    std::vector<uint32_t> u(size_t{partitions} * n);
    for (size_t i = 0; i < u.size(); ++i) {
        switch (rng() % 8) {
            case 0: u[i] = static_cast<uint32_t>(rng()); break;  // any pattern, NaNs included
            case 1: {
                const uint32_t s[] = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00001u, 0xffa00002u, 1, 0x807fffffu};
                u[i] = s[rng() % 8];
                break;
            }
            default: {
                float f = std::normal_distribution<float>(0, 4)(rng);
                std::memcpy(&u[i], &f, 4);
            }
        }
    }
    return std::string(reinterpret_cast<const char*>(u.data()), u.size() * 4);
}

TEST_F(ActThreadsTest, FastPathAndThreadsAreByteIdenticalToTheReferenceKernel) {
    t.write("in.bin", inputs(128, 1024));
    const std::string trace =
        ".data sbuf:0:0x0 partitions=128 file=in.bin\n"
        ".data sbuf:0:0x8000 partitions=128 f32 1.5\n"
        "act load_act_func_set set=0\n"
        // exp, in place, contiguous over 128 partitions with accumulation: batched, threaded.
        + activate("7",
                   "num_active_channels=128 scale=0.5 bias=-0.25 accumulator_cmd=3 src=sbuf:0:0x0 src.num=256,4,1 src.step=1,256,0 "
                   "dst=sbuf:0:0x0 dst.num=256,4,1 dst.step=1,256,0") +
        "act read_accumulator count=1 dtype=10 num_active_channels=128 dst=sbuf:0:0x9000 dst.num=1\n"
        // strided src, scale from a pointer in the same partitions (threads may still split).
        + activate("7",
                   "num_active_channels=128 scale_src=1 scale=sbuf:0:0x8000 src=sbuf:0:0x0 src.num=128,2,1 src.step=2,512,0 "
                   "dst=sbuf:0:0x4000 dst.num=256,1,1 dst.step=1,0,0")
        // dst overlapping src one element on: each store feeds a later load (never batched).
        + activate("7",
                   "num_active_channels=64 scale=1.0 src=sbuf:0:0x4000 src.num=200,1,1 src.step=1,0,0 "
                   "dst=sbuf:0:0x4004 dst.num=200,1,1 dst.step=1,0,0")
        // src partitions 0..63, dst 64..127 in one memory: not split across threads.
        + activate("7",
                   "num_active_channels=64 scale=2.0 src=sbuf:0:0x4000 src.num=256,1,1 src.step=1,0,0 "
                   "dst=sbuf:64:0x4000 dst.num=256,1,1 dst.step=1,0,0")
        // broadcast src (step 0) in place: not batched.
        + activate("7",
                   "num_active_channels=32 scale=1.0 src=sbuf:0:0x4000 src.num=16,1,1 src.step=0,0,0 "
                   "dst=sbuf:0:0x4000 dst.num=16,1,1 dst.step=1,0,0") +
        // Accumulating over 13 partitions (a group of 8 summed together, then 5) from a strided
        // src, and over 20 from partition 32 (8, 8, 4): batched in lane groups, threaded.
        activate("7",
                 "num_active_channels=13 scale=0.25 bias=0.125 accumulator_cmd=3 src=sbuf:0:0x0 src.num=300,2,1 src.step=2,1024,0 "
                 "dst=sbuf:0:0x9100 dst.num=600,1,1 dst.step=1,0,0") +
        "act read_accumulator count=1 dtype=10 num_active_channels=128 dst=sbuf:0:0x9014 dst.num=1\n" +
        activate("7",
                 "num_active_channels=20 scale=-1.0 bias=0.5 accumulator_cmd=3 src=sbuf:32:0x0 src.num=1000,1,1 src.step=1,0,0 "
                 "dst=sbuf:32:0x9100 dst.num=1000,1,1 dst.step=1,0,0") +
        "act read_accumulator count=1 dtype=10 num_active_channels=128 dst=sbuf:0:0x9018 dst.num=1\n"
        // bf16 in, fp16 out, accumulating onto the lanes' sums: batched, threaded.
        +
        "act activate func=7 in_bias_dtype=6 out_dtype=7 bias_src_n=1 num_active_channels=128 scale=0.75 bias=0.5 accumulator_cmd=2 "
        "src=sbuf:0:0x0 src.num=512,1,1 src.step=1,0,0 dst=sbuf:0:0x5000 dst.num=512,1,1 dst.step=1,0,0\n"
        "act read_accumulator count=1 dtype=10 num_active_channels=128 dst=sbuf:0:0x9004 dst.num=1\n"
        // ActivateQuantize: strided src, bias pointer in the same partitions, bf16 out.
        "act activate_quantize func=7 quant_scale=3 dequant_scale=0.5 bias_addr=sbuf:0:0x8000 quant_zero=-2 in_bias_dtype=10 out_dtype=6 "
        "num_active_channels=128 src=sbuf:0:0x0 src.num=64,4,1 src.step=3,256,0 dst=sbuf:0:0x6000 dst.num=256,1,1 dst.step=1,0,0\n"
        // ... in place (the same pattern: batched), and over partitions 64.. from 0.. (in order).
        "act activate_quantize func=7 quant_scale=1 dequant_scale=1 bias_addr=sbuf:0:0x8000 quant_zero=0 in_bias_dtype=10 out_dtype=10 "
        "num_active_channels=64 src=sbuf:0:0x7000 src.num=128,1,1 src.step=1,0,0 dst=sbuf:0:0x7000 dst.num=128,1,1 dst.step=1,0,0\n"
        "act activate_quantize func=7 quant_scale=1 dequant_scale=2 bias_addr=sbuf:0:0x8000 quant_zero=0 in_bias_dtype=10 out_dtype=10 "
        "num_active_channels=64 src=sbuf:0:0x100 src.num=128,1,1 src.step=1,0,0 dst=sbuf:64:0x100 dst.num=128,1,1 dst.step=1,0,0\n"
        // Activate2: mult+add then an add reduction; abs_max over bf16 inputs to fp16; a
        // store one element past its load (not batched).
        "act activate2 func=7 op0=6 op1=4 imm0=0.5 imm1=-1 reduce_cmd=3 reduce_op=4 in_dtype=10 out_dtype=10 num_active_channels=128 "
        "src=sbuf:0:0x0 src.num=256,4 src.step=1,256 dst=sbuf:0:0x6800 dst.num=1024,1 dst.step=1,0\n"
        "act read_accumulator count=1 dtype=10 num_active_channels=128 dst=sbuf:0:0x9008 dst.num=1\n"
        "act activate2 func=7 op0=5 op1=0 imm0=0.25 imm1=0 reduce_cmd=3 reduce_op=10 in_dtype=6 out_dtype=7 num_active_channels=128 "
        "src=sbuf:0:0x0 src.num=1024,1 src.step=1,0 dst=sbuf:0:0x7800 dst.num=1024,1 dst.step=1,0\n"
        "act read_accumulator count=1 dtype=10 num_active_channels=128 dst=sbuf:0:0x900c dst.num=1\n"
        "act activate2 func=7 op0=0 op1=0 reduce_cmd=2 reduce_op=9 in_dtype=10 out_dtype=10 num_active_channels=32 "
        "src=sbuf:0:0x6800 src.num=100,1 src.step=1,0 dst=sbuf:0:0x6804 dst.num=100,1 dst.step=1,0\n"
        "act read_accumulator count=1 dtype=10 num_active_channels=128 dst=sbuf:0:0x9010 dst.num=1\n"
        ".dump sbuf:0:0x0 bytes=45056 partitions=128 file=all.bin\n";
    struct Mode {
        bool reference;
        const char* threads;
    };
    std::map<std::string, std::string> want;
    for (const Mode m : {Mode{true, "1"}, Mode{false, "1"}, Mode{false, "2"}, Mode{false, "3"}}) {
        reset_systemc_context();
        reference_kernel = m.reference;
        overrides = {std::string("run.host_threads=") + m.threads};
        run(trace);
        for (const char* f : {"all.bin", "stats.json", "instructions.csv", "timeline.json"}) {
            const std::string got = out(f);
            if (m.reference) {
                want[f] = got;
                continue;
            }
            ASSERT_EQ(got.size(), want[f].size()) << f;
            EXPECT_TRUE(got == want[f]) << f << " differs with " << m.threads << " thread(s)";
        }
    }
}

// Tables written through the socket (no set loaded, so no CONTROL words): inputs below 1.0
// take the low clamp (bucket 0, d0 = 5), inputs from 1.0 up reach an octave outside the
// table, which the reference rejects. The error must name the same partition and element
// as one thread would meet first, and the table cache must see the socket's writes.
// With `accumulate`, 1024 elements a partition summed into the accumulator (partitions in lane
// groups, batched_lanes): partition 6 fails in the first batch, partition 2 only in the second,
// and partition 2's error is still the one reported.
std::string run_with_hole(ActThreadsTest& self, bool reference, const char* threads, std::string* dump, bool accumulate = false) {
    const uint32_t n = accumulate ? 1024 : 8;
    std::vector<float> in(size_t{128} * n, 0.5f);
    if (!dump && !accumulate) {
        in[5 * 8 + 3] = 1e30f;
        in[9 * 8 + 1] = 2.0f;
        in[100 * 8 + 0] = 3.0f;
    } else if (!dump) {
        in[2 * n + 600] = 1e30f;
        in[6 * n + 3] = 2.0f;
        in[100 * n + 0] = 3.0f;
    }
    self.t.write("in.bin", std::string(reinterpret_cast<const char*>(in.data()), in.size() * 4));
    const std::string count = std::to_string(n), out_at = model::fp::hex(uint64_t{n} * 4);
    const std::string trace = self.t.write(
        "x.trace", ".data sbuf:0:0 partitions=128 file=in.bin\n" +
                       activate("99", "num_active_channels=128 scale=1.0 " + std::string(accumulate ? "accumulator_cmd=3 " : "") + "src=sbuf:0:0 src.num=" +
                                          count + ",1,1 src.step=1,0,0 dst=sbuf:0:" + out_at + " dst.num=" + count + ",1,1 dst.step=1,0,0") +
                       ".dump sbuf:0:" + out_at + " bytes=" + std::to_string(n * 4) + " partitions=128 file=o.bin\n");
    reset_systemc_context();
    model::trace::assemble_trace(trace, self.t.file("streams"));
    platform::RunOptions o;
    o.out_dir = self.t.file("out");
    o.device.act_reference_kernel = reference;
    platform::Config cfg = platform::parse_config(platform::builtin_config_text("mariana"), "m", {std::string("run.host_threads=") + threads});
    platform::TraceHost host("host", cfg, model::trace::list_streams(self.t.file("streams")), self.t.file("streams/setup.trace"), o);
    const platform::ActTablesConfig& g = cfg.act.tables;
    const uint64_t cam = reg::kActTablesWindow, profile = cam + uint64_t{g.cam_entries} * model::pwp::kCamEntryBytes;
    const uint64_t control = profile + uint64_t{g.profile_slots} * model::pwp::kProfileSlotBytes;
    const uint64_t bucket = control + uint64_t{g.control_entries} * g.control_stride_bytes;
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    auto poke = [&](uint64_t addr, const std::vector<uint8_t>& bytes) { host.mmio().debug_write(addr, bytes.data(), bytes.size()); };
    poke(cam, {0x21, 99, 0, 0, 0x00, 0xFF, 0, 0, 1});
    std::vector<uint8_t> slot(128, 0);
    slot[56] = 127;  // small_pos_signal_exp_threshold: below 2^0 the low clamp (bucket 0)
    slot[64] = 255;  // large_pos_signal_exp_threshold: no high clamp for finite inputs
    poke(profile, slot);
    const uint32_t five = model::fp::bits_of(5.0f);
    poke(bucket, {static_cast<uint8_t>(five), static_cast<uint8_t>(five >> 8), static_cast<uint8_t>(five >> 16), static_cast<uint8_t>(five >> 24)});
    try {
        host.run();
    } catch (const Error& e) {
        return e.what();
    }
    if (dump) *dump = self.out("o.bin");
    return "(no error)";
}

TEST_F(ActThreadsTest, AnErrorNamesTheSamePartitionAndElementAsOneThread) {
    const std::string want = run_with_hole(*this, true, "1", nullptr);
    EXPECT_NE(want.find("partition 5, element 3"), std::string::npos) << want;
    for (const char* threads : {"1", "2", "3"}) EXPECT_EQ(run_with_hole(*this, false, threads, nullptr), want) << threads << " thread(s)";
    // Without the failing inputs every element takes the clamp written through the socket.
    std::string a, b;
    EXPECT_EQ(run_with_hole(*this, true, "1", &a), "(no error)");
    EXPECT_EQ(run_with_hole(*this, false, "2", &b), "(no error)");
    EXPECT_EQ(a, b);
    EXPECT_EQ(floats(a)[0], 5.0f);
}

TEST_F(ActThreadsTest, AnErrorInLaneGroupsNamesTheSamePartitionAndElementAsOneThread) {
    const std::string want = run_with_hole(*this, true, "1", nullptr, true);
    EXPECT_NE(want.find("partition 2, element 600"), std::string::npos) << want;
    for (const char* threads : {"1", "2", "3"}) EXPECT_EQ(run_with_hole(*this, false, threads, nullptr, true), want) << threads << " thread(s)";
    std::string a, b;
    EXPECT_EQ(run_with_hole(*this, true, "1", &a, true), "(no error)");
    EXPECT_EQ(run_with_hole(*this, false, "2", &b, true), "(no error)");
    EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace neuronsim::test
