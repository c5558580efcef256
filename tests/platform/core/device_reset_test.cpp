// CONTROL.RESET with work in flight (docs/vp-integration.md, "Reset"): whatever state an engine is in
// (fetching, waiting on a semaphore, executing, its DMA in flight, a table load in flight),
// after the reset every queue is empty and idle, its registers are writable, nothing of
// before ever completes (no semaphore update, no DONE count, no rows of a DMA packet its engine
// had not yet taken up)
// and a fresh program runs normally. Each instruction here takes far longer than the reset.
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "model/trace/trace_reader.h"
#include "neuronsim/act_sets.h"
#include "neuronsim/neuron_core.h"
#include "neuronsim/registers.h"
#include "tests/support/device_host.h"

namespace neuronsim::test {
namespace {

using sc_core::SC_MS;
using sc_core::SC_NS;
using sc_core::SC_US;

// Rows 0x1000.. of DRAM (non-zero) to sbuf partitions 0 and 1.
const std::string kCopy = "dma0 copy src=dram:0x1000 dst=sbuf:0:0x0 partitions=2 bytes=64 src_stride=64";

uint64_t qreg(uint32_t q, uint64_t field) { return reg::kQueues + uint64_t{q} * reg::kQueueStride + field; }

// The ring's bundles, without a doorbell.
void put_ring(TestDram& dram, uint64_t ring, const std::vector<std::string>& lines) {
    for (size_t i = 0; i < lines.size(); ++i)
        dram.put(ring + 64 * i, model::trace::parse_trace_line(lines[i], "test", i + 1, ".")->instruction.bundle.b.data(), 64);
}

void fill_source(TestDram& d) {
    for (int i = 0; i < 128; ++i) d.bytes[0x1000 + i] = static_cast<uint8_t>(i * 3 + 1);
}

// SBUF partition 0's first row, through the window.
std::vector<uint8_t> sbuf_row(Host& h) {
    std::vector<uint8_t> row(64);
    EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, reg::kSbufWindow, row.data(), 64), tlm::TLM_OK_RESPONSE);
    return row;
}

// Right after a RESET: nothing busy, no error, the queue's registers writable, SIZE refused
// outside 2..2^24 (0 divided the ring position once).
void expect_idle_and_writable(Host& h, uint32_t q) {
    EXPECT_EQ(h.rd(reg::kStatus), 0u);
    EXPECT_EQ(h.rd(qreg(q, reg::kQueueStatus)), 0u);
    EXPECT_EQ(h.rd(qreg(q, reg::kQueueHead)), 0u);
    EXPECT_EQ(h.rd(qreg(q, reg::kQueueDoneLo)), 0u);
    uint32_t zero = 0, unaligned = 0x20010;
    EXPECT_EQ(h.access(tlm::TLM_WRITE_COMMAND, qreg(q, reg::kQueueSize), &zero, 4), tlm::TLM_COMMAND_ERROR_RESPONSE);
    EXPECT_EQ(h.access(tlm::TLM_WRITE_COMMAND, qreg(q, reg::kQueueBaseLo), &unaligned, 4), tlm::TLM_COMMAND_ERROR_RESPONSE);
    h.wr(qreg(q, reg::kQueueBaseLo), 0x20000);  // (an error response here: the queue is still busy)
    h.wr(qreg(q, reg::kQueueSize), 16);
}

// After the RESET and `settle` (longer than the old work would have taken): the old work did
// nothing, then a fresh copy runs and lands.
void expect_nothing_old_then_fresh_copy(Host& h, NeuronCore& core, TestDram& dram, uint32_t q, sc_core::sc_time settle) {
    sc_core::wait(settle);
    EXPECT_EQ(h.rd(qreg(q, reg::kQueueDoneLo)), 0u) << "an instruction of before the reset completed";
    EXPECT_EQ(h.rd(reg::kErrorCode), reg::kErrorNone);
    EXPECT_EQ(h.rd(reg::kStatus), 0u);
    EXPECT_EQ(sbuf_row(h), std::vector<uint8_t>(64, 0)) << "a copy of before the reset moved data";
    h.wr(reg::kIrqStatus, ~0u);
    h.run_queue(dram, q, 0x20000, {kCopy});
    EXPECT_EQ(h.wait_irq(reg::kIrqDrained | reg::kIrqError), reg::kIrqDrained);
    EXPECT_EQ(h.rd(qreg(q, reg::kQueueDoneLo)), 1u);
    EXPECT_EQ(sbuf_row(h), std::vector<uint8_t>(dram.bytes.begin() + 0x1000, dram.bytes.begin() + 0x1040));
    (void)core;
}

