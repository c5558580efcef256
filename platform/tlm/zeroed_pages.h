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
    bool keep = false;  // given to the process's memory cache (below) rather than unmapped
    void operator()(uint8_t* p) const;
};
using ZeroedBytes = std::unique_ptr<uint8_t, Unmap>;

// `bytes` of zeroed memory (null for 0); an Error naming `what` when the host has none.
ZeroedBytes map_zeroed(size_t bytes, const std::string& what);

// The same, from the process's memory cache when it holds a mapping of exactly `bytes` (the
// pages the last owner touched zeroed again, the others are still the kernel's zero pages),
// and given back to the cache when dropped: SBUF and PSUM, remade for every simulation.
ZeroedBytes reused_zeroed(size_t bytes, const std::string& what);

// Fixed-size pages carved from 2 MiB slabs; released pages are reused (and then zeroed by
// take() when asked). When the pool goes its slabs go to the process's memory cache (below),
// the next pool's first choice: memory the process already holds costs nothing to touch again.
class ZeroedPagePool {
public:
    explicit ZeroedPagePool(size_t page_bytes) : page_bytes_(page_bytes) {}
    ZeroedPagePool(const ZeroedPagePool&) = delete;
    ZeroedPagePool& operator=(const ZeroedPagePool&) = delete;
    // A page; all zero when `zeroed`, else of unspecified content (the caller overwrites it).
    // std::bad_alloc when the host has no memory for another slab.
    uint8_t* take(bool zeroed);
    void give_back(uint8_t* page) { free_.push_back(page); }

private:
    size_t page_bytes_;
    std::vector<ZeroedBytes> slabs_;
    size_t used_in_last_ = 0;  // bytes of the last slab handed out
    bool last_reused_ = false;  // the last slab came from the cache: its bytes are not zero
    std::vector<uint8_t*> free_;
};

// The process's cache of memory between simulations: DRAM's slabs, SBUF's and PSUM's mappings.
// A sweep's warm worker, a benchmark or a Python loop runs one simulation after another; each
// new memory would otherwise be fresh, a kernel fault and zeroing per 2 MiB (on a virtual
// machine that hands freed memory back to its host, 0.45 GB/s against 15 GB/s for memory
// already held: bench/README.md §13). Kept mappings are advised MADV_FREE, so the kernel may
// still take them back under memory pressure, and are dropped in a forked child (its pages
// would be copied on write); when the limit is reached the oldest go first. At most `bytes` are kept (default kDefaultMemoryCacheBytes; 0 keeps
// none and unmaps what is kept).
constexpr size_t kDefaultMemoryCacheBytes = size_t{1} << 30;
void set_memory_cache_limit(size_t bytes);
size_t memory_cache_bytes();  // bytes kept now

}  // namespace neuronsim::platform
