#include "platform/dma/copies_in_flight.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <new>
#include <thread>
#include <utility>

namespace neuronsim::platform {

using model::isa::Region;

namespace {
// Adds the time from its making to its end to `ns`, when it was started (a settle that needs no
// copy reads no clock).
class NeededTime {
public:
    explicit NeededTime(std::atomic<uint64_t>& ns) : ns_(ns) {}
    void start() {
        if (!started_) t0_ = std::chrono::steady_clock::now(), started_ = true;
    }
    ~NeededTime() {
        if (started_)
            ns_.fetch_add(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0_).count()),
                          std::memory_order_relaxed);
    }

private:
    std::atomic<uint64_t>& ns_;
    bool started_ = false;
    std::chrono::steady_clock::time_point t0_;
};

void copy(const std::vector<CopiesInFlight::Piece>& pieces) {
    for (const CopiesInFlight::Piece& p : pieces) std::memcpy(p.dst, p.src, p.n);
}
}  // namespace

bool CopiesInFlight::take(Batch& b) {
    int queued = kQueued;
    return b.state.compare_exchange_strong(queued, kTaken, std::memory_order_acquire);
}

void CopiesInFlight::make_taken(Batch& b) {
    copy(b.pieces);
    b.state.store(kLanded, std::memory_order_release);
}

void CopiesInFlight::post(std::vector<Piece> pieces, std::vector<Region> reads, std::vector<Region> writes) {
    if (pieces.empty()) return;
    forget_landed();
    // Out of host memory while queuing: made at once, after every copy before them (the
    // pieces are not lost: a failed push_back leaves the batch as it was).
    try {
        batches_.emplace_back(std::move(reads), std::move(writes), std::move(pieces));  // (moved only once it has room)
    } catch (...) {
        settle_all();
        copy(pieces);
        return;
    }
    Batch& q = batches_.back();
    if (mode_ == Mode::Deferred) {
        q.ticket = ++tickets_;
        return;
    }
    try {
        // The pieces stay in the batch (a deque's elements stay put) until the task has landed.
        q.ticket = pool_.post([b = &q] {
            if (take(*b)) return make_taken(*b);
            // (a settle is making it: the batch must stay until it has landed)
            for (unsigned i = 1; b->state.load(std::memory_order_acquire) != kLanded; ++i) {
#if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
#endif
                if (i % 256 == 0) std::this_thread::yield();
            }
        });
        ++tickets_;
    } catch (...) {  // (out of memory, or a lock the host refused: made here instead)
        std::vector<Piece> mine = std::move(q.pieces);
        batches_.pop_back();
        settle_all();
        copy(mine);
    }
}

void CopiesInFlight::settle(const std::vector<Region>& reads, const std::vector<Region>& writes) {
    forget_landed();
    NeededTime needed(needed_ns_);
    auto over = [&](const Batch& b) { return model::isa::must_order(b.reads, b.writes, reads, writes); };
    auto ordered = [](const Batch& a, const Batch& b) { return model::isa::must_order(a.reads, a.writes, b.reads, b.writes); };
    auto landed = [](const Batch& b) { return b.state.load(std::memory_order_acquire) == kLanded; };
    if (mode_ == Mode::Deferred) {
        // The least an access needs: the copies over its bytes and, again and again, the
        // earlier ones those must follow (over the same bytes), in the order queued.
        std::vector<size_t> need;  // newest first
        for (size_t i = batches_.size(); i-- > 0;) {
            if (landed(batches_[i])) continue;
            bool needed = over(batches_[i]);
            for (size_t k = 0; !needed && k < need.size(); ++k) needed = ordered(batches_[i], batches_[need[k]]);
            if (needed) need.push_back(i);
        }
        if (!need.empty()) needed.start();
        for (auto i = need.rbegin(); i != need.rend(); ++i) make_taken(batches_[*i]);
        forget_landed();
        return;
    }
    for (size_t i = 0; i < batches_.size(); ++i) {
        Batch& b = batches_[i];
        if (landed(b) || !over(b)) continue;
        needed.start();
        bool alone = i <= kLookBehind;
        for (size_t j = 0; alone && j < i; ++j) alone = landed(batches_[j]) || !ordered(batches_[j], b);
        if (alone && take(b)) {
            make_taken(b);
            continue;
        }
        // In turn, after those before it (or the pool's thread is making it): the landed ones
        // are forgotten meanwhile, so again from the front.
        land(b.ticket);
        i = static_cast<size_t>(-1);
    }
}

void CopiesInFlight::settle_dram(uint64_t addr, uint64_t len, bool write) {
    if (batches_.empty()) return;
    constexpr uint64_t kMax = static_cast<uint64_t>(INT64_MAX);  // (Region's bytes are signed)
    const uint64_t lo = std::min(addr, kMax), hi = len > kMax - lo ? kMax : lo + len;
    const std::vector<Region> r{{model::isa::MemSpace::Dram, 0, 1, static_cast<int64_t>(lo), static_cast<int64_t>(hi)}};
    settle(r, write ? r : std::vector<Region>{});
}

void CopiesInFlight::settle_all() {
    forget_landed();
    if (batches_.empty()) return;
    NeededTime needed(needed_ns_);
    needed.start();
    land(batches_.back().ticket);
}

void CopiesInFlight::land(uint64_t ticket) {
    if (mode_ == Mode::Deferred) {
        for (Batch& b : batches_)
            if (b.ticket <= ticket && b.state.load(std::memory_order_relaxed) != kLanded) make_taken(b);
        forget_landed();
        return;
    }
    pool_.wait_task(ticket);
    forget_landed();
}

void CopiesInFlight::forget_landed() {
    if (mode_ == Mode::Deferred) {  // (no pool task holds them)
        while (!batches_.empty() && batches_.front().state.load(std::memory_order_relaxed) == kLanded) batches_.pop_front();
        return;
    }
    const uint64_t done = pool_.tasks_done();
    while (!batches_.empty() && batches_.front().ticket <= done) batches_.pop_front();
}

}  // namespace neuronsim::platform
