#include "platform/tlm/memory.h"

#include <algorithm>
#include <cstring>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/isa/address_map.h"
#include "platform/tlm/whole_write.h"
#include "stats/stat_records.h"

namespace neuronsim::platform {

Memory::Memory(sc_core::sc_module_name name, uint64_t bytes, uint32_t partitions)
    : sc_core::sc_module(name), socket("socket"), size_(bytes), partitions_(partitions) {
    if (partitions_) {
        dense_ = reused_zeroed(size_, std::string(this->name()) + ": its " + std::to_string(size_) + " bytes");
    }
    socket.register_b_transport(this, &Memory::b_transport);
    socket.register_transport_dbg(this, &Memory::transport_dbg);
    socket.register_get_direct_mem_ptr(this, &Memory::get_direct_mem_ptr);
}

void Memory::fill(uint8_t byte) {
    if (!partitions_) throw Error(std::string(name()) + ": fill is for the dense memories (SBUF, PSUM)");
    std::memset(dense_.get(), byte, size_);
}

void Memory::check(uint64_t addr, uint64_t len) const {
    if (addr > size_ || len > size_ - addr)
        throw Error(std::string(name()) + ": access [" + model::fp::hex(addr) + ", +" + std::to_string(len) + ") is outside the memory's " +
                    std::to_string(size_) + " bytes");
}

void Memory::set_resident_limit(uint64_t bytes, std::string what) {
    resident_limit_ = bytes;
    limit_name_ = std::move(what);
}

uint8_t* Memory::page(uint64_t index, bool create, bool overwritten) const {
    auto it = pages_.find(index);
    if (it != pages_.end()) {
        Page& p = it->second;
        if (!p.shared) return p.own;
        if (!create) return const_cast<uint8_t*>(p.shared);  // (read only: callers that read)
        uint8_t* own = allocate_page(index << kPageBits, pages_.size() << kPageBits, false);
        if (!overwritten) std::memcpy(own, p.shared, uint64_t{1} << kPageBits);
        p.shared = nullptr;
        p.own = own;
        return own;
    }
    if (!create) return nullptr;
    uint8_t* own = allocate_page(index << kPageBits, add_page_room(index), !overwritten);
    pages_[index].own = own;
    return own;
}

// Room for one more page in the map, within the resident limit; returns the bytes held now.
uint64_t Memory::add_page_room(uint64_t index) const {
    const uint64_t resident = uint64_t{pages_.size()} << kPageBits;
    if (resident + (uint64_t{1} << kPageBits) > resident_limit_)
        throw Error(std::string(name()) + ": a write at " + model::fp::hex(index << kPageBits) + " would take its resident pages past " +
                    std::to_string(resident_limit_) + " bytes (" + limit_name_ + "): the run writes more distinct DRAM than that");
    try {
        // Room made before the insert (which then does not rehash), doubling: reserve(size + 1)
        // rehashes to the next prime at nearly every new bucket's worth of pages.
        if (pages_.size() + 1 > pages_.bucket_count() * pages_.max_load_factor()) pages_.reserve(2 * pages_.size() + 1);
    } catch (const std::bad_alloc&) {
        throw Error(std::string(name()) + ": the host is out of memory for a page at " + model::fp::hex(index << kPageBits) + " (" + std::to_string(resident) +
                    " bytes of pages held; " + limit_name_ + " bounds them)");
    }
    return resident;
}

uint8_t* Memory::allocate_page(uint64_t at, uint64_t resident, bool zeroed) const {
    try {
        return pool_.take(zeroed);
    } catch (const std::bad_alloc&) {
        throw Error(std::string(name()) + ": the host is out of memory for a page at " + model::fp::hex(at) + " (" + std::to_string(resident) +
                    " bytes of pages held; " + limit_name_ + " bounds them)");
    }
}

void Memory::map_shared(uint64_t addr, const uint8_t* data, uint64_t len, std::shared_ptr<const void> owner) {
    check(addr, len);
    constexpr uint64_t kPage = uint64_t{1} << kPageBits;
    while (len) {
        const uint64_t off = addr & (kPage - 1);
        const uint64_t n = std::min(len, kPage - off);
        auto it = pages_.find(addr >> kPageBits);
        if (!partitions_ && n == kPage && (it == pages_.end() || it->second.shared)) {
            if (it == pages_.end()) add_page_room(addr >> kPageBits);
            Page& p = pages_[addr >> kPageBits];
            if (p.own) pool_.give_back(p.own);
            p.own = nullptr;
            p.shared = data;
        } else {
            write(addr, data, n);  // a page the region shares with other bytes (or dense memory): copied
        }
        addr += n, data += n, len -= n;
    }
    shared_owners_.push_back(std::move(owner));
}

void Memory::write(uint64_t addr, const uint8_t* data, uint64_t len) {
    check(addr, len);
    if (partitions_) {
        std::memcpy(dense_.get() + addr, data, len);
        return;
    }
    while (len) {
        uint64_t off = addr & ((uint64_t{1} << kPageBits) - 1);
        uint64_t n = std::min(len, (uint64_t{1} << kPageBits) - off);
        std::memcpy(page(addr >> kPageBits, true, n == (uint64_t{1} << kPageBits)) + off, data, n);
        addr += n, data += n, len -= n;
    }
}

void Memory::read(uint64_t addr, uint8_t* data, uint64_t len) const {
    check(addr, len);
    if (partitions_) {
        std::memcpy(data, dense_.get() + addr, len);
        return;
    }
    while (len) {
        uint64_t off = addr & ((uint64_t{1} << kPageBits) - 1);
        uint64_t n = std::min(len, (uint64_t{1} << kPageBits) - off);
        const uint8_t* p = page(addr >> kPageBits, false);
        if (p) std::memcpy(data, p + off, n);
        else std::memset(data, 0, n);  // never written: zero
        addr += n, data += n, len -= n;
    }
}

void Memory::write_in_place(uint64_t addr, uint64_t len, const std::function<void(uint8_t*, size_t)>& fill) {
    check(addr, len);
    if (partitions_) return fill(dense_.get() + addr, static_cast<size_t>(len));
    while (len) {
        const uint64_t off = addr & ((uint64_t{1} << kPageBits) - 1);
        const uint64_t n = std::min(len, (uint64_t{1} << kPageBits) - off);
        fill(page(addr >> kPageBits, true, n == (uint64_t{1} << kPageBits)) + off, static_cast<size_t>(n));
        addr += n, len -= n;
    }
}

void Memory::read_in_place(uint64_t addr, uint64_t len, const std::function<void(const uint8_t*, size_t)>& sink) const {
    check(addr, len);
    if (partitions_) return sink(dense_.get() + addr, static_cast<size_t>(len));
    static const std::vector<uint8_t> zeros(size_t{1} << kPageBits, 0);  // never-written pages
    while (len) {
        const uint64_t off = addr & ((uint64_t{1} << kPageBits) - 1);
        const uint64_t n = std::min(len, (uint64_t{1} << kPageBits) - off);
        const uint8_t* p = page(addr >> kPageBits, false);
        sink(p ? p + off : zeros.data(), static_cast<size_t>(n));
        addr += n, len -= n;
    }
}

bool Memory::access(tlm::tlm_generic_payload& t) {
    const uint64_t addr = t.get_address();
    const uint64_t len = t.get_data_length();
    if (t.get_byte_enable_ptr() || t.get_streaming_width() < len) {
        t.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return false;
    }
    if (addr > size_ || len > size_ - addr) {
        t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return false;
    }
    if (t.is_read()) read(addr, t.get_data_ptr(), len);
    else if (t.is_write()) write(addr, t.get_data_ptr(), len);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    return true;
}

void Memory::b_transport(int, tlm::tlm_generic_payload& t, sc_core::sc_time&) {
    access(t);
    t.set_dmi_allowed(true);
}

unsigned int Memory::transport_dbg(int, tlm::tlm_generic_payload& t) { return access(t) ? t.get_data_length() : 0; }

// Whether the DMI request `t` for the page at `base` comes with the initiator's promise to write
// all of the page before reading it (WholeWrite from the page's start: a DMA's destination,
// written at once), so that a new page need not be zeroed first (nor a shared one copied). Only
// a promise this memory can let it keep: one that lies inside the memory and whose pages all fit
// under the resident limit, since a copy refused half way would leave the pages granted before
// holding the bytes of whatever used them last (another simulation's, from the memory cache).
bool Memory::promised_whole(const tlm::tlm_generic_payload& t, uint64_t base) const {
    constexpr uint64_t kPage = uint64_t{1} << kPageBits;
    const WholeWrite* w = nullptr;
    t.get_extension(w);
    const uint64_t addr = t.get_address();  // (the promise runs from here: [addr, + bytes))
    if (!t.is_write() || !w || addr != base || w->bytes < kPage || w->bytes > size_ - addr) return false;
    const uint64_t pages = (w->bytes + kPage - 1) >> kPageBits;
    return (uint64_t{pages_.size()} + pages) << kPageBits <= resident_limit_;
}

bool Memory::get_direct_mem_ptr(int, tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) {
    const uint64_t addr = t.get_address();
    if (addr >= size_) return false;
    dmi.allow_read_write();
    dmi.set_read_latency(sc_core::SC_ZERO_TIME);
    dmi.set_write_latency(sc_core::SC_ZERO_TIME);
    if (partitions_) {
        dmi.set_dmi_ptr(dense_.get());
        dmi.set_start_address(0);
        dmi.set_end_address(size_ - 1);
    } else {  // one page of the sparse store
        const uint64_t base = addr & ~((uint64_t{1} << kPageBits) - 1);
        dmi.set_dmi_ptr(page(addr >> kPageBits, true, promised_whole(t, base)));
        dmi.set_start_address(base);
        dmi.set_end_address(std::min(size_, base + (uint64_t{1} << kPageBits)) - 1);
    }
    return true;
}

}  // namespace neuronsim::platform

namespace neuronsim::platform {

void Memory::collect_stats(nlohmann::ordered_json& node) const {
    // Traffic is counted by the engines and ports that move it (DMI bypasses this target).
    stats::put(node, stats::memory::bytes, size_);
    if (!partitions_) stats::put(node, stats::memory::pages_touched, pages_.size());
}

}  // namespace neuronsim::platform
