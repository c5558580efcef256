#pragma once
// Host memory for the simulated memories, mapped from the kernel rather than the heap: it comes
// zeroed (nothing to memset) and is advised as transparent huge pages, so first touching a
// 2 MiB slab is one fault instead of 512. Touching memory is most of what loading and dumping
// a large tensor costs on a virtual machine (issue 29 §2).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace neuronsim::platform {

struct Unmap {
    size_t bytes = 0;
    void operator()(uint8_t* p) const;
};
using ZeroedBytes = std::unique_ptr<uint8_t, Unmap>;

// `bytes` of zeroed memory (null for 0); an Error naming `what` when the host has none.
ZeroedBytes map_zeroed(size_t bytes, const std::string& what);

// Fixed-size pages carved from 2 MiB zeroed slabs; released pages are reused (and then
// zeroed by take() when asked). Everything is returned when the pool goes.
class ZeroedPagePool {
public:
    explicit ZeroedPagePool(size_t page_bytes) : page_bytes_(page_bytes) {}
    // A page; all zero when `zeroed`, else of unspecified content (the caller overwrites it).
    // std::bad_alloc when the host has no memory for another slab.
    uint8_t* take(bool zeroed);
    void give_back(uint8_t* page) { free_.push_back(page); }

private:
    size_t page_bytes_;
    std::vector<ZeroedBytes> slabs_;
    size_t used_in_last_ = 0;  // bytes of the last slab handed out
    std::vector<uint8_t*> free_;
};

}  // namespace neuronsim::platform
