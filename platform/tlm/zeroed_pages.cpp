#include "platform/tlm/zeroed_pages.h"

#include <sys/mman.h>

#include <cstring>
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

}  // namespace

void Unmap::operator()(uint8_t* p) const {
    if (p) ::munmap(p, bytes);
}

ZeroedBytes map_zeroed(size_t bytes, const std::string& what) {
    if (!bytes) return ZeroedBytes(nullptr, Unmap{0});
    ZeroedBytes p = try_map_zeroed(bytes);
    if (!p) throw Error(what + ": the host cannot map " + std::to_string(bytes) + " bytes: " + std::strerror(errno));
    return p;
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
        ZeroedBytes m = try_map_zeroed(slab);
        if (!m) throw std::bad_alloc();
        slabs_.push_back(std::move(m));
        used_in_last_ = 0;
    }
    uint8_t* p = slabs_.back().get() + used_in_last_;
    used_in_last_ += page_bytes_;
    return p;  // never handed out before: still zero
}

}  // namespace neuronsim::platform
