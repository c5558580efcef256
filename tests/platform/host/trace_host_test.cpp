// The platform in process: DMA timing, semaphore ordering, deadlock reports, data movement,
// errors naming engine and instruction.
#include <filesystem>
#include <vector>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/trace/assembler.h"
#include "platform/config.h"
#include "platform/host/trace_host.h"
#include "platform/tlm/memory.h"
#include "platform/tlm/zeroed_pages.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"
#include "tests/support/systemc_fixture.h"

namespace neuronsim::test {
namespace {

using namespace platform;

class PlatformTest : public SystemCTest {
protected:
    TempDir t;
    Config cfg = parse_config(builtin_config_text("cayman"), "cayman", {"dma.fixed_overhead_ns=1000", "dma.bytes_per_ns_per_engine=32"});

    RunReport run(const std::string& trace_text, bool skip_unknown = false) {
        DeviceOptions d;
        d.skip_unknown = skip_unknown;
        return run_with(trace_text, d);
    }
    RunReport run_with(const std::string& trace_text, const DeviceOptions& device) {
        std::string trace = t.write("x.trace", trace_text);
        model::trace::assemble_trace(trace, t.file("streams"));
        RunOptions o;
        o.out_dir = t.file("out");
        o.device = device;
        TraceHost host("host", cfg, model::trace::list_streams(t.file("streams")), t.file("streams/setup.trace"), o);
        return host.run();
    }
    std::string t_file(const std::string& f) { return t.file(f); }
    std::string error_of(const std::string& trace_text) {
        try {
            run(trace_text);
        } catch (const Error& e) {
            return e.what();
        }
        return "(no error)";
    }
};

// CAYMAN with a 1000 ns trigger-to-data latency and 32 B/ns engines (11 ns descriptors). Every
// stream's first bundle is fetched 250 ns after its doorbell.
TEST_F(PlatformTest, DmaTimeIsLatencyThenDescriptorsAndBytesOnTheEngines) {
    RunReport r = run("dma0 copy src=dram:0x0 dst=sbuf:0:0 partitions=4 bytes=1024\n");
    // 250 + 1000 + 4 x 11 + 4096 B / 32 B/ns.
    EXPECT_EQ(r.simulated, sc_core::sc_time(250 + 1000 + 44 + 128, sc_core::SC_NS));
    EXPECT_EQ(r.stats["dma"]["bytes"], 4096u);
    EXPECT_EQ(r.stats["dma"]["engines"]["0"]["descriptors"], 4u);
    // Spread (dma.0): partitions 0..3 are engine 0's (8 partitions an engine): the same.
    reset_systemc_context();
    r = run("dma copy src=dram:0x0 dst=sbuf:0:0 partitions=4 bytes=1024\n");
    EXPECT_EQ(r.simulated, sc_core::sc_time(250 + 1000 + 44 + 128, sc_core::SC_NS));
    // 16 partitions spread: engines 0 and 1 move 8 rows each at once; pinned: one engine all 16.
    reset_systemc_context();
    r = run("dma copy src=dram:0x0 dst=sbuf:0:0 partitions=16 bytes=1024 src_stride=1024\n");
    EXPECT_EQ(r.simulated, sc_core::sc_time(250 + 1000 + 8 * 11 + 8192 / 32, sc_core::SC_NS));
    EXPECT_EQ(r.stats["dma"]["engines"]["1"]["descriptors"], 8u);
    reset_systemc_context();
    r = run("dma5 copy src=dram:0x0 dst=sbuf:0:0 partitions=16 bytes=1024 src_stride=1024\n");
    EXPECT_EQ(r.simulated, sc_core::sc_time(250 + 1000 + 16 * 11 + 16384 / 32, sc_core::SC_NS));
    EXPECT_EQ(r.stats["dma"]["engines"]["5"]["descriptors"], 16u);
}

TEST_F(PlatformTest, OneEngineServesItsQueuesInTurnTheLatencyOverlaps) {
    // Two queues of engine 0: both transfers wait out their latency together, then the engine
    // serves one, then the other (111 ns each); on two engines they move at once.
    RunReport same =
        run("dma0 copy src=dram:0x0 dst=sbuf:0:0 partitions=1 bytes=3200\n"
            "dma0.1 copy src=dram:0x0 dst=sbuf:1:0 partitions=1 bytes=3200\n");
    EXPECT_EQ(same.simulated, sc_core::sc_time(250 + 1000 + 2 * 111, sc_core::SC_NS));
    reset_systemc_context();
    RunReport two =
        run("dma0 copy src=dram:0x0 dst=sbuf:0:0 partitions=1 bytes=3200\n"
            "dma1 copy src=dram:0x0 dst=sbuf:1:0 partitions=1 bytes=3200\n");
    EXPECT_EQ(two.simulated, sc_core::sc_time(250 + 1000 + 111, sc_core::SC_NS));
    // Back to back on one queue: the second trigger follows the first by the Sync engine's
    // 100 cycles (0.96 GHz), so its latency ends at 1354.2 ns, while the engine still moves the
    // first (until 1361): it follows at once. Serial latencies would end at 2472.
    reset_systemc_context();
    RunReport queue =
        run("dma0 copy src=dram:0x0 dst=sbuf:0:0 partitions=1 bytes=3200\n"
            "dma0 copy src=dram:0x0 dst=sbuf:1:0 partitions=1 bytes=3200\n");
    EXPECT_EQ(queue.simulated, sc_core::sc_time(250 + 1000 + 2 * 111, sc_core::SC_NS));
    // An engine that accepts one packet at a time starts the second's latency when the first ends.
    cfg =
        parse_config(builtin_config_text("cayman"), "cayman", {"dma.fixed_overhead_ns=1000", "dma.bytes_per_ns_per_engine=32", "dma.outstanding_per_engine=1"});
    reset_systemc_context();
    RunReport serial =
        run("dma0 copy src=dram:0x0 dst=sbuf:0:0 partitions=1 bytes=3200\n"
            "dma0 copy src=dram:0x0 dst=sbuf:1:0 partitions=1 bytes=3200\n");
    EXPECT_EQ(serial.simulated, sc_core::sc_time(250 + 2 * (1000 + 111), sc_core::SC_NS));
}

TEST_F(PlatformTest, ADeepQueueDoesNotHoldAnotherQueuesLatencyBack) {
    // 40 transfers of 128 x 4 KiB on dma.0 fill every engine's 16 accepted packets; a copy on
    // dma.1 triggered after them (behind 45 syncs) is accepted at the next free slot, round-robin,
    // not after the 24 packets of dma.0 still waiting on its engine.
    cfg = parse_config(builtin_config_text("cayman"), "cayman");
    std::string t;
    for (int i = 0; i < 40; ++i) t += "dma.0 copy src=dram:0x0 dst=sbuf:0:0x0 partitions=128 bytes=4096 src_stride=4096\n";
    for (int i = 0; i < 45; ++i) t += "dma.1 sync\n";
    t += "dma.1 copy src=dram:0x0 dst=sbuf:0:0x8000 partitions=8 bytes=4096 src_stride=4096\n";
    run(t);
    std::string csv = read_file(t_file("out/instructions.csv"));
    const size_t at = csv.find("\ndma.1,45,");
    ASSERT_NE(at, std::string::npos) << csv;
    double start = 0, end = 0;
    ASSERT_EQ(std::sscanf(csv.c_str() + at + 1, "dma.1,45,0xd1,copy,%lf,%lf", &start, &end), 2);
    // A packet of 8 rows of 4 KiB takes 8 x (4096 / 23 + 11) = 1513 ns: a free slot, the latency,
    // one turn of dma.0 and its own.
    EXPECT_LT(end - start, 1513 + 1300 + 2 * 1513 + 1);
}

TEST_F(PlatformTest, AFullQueueIsAStallOnActAndPoolToo) {
    cfg = parse_config(builtin_config_text("cayman"), "cayman", {"dma.queue_depth=1"});
    run("act copy src=dram:0x0 dst=sbuf:0:0x0 partitions=1 bytes=64\nact copy src=dram:0x0 dst=sbuf:0:0x40 partitions=1 bytes=64\n"
        "pool copy src=dram:0x0 dst=sbuf:1:0x0 partitions=1 bytes=64\npool copy src=dram:0x0 dst=sbuf:1:0x40 partitions=1 bytes=64\n");
    const std::string csv = read_file(t_file("out/instructions.csv"));
    EXPECT_NE(csv.find("act,1,0xd1,copy,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("busy queue act"), std::string::npos) << csv;
    EXPECT_NE(csv.find("busy queue pool"), std::string::npos) << csv;
}

TEST_F(PlatformTest, SemaphoreWaitsOrderEnginesAsWritten) {
    // dma1 must start after dma0 finished, act after dma1: the copies chain through SBUF.
    RunReport r =
        run(".data dram:0x0 u32 0x11223344\n"
            "dma0 copy src=dram:0x0 dst=sbuf:5:0x0 partitions=1 bytes=4 update=3+1\n"
            "dma1 copy src=sbuf:5:0 dst=psum:9:0x8 partitions=1 bytes=4 wait=3>=1 update=4+1\n"
            "act sync wait=4==1\n"
            ".dump psum:9:0x8 bytes=4 file=p.bin\n");
    // Each copy: 1000 + 11 + 4/32 ns; each hand-off 20 ns; the sync 100 ACT cycles at 1.2 GHz.
    const double one = 1000 + 11 + 4.0 / 32;
    EXPECT_NEAR(r.simulated.to_seconds() * 1e9, 250 + 2 * one + 2 * 20 + 100 / 1.2, 1e-3);
    EXPECT_EQ(read_file(t.file("out/p.bin")), std::string("\x44\x33\x22\x11", 4));
    std::string csv = read_file(t.file("out/instructions.csv"));
    EXPECT_NE(csv.find("dma1,0,0xd1,copy,1281.125,2292.250"), std::string::npos) << csv;
    EXPECT_NE(csv.find("act,0,0xa0,sync,2312.250,2395.583"), std::string::npos) << csv;
    EXPECT_EQ(r.stats["act"]["stalled_ps"], 2312250u - 250000u);
}

// Hazards (docs/hazards.md). An activation reading what a DMA still writes, with no semaphore
// between them: a read after write, both named by their trace lines; in this run the copy
// (1000 ns + 128 x 11 ns + 128 KiB at 32 B/ns on one engine) is still moving when ACT, after
// its table load, issues.
const char* const kActReadsADmaInFlight =
    "dma0 copy src=dram:0x0 dst=sbuf:0:0x0 partitions=128 bytes=1024 src_stride=1024%s\n"
    "act load_act_func_set set=exp_and_others\n"
    "act activate func=exp num_active_channels=128 scale=1.0 bias=0 bias_src_n=immediate in_bias_dtype=fp32:fp32 out_dtype=fp32 src=sbuf:0:0x0 "
    "src.step=1,0,0 src.num=256,1,1 dst=sbuf:0:0x4000 dst.step=1,0,0 dst.num=256,1,1%s\n";

std::string act_reads_dma(const char* update, const char* wait) {
    char b[1024];
    std::snprintf(b, sizeof b, kActReadsADmaInFlight, update, wait);
    return b;
}

TEST_F(PlatformTest, AnActivationReadingADmaInFlightIsAReadAfterWrite) {
    RunReport r = run(act_reads_dma("", ""));
    ASSERT_EQ(r.hazards.size(), 1u) << (r.hazard_text.empty() ? "" : r.hazard_text[0]);
    const Hazard& h = r.hazards[0];
    EXPECT_EQ(h.kind, "read after write");
    EXPECT_EQ(h.first.engine, "dma0");
    EXPECT_EQ(h.first.index, 0u);
    EXPECT_EQ(h.second.engine, "act");
    EXPECT_EQ(h.second.index, 1u);
    EXPECT_EQ(h.memory, "sbuf");
    EXPECT_EQ(h.partition_first, 0u);
    EXPECT_EQ(h.partition_last, 127u);
    EXPECT_EQ(h.byte_first, 0u);
    EXPECT_EQ(h.byte_end, 1024u);
    ASSERT_TRUE(h.first.completed);
    EXPECT_GT(h.first.end_ps, h.second.issue_ps);
    // The copy completes at 250 + 1000 + 128 x 11 + 131072 / 32 ns.
    EXPECT_EQ(r.hazard_text[0],
              "read after write: act#1 (activate, " + t.file("x.trace") + ":3) reads sbuf partitions 0-127 bytes [0x0, 0x400), which dma0#0 (copy, " +
                  t.file("x.trace") +
                  ":1) writes, and no semaphore orders them; in this run they overlapped: dma0#0 completed at 6754.000 ns, after act#1 issued "
                  "at 2502.333 ns");
    EXPECT_EQ(r.stats["hazards"]["checked"], true);
    EXPECT_EQ(r.stats["hazards"]["read_after_write"], 1u);
    EXPECT_EQ(r.stats["hazards"]["unwritten_reads"], 0u);
}

TEST_F(PlatformTest, TheSemaphoreThatOrdersThemLeavesNoHazard) {
    RunReport r = run(act_reads_dma(" update=3+1", " wait=3>=1"));
    EXPECT_TRUE(r.hazards.empty()) << r.hazard_text[0];
    EXPECT_EQ(r.stats["hazards"]["read_after_write"], 0u);
    // The same with the wait on another semaphore: still unordered.
    reset_systemc_context();
    r = run(act_reads_dma(" update=3+1", " wait=4>=0"));
    EXPECT_EQ(r.hazards.size(), 1u);
}

TEST_F(PlatformTest, ATimingOnlyRunFindsTheSameHazards) {
    DeviceOptions d;
    d.timing_only = true;
    RunReport r = run_with(act_reads_dma("", ""), d);
    ASSERT_EQ(r.hazards.size(), 1u);
    EXPECT_EQ(r.hazards[0].kind, "read after write");
}

TEST_F(PlatformTest, HazardsOffLooksForNone) {
    DeviceOptions d;
    d.hazards = DeviceOptions::Hazards::Off;
    RunReport r = run_with(act_reads_dma("", ""), d);
    EXPECT_TRUE(r.hazards.empty());
    EXPECT_EQ(r.stats["hazards"]["checked"], false);
    EXPECT_EQ(r.stats["hazards"]["read_after_write"], 0u);
}

TEST_F(PlatformTest, AReadOfBytesNothingWroteIsReportedAndTheTracesDataCountsAsWritten) {
    // The source rows and the bias pointer span partitions 0-3; .data wrote partitions 0 and 1 only.
    RunReport r =
        run(".data sbuf:0:0x100 f32 1.0 2.0\n"
            ".data sbuf:1:0x100 f32 1.0 2.0\n"
            ".data sbuf:0:0x8000 f32 0.5\n"
            ".data sbuf:1:0x8000 f32 0.5\n"
            "act load_act_func_set set=exp_and_others\n"
            "act activate func=exp num_active_channels=4 scale=1.0 bias_src_n=0 bias=sbuf:0:0x8000 in_bias_dtype=fp32:fp32 out_dtype=fp32 "
            "src=sbuf:0:0x100 src.step=1,0,0 src.num=2,1,1 dst=sbuf:0:0x200 dst.step=1,0,0 dst.num=2,1,1\n");
    ASSERT_EQ(r.hazards.size(), 1u) << r.hazard_text[0];
    const Hazard& h = r.hazards[0];
    EXPECT_EQ(h.kind, "read of unwritten bytes");
    EXPECT_EQ(h.partition_first, 2u);
    EXPECT_EQ(h.partition_last, 3u);
    // One report of the instruction, over the bounding box of its src rows and bias values in
    // partitions 2-3.
    EXPECT_EQ(r.hazard_text[0], "read of unwritten bytes: act#1 (activate, " + t.file("x.trace") +
                                    ":6) reads bytes that nothing had written, within sbuf partitions 2-3 bytes [0x100, 0x8004)");
}

// An engine goes on without the copies it triggers (ACT's hardware DGE, POOL's software DGE):
// its own next instruction reading what the copy writes races it unless a wait orders them.
TEST_F(PlatformTest, AnEnginesOwnCopyIsNotOrderedBeforeItsNextInstruction) {
    cfg = parse_config(builtin_config_text("mariana"), "mariana", {"dma.fixed_overhead_ns=1000", "dma.bytes_per_ns_per_engine=32"});
    RunReport r =
        run("act load_act_func_set set=exp_and_others\n"
            "act copy src=dram:0x0 dst=sbuf:0:0x0 partitions=128 bytes=512 src_stride=0\n"
            "act activate func=exp num_active_channels=128 scale=1.0 bias=0 bias_src_n=immediate in_bias_dtype=fp32:fp32 out_dtype=fp32 src=sbuf:0:0x0 "
            "src.step=1,0,0 src.num=128,1,1 dst=sbuf:0:0x1000 dst.step=1,0,0 dst.num=128,1,1\n");
    ASSERT_EQ(r.hazards.size(), 1u);
    EXPECT_EQ(r.hazards[0].kind, "read after write");
    EXPECT_EQ(r.hazards[0].first.engine, "act");
    EXPECT_EQ(r.hazards[0].first.index, 1u);
    EXPECT_EQ(r.hazards[0].second.index, 2u);
    EXPECT_NE(r.hazard_text[0].find("in this run they overlapped"), std::string::npos) << r.hazard_text[0];
    // The copy's update waited for by the activation orders them.
    reset_systemc_context();
    r =
        run("act load_act_func_set set=exp_and_others\n"
            "act copy src=dram:0x0 dst=sbuf:0:0x0 partitions=128 bytes=512 src_stride=0 update=5+1\n"
            "act activate func=exp num_active_channels=128 scale=1.0 bias=0 bias_src_n=immediate in_bias_dtype=fp32:fp32 out_dtype=fp32 src=sbuf:0:0x0 "
            "src.step=1,0,0 src.num=128,1,1 dst=sbuf:0:0x1000 dst.step=1,0,0 dst.num=128,1,1 wait=5>=1\n");
    EXPECT_TRUE(r.hazards.empty()) << r.hazard_text[0];
    // Two copies of one engine's queue are in order.
    reset_systemc_context();
    r =
        run(".data sbuf:0:0x0 u32 1\n"
            "pool copy src=dram:0x0 dst=sbuf:0:0x100 partitions=1 bytes=4\n"
            "pool copy src=sbuf:0:0x100 dst=dram:0x1000 partitions=1 bytes=4\n");
    EXPECT_TRUE(r.hazards.empty()) << r.hazard_text[0];
    // POOL's own next instruction (an ExtendedInstCopy) after its copy: a race.
    reset_systemc_context();
    r =
        run("pool copy src=dram:0x0 dst=sbuf:0:0x0 partitions=128 bytes=4 src_stride=0\n"
            "pool ext spec=1 in_dtype=3 num_active_rows=128 src=sbuf:0:0x0 src.num=4,1 src.step=1,0 dst=sbuf:0:0x100 dst.num=4,1,1 dst.step=1,0,0\n");
    ASSERT_EQ(r.hazards.size(), 1u);
    EXPECT_EQ(r.hazards[0].kind, "read after write");
    EXPECT_EQ(r.hazards[0].first.engine, "pool");
    EXPECT_EQ(r.hazards[0].second.engine, "pool");
}

TEST_F(PlatformTest, AFailedRunNamesTheHazardsFoundBeforeIt) {
    const std::string e = error_of(
        "dma0 copy src=dram:0x0 dst=sbuf:0:0x0 partitions=1 bytes=4\n"
        "dma1 copy src=sbuf:0:0x0 dst=dram:0x100 partitions=1 bytes=4\n"
        "act sync wait=7>=1\n");  // nothing updates semaphore 7: a deadlock
    EXPECT_NE(e.find("deadlock"), std::string::npos) << e;
    EXPECT_NE(e.find(" found before it, docs/hazards.md; the first: "), std::string::npos) << e;
}

// The semaphore's release reaches the waiter when the hand-off lands: a wait that held on an
// earlier update (before the hand-off of the one that matters) does not acquire it.
TEST_F(PlatformTest, AWaitAcquiresOnlyUpdatesItCouldSee) {
    // dma0 and dma1 both count on semaphore 3; act waits for >= 1 and reads what dma1 wrote:
    // dma0's update alone satisfies it, in this run too (dma1's copy is 64 times longer).
    RunReport r =
        run(".data sbuf:0:0x8000 f32 0\n"
            "dma0 copy src=dram:0x0 dst=sbuf:0:0x0 partitions=1 bytes=4 update=3+1\n"
            "dma1 copy src=dram:0x0 dst=sbuf:0:0x100 partitions=1 bytes=256 update=3+1\n"
            "act sync wait=3>=1\n"
            "act copy src=sbuf:0:0x100 dst=dram:0x2000 partitions=1 bytes=4 update=9+1\n");
    ASSERT_EQ(r.hazards.size(), 1u) << "a wait acquires the releases visible when it holds, not dma1's later one";
    EXPECT_EQ(r.hazards[0].first.engine, "dma1");
}

TEST_F(PlatformTest, AWriteOverWhatAnotherEngineStillReadsIsAWriteAfterRead) {
    // dma1 stores a tile while dma0 loads the next into the same slot with no semaphore (after
    // a copy elsewhere: its trigger comes a sequencer slot later than dma1's).
    RunReport r =
        run(".data sbuf:0:0x0 u32 1\n"
            "dma1 copy src=sbuf:0:0x0 dst=dram:0x10000 partitions=1 bytes=4\n"
            "dma0 copy src=dram:0x0 dst=sbuf:0:0x100 partitions=1 bytes=4\n"
            "dma0 copy src=dram:0x0 dst=sbuf:0:0x0 partitions=1 bytes=4\n");
    ASSERT_EQ(r.hazards.size(), 1u);
    EXPECT_EQ(r.hazards[0].kind, "write after read");
    EXPECT_EQ(r.hazards[0].first.engine, "dma1");
    EXPECT_EQ(r.hazards[0].second.engine, "dma0");
}

// One alignment rule for every ACT operand (docs/act-engine.md): a tensor like a pointer starts
// at a multiple of its element size.
const char* const kAlignHead =
    "act load_act_func_set set=exp_and_others\n"
    "act activate func=exp num_active_channels=1 scale=1.0 src.step=1,0,0 src.num=2,1,1 dst.step=1,0,0 dst.num=2,1,1 ";

TEST_F(PlatformTest, AMisalignedFp32SourceIsRefused) {
    EXPECT_NE(error_of(std::string(kAlignHead) + "bias=0 bias_src_n=immediate in_bias_dtype=fp32:fp32 out_dtype=fp32 src=sbuf:0:0x2 dst=sbuf:0:0x100\n")
                  .find("src sbuf:0:0x2 is not 4-byte aligned"),
              std::string::npos);
}

TEST_F(PlatformTest, AMisalignedFp32DestinationIsRefused) {
    EXPECT_NE(error_of(std::string(kAlignHead) + "bias=0 bias_src_n=immediate in_bias_dtype=fp32:fp32 out_dtype=fp32 src=sbuf:0:0x0 dst=sbuf:0:0x102\n")
                  .find("sbuf:0:0x102 is not 4-byte aligned"),
              std::string::npos);
}

TEST_F(PlatformTest, Bf16AtATwoByteOffsetIsAligned) {
    EXPECT_EQ(error_of(std::string(kAlignHead) + "bias=0 bias_src_n=immediate in_bias_dtype=bf16:fp32 out_dtype=bf16 src=sbuf:0:0x2 dst=sbuf:0:0x102\n"),
              "(no error)");
}

TEST_F(PlatformTest, AMisalignedBiasPointerIsRefusedAsBefore) {
    EXPECT_NE(
        error_of(std::string(kAlignHead) + "bias=sbuf:0:0x202 bias_src_n=pointer in_bias_dtype=fp32:fp32 out_dtype=fp32 src=sbuf:0:0x0 dst=sbuf:0:0x100\n")
            .find("is not 4-byte aligned"),
        std::string::npos);
}

// A DMA chunk whose DMI regions are resolved before it is copied, on a port whose cache of 64
// regions is full: the copy's own grants drop the oldest regions, here the very pages its
// source lies in (cached by the first copy, before 60 others), which are then resolved again.
// Every byte arrives.
TEST_F(PlatformTest, ACopyWhoseRegionsLeaveThePortsCacheMovesEveryByte) {
    std::string in(9u << 20, '\0');
    uint32_t x = 12345;
    for (char& c : in) c = static_cast<char>((x = x * 1103515245u + 12345u) >> 24);
    t.write("in.bin", in);
    run(".data dram:0x0 file=in.bin\n"
        "dma.0 copy src=dram:0x50000 dst=sbuf:0:0x0 partitions=2 bytes=0x20000 src_stride=0x20000 update=1+1\n"  // pages 5..8
        "dma.0 copy src=dram:0x100000 dst=sbuf:2:0x0 partitions=60 bytes=0x10000 src_stride=0x10000 wait=1>=1 update=1+1\n"  // 16..75
        "dma.0 copy src=dram:0x5ff00 dst=dram:0x800000 partitions=1 bytes=0x30000 wait=1>=2\n"  // 5..8 to 128..131
        ".dump dram:0x800000 bytes=0x30000 file=o.bin\n");
    const std::string got = read_file(t.file("out/o.bin"));
    ASSERT_EQ(got.size(), 0x30000u);
    EXPECT_TRUE(got == in.substr(0x5ff00, 0x30000));
}

// A DMA copy promises DRAM (WholeWrite) only the bytes it writes: with every slab in the
// process's memory cache dirty, the pages a copy covers in part read zero around it, and the
// whole page between them holds the copy.
TEST_F(PlatformTest, ACopyPromisesDramOnlyTheBytesItWrites) {
    constexpr uint64_t kPage = 65536;
    platform::set_memory_cache_limit(0);  // the cache emptied, then filled with slabs of 0xab
    platform::set_memory_cache_limit(platform::kDefaultMemoryCacheBytes);
    {
        Memory dirty("dirty", uint64_t{1} << 32);
        const std::vector<uint8_t> page(kPage, 0xab);
        for (uint64_t i = 0; i < 8 * 32; ++i) dirty.write(i * kPage, page.data(), kPage);  // 8 slabs
    }
    std::string in(2 * kPage, '\0');
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<char>(i % 251 + 1);
    t.write("in.bin", in);
    run(".data dram:0x0 file=in.bin\n"
        "dma.0 copy src=dram:0x0 dst=dram:0x100000 partitions=1 bytes=4 update=1+1\n"  // (transactions: DRAM's DMI hint)
        "dma.0 copy src=dram:0x0 dst=dram:0x58000 partitions=1 bytes=0x20000 wait=1>=1\n"  // page 5 from its middle, 6, 7 to its middle
        ".dump dram:0x50000 bytes=0x30000 file=o.bin\n");
    const std::string got = read_file(t.file("out/o.bin"));
    ASSERT_EQ(got.size(), 3 * kPage);
    EXPECT_TRUE(got.substr(0, kPage / 2) == std::string(kPage / 2, '\0'));
    EXPECT_TRUE(got.substr(kPage / 2, 2 * kPage) == in);
    EXPECT_TRUE(got.substr(5 * kPage / 2) == std::string(kPage / 2, '\0'));
}

// DMA copies through DMI, region by region, land as the input says at any host-thread count:
// DRAM rows to SBUF partitions, SBUF back to DRAM rows further apart than their bytes, and rows
// onto one DRAM address (a stride of 0).
TEST_F(PlatformTest, DirectCopiesLandAsTheInputSaysAtAnyThreadCount) {
    std::string in(8u << 20, '\0');
    uint32_t x = 777;
    for (char& c : in) c = static_cast<char>((x = x * 1103515245u + 12345u) >> 24);
    t.write("in.bin", in);
    const std::string trace =
        ".data dram:0x0 file=in.bin\n"
        "dma.0 copy src=dram:0x1234 dst=sbuf:0:0x0 partitions=128 bytes=0xf000 src_stride=0xf100 update=1+1\n"
        "dma.0 copy src=sbuf:0:0x0 dst=dram:0x900000 partitions=128 bytes=0xf000 dst_stride=0x10008 wait=1>=1 update=1+1\n"
        "dma.0 copy src=sbuf:0:0x100 dst=dram:0x1a00000 partitions=128 bytes=0x8000 dst_stride=0 wait=1>=2\n"
        ".dump dram:0x900000 bytes=0x80ff00 file=rows.bin\n"
        ".dump dram:0x1a00000 bytes=0x8000 file=last.bin\n";
    std::string want_rows, want_last;
    for (const char* threads : {"1", "2", "3"}) {
        reset_systemc_context();
        cfg = parse_config(builtin_config_text("cayman"), "cayman", {std::string("run.host_threads=") + threads});
        run(trace);
        const std::string rows = read_file(t.file("out/rows.bin")), last = read_file(t.file("out/last.bin"));
        ASSERT_EQ(rows.size(), 0x80ff00u);
        // Each row r of the SBUF copy is bytes 0x1234 + r x 0xf100 of the input, at r x 0x10008.
        for (uint32_t r = 0; r < 128; ++r)
            ASSERT_TRUE(rows.compare(r * 0x10008, 0xf000, in, 0x1234 + r * 0xf100, 0xf000) == 0) << "row " << r << ", " << threads << " threads";
        if (want_rows.empty()) {
            want_rows = rows, want_last = last;
            continue;
        }
        EXPECT_TRUE(rows == want_rows) << threads << " threads";
        EXPECT_TRUE(last == want_last) << threads << " threads";
    }
}

// A .data file goes straight into DRAM's pages and a DRAM dump comes straight from them: the
// bytes at an address that is not a page's, across pages, come back as they went in; DRAM
// nothing wrote dumps as zeros.
TEST_F(PlatformTest, DataFilesAndDumpsGoStraightThroughDramsPages) {
    std::string in(200000, '\0');
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<char>(i * 13 + 5);
    t.write("in.bin", in);
    const std::string trace =
        ".data dram:0xfff0 file=in.bin\n"
        ".dump dram:0xfff0 bytes=200000 file=back.bin\n"
        ".dump dram:0x400000 bytes=70000 file=zeros.bin\n";
    run(trace);
    EXPECT_TRUE(read_file(t.file("out/back.bin")) == in);
    EXPECT_TRUE(read_file(t.file("out/zeros.bin")) == std::string(70000, '\0'));
}

TEST_F(PlatformTest, DeadlockIsReportedNotHung) {
    std::string m = error_of("act sync wait=1>=1 update=2+1\npool sync wait=2>=1 update=1+1\n");
    EXPECT_NE(m.find("deadlock at 250.000000 ns: no engine can proceed"), std::string::npos) << m;
    // each names its trace line
    EXPECT_NE(m.find("engine act at instruction 0 (" + t.file("x.trace") + ":1) waits for semaphore 1 >= 1, which is 0"), std::string::npos) << m;
    EXPECT_NE(m.find("engine pool at instruction 0 (" + t.file("x.trace") + ":2) waits for semaphore 2 >= 1, which is 0"), std::string::npos) << m;
}

TEST_F(PlatformTest, ErrorsNameEngineAndInstruction) {
    std::string m = error_of(
        "act sync\nact raw raw=47100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\n");
    EXPECT_NE(m.find("engine act, instruction 1 (opcode 0x47"), std::string::npos) << m;
    EXPECT_NE(m.find("opcode 0x47 is not modelled on engine act"), std::string::npos) << m;
    reset_systemc_context();
    m = error_of("dma0 copy src=dram:0x0 dst=sbuf:120:0x0 partitions=16 bytes=4\n");
    EXPECT_NE(m.find("engine dma0, instruction 0"), std::string::npos) << m;
    EXPECT_NE(m.find("sbuf row 8 is partition 128, past the 128 partitions"), std::string::npos) << m;
    reset_systemc_context();
    m = error_of("dma0 copy src=dram:0x0 dst=sbuf:0:0x37ff0 partitions=1 bytes=32\n");
    EXPECT_NE(m.find("row 0: sbuf:0:0x37ff0 + 32 bytes is past the partition's 229376 bytes"), std::string::npos) << m;
    reset_systemc_context();
    m = error_of("dma99 copy src=dram:0x0 dst=sbuf:0:0 partitions=1 bytes=4\n");
    EXPECT_NE(m.find("names DMA engine 99 queue 0, but CAYMAN has 16 engines x 16 queues"), std::string::npos) << m;
    reset_systemc_context();
    m = error_of(".data sbuf:127:0x37ffc u32 1 2\n");
    EXPECT_NE(m.find("x.trace:1: sbuf:127:0x37ffc + 8 bytes is past the partition's 229376 bytes"), std::string::npos) << m;
}

TEST_F(PlatformTest, SkipUnknownCostsTheConfiguredTimeAndIsCounted) {
    RunReport r = run(
        "pool raw raw=47100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\npool raw raw=47100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\n",
        true);
    EXPECT_EQ(r.simulated, sc_core::sc_time(250 + 200, sc_core::SC_NS));  // the fetch, then 2 x run.skip_unknown_cost_ns
    EXPECT_EQ(r.stats["pool"]["skipped_unknown"], 2u);
}

TEST_F(PlatformTest, HaltEndsTheStream) {
    RunReport r = run(
        "act halt\nact raw raw=47100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\n");
    EXPECT_EQ(r.instructions, 1u);
}

}  // namespace
}  // namespace neuronsim::test