// A fetch in flight when the host resets: four valid bundles in the ring, one doorbelled.
void reset_during_fetch(const std::function<void(TestDram&)>& slow_dram, std::vector<std::string> overrides, sc_core::sc_time reset_at,
                        sc_core::sc_time settle) {
    bool ran = false;
    run_device(
        "mariana",
        [&](Host& h, TestDram& dram, NeuronCore& core) {
            slow_dram(dram);
            h.wr(reg::kIrqMask, reg::kIrqDrained | reg::kIrqError);
            const uint32_t q = core.queue_index("dma0");
            put_ring(dram, 0x10000, {kCopy, kCopy, kCopy, kCopy});
            h.wr(qreg(q, reg::kQueueBaseLo), 0x10000);
            h.wr(qreg(q, reg::kQueueSize), 16);
            h.wr(qreg(q, reg::kQueueTail), 1);
            sc_core::wait(reset_at);
            EXPECT_NE(h.rd(reg::kStatus) & reg::kStatusBusy, 0u);
            EXPECT_EQ(h.rd(qreg(q, reg::kQueueDoneLo)), 0u) << "the reset came too late to test a fetch in flight";
            h.wr(reg::kControl, reg::kControlReset);
            expect_idle_and_writable(h, q);
            // The DRAM stays slow: the fresh program's fetch and rows take their time too.
            expect_nothing_old_then_fresh_copy(h, core, dram, q, settle);
            ran = true;
        },
        fill_source, overrides);
    EXPECT_TRUE(ran);
}

TEST(DeviceReset, AResetDuringAFetchWhoseMemoryWaitsInsideItsTransportDropsTheBundle) {
    // The fetch starts 250 ns after the doorbell and its transport returns 1 us later.
    reset_during_fetch(
        [](TestDram& d) {
            d.dmi = false;
            d.wait_inside = true;
            d.delay = sc_core::sc_time(1, SC_US);
        },
        {}, sc_core::sc_time(500, SC_NS), sc_core::sc_time(50, SC_US));
}

TEST(DeviceReset, AResetDuringAFetchWhoseMemoryAnnotatesADelayDropsTheBundle) {
    reset_during_fetch(
        [](TestDram& d) {
            d.dmi = false;
            d.delay = sc_core::sc_time(1, SC_MS);
        },
        {}, sc_core::sc_time(500, SC_US), sc_core::sc_time(5, SC_MS));
}

TEST(DeviceReset, AResetBeforeTheDoorbelledBundleIsFetchedDropsIt) {
    reset_during_fetch([](TestDram&) {}, {"device.instruction_fetch_ns=1000000"}, sc_core::sc_time(500, SC_US), sc_core::sc_time(5, SC_MS));
}

TEST(DeviceReset, AResetWhileAnEngineWaitsOnASemaphoreAbandonsTheInstruction) {
    bool ran = false;
    run_device(
        "mariana",
        [&](Host& h, TestDram& dram, NeuronCore& core) {
            h.wr(reg::kIrqMask, reg::kIrqDrained | reg::kIrqError);
            const uint32_t q = core.queue_index("dma0");
            h.run_queue(dram, q, 0x10000, {kCopy + " wait=3>=1 update=4+1"});
            sc_core::wait(5, SC_US);
            EXPECT_EQ(h.rd(qreg(q, reg::kQueueStatus)), reg::kQueueBusy | reg::kQueueWaiting);
            h.wr(reg::kControl, reg::kControlReset);
            expect_idle_and_writable(h, q);
            h.wr(reg::kSemaphores + 4 * 3, 1);  // what the old instruction waited for
            sc_core::wait(20, SC_US);
            EXPECT_EQ(h.rd(reg::kSemaphores + 4 * 4), 0u) << "the abandoned instruction updated its semaphore";
            expect_nothing_old_then_fresh_copy(h, core, dram, q, sc_core::sc_time(1, SC_US));
            ran = true;
        },
        fill_source);
    EXPECT_TRUE(ran);
}

