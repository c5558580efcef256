#include "platform/tlm/zeroed_pages.h"

#include <sys/mman.h>

#include <pthread.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>

#include "model/common/error.h"

namespace neuronsim::platform {

namespace {
constexpr size_t kSlab = size_t{2} << 20;  // one x86-64 huge page

// Null when the host refuses.
ZeroedBytes try_map_zeroed(size_t bytes) {
    // Mapped one slab larger and trimmed to a slab boundary: the kernel backs only aligned 2 MiB
    // ranges with huge pages.
    const size_t extra = bytes >= kSlab ? kSlab : 0;
    void* m = ::mmap(nullptr, bytes + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return ZeroedBytes(nullptr, Unmap{0});
    uint8_t* raw = static_cast<uint8_t*>(m);
    uint8_t* p = raw;
    if (extra) {
        p = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(raw) + kSlab - 1) & ~uintptr_t{kSlab - 1});
        if (p > raw) ::munmap(raw, static_cast<size_t>(p - raw));
        const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
        uint8_t* end = p + (bytes + page - 1) / page * page;  // (munmap wants a page boundary)
        if (end < raw + bytes + extra) ::munmap(end, static_cast<size_t>(raw + bytes + extra - end));
#ifdef MADV_HUGEPAGE
        (void)::madvise(p, bytes, MADV_HUGEPAGE);  // advice only: 4 KiB pages work too
#endif
    }
    return ZeroedBytes(p, Unmap{bytes});
}

class MemoryCache {
public:
    // Held across fork() so that the child's copy is consistent; the child drops its copies.
    MemoryCache() {
        ::pthread_atfork([] { cache().m_.lock(); }, [] { cache().m_.unlock(); }, [] { cache().forget(); });
    }
    static MemoryCache& cache() {
        static MemoryCache* c = new MemoryCache;  // never destroyed: memories may go after static destruction
        return *c;
    }
    // A kept mapping of exactly `bytes` (the one kept last), or null.
    uint8_t* take(size_t bytes) {
        std::lock_guard<std::mutex> lock(m_);
        for (size_t i = kept_.size(); i-- > 0;)
            if (kept_[i].bytes == bytes) {
                uint8_t* p = kept_[i].p;
                kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(i));
                held_ -= bytes;
                return p;
            }
        return nullptr;
    }
    // Kept only when the kernel took MADV_FREE: from then on each page is either resident
    // (zero_resident clears it) or gone, zero when next touched; without it a page swapped out
    // meanwhile would come back with its old bytes, unseen by mincore. The oldest kept make room
    // (a loop over configurations leaves no sizes nobody asks for any more). Called from
    // destructors: throws nothing.
    void give(uint8_t* p, size_t bytes) {
#ifdef MADV_FREE
        const bool freed = ::madvise(p, bytes, MADV_FREE) == 0;  // (outside the lock)
#else
        const bool freed = false;
#endif
        if (freed) {
            std::lock_guard<std::mutex> lock(m_);
            drop_oldest_past(bytes <= limit_ ? limit_ - bytes : 0);
            if (held_ + bytes <= limit_) {
                try {
                    kept_.push_back({p, bytes});
                    held_ += bytes;
                    return;
                } catch (const std::bad_alloc&) {  // (unmapped instead)
                }
            }
        }
        ::munmap(p, bytes);
    }
    void set_limit(size_t bytes) {
        std::lock_guard<std::mutex> lock(m_);
        limit_ = bytes;
        drop_oldest_past(limit_);
    }
    size_t bytes() {
        std::lock_guard<std::mutex> lock(m_);
        return held_;
    }

private:
    struct Kept {
        uint8_t* p;
        size_t bytes;
    };
    // Unmaps the oldest kept mappings until at most `bytes` are held (the lock held).
    void drop_oldest_past(size_t bytes) {
        while (held_ > bytes) {
            ::munmap(kept_.front().p, kept_.front().bytes);
            held_ -= kept_.front().bytes;
            kept_.erase(kept_.begin());
        }
    }
    // In a forked child (one thread, the lock held since the fork): unmapped, never written.
    void forget() {
        for (const Kept& k : kept_) ::munmap(k.p, k.bytes);
        kept_.clear();
        held_ = 0;
        m_.unlock();
    }
    std::mutex m_;
    std::vector<Kept> kept_;
    size_t held_ = 0;
    size_t limit_ = kDefaultMemoryCacheBytes;
};

// Zeroes the pages of [p, +bytes) that are resident: a kept mapping's pages that were never
// touched (or that the kernel took back after MADV_FREE) are zero already, and writing them
// would fault them in - what reusing the mapping saves.
void zero_resident(uint8_t* p, size_t bytes) {
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> in((bytes + page - 1) / page);
    if (::mincore(p, bytes, in.data()) != 0) {
        std::memset(p, 0, bytes);  // (not told: all of it)
        return;
    }
    for (size_t i = 0; i < in.size();) {
        if (!(in[i] & 1)) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < in.size() && (in[j] & 1)) ++j;
        std::memset(p + i * page, 0, std::min(j * page, bytes) - i * page);
        i = j;
    }
}

}  // namespace

void set_memory_cache_limit(size_t bytes) { MemoryCache::cache().set_limit(bytes); }
size_t memory_cache_bytes() { return MemoryCache::cache().bytes(); }

void Unmap::operator()(uint8_t* p) const {
    if (!p) return;
    if (keep) MemoryCache::cache().give(p, bytes);
    else ::munmap(p, bytes);
}

ZeroedBytes map_zeroed(size_t bytes, const std::string& what) {
    if (!bytes) return ZeroedBytes(nullptr, Unmap{0});
    ZeroedBytes p = try_map_zeroed(bytes);
    if (!p) throw Error(what + ": the host cannot map " + std::to_string(bytes) + " bytes: " + std::strerror(errno));
    return p;
}

ZeroedBytes reused_zeroed(size_t bytes, const std::string& what) {
    if (!bytes) return ZeroedBytes(nullptr, Unmap{0});
    if (uint8_t* kept = MemoryCache::cache().take(bytes)) {
        ZeroedBytes m(kept, Unmap{bytes, true});  // (owned before anything can throw)
        zero_resident(m.get(), bytes);
        return m;
    }
    ZeroedBytes p = map_zeroed(bytes, what);
    return ZeroedBytes(p.release(), Unmap{bytes, true});
}

uint8_t* ZeroedPagePool::take(bool zeroed) {
    if (!free_.empty()) {
        uint8_t* p = free_.back();
        free_.pop_back();
        if (zeroed) std::memset(p, 0, page_bytes_);
        return p;
    }
    const size_t slab = page_bytes_ > kSlab ? page_bytes_ : kSlab;
    if (slabs_.empty() || used_in_last_ + page_bytes_ > slab) {
        slabs_.reserve(slabs_.size() + 1);
        uint8_t* kept = MemoryCache::cache().take(slab);
        ZeroedBytes m = kept ? ZeroedBytes(kept, Unmap{slab, true}) : try_map_zeroed(slab);
        if (!m) throw std::bad_alloc();
        m.get_deleter().keep = true;  // (to the cache when the pool goes)
        slabs_.push_back(std::move(m));
        used_in_last_ = 0;
        last_reused_ = kept != nullptr;
    }
    uint8_t* p = slabs_.back().get() + used_in_last_;
    used_in_last_ += page_bytes_;
    if (zeroed && last_reused_) std::memset(p, 0, page_bytes_);  // (a fresh slab is still zero)
    return p;
}

}  // namespace neuronsim::platform
