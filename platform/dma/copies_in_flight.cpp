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
}  // namespace

void CopiesInFlight::post(std::vector<Piece> pieces, std::vector<Region> reads, std::vector<Region> writes) {
    if (pieces.empty()) return;
    forget_landed();
    // Out of host memory while queuing: made at once, after every copy before them (the
    // pieces are not lost: a failed push_back leaves the batch as it was).
    Batch b{0, std::move(reads), std::move(writes), std::move(pieces)};
    try {
        batches_.push_back(std::move(b));
    } catch (...) {
        settle_all();
        copy(b.pieces);
        return;
    }
    Batch& q = batches_.back();
    if (mode_ == Mode::Deferred) {
        q.ticket = ++tickets_;
        return;
    }
    try {
        // The pieces stay in the batch (a deque's elements stay put) until the task has landed.
        q.ticket = pool_.post([v = &q.pieces] { copy(*v); });
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
    for (auto b = batches_.rbegin(); b != batches_.rend(); ++b)
        if (any_overlap(b->writes, reads) || any_overlap(b->writes, writes) || any_overlap(b->reads, writes)) {
            land(b->ticket);
            return;
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
