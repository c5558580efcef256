// Events any distance apart: single instructions of 1 ms and 1 s of simulated time, and a
// semaphore wait across such a gap, finish with the same times whether the run is sliced for
// a stop request (DeviceOptions::cancel set, as `neuronsim run` does) or runs in one piece.
#include <gtest/gtest.h>

#include <atomic>

#include "tests/support/platform_run.h"

namespace neuronsim::test {
namespace {

class LongEvents : public PlatformRunTest {
protected:
    // The simulated time of `trace` run in one piece and sliced; both must agree.
    double both_ways(const std::string& trace) {
        stop = nullptr;
        reset_systemc_context();
        const platform::RunReport whole = run(trace);
        std::atomic<int> never{0};
        stop = &never;
        reset_systemc_context();
        restore_thread_stack_for_asan();
        const platform::RunReport sliced = run(trace);
        EXPECT_EQ(sliced.interrupted, 0);
        EXPECT_EQ(whole.simulated, sliced.simulated);
        EXPECT_EQ(whole.instructions, sliced.instructions);
        EXPECT_EQ(whole.stats.dump(), sliced.stats.dump());
        return whole.simulated.to_seconds();
    }
};

// One DMA copy of `bytes` at 1 byte/us: bytes microseconds of transfer (plus its fixed costs).
std::string slow_copy(uint64_t bytes) { return "dma0 copy src=dram:0x0 dst=dram:0x10000000 partitions=1 bytes=" + std::to_string(bytes) + " update=1+1\n"; }

TEST_F(LongEvents, AOneMillisecondAndAOneSecondDmaFinish) {
    overrides = {"dma.bytes_per_ns_per_engine=0.001"};
    const double ms = both_ways(slow_copy(1000));
    EXPECT_GE(ms, 1e-3);
    EXPECT_LT(ms, 1.01e-3);
    const double s = both_ways(slow_copy(1000000));
    EXPECT_GE(s, 1.0);
    EXPECT_LT(s, 1.0001);
}

TEST_F(LongEvents, AnActivateOfOneSecondFinishes) {
    // 10,027,855 elements per partition at 10 MHz: about 1 s.
    overrides = {"act.clock_ghz=0.01"};
    const double s = both_ways(
        ".data sbuf:0:0x0 f32 0.5\nact load_act_func_set set=10\n"
        "act activate func=23 in_bias_dtype=0xaa out_dtype=10 num_active_channels=1 scale=1 bias=0 src=sbuf:0:0x0 "
        "src.step=0,0,0 src.num=65535,153,1 dst=sbuf:0:0x100 dst.step=0,0,0 dst.num=65535,153,1\n");
    EXPECT_GE(s, 1.0);
    EXPECT_LT(s, 1.01);
}

TEST_F(LongEvents, AWaitAcrossASecondLongGapFinishes) {
    // POOL waits a second for the DMA's semaphore: the gap between the two events is a second.
    overrides = {"dma.bytes_per_ns_per_engine=0.001"};
    const double s = both_ways(slow_copy(1000000) + "pool ext spec=0 wait=1>=1\n");
    EXPECT_GT(s, 1.0);
}

}  // namespace
}  // namespace neuronsim::test
