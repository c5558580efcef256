// The DMA's copies queued beside the simulation (platform/dma/copies_in_flight.h). Deferred, a
// queued copy is made only when something settles over its bytes, so what each settle makes is
// seen exactly: the copies that write what it reads or writes, or read what it writes, and
// the earlier copies those must follow, in order; nothing else. Background: every copy made, in order,
// by settle_all, on any pool; a settle makes the copy it needs out of turn when nothing queued
// before it touches its bytes, and waits for its turn otherwise.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "model/common/worker_pool.h"
#include "platform/dma/copies_in_flight.h"

namespace neuronsim::platform {
namespace {

using model::isa::MemSpace;
using model::isa::Region;

Region dram(int64_t lo, int64_t hi) { return {MemSpace::Dram, 0, 1, lo, hi}; }
Region sbuf(uint32_t p0, uint32_t p1, int64_t lo, int64_t hi) { return {MemSpace::Sbuf, p0, p1, lo, hi}; }

struct Bytes {
    std::vector<uint8_t> v = std::vector<uint8_t>(64, 0);
    // A copy of `n` bytes from v[src] to v[dst], described by the regions of its two ends.
    void queue(CopiesInFlight& c, size_t src, size_t dst, size_t n, Region from, Region to) { c.post({{v.data() + dst, v.data() + src, n}}, {from}, {to}); }
};

TEST(CopiesInFlight, DeferredASettleMakesTheCopiesOverItsBytesAndThoseTheyFollow) {
    model::WorkerPool pool(2);
    CopiesInFlight c(pool, CopiesInFlight::Mode::Deferred);
    EXPECT_TRUE(c.queuing());
    Bytes b;
    b.v[0] = 1, b.v[1] = 2, b.v[2] = 3;
    b.queue(c, 0, 10, 1, dram(0, 1), sbuf(0, 1, 0, 4));  // #1: sbuf 0 [0, 4)
    b.queue(c, 1, 11, 1, dram(1, 2), sbuf(5, 6, 0, 4));  // #2: sbuf 5
    b.queue(c, 2, 12, 1, dram(2, 3), sbuf(9, 10, 0, 4));  // #3: sbuf 9
    b.queue(c, 10, 13, 1, sbuf(0, 1, 0, 4), sbuf(12, 13, 0, 4));  // #4: reads what #1 writes
    b.queue(c, 13, 14, 1, sbuf(12, 13, 0, 4), sbuf(14, 15, 0, 4));  // #5: reads what #4 writes
    EXPECT_EQ(b.v[10] + b.v[11] + b.v[12] + b.v[13] + b.v[14], 0) << "nothing made before a settle";
    c.settle({sbuf(1, 5, 0, 64)}, {});  // partitions 1-4: no copy's bytes
    EXPECT_EQ(b.v[10] + b.v[11] + b.v[12] + b.v[13] + b.v[14], 0);
    c.settle({sbuf(5, 6, 2, 3)}, {});  // reads what #2 writes: #2 alone
    EXPECT_EQ(b.v[11], 2);
    EXPECT_EQ(b.v[10] + b.v[12] + b.v[13] + b.v[14], 0);
    c.settle({sbuf(14, 15, 0, 1)}, {});  // reads what #5 writes: #1, #4, then #5; not #3
    EXPECT_EQ(b.v[10], 1);
    EXPECT_EQ(b.v[13], 1);
    EXPECT_EQ(b.v[14], 1);
    EXPECT_EQ(b.v[12], 0);
    c.settle_all();
    EXPECT_EQ(b.v[12], 3);
    EXPECT_EQ(c.queued(), 5u);
}

TEST(CopiesInFlight, DeferredWritesWaitForTheCopiesThatReadOrWriteTheirBytes) {
    model::WorkerPool pool(1);
    CopiesInFlight c(pool, CopiesInFlight::Mode::Deferred);
    Bytes b;
    b.v[0] = 7;
    b.queue(c, 0, 20, 1, dram(0, 1), dram(20, 21));
    c.settle({}, {dram(5, 9)});  // neither end
    EXPECT_EQ(b.v[20], 0);
    c.settle({dram(0, 1)}, {});  // reading its source: no wait
    EXPECT_EQ(b.v[20], 0);
    c.settle({}, {dram(0, 1)});  // writing its source: the copy reads the old byte first
    EXPECT_EQ(b.v[20], 7);
    b.queue(c, 0, 21, 1, dram(0, 1), dram(21, 22));
    c.settle({}, {dram(21, 22)});  // writing its destination: the copy first
    EXPECT_EQ(b.v[21], 7);
}

TEST(CopiesInFlight, DeferredCopiesLandInTheOrderQueued) {
    model::WorkerPool pool(1);
    CopiesInFlight c(pool, CopiesInFlight::Mode::Deferred);
    Bytes b;
    b.v[0] = 5;
    b.queue(c, 0, 1, 1, dram(0, 1), dram(1, 2));  // v[1] = v[0]
    b.queue(c, 1, 2, 1, dram(1, 2), dram(2, 3));  // v[2] = v[1]: sees the first copy's byte
    c.settle({dram(2, 3)}, {});
    EXPECT_EQ(b.v[2], 5);
}

TEST(CopiesInFlight, BackgroundEveryCopyLandsInOrderBySettleAll) {
    for (unsigned threads : {1u, 2u, 3u}) {
        model::WorkerPool pool(threads);
        CopiesInFlight c(pool, CopiesInFlight::Mode::Background);
        std::vector<uint8_t> v(4096, 0);
        v[0] = 1;
        // A chain: each copy reads the byte the one before wrote.
        for (size_t i = 1; i < v.size(); ++i)
            c.post({{v.data() + i, v.data() + i - 1, 1}}, {dram(int64_t(i - 1), int64_t(i))}, {dram(int64_t(i), int64_t(i + 1))});
        c.settle_all();
        size_t ones = 0;
        for (uint8_t x : v) ones += x == 1;
        EXPECT_EQ(ones, v.size()) << threads << " threads";
    }
}

// Keeps the pool's first worker busy (as with a large copy) until released, 10 s at most; its
// task has returned before it goes.
struct BusyWorker {
    model::WorkerPool& pool;
    std::atomic<bool> release{false};
    uint64_t task = 0;
    explicit BusyWorker(model::WorkerPool& p) : pool(p) {
        task = pool.post([this] {
            const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (!release && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        });
    }
    ~BusyWorker() {
        release = true;
        pool.wait_task(task);
    }
};

double seconds_since(std::chrono::steady_clock::time_point t0) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }

// Background, the pool's thread busy with an earlier copy: a settle makes the copy it needs
// itself, out of turn, when no copy queued before it touches its bytes; the earlier one
// lands later, on the pool.
TEST(CopiesInFlight, BackgroundASettleMakesACopyOutOfTurnWhenNothingBeforeItTouchesItsBytes) {
    model::WorkerPool pool(2);
    CopiesInFlight c(pool, CopiesInFlight::Mode::Background);
    BusyWorker busy(pool);
    Bytes b;
    b.v[0] = 1, b.v[1] = 2;
    b.queue(c, 0, 10, 1, dram(0, 1), dram(10, 11));  // #1
    b.queue(c, 1, 20, 1, dram(1, 2), dram(20, 21));  // #2: bytes of its own
    const auto t0 = std::chrono::steady_clock::now();
    c.settle({dram(20, 21)}, {});
    EXPECT_LT(seconds_since(t0), 5.0) << "it did not wait for the pool";
    EXPECT_EQ(b.v[20], 2);
    EXPECT_EQ(b.v[10], 0) << "#1 waits for the pool's thread";
    busy.release = true;
    c.settle_all();
    EXPECT_EQ(b.v[10], 1);
    EXPECT_EQ(b.v[20], 2);
}

// ... and waits for its turn when an earlier copy writes what it reads (or the other way):
// the copy it needs sees the earlier one's byte.
TEST(CopiesInFlight, BackgroundACopyOverAnEarlierOnesBytesWaitsForItsTurn) {
    for (const bool reads_what_it_wrote : {true, false}) {
        model::WorkerPool pool(2);
        CopiesInFlight c(pool, CopiesInFlight::Mode::Background);
        BusyWorker busy(pool);
        Bytes b;
        b.v[0] = 1, b.v[10] = 5;
        b.queue(c, 0, 10, 1, dram(0, 1), dram(10, 11));  // #1: v[10] = v[0]
        if (reads_what_it_wrote) b.queue(c, 10, 20, 1, dram(10, 11), dram(20, 21));  // #2: v[20] = v[10], after #1
        else b.queue(c, 30, 0, 1, dram(30, 31), dram(0, 1));  // #2: v[0] = v[30] (0), after #1 read it
        std::thread releaser([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            busy.release = true;
        });
        c.settle({dram(40, 64)}, {dram(40, 64)});  // (bytes no copy touches: no wait, no clock)
        EXPECT_EQ(c.needed_seconds(), 0.0);
        c.settle({reads_what_it_wrote ? dram(20, 21) : dram(0, 1)}, {});
        EXPECT_GE(c.needed_seconds(), 0.1) << "the wait for the pool's thread (released after 0.3 s) is counted";
        if (reads_what_it_wrote) EXPECT_EQ(b.v[20], 1);
        else EXPECT_EQ(b.v[0], 0);
        c.settle_all();
        EXPECT_EQ(b.v[10], 1) << reads_what_it_wrote;
        releaser.join();
    }
}

// A settle that waits for one copy's turn goes on with the copies after it: #2 lands in turn
// (it reads what #1 writes), then #3 and #4, which the pool's thread does not reach (busy
// again), are made by the settle itself.
TEST(CopiesInFlight, BackgroundASettleGoesOnAfterACopyThatLandedInTurn) {
    model::WorkerPool pool(2);
    CopiesInFlight c(pool, CopiesInFlight::Mode::Background);
    auto first = std::make_unique<BusyWorker>(pool);
    Bytes b;
    b.v[0] = 1, b.v[1] = 2, b.v[2] = 3;
    b.queue(c, 0, 10, 1, dram(0, 1), dram(10, 11));  // #1: v[10] = v[0]
    b.queue(c, 10, 20, 1, dram(10, 11), dram(20, 21));  // #2: v[20] = v[10], after #1
    BusyWorker second(pool);
    b.queue(c, 1, 21, 1, dram(1, 2), dram(21, 22));  // #3
    b.queue(c, 2, 22, 1, dram(2, 3), dram(22, 23));  // #4
    std::thread releaser([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        first->release = true;
    });
    const auto t0 = std::chrono::steady_clock::now();
    c.settle({dram(20, 23)}, {});
    EXPECT_LT(seconds_since(t0), 5.0) << "it did not wait for the second busy spell";
    EXPECT_EQ(b.v[20], 1);
    EXPECT_EQ(b.v[21], 2);
    EXPECT_EQ(b.v[22], 3);
    second.release = true;
    releaser.join();
    c.settle_all();
}

// A settle looks back over at most 8 copies held before the one it needs (landed out of turn
// or not): with ten copies of bytes of their own queued behind a busy pool, the ninth is made
// out of turn, the tenth waits for its turn, after the pool has made the first eight.
TEST(CopiesInFlight, BackgroundASettleLooksBackOverEightCopiesAtMost) {
    model::WorkerPool pool(2);
    CopiesInFlight c(pool, CopiesInFlight::Mode::Background);
    BusyWorker busy(pool);
    Bytes b;
    for (int k = 0; k < 10; ++k) {
        b.v[k] = static_cast<uint8_t>(k + 1);
        b.queue(c, k, 20 + k, 1, dram(k, k + 1), dram(20 + k, 21 + k));  // #k+1: v[20 + k] = k + 1
    }
    c.settle({dram(28, 29)}, {});  // #9: eight before it
    EXPECT_EQ(b.v[28], 9);
    for (int k = 0; k < 8; ++k) EXPECT_EQ(b.v[20 + k], 0) << "#" << k + 1 << " waits for the pool's thread";
    std::thread releaser([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        busy.release = true;
    });
    c.settle({dram(29, 30)}, {});  // #10: nine before it, so in turn
    for (int k = 0; k < 10; ++k) EXPECT_EQ(b.v[20 + k], k + 1) << "#" << k + 1 << " landed before #10 was made";
    releaser.join();
    c.settle_all();
}

TEST(CopiesInFlight, InlineQueuesNothing) {
    model::WorkerPool pool(2);
    CopiesInFlight c(pool, CopiesInFlight::Mode::Inline);
    EXPECT_FALSE(c.queuing());
    c.settle_all();  // (nothing to wait for)
    EXPECT_EQ(c.queued(), 0u);
}

}  // namespace
}  // namespace neuronsim::platform