TEST(DeviceReset, AResetWhileActExecutesALongInstructionAbandonsIt) {
    bool ran = false;
    sc_core::sc_time fresh_done;
    // 1M cycles of static overhead at 10 MHz: the instruction completes 105 ms after it issues.
    run_device("mariana",
               [&](Host& h, TestDram& dram, NeuronCore& core) {
                   h.wr(reg::kIrqMask, reg::kIrqDrained | reg::kIrqError);
                   const uint32_t q = core.queue_index("act");
                   h.run_queue(dram, q, 0x10000, {"act read_accumulator count=1 dtype=10 num_active_channels=32 dst=sbuf:0:0x100 dst.num=1 update=4+1"});
                   sc_core::wait(1, SC_MS);
                   EXPECT_EQ(h.rd(qreg(q, reg::kQueueStatus)), reg::kQueueBusy);
                   h.wr(reg::kControl, reg::kControlReset);
                   expect_idle_and_writable(h, q);
                   // A fresh instruction does not wait for the abandoned one's pipeline.
                   const sc_core::sc_time at = sc_core::sc_time_stamp();
                   h.run_queue(dram, q, 0x20000, {"act sync update=5+1"});
                   EXPECT_EQ(h.wait_irq(reg::kIrqDrained | reg::kIrqError), reg::kIrqDrained);
                   fresh_done = sc_core::sc_time_stamp() - at;
                   sc_core::wait(200, SC_MS);  // past the abandoned instruction's completion
                   EXPECT_EQ(h.rd(reg::kSemaphores + 4 * 4), 0u) << "the abandoned instruction updated its semaphore";
                   EXPECT_EQ(h.rd(reg::kSemaphores + 4 * 5), 1u);
                   EXPECT_EQ(h.rd(qreg(q, reg::kQueueDoneLo)), 1u);
                   EXPECT_EQ(h.rd(reg::kErrorCode), reg::kErrorNone);
                   ran = true;
               },
               {}, {"act.clock_ghz=0.01", "act.static_overhead_cycles=1048576"});
    EXPECT_TRUE(ran);
    // The fetch (250 ns) and the sync's 100 cycles at 10 MHz.
    EXPECT_EQ(fresh_done, sc_core::sc_time(250 + 10000, SC_NS));
}

// dma0's copy (updating semaphore 6) reset 20 us in; `after` checks the core 1 ms later, when
// the copy would have ended.
void reset_a_copy_20us_in(const std::vector<std::string>& overrides, const std::function<void(Host&, TestDram&, NeuronCore&, uint32_t)>& after) {
    bool ran = false;
    run_device(
        "mariana",
        [&](Host& h, TestDram& dram, NeuronCore& core) {
            h.wr(reg::kIrqMask, reg::kIrqDrained | reg::kIrqError);
            const uint32_t q = core.queue_index("dma0");
            h.run_queue(dram, q, 0x10000, {kCopy + " update=6+1"});
            sc_core::wait(20, SC_US);
            EXPECT_EQ(h.rd(qreg(q, reg::kQueueStatus)), reg::kQueueBusy);
            h.wr(reg::kControl, reg::kControlReset);
            expect_idle_and_writable(h, q);
            sc_core::wait(1, SC_MS);
            EXPECT_EQ(h.rd(reg::kSemaphores + 4 * 6), 0u) << "the abandoned copy updated its semaphore";
            after(h, dram, core, q);
            ran = true;
        },
        fill_source, overrides);
    EXPECT_TRUE(ran);
}

TEST(DeviceReset, AResetWithADmaInFlightDropsTheRowsNotYetMoved) {
    // The copy's packet is ready 100 us after it is accepted: at the reset its engine has not
    // taken it up, and its rows have not moved.
    reset_a_copy_20us_in({"dma.fixed_overhead_ns=100000"}, [](Host& h, TestDram& dram, NeuronCore& core, uint32_t q) {
        expect_nothing_old_then_fresh_copy(h, core, dram, q, sc_core::SC_ZERO_TIME);
    });
}

