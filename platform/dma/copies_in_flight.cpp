#include "platform/dma/copies_in_flight.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

namespace neuronsim::platform {

using model::isa::any_overlap;
using model::isa::Region;

namespace {
void copy(const std::vector<CopiesInFlight::Piece>& pieces) {
    for (const CopiesInFlight::Piece& p : pieces) std::memcpy(p.dst, p.src, p.n);
}
// b touches bytes a writes, or writes bytes a reads: one must land before the other.
template <class Batch>
bool ordered(const Batch& a, const Batch& b) {
    return any_overlap(a.writes, b.reads) || any_overlap(a.writes, b.writes) || any_overlap(a.reads, b.writes);
}
}  // namespace

void CopiesInFlight::make(Batch& b) {
    int queued = kQueued;
    if (b.state.compare_exchange_strong(queued, kTaken, std::memory_order_acquire)) {
        copy(b.pieces);
        b.state.store(kLanded, std::memory_order_release);
        return;
    }
    while (b.state.load(std::memory_order_acquire) != kLanded) {  // (the other thread is making it)
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
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
        q.ticket = pool_.post([b = &q] { make(*b); });
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
    auto over = [&](const Batch& b) { return any_overlap(b.writes, reads) || any_overlap(b.writes, writes) || any_overlap(b.reads, writes); };
    if (mode_ == Mode::Deferred) {
        for (auto b = batches_.rbegin(); b != batches_.rend(); ++b)
            if (over(*b)) {
                land(b->ticket);
                return;
            }
        return;
    }
    for (size_t i = 0; i < batches_.size(); ++i) {
        Batch& b = batches_[i];
        if (b.state.load(std::memory_order_acquire) == kLanded || !over(b)) continue;
        bool alone = i <= kLookBehind;
        for (size_t j = 0; alone && j < i; ++j) alone = batches_[j].state.load(std::memory_order_acquire) == kLanded || !ordered(batches_[j], b);
        if (alone) {
            make(b);
            continue;
        }
        land(b.ticket);  // in turn, after those before it; the landed ones are forgotten: again from the front
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
    land(batches_.back().ticket);
}

void CopiesInFlight::land(uint64_t ticket) {
    if (mode_ == Mode::Deferred) {
        while (!batches_.empty() && batches_.front().ticket <= ticket) {
            copy(batches_.front().pieces);
            batches_.pop_front();
        }
        return;
    }
    pool_.wait_task(ticket);
    forget_landed();
}

void CopiesInFlight::forget_landed() {
    if (mode_ == Mode::Deferred) return;
    const uint64_t done = pool_.tasks_done();
    while (!batches_.empty() && batches_.front().ticket <= done) batches_.pop_front();
}

}  // namespace neuronsim::platform
