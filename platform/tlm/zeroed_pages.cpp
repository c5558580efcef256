#include "platform/tlm/zeroed_pages.h"

#include <sys/mman.h>

#include <pthread.h>

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
        if (p + bytes < raw + bytes + extra) ::munmap(p + bytes, static_cast<size_t>(raw + bytes + extra - (p + bytes)));
#ifdef MADV_HUGEPAGE
        (void)::madvise(p, bytes, MADV_HUGEPAGE);  // advice only: 4 KiB pages work too
#endif
    }
    return ZeroedBytes(p, Unmap{bytes});
}

class SlabCache {
public:
    // Held across fork() so that the child's copy is consistent; the child drops its copies.
    SlabCache() {
        ::pthread_atfork([] { cache().m_.lock(); }, [] { cache().m_.unlock(); }, [] { cache().forget(); });
    }
    static SlabCache& cache() {
        static SlabCache* c = new SlabCache;  // never destroyed: pools may go after static destruction
        return *c;
    }
    uint8_t* take() {
        std::lock_guard<std::mutex> lock(m_);
        if (slabs_.empty()) return nullptr;
        uint8_t* s = slabs_.back();
        slabs_.pop_back();
        return s;
    }
    void give(uint8_t* slab) {
#ifdef MADV_FREE
        (void)::madvise(slab, kSlab, MADV_FREE);  // advice only: reclaimable under pressure (outside the lock)
#endif
        {
            std::lock_guard<std::mutex> lock(m_);
            if ((slabs_.size() + 1) * kSlab <= limit_) {
                try {
                    slabs_.push_back(slab);
                    return;
                } catch (const std::bad_alloc&) {  // (from a destructor: unmapped instead)
                }
            }
        }
        ::munmap(slab, kSlab);
    }
    void set_limit(size_t bytes) {
        std::vector<uint8_t*> drop;
        {
            std::lock_guard<std::mutex> lock(m_);
            limit_ = bytes;
            while (slabs_.size() * kSlab > limit_) drop.push_back(slabs_.back()), slabs_.pop_back();
        }
        for (uint8_t* s : drop) ::munmap(s, kSlab);
    }
    size_t bytes() {
        std::lock_guard<std::mutex> lock(m_);
        return slabs_.size() * kSlab;
    }

private:
    // In a forked child (one thread, the lock held since the fork): unmapped, never written.
    void forget() {
        for (uint8_t* s : slabs_) ::munmap(s, kSlab);
        slabs_.clear();
        m_.unlock();
    }
    std::mutex m_;
    std::vector<uint8_t*> slabs_;
    size_t limit_ = kDefaultSlabCacheBytes;
};

}  // namespace

void set_slab_cache_limit(size_t bytes) { SlabCache::cache().set_limit(bytes); }
size_t slab_cache_bytes() { return SlabCache::cache().bytes(); }

void Unmap::operator()(uint8_t* p) const {
    if (p) ::munmap(p, bytes);
}

ZeroedBytes map_zeroed(size_t bytes, const std::string& what) {
    if (!bytes) return ZeroedBytes(nullptr, Unmap{0});
    ZeroedBytes p = try_map_zeroed(bytes);
    if (!p) throw Error(what + ": the host cannot map " + std::to_string(bytes) + " bytes: " + std::strerror(errno));
    return p;
}

ZeroedPagePool::~ZeroedPagePool() {
    if (page_bytes_ > kSlab) return;  // (slabs of another size are unmapped)
    for (ZeroedBytes& s : slabs_) SlabCache::cache().give(s.release());
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
        uint8_t* kept = slab == kSlab ? SlabCache::cache().take() : nullptr;
        ZeroedBytes m = kept ? ZeroedBytes(kept, Unmap{kSlab}) : try_map_zeroed(slab);
        if (!m) throw std::bad_alloc();
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