TEST(DeviceReset, AResetWhileAPacketStreamsKeepsTheRowsItMoved) {
    // 128 bytes at 0.001 B/ns: the packet, taken up at 1.3 us, streams for 128 us; its rows
    // moved when it was taken up (docs/timing-model.md, "DMA"). The reset drops it: no
    // completion, no semaphore update; the rows stay, and fresh work runs.
    reset_a_copy_20us_in({"dma.bytes_per_ns_per_engine=0.001"}, [](Host& h, TestDram& dram, NeuronCore&, uint32_t q) {
        EXPECT_EQ(h.rd(qreg(q, reg::kQueueDoneLo)), 0u) << "the abandoned copy completed";
        EXPECT_EQ(h.rd(reg::kErrorCode), reg::kErrorNone);
        EXPECT_EQ(sbuf_row(h), std::vector<uint8_t>(dram.bytes.begin() + 0x1000, dram.bytes.begin() + 0x1040));
        h.wr(reg::kIrqStatus, ~0u);
        h.run_queue(dram, q, 0x20000, {"dma0 copy src=dram:0x0 dst=sbuf:0:0x0 partitions=1 bytes=4"});
        EXPECT_EQ(h.wait_irq(reg::kIrqDrained | reg::kIrqError), reg::kIrqDrained);
        EXPECT_EQ(h.rd(qreg(q, reg::kQueueDoneLo)), 1u);
    });
}

const std::string kActivate =
    "act activate func=7 in_bias_dtype=10 out_dtype=10 num_active_channels=128 bias_src_n=1 scale=1.0 src=sbuf:0:0 src.num=3,1,1 src.step=1,0,0 "
    "dst=sbuf:0:0x100 dst.num=3,1,1 dst.step=1,0,0";

TEST(DeviceReset, AResetWithATableLoadInFlightLeavesNoSetResident) {
    bool ran = false;
    // The load's DMA takes 1 ms to its first data.
    run_device("mariana",
               [&](Host& h, TestDram& dram, NeuronCore& core) {
                   const ActSetRegion sets = build_act_set_region(core.config(), "", dram.bytes.size());
                   dram.put(sets.base, sets.bytes.data(), sets.bytes.size());
                   h.wr(reg::kActSetsBaseLo, static_cast<uint32_t>(sets.base));
                   h.wr(reg::kActSetsBaseHi, static_cast<uint32_t>(sets.base >> 32));
                   h.wr(reg::kActSetsCount, sets.count);
                   h.wr(reg::kIrqMask, reg::kIrqDrained | reg::kIrqError);
                   const uint32_t q = core.queue_index("act");
                   h.run_queue(dram, q, 0x10000, {"act load_act_func_set set=0"});
                   sc_core::wait(500, SC_US);
                   h.wr(reg::kControl, reg::kControlReset);
                   expect_idle_and_writable(h, q);
                   sc_core::wait(3, SC_MS);  // past the abandoned load's end
                   // No set is resident (the load may have written part of the tables), and the next
                   // table user does not wait for the abandoned load.
                   h.run_queue(dram, q, 0x20000, {kActivate});
                   EXPECT_EQ(h.wait_irq(reg::kIrqDrained | reg::kIrqError), reg::kIrqError);
                   const uint32_t n = h.rd(reg::kErrorMessageLength);
                   std::string msg(n, '\0');
                   h.access(tlm::TLM_READ_COMMAND, reg::kErrorMessage, msg.data(), n);
                   EXPECT_NE(msg.find("no set loaded"), std::string::npos) << msg;
                   // After a second reset a load and its user run.
                   h.wr(reg::kControl, reg::kControlReset);
                   h.run_queue(dram, q, 0x30000, {"act load_act_func_set set=0", kActivate});
                   EXPECT_EQ(h.wait_irq(reg::kIrqDrained | reg::kIrqError), reg::kIrqDrained);
                   EXPECT_EQ(h.rd(qreg(q, reg::kQueueDoneLo)), 2u);
                   ran = true;
               },
               {}, {"dma.fixed_overhead_ns=1000000"});
    EXPECT_TRUE(ran);
}

}  // namespace
}  // namespace neuronsim::test
