#include "platform/core/busy_intervals.h"

#include <algorithm>

namespace neuronsim::platform {

void BusyIntervals::add(uint64_t start, uint64_t end) {
    if (end <= start) return;
    if (!spans_.empty() && start <= spans_.back().second) {
        spans_.back().second = std::max(spans_.back().second, end);
        return;
    }
    spans_.push_back({start, end});
}

uint64_t BusyIntervals::total() const {
    uint64_t t = 0;
    for (const Span& s : spans_) t += s.second - s.first;
    return t;
}

BusyIntervals BusyIntervals::unite(const BusyIntervals& a, const BusyIntervals& b) {
    std::vector<Span> all;
    all.reserve(a.spans_.size() + b.spans_.size());
    std::merge(a.spans_.begin(), a.spans_.end(), b.spans_.begin(), b.spans_.end(), std::back_inserter(all));
    BusyIntervals u;
    for (const Span& s : all) u.add(s.first, s.second);
    return u;
}

BusyIntervals BusyIntervals::intersect(const BusyIntervals& a, const BusyIntervals& b) {
    BusyIntervals out;
    size_t i = 0, j = 0;
    while (i < a.spans_.size() && j < b.spans_.size()) {
        const uint64_t lo = std::max(a.spans_[i].first, b.spans_[j].first), hi = std::min(a.spans_[i].second, b.spans_[j].second);
        if (lo < hi) out.add(lo, hi);
        if (a.spans_[i].second < b.spans_[j].second) ++i;
        else ++j;
    }
    return out;
}

}  // namespace neuronsim::platform
