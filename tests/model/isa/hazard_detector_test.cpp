// The hazard detector against the rules of docs/hazards.md, worked by hand: each case is a
// small program of streams, semaphores and byte ranges whose hazards are known.
#include "model/isa/hazard_detector.h"

#include <gtest/gtest.h>

namespace neuronsim::model::isa {
namespace {

using Kind = HazardDetector::Kind;
const std::string kCopy = "copy", kAct = "activate";

Region sbuf(uint32_t p0, uint32_t p1, int64_t lo, int64_t hi) { return {MemSpace::Sbuf, p0, p1, lo, hi}; }

// A tiny driver: instructions issue (acquire, then access) and retire (release to a semaphore
// and publish at once, as with no hand-off latency).
struct Program {
    HazardDetector d;
    int stream(const std::string& n) { return d.stream(n); }
    HazardDetector::Clock issue(int s, uint64_t i, std::vector<Region> reads, std::vector<Region> writes, int wait = -1, uint64_t t = 0) {
        if (wait >= 0) d.acquire(s, static_cast<uint32_t>(wait));
        HazardDetector::Clock k = d.knowledge(s);
        d.access(s, i, t, &kCopy, reads, writes);
        return k;
    }
    void retire(int s, uint64_t i, const HazardDetector::Clock& at_issue, int update = -1, uint64_t end = 0) {
        d.completed(s, i, end);
        if (update >= 0) d.publish(static_cast<uint32_t>(update), d.release(at_issue, s, i));
    }
    // Issues and retires at once.
    void run(int s, uint64_t i, std::vector<Region> reads, std::vector<Region> writes, int wait = -1, int update = -1) {
        retire(s, i, issue(s, i, std::move(reads), std::move(writes), wait), update);
    }
};

TEST(HazardDetector, AReadOfAnUnorderedWriteIsReadAfterWrite) {
    Program p;
    const int dma = p.stream("dma.0"), act = p.stream("act");
    p.d.host_wrote(sbuf(0, 128, 0, 0x1000));
    p.run(dma, 0, {}, {sbuf(0, 128, 0, 0x400)});
    p.run(act, 0, {sbuf(0, 128, 0x200, 0x600)}, {sbuf(0, 128, 0x800, 0x900)});
    ASSERT_EQ(p.d.hazards().size(), 1u);
    const auto& h = p.d.hazards()[0];
    EXPECT_EQ(h.kind, Kind::ReadAfterWrite);
    EXPECT_EQ(h.first.stream, dma);
    EXPECT_EQ(h.second.stream, act);
    // The overlap only: partitions 0-127, bytes [0x200, 0x400).
    EXPECT_EQ(h.where.p0, 0u);
    EXPECT_EQ(h.where.p1, 128u);
    EXPECT_EQ(h.where.lo, 0x200);
    EXPECT_EQ(h.where.hi, 0x400);
    EXPECT_EQ(p.d.count(Kind::ReadAfterWrite), 1u);
}

TEST(HazardDetector, ASemaphoreBetweenThemOrdersThem) {
    Program p;
    const int dma = p.stream("dma.0"), act = p.stream("act");
    p.run(dma, 0, {}, {sbuf(0, 128, 0, 0x400)}, -1, 3);
    p.run(act, 0, {sbuf(0, 128, 0, 0x400)}, {}, 3);
    EXPECT_TRUE(p.d.hazards().empty());
}

TEST(HazardDetector, AWaitOnAnotherSemaphoreDoesNotOrderThem) {
    Program p;
    const int dma = p.stream("dma.0"), act = p.stream("act");
    p.run(dma, 0, {}, {sbuf(0, 128, 0, 0x400)}, -1, 3);
    p.run(act, 0, {sbuf(0, 128, 0, 0x400)}, {}, 4);
    ASSERT_EQ(p.d.hazards().size(), 1u);
}

TEST(HazardDetector, OrderIsTransitiveThroughAThirdStream) {
    // dma.0 writes, pool waits for it and updates another semaphore, act waits for pool: act's
    // read is ordered after dma.0's write with no semaphore between the two directly.
    Program p;
    const int dma = p.stream("dma.0"), pool = p.stream("pool"), act = p.stream("act");
    p.run(dma, 0, {}, {sbuf(0, 1, 0, 64)}, -1, 0);
    p.run(pool, 0, {}, {}, 0, 1);
    p.run(act, 0, {sbuf(0, 1, 0, 64)}, {}, 1);
    EXPECT_TRUE(p.d.hazards().empty());
}

TEST(HazardDetector, AnEarlierInstructionOfTheWaitingStreamIsOrderedToo) {
    // act#0 waits for dma.0#0; act#1 (no wait of its own) comes after it in program order.
    Program p;
    const int dma = p.stream("dma.0"), act = p.stream("act");
    p.run(dma, 0, {}, {sbuf(0, 1, 0, 64)}, -1, 0);
    p.run(act, 0, {}, {}, 0);
    p.run(act, 1, {sbuf(0, 1, 0, 64)}, {});
    EXPECT_TRUE(p.d.hazards().empty());
}

TEST(HazardDetector, AnUpdateReleasesWhatItsInstructionKnewNotWhatLaterOnesAcquired) {
    // pool#0 updates semaphore 2 but retires only after pool#1 has waited for dma.0 (an
    // instruction may complete after later ones issued). act, waiting on semaphore 2, learns
    // pool#0 and what came before it, not dma.0: its read races dma.0's write.
    Program p;
    const int dma = p.stream("dma.0"), pool = p.stream("pool"), act = p.stream("act");
    const auto k0 = p.issue(pool, 0, {}, {});
    p.run(dma, 0, {}, {sbuf(0, 1, 0, 64)}, -1, 1);
    p.issue(pool, 1, {}, {}, 1);
    p.retire(pool, 0, k0, 2);
    p.run(act, 0, {sbuf(0, 1, 0, 64)}, {}, 2);
    ASSERT_EQ(p.d.hazards().size(), 1u);
    EXPECT_EQ(p.d.hazards()[0].kind, Kind::ReadAfterWrite);
    EXPECT_EQ(p.d.hazards()[0].first.stream, dma);
}

TEST(HazardDetector, AnUpdateReleasesEveryEarlierInstructionOfItsStream) {
    // dma.0#0 writes and updates nothing; dma.0#1 updates: a wait for it orders #0 as well.
    Program p;
    const int dma = p.stream("dma.0"), act = p.stream("act");
    p.run(dma, 0, {}, {sbuf(0, 1, 0, 64)});
    p.run(dma, 1, {}, {sbuf(0, 1, 64, 128)}, -1, 5);
    p.run(act, 0, {sbuf(0, 1, 0, 128)}, {}, 5);
    EXPECT_TRUE(p.d.hazards().empty());
}

TEST(HazardDetector, AWriteOverAnUnorderedReadIsWriteAfterRead) {
    Program p;
    const int act = p.stream("act"), dma = p.stream("dma.1");
    p.d.host_wrote(sbuf(0, 4, 0, 64));
    p.run(act, 0, {sbuf(0, 4, 0, 64)}, {});
    p.run(dma, 0, {}, {sbuf(2, 8, 32, 96)});
    ASSERT_EQ(p.d.hazards().size(), 1u);
    const auto& h = p.d.hazards()[0];
    EXPECT_EQ(h.kind, Kind::WriteAfterRead);
    EXPECT_EQ(h.first.stream, act);
    EXPECT_EQ(h.where.p0, 2u);
    EXPECT_EQ(h.where.p1, 4u);
    EXPECT_EQ(h.where.lo, 32);
    EXPECT_EQ(h.where.hi, 64);
}

TEST(HazardDetector, TwoUnorderedWritesAreWriteAfterWrite) {
    Program p;
    const int a = p.stream("dma.0"), b = p.stream("dma.1");
    p.run(a, 0, {}, {sbuf(0, 1, 0, 64)});
    p.run(b, 0, {}, {sbuf(0, 1, 60, 70)});
    ASSERT_EQ(p.d.hazards().size(), 1u);
    EXPECT_EQ(p.d.hazards()[0].kind, Kind::WriteAfterWrite);
}

TEST(HazardDetector, AStreamsOwnInstructionsAreNeverAHazard) {
    Program p;
    const int act = p.stream("act");
    p.d.host_wrote(sbuf(0, 1, 0, 64));
    p.run(act, 0, {sbuf(0, 1, 0, 64)}, {sbuf(0, 1, 0, 64)});
    p.run(act, 1, {sbuf(0, 1, 0, 64)}, {sbuf(0, 1, 0, 64)});
    EXPECT_TRUE(p.d.hazards().empty());
}

TEST(HazardDetector, TheLastReadOfEachStreamIsChecked) {
    // act reads twice, the second read ordered before dma.1's write by a semaphore; pool's
    // read is not ordered: one write after read, against pool.
    Program p;
    const int act = p.stream("act"), pool = p.stream("pool"), dma = p.stream("dma.1");
    p.d.host_wrote(sbuf(0, 1, 0, 64));
    p.run(act, 0, {sbuf(0, 1, 0, 64)}, {});
    p.run(pool, 0, {sbuf(0, 1, 0, 64)}, {});
    p.run(act, 1, {sbuf(0, 1, 0, 64)}, {}, -1, 7);
    p.run(dma, 0, {}, {sbuf(0, 1, 0, 64)}, 7);
    ASSERT_EQ(p.d.hazards().size(), 1u);
    EXPECT_EQ(p.d.hazards()[0].kind, Kind::WriteAfterRead);
    EXPECT_EQ(p.d.hazards()[0].first.stream, pool);
}

TEST(HazardDetector, ReadsOfBytesNothingWroteAreReported) {
    Program p;
    const int act = p.stream("act");
    p.d.host_wrote(sbuf(0, 128, 0, 0x100));
    p.run(act, 0, {sbuf(0, 128, 0x80, 0x180)}, {});
    ASSERT_EQ(p.d.hazards().size(), 1u);
    const auto& h = p.d.hazards()[0];
    EXPECT_EQ(h.kind, Kind::UninitialisedRead);
    EXPECT_EQ(h.where.lo, 0x100);  // only the part nothing wrote
    EXPECT_EQ(h.where.hi, 0x180);
    EXPECT_EQ(h.where.p1, 128u);
    // DRAM is the host's: never reported as unwritten.
    p.run(act, 1, {{MemSpace::Dram, 0, 1, 0, 4096}}, {});
    EXPECT_EQ(p.d.hazards().size(), 1u);
    // A memory the host can write directly is not reported either.
    p.d.host_has_direct(MemSpace::Psum);
    p.run(act, 2, {{MemSpace::Psum, 0, 1, 0, 64}}, {});
    EXPECT_EQ(p.d.hazards().size(), 1u);
}

TEST(HazardDetector, AfterAResetEverythingBeforeIsOrdered) {
    Program p;
    const int dma = p.stream("dma.0"), act = p.stream("act");
    p.run(dma, 0, {}, {sbuf(0, 1, 0, 64)});
    p.d.reset();
    p.run(act, 0, {sbuf(0, 1, 0, 64)}, {});  // index 0 again
    EXPECT_TRUE(p.d.hazards().empty());
    // Indices count from 0 again, but dma.0's new #0 is a new instruction: unordered.
    p.run(dma, 0, {}, {sbuf(0, 1, 0, 64)});
    ASSERT_EQ(p.d.hazards().size(), 1u);
    EXPECT_EQ(p.d.hazards()[0].kind, Kind::WriteAfterRead);
    EXPECT_EQ(p.d.hazards()[0].second.index, 0u);
    EXPECT_EQ(p.d.hazards()[0].second.seq, 1u);
}

TEST(HazardDetector, AStreamFirstUsedAfterAResetKnowsEverythingBefore) {
    Program p;
    const int dma = p.stream("dma.0");
    p.run(dma, 0, {}, {sbuf(0, 1, 0, 64)});
    p.d.reset();
    const int act = p.stream("act");  // made after the reset
    p.run(act, 0, {sbuf(0, 1, 0, 64)}, {});
    EXPECT_TRUE(p.d.hazards().empty());
}

TEST(HazardDetector, NumbersReleasedBeforeAResetAreNotReused) {
    // dma.0#1 touches no memory but releases "dma.0 up to #1" into semaphore 2 before the
    // reset; after it, dma.0's new #0 and #1 are new instructions, and a wait on semaphore 2
    // (which kept its clock) must not order act after them.
    Program p;
    const int dma = p.stream("dma.0"), act = p.stream("act");
    p.run(dma, 0, {}, {sbuf(0, 1, 0, 64)});
    p.d.issued(dma, 1);
    p.retire(dma, 1, p.d.knowledge(dma), 2);
    p.d.reset();
    p.run(dma, 0, {}, {sbuf(0, 1, 0, 64)});
    p.run(act, 0, {sbuf(0, 1, 0, 64)}, {}, 2);
    ASSERT_EQ(p.d.hazards().size(), 1u);
    EXPECT_EQ(p.d.hazards()[0].first.seq, 2u);  // #0 after the reset is the stream's third
}

TEST(HazardDetector, AnAsyncTransferIsOrderedBeforeItsOwnStreamOnlyByAWait) {
    // act#0 triggers a copy into the bytes act#1 reads: a race unless act#1 waits for an
    // update released at or after act#0; act's later copies are ordered (one queue).
    Program p;
    const int act = p.stream("act");
    p.d.access(act, 0, 0, &kCopy, {}, {sbuf(0, 1, 0, 64)}, true);
    p.d.completed(act, 0, 50);
    p.run(act, 1, {sbuf(0, 1, 0, 64)}, {});
    ASSERT_EQ(p.d.hazards().size(), 1u);
    EXPECT_EQ(p.d.hazards()[0].kind, Kind::ReadAfterWrite);
    p.d.access(act, 2, 0, &kCopy, {sbuf(0, 1, 0, 64)}, {}, true);
    EXPECT_EQ(p.d.hazards().size(), 1u);
    // With a wait: act#3 copies into new bytes and releases semaphore 1; act#4 waits for it.
    p.d.access(act, 3, 0, &kCopy, {}, {sbuf(0, 1, 64, 128)}, true);
    p.d.publish(1, p.d.release(p.d.knowledge(act), act, 3));
    p.run(act, 4, {sbuf(0, 1, 64, 128)}, {}, 1);
    EXPECT_EQ(p.d.hazards().size(), 1u);
}

TEST(HazardDetector, EqualNeighboursMerge) {
    // 1000 writes side by side by one instruction are one cell, and one read over all of
    // them one hazard whose box is the whole range.
    Program p;
    const int dma = p.stream("dma.0"), act = p.stream("act");
    std::vector<Region> w;
    for (int i = 0; i < 1000; ++i) w.push_back(sbuf(0, 1, i * 4, i * 4 + 4));
    p.run(dma, 0, {}, w);
    EXPECT_EQ(p.d.cells(MemSpace::Sbuf, 0), 1u);
    p.run(act, 0, {sbuf(0, 1, 0, 4000)}, {});
    EXPECT_EQ(p.d.cells(MemSpace::Sbuf, 0), 1u);
    p.run(act, 1, {sbuf(0, 1, 100, 200)}, {});  // a newer read of act in the middle: three cells
    EXPECT_EQ(p.d.cells(MemSpace::Sbuf, 0), 3u);
    ASSERT_EQ(p.d.hazards().size(), 2u);  // act#0's read of dma.0's write, and act#1's
    EXPECT_EQ(p.d.hazards()[0].where.lo, 0);
    EXPECT_EQ(p.d.hazards()[0].where.hi, 4000);
}

TEST(HazardDetector, OnePairIsOneHazardOverAllItsBytes) {
    Program p;
    const int dma = p.stream("dma.0"), act = p.stream("act");
    p.run(dma, 0, {}, {sbuf(0, 128, 0, 0x100), sbuf(0, 128, 0x200, 0x300)});
    p.run(act, 0, {sbuf(0, 128, 0, 0x400)}, {});
    // The read of [0x100, 0x200) and [0x300, 0x400) is unwritten; the rest races dma.0.
    ASSERT_EQ(p.d.count(Kind::ReadAfterWrite), 1u);
    for (const auto& h : p.d.hazards())
        if (h.kind == Kind::ReadAfterWrite) {
            EXPECT_EQ(h.where.lo, 0);
            EXPECT_EQ(h.where.hi, 0x300);
        }
    EXPECT_EQ(p.d.count(Kind::UninitialisedRead), 1u);
}

TEST(HazardDetector, TheEarlierOnesCompletionIsKnownOnceItRetires) {
    Program p;
    const int dma = p.stream("dma.0"), act = p.stream("act");
    const auto k = p.issue(dma, 0, {}, {sbuf(0, 1, 0, 64)}, -1, 100);
    p.d.host_wrote(sbuf(0, 1, 64, 128));
    p.issue(act, 0, {sbuf(0, 1, 0, 128)}, {}, -1, 200);
    uint64_t end = 0;
    ASSERT_EQ(p.d.hazards().size(), 1u);
    EXPECT_FALSE(p.d.end_of(p.d.hazards()[0].first, end));
    p.retire(dma, 0, k, -1, 900);
    ASSERT_TRUE(p.d.end_of(p.d.hazards()[0].first, end));
    EXPECT_EQ(end, 900u);
    EXPECT_EQ(p.d.hazards()[0].second.issue_ps, 200u);
}

TEST(HazardDetector, FoundHazardsAreAnnouncedOncePerAccess) {
    Program p;
    std::vector<Kind> seen;
    p.d.on_found = [&](const HazardDetector::Hazard& h) { seen.push_back(h.kind); };
    const int dma = p.stream("dma.0"), act = p.stream("act");
    p.run(dma, 0, {}, {sbuf(0, 128, 0, 64)});
    p.run(act, 0, {sbuf(0, 128, 0, 64)}, {sbuf(0, 128, 0, 64)});
    ASSERT_EQ(seen.size(), 2u);  // one read after write and one write after write, not 128 each
    EXPECT_EQ(seen[0], Kind::ReadAfterWrite);
    EXPECT_EQ(seen[1], Kind::WriteAfterWrite);
}

}  // namespace
}  // namespace neuronsim::model::isa
