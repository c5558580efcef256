#pragma once
// The memories as TLM-2.0 targets (b_transport, transport_dbg, DMI) for any number of
// initiators: DRAM with a sparse backing store over a 64-bit address space (the run host's),
// and SBUF/PSUM as [partition][byte] arrays whose TLM address is partition *
// bytes_per_partition + offset (model/isa/address_map.h). Accesses cost no time here: the
// engines and the DMA model account for time; engines stream tensors through DMI.
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "platform/core/stats.h"
#include "platform/tlm/zeroed_pages.h"

namespace neuronsim::platform {

class Memory : public sc_core::sc_module, public StatsProvider {
public:
    // Any number of initiators (the DMA, the engines, the device's windows) bind to it.
    tlm_utils::multi_passthrough_target_socket<Memory> socket;

    // partitions == 0: a flat sparse memory of `bytes` (DRAM); else dense partitions x bytes.
    Memory(sc_core::sc_module_name name, uint64_t bytes, uint32_t partitions = 0);

    uint64_t size() const { return size_; }
    uint32_t partitions() const { return partitions_; }
    uint64_t bytes_per_partition() const { return partitions_ ? size_ / partitions_ : size_; }
    // Sparse memories: the most bytes of pages it may hold (`what` names the limit in the error);
    // a write or DMI grant that would allocate past it is an Error, as is the host running out.
    void set_resident_limit(uint64_t bytes, std::string what);

    // Direct access for loading and dumping (what transport_dbg does), bounds-checked: an
    // access outside the memory is an Error naming the memory and the range.
    void write(uint64_t addr, const uint8_t* data, uint64_t len);
    void read(uint64_t addr, uint8_t* data, uint64_t len) const;
    // The same without a copy of the caller's: `fill` writes [addr, addr + len) straight into
    // the memory, piece by piece in address order (a page at a time in DRAM); `sink` is
    // handed the memory's own bytes the same way (never-written DRAM as zeros).
    void write_in_place(uint64_t addr, uint64_t len, const std::function<void(uint8_t*, size_t)>& fill);
    void read_in_place(uint64_t addr, uint64_t len, const std::function<void(const uint8_t*, size_t)>& sink) const;
    // Sparse memories: the bytes at [addr, +len) read as `data` (kept alive by `owner`) without
    // being copied; a page is copied when it is first written or granted for DMI. What a write
    // of the same bytes would do (pages touched, the resident limit), minus the copy: a sweep
    // point's built-in function sets cost nothing until a LoadActFuncSet reads them.
    void map_shared(uint64_t addr, const uint8_t* data, uint64_t len, std::shared_ptr<const void> owner);
    // Dense memories: every byte set to `byte` (SBUF and PSUM as never-written memory, before
    // anything is placed in them). Touches all of the memory's pages.
    void fill(uint8_t byte);

    void collect_stats(nlohmann::ordered_json& node) const override;

private:
    void b_transport(int id, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
    unsigned int transport_dbg(int id, tlm::tlm_generic_payload& trans);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
    bool access(tlm::tlm_generic_payload& trans);
    // The page at `index`; created (zeroed, unless the caller overwrites all of it) or made
    // private (a shared page copied) when `create`, else null when never written.
    uint8_t* page(uint64_t index, bool create, bool overwritten = false) const;
    uint64_t add_page_room(uint64_t index) const;
    bool promised_whole(const tlm::tlm_generic_payload& t, uint64_t base) const;
    uint8_t* allocate_page(uint64_t at, uint64_t resident, bool zeroed) const;
    void check(uint64_t addr, uint64_t len) const;

    static constexpr uint64_t kPageBits = 16;
    uint64_t size_;
    uint32_t partitions_;
    uint64_t resident_limit_ = ~uint64_t{0};
    std::string limit_name_;
    // Mapped zeroed, or the last SBUF's/PSUM's mapping with what it touched zeroed again: a run
    // pays (in time and resident memory) only for the SBUF/PSUM it uses, not for zeroing all of
    // it, and a process's next simulation does not fault its memory in again.
    ZeroedBytes dense_;
    mutable ZeroedPagePool pool_{size_t{1} << kPageBits};  // DRAM's pages (owned here, not by pages_)
    struct Page {
        const uint8_t* shared = nullptr;  // a map_shared page until it is written
        uint8_t* own = nullptr;  // from pool_
    };
    mutable std::unordered_map<uint64_t, Page> pages_;
    std::vector<std::shared_ptr<const void>> shared_owners_;
};

}  // namespace neuronsim::platform
