#pragma once
// The DMA's copies made beside the simulation (DeviceOptions::dma_copies): a packet's copies
// between DMI regions are queued, in order, at the moment its rows move, and land on a host
// thread of the core's pool while the simulation goes on; whatever touches a memory waits
// first for the queued copies over the bytes it reads or writes (settle), so every access
// sees the bytes it would have seen had each copy been made at once. The pool makes them in
// the order queued; a settle that needs one makes it itself, out of turn, when it is among the
// first kLookBehind + 1 still queued and none before it, not yet landed, touches its bytes
// (else it waits for its turn), so one copy never overtakes another over the same bytes. No
// SystemC: the DMA engines, the engines' operand accesses, the table load, the instruction
// fetch and the host call it.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "model/common/worker_pool.h"
#include "model/isa/region.h"

namespace neuronsim::platform {

class CopiesInFlight {
public:
    // Inline: no copy is queued (queuing() is false). Background: queued copies land on the
    // pool's first worker (at once when the pool has none). Deferred: they land only when
    // something settles over their bytes (with the earlier copies those must follow), or at
    // settle_all(): a check that every access settles first over all it touches (one that
    // does not sees stale bytes every time, not now and then).
    enum class Mode { Inline, Background, Deferred };
    CopiesInFlight(model::WorkerPool& pool, Mode mode) : pool_(pool), mode_(mode) {}
    ~CopiesInFlight() { settle_all(); }
    CopiesInFlight(const CopiesInFlight&) = delete;
    CopiesInFlight& operator=(const CopiesInFlight&) = delete;

    bool queuing() const { return mode_ != Mode::Inline; }
    struct Piece {
        uint8_t* dst;
        const uint8_t* src;
        size_t n;
    };
    // Queues `pieces` (copied in their order) after every copy queued before; `reads` and
    // `writes` cover the bytes they read and write (bounding boxes will do). Never throws: out
    // of host memory, they are made at once.
    void post(std::vector<Piece> pieces, std::vector<model::isa::Region> reads, std::vector<model::isa::Region> writes);
    // Returns once every queued copy that writes bytes of `reads` or `writes`, or reads bytes of
    // `writes`, has landed, each after the earlier copies over its own bytes. Deferred: those
    // alone land (the least an access needs). Background: such a copy the pool has not taken
    // up is made here when at most kLookBehind copies (landed out of turn or not) are still
    // held before it and none of those not landed touches its bytes; otherwise it lands in
    // turn, after every copy before it (the pool's thread may be busy with a large earlier
    // copy, a tile's store, while the next instruction needs a small later one, its load).
    void settle(const std::vector<model::isa::Region>& reads, const std::vector<model::isa::Region>& writes);
    // settle over DRAM bytes [addr, +len): about to be read, or read and written (`write`).
    void settle_dram(uint64_t addr, uint64_t len, bool write = false);
    // Returns once every queued copy has landed.
    void settle_all();
    // The batches queued so far (not those made at once when queuing failed).
    uint64_t queued() const { return tickets_; }
    // Host seconds the calling (simulation) thread has spent in settle() and settle_all() on
    // copies it had to see landed (over an access's bytes, or all of them): waiting for the
    // pool's thread to make them, or making them itself. What the queued copies still cost the
    // simulation's own thread. (Any thread may read it.)
    double needed_seconds() const { return needed_ns_.load(std::memory_order_relaxed) * 1e-9; }

private:
    static constexpr size_t kLookBehind = 8;
    enum State : int { kQueued, kTaken, kLanded };
    struct Batch {
        Batch(std::vector<model::isa::Region> r, std::vector<model::isa::Region> w, std::vector<Piece> p)
            : reads(std::move(r)), writes(std::move(w)), pieces(std::move(p)) {}
        uint64_t ticket = 0;  // the pool's task number (Deferred: our own count)
        std::vector<model::isa::Region> reads, writes;
        std::vector<Piece> pieces;  // (the pool's task reads them: kept until it has landed)
        std::atomic<int> state{kQueued};  // who makes it: the first to take it (Background)
    };
    static bool take(Batch& b);  // b is this thread's to make (false: another's, or landed)
    static void make_taken(Batch& b);
    void land(uint64_t ticket);  // every batch up to `ticket` has landed
    void forget_landed();

    model::WorkerPool& pool_;
    Mode mode_;
    std::deque<Batch> batches_;  // queued and perhaps not landed, oldest first
    uint64_t tickets_ = 0;
    std::atomic<uint64_t> needed_ns_{0};  // (written by the simulation thread only)
};

}  // namespace neuronsim::platform
