#include "model/isa/hazard_detector.h"

#include <algorithm>

#include "model/common/error.h"

namespace neuronsim::model::isa {

namespace {
const std::string kHostName = "host";
void join(HazardDetector::Clock& into, const HazardDetector::Clock& c) {
    if (into.size() < c.size()) into.resize(c.size(), 0);
    for (size_t i = 0; i < c.size(); ++i) into[i] = std::max(into[i], c[i]);
}
}  // namespace

std::string hazard_kind_name(HazardDetector::Kind k) {
    switch (k) {
        case HazardDetector::Kind::ReadAfterWrite: return "read after write";
        case HazardDetector::Kind::WriteAfterRead: return "write after read";
        case HazardDetector::Kind::WriteAfterWrite: return "write after write";
        case HazardDetector::Kind::UninitialisedRead: return "read of unwritten bytes";
    }
    return "?";
}

bool HazardDetector::Cell::same(const Cell& o) const {
    if (!(writer == o.writer) || reads.size() != o.reads.size()) return false;
    for (size_t i = 0; i < reads.size(); ++i)
        if (!(reads[i] == o.reads[i])) return false;
    return true;
}

int HazardDetector::stream(const std::string& name) {
    for (size_t i = 0; i < streams_.size(); ++i)
        if (streams_[i].name == name) return static_cast<int>(i);
    streams_.push_back({name, floor_, 0, 0, {}});
    return static_cast<int>(streams_.size() - 1);
}

const std::string& HazardDetector::stream_name(int s) const {
    return s >= 0 && static_cast<size_t>(s) < streams_.size() ? streams_[static_cast<size_t>(s)].name : kHostName;
}

void HazardDetector::acquire(int s, uint32_t semaphore) {
    if (semaphore < semaphores_.size()) join(streams_[static_cast<size_t>(s)].clock, semaphores_[semaphore]);
}

HazardDetector::Clock HazardDetector::release(const Clock& at_issue, int s, uint64_t index) const {
    Clock c = at_issue;
    if (c.size() <= static_cast<size_t>(s)) c.resize(static_cast<size_t>(s) + 1, 0);
    c[static_cast<size_t>(s)] = std::max(c[static_cast<size_t>(s)], streams_[static_cast<size_t>(s)].base + index + 1);
    return c;
}

void HazardDetector::publish(uint32_t semaphore, const Clock& c) {
    if (semaphores_.size() <= semaphore) semaphores_.resize(semaphore + 1);
    join(semaphores_[semaphore], c);
}

void HazardDetector::reset() {
    Clock all(streams_.size(), 0);
    for (size_t i = 0; i < streams_.size(); ++i) {
        streams_[i].base += streams_[i].next;
        streams_[i].next = 0;
        all[i] = streams_[i].base;
    }
    for (Stream& st : streams_) st.clock = all;
    floor_ = all;
}

void HazardDetector::issued(int s, uint64_t index) {
    Stream& st = streams_[static_cast<size_t>(s)];
    st.next = std::max(st.next, index + 1);
}

HazardDetector::Shadow& HazardDetector::shadow(MemSpace space, uint32_t partition) {
    std::vector<Shadow>& v = shadows_[static_cast<int>(space)];
    if (v.size() <= partition) v.resize(partition + 1);
    return v[partition];
}

HazardDetector::Access HazardDetector::make(int s, uint64_t index, uint64_t issue_ps, const std::string* mnemonic) {
    Stream& st = streams_[static_cast<size_t>(s)];
    st.next = std::max(st.next, index + 1);
    return {s, index, st.base + index, issue_ps, mnemonic};
}

bool HazardDetector::ordered(const Access& earlier, const Access& later) const {
    if (earlier.stream < 0) return true;  // the host's
    // The stream's own: its engine orders them, except a transfer it triggered against what
    // the engine itself does next.
    if (earlier.stream == later.stream && (!earlier.async || later.async)) return true;
    const Clock& c = streams_[static_cast<size_t>(later.stream)].clock;
    return static_cast<size_t>(earlier.stream) < c.size() && earlier.seq < c[static_cast<size_t>(earlier.stream)];
}

void HazardDetector::report(Kind k, const Access& first, const Access& second, MemSpace space, uint32_t p, int64_t lo, int64_t hi) {
    const auto key = std::make_tuple(static_cast<int>(k), static_cast<int>(space), first.stream, first.seq, second.stream, second.seq);
    auto found = by_pair_.find(key);
    if (found == by_pair_.end() && hazards_.size() >= kMaxListed) {  // counted, not listed
        by_pair_.emplace(key, SIZE_MAX);
        ++counts_[static_cast<int>(k)];
        return;
    }
    auto [it, fresh] = by_pair_.emplace(key, hazards_.size());
    if (!fresh) {
        if (it->second == SIZE_MAX) return;
        Region& r = hazards_[it->second].where;
        r.p0 = std::min(r.p0, p);
        r.p1 = std::max(r.p1, p + 1);
        r.lo = std::min(r.lo, lo);
        r.hi = std::max(r.hi, hi);
        return;
    }
    Hazard h;
    h.kind = k;
    h.first = first;
    h.second = second;
    h.where = {space, p, p + 1, lo, hi};
    hazards_.push_back(h);
    ++counts_[static_cast<int>(k)];
}

void HazardDetector::completed(int s, uint64_t index, uint64_t end_ps) {
    Stream& st = streams_[static_cast<size_t>(s)];
    const uint64_t seq = st.base + index;
    if (st.ends.size() <= seq) st.ends.resize(seq + 1, kNotYet);
    st.ends[seq] = end_ps;
}

bool HazardDetector::end_of(const Access& a, uint64_t& end_ps) const {
    if (a.stream < 0 || static_cast<size_t>(a.stream) >= streams_.size()) return false;
    const Stream& st = streams_[static_cast<size_t>(a.stream)];
    if (a.seq >= st.ends.size() || st.ends[a.seq] == kNotYet) return false;
    end_ps = st.ends[a.seq];
    return true;
}

// Splits the cell that holds `at` inside it, so that a cell starts there.
void HazardDetector::split(Shadow& m, int64_t at) {
    auto it = m.upper_bound(at);
    if (it == m.begin()) return;
    --it;
    if (it->first < at && it->second.end > at) {
        Cell tail = it->second;
        it->second.end = at;
        m.emplace(at, std::move(tail));
    }
}

// Joins equal neighbours among the cells from the one before `lo` to the one at `hi`.
void HazardDetector::merge_around(Shadow& m, int64_t lo, int64_t hi) {
    auto it = m.lower_bound(lo);
    if (it != m.begin()) --it;
    while (it != m.end() && it->first <= hi) {
        auto next = std::next(it);
        if (next == m.end()) break;
        if (it->second.end == next->first && it->second.same(next->second)) {
            it->second.end = next->second.end;
            m.erase(next);
        } else {
            it = next;
        }
    }
}

void HazardDetector::touch(const Access& a, bool write, const Region& r) {
    if (r.lo >= r.hi) return;
    const bool unwritten_ok = untracked_[static_cast<int>(r.space)];
    for (uint32_t p = r.p0; p < r.p1; ++p) {
        Shadow& m = shadow(r.space, p);
        split(m, r.lo);
        split(m, r.hi);
        // Cells for the gaps (never written), then each cell in [lo, hi) in address order.
        int64_t pos = r.lo;
        auto it = m.lower_bound(r.lo);
        while (pos < r.hi) {
            if (it == m.end() || it->first > pos) {
                Cell gap;
                gap.end = it == m.end() ? r.hi : std::min(r.hi, it->first);
                it = m.emplace_hint(it, pos, std::move(gap));
            }
            Cell& c = it->second;
            const Access& w = c.writer;
            if (write) {
                if (w.stream != -1 && !ordered(w, a)) report(Kind::WriteAfterWrite, w, a, r.space, p, it->first, c.end);
                for (const Access& rd : c.reads)
                    if (!ordered(rd, a)) report(Kind::WriteAfterRead, rd, a, r.space, p, it->first, c.end);
                c.writer = a;
                c.reads.clear();
            } else {
                if (w.stream == -1) {
                    if (!unwritten_ok) report(Kind::UninitialisedRead, Access{}, a, r.space, p, it->first, c.end);
                } else if (!ordered(w, a)) {
                    report(Kind::ReadAfterWrite, w, a, r.space, p, it->first, c.end);
                }
                // A stream's last read, and its last transfer's read when that is earlier (the
                // engine's own later reads do not order it): by stream, the transfer's first.
                auto at = std::lower_bound(c.reads.begin(), c.reads.end(), a,
                                           [](const Access& x, const Access& y) { return x.stream != y.stream ? x.stream < y.stream : x.async > y.async; });
                if (at != c.reads.end() && at->stream == a.stream && at->async == a.async) *at = a;
                else c.reads.insert(at, a);
            }
            pos = c.end;
            ++it;
        }
        merge_around(m, r.lo, r.hi);
    }
}

void HazardDetector::access(int s, uint64_t index, uint64_t issue_ps, const std::string* mnemonic, const std::vector<Region>& reads,
                            const std::vector<Region>& writes, bool async) {
    Access a = make(s, index, issue_ps, mnemonic);
    a.async = async;
    const size_t before = hazards_.size();
    for (const Region& r : reads) touch(a, false, r);
    for (const Region& r : writes) touch(a, true, r);
    if (on_found)
        for (size_t i = before; i < hazards_.size(); ++i) on_found(hazards_[i]);
}

void HazardDetector::host_wrote(const Region& r) {
    Access host;
    host.stream = kHost;
    for (uint32_t p = r.p0; p < r.p1; ++p) {
        if (r.lo >= r.hi) return;
        Shadow& m = shadow(r.space, p);
        split(m, r.lo);
        split(m, r.hi);
        m.erase(m.lower_bound(r.lo), m.lower_bound(r.hi));
        Cell c;
        c.end = r.hi;
        c.writer = host;
        m.emplace(r.lo, std::move(c));
        merge_around(m, r.lo, r.hi);
    }
}

}  // namespace neuronsim::model::isa
