#include "platform/tlm/tlm_port.h"

#include <algorithm>
#include <cstring>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/isa/address_map.h"
#include "platform/tlm/whole_write.h"

namespace neuronsim::platform {

sc_core::sc_time add_delay(const sc_core::sc_time& a, const sc_core::sc_time& b, const char* what) {
    if (b > sc_core::sc_max_time() - a)
        throw Error(std::string(what) + ": " + a.to_string() + " + " + b.to_string() + " passes the end of simulated time (" +
                    sc_core::sc_max_time().to_string() + ")");
    return a + b;
}

sc_core::sc_time after_now(const sc_core::sc_time& delay, const char* what) { return add_delay(sc_core::sc_time_stamp(), delay, what); }

TlmPort::TlmPort(const char* socket_name, std::string what)
    : own_(std::make_unique<tlm_utils::simple_initiator_socket_optional<TlmPort>>(socket_name)), sock_(own_.get()), what_(std::move(what)) {
    own_->register_invalidate_direct_mem_ptr(this, &TlmPort::invalidate);
}

TlmPort::TlmPort(std::string what) : what_(std::move(what)) {}

void TlmPort::fail(bool write, uint64_t addr, uint64_t len, const std::string& why) const {
    throw Error(std::string(write ? "write to " : "read from ") + what_ + " [" + model::fp::hex(addr) + ", +" + std::to_string(len) + "): " + why);
}

const tlm::tlm_dmi* TlmPort::region(uint64_t addr, bool write) const {
    auto fits = [&](const tlm::tlm_dmi& d) {
        return addr >= d.get_start_address() && addr <= d.get_end_address() && (write ? d.is_write_allowed() : d.is_read_allowed());
    };
    if (last_ < regions_.size() && fits(regions_[last_])) return &regions_[last_];
    for (size_t i = 0; i < regions_.size(); ++i)
        if (fits(regions_[i])) {
            last_ = i;
            return &regions_[i];
        }
    return nullptr;
}

bool TlmPort::span_from(uint64_t addr, uint64_t len, bool write, Span& out, uint64_t& room) const {
    const tlm::tlm_dmi* d = len ? region(addr, write) : nullptr;
    if (!d) return false;
    const uint64_t left = d->get_end_address() - addr;  // (bytes after addr: no wrap at 2^64 - 1)
    room = left >= len - 1 ? len : left + 1;
    out.ptr = d->get_dmi_ptr() + (addr - d->get_start_address());
    out.latency = write ? d->get_write_latency() : d->get_read_latency();
    return true;
}

bool TlmPort::span_or_request(uint64_t addr, uint64_t len, bool write, Span& out, uint64_t& room, bool whole) {
    if (span_from(addr, len, write, out, room)) return true;
    return len && offered_ && !covered(addr) && request(addr, write, write && whole ? len : 0) && span_from(addr, len, write, out, room);
}

bool TlmPort::covered(uint64_t addr) const {
    for (const tlm::tlm_dmi& d : regions_)
        if (addr >= d.get_start_address() && addr <= d.get_end_address()) return true;
    return false;
}

void TlmPort::invalidate(sc_dt::uint64 start, sc_dt::uint64 end) {
    ++counters_.invalidations;
    regions_.erase(
        std::remove_if(regions_.begin(), regions_.end(), [&](const tlm::tlm_dmi& d) { return d.get_start_address() <= end && d.get_end_address() >= start; }),
        regions_.end());
}

bool TlmPort::request(uint64_t addr, bool write, uint64_t whole) {
    tlm::tlm_generic_payload t;
    t.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    t.set_address(addr);
    tlm::tlm_dmi dmi;
    WholeWrite promise(whole);
    if (whole) t.set_extension(&promise);
    struct Clear {  // (the payload would delete an extension still set: this one is ours)
        tlm::tlm_generic_payload& t;
        WholeWrite* w;
        ~Clear() { t.clear_extension(w); }
    } clear{t, &promise};
    if (!(*sock_)->get_direct_mem_ptr(t, dmi)) return false;
    // A grant that does not hold the address asked for, or has no pointer, is not used.
    if (!dmi.get_dmi_ptr() || addr < dmi.get_start_address() || addr > dmi.get_end_address() || dmi.get_start_address() > dmi.get_end_address()) return false;
    ++counters_.dmi_grants;
    // The target's latest word on a range replaces what it said before about it.
    regions_.erase(
        std::remove_if(regions_.begin(), regions_.end(),
                       [&](const tlm::tlm_dmi& d) { return d.get_start_address() <= dmi.get_end_address() && d.get_end_address() >= dmi.get_start_address(); }),
        regions_.end());
    if (regions_.size() >= kMaxRegions) regions_.erase(regions_.begin());
    regions_.push_back(dmi);
    last_ = regions_.size() - 1;
    return true;
}

uint8_t* TlmPort::direct(uint64_t addr, uint64_t len) {
    if (!len) return nullptr;
    for (int attempt = 0; attempt < 2; ++attempt) {
        const tlm::tlm_dmi* d = region(addr, true);
        if (d && d->is_read_allowed() && len - 1 <= d->get_end_address() - addr) return d->get_dmi_ptr() + (addr - d->get_start_address());
        if (attempt || !request(addr, true)) break;
    }
    return nullptr;
}

// A base-protocol payload for `n` bytes at `addr`: no byte enables, one stream.
static void payload(tlm::tlm_generic_payload& t, bool write, uint64_t addr, uint8_t* data, uint32_t n) {
    t.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    t.set_address(addr);
    t.set_data_ptr(data);
    t.set_data_length(n);
    t.set_streaming_width(n);
    t.set_byte_enable_ptr(nullptr);
    t.set_dmi_allowed(false);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

sc_core::sc_time TlmPort::access(bool write, uint64_t addr, uint8_t* data, uint64_t len) {
    sc_core::sc_time total = sc_core::SC_ZERO_TIME;
    while (len) {
        if (const tlm::tlm_dmi* d = region(addr, write)) {
            // (end - addr + 1 wraps to 0 for a region ending at 2^64 - 1: compare before adding)
            const uint64_t room = d->get_end_address() - addr;
            const uint64_t n = room >= len - 1 ? len : room + 1;
            uint8_t* p = d->get_dmi_ptr() + (addr - d->get_start_address());
            if (write) std::memcpy(p, data, n);
            else std::memcpy(data, p, n);
            const sc_core::sc_time& latency = write ? d->get_write_latency() : d->get_read_latency();
            if (latency > sc_core::sc_max_time() - total) fail(write, addr, n, "the DMI latencies sum past the end of simulated time");
            total += latency;
            ++counters_.dmi_accesses;
            addr += n, data += n, len -= n;
            continue;
        }
        // One transaction of at most 4 GiB (the payload's length is 32 bits).
        const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(len, 0xFFFFFFFFull));
        tlm::tlm_generic_payload t;
        payload(t, write, addr, data, n);
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        (*sock_)->b_transport(t, delay);
        ++counters_.transports;
        if (t.get_response_status() != tlm::TLM_OK_RESPONSE) fail(write, addr, n, t.get_response_string());
        if (delay > sc_core::sc_max_time() - total) fail(write, addr, n, "the annotated delays sum past the end of simulated time");
        total += delay;
        // The target offers DMI: use it from now on, unless it has already said what it grants
        // here (read-only DMI: the writes stay transactions, and do not ask again).
        offered_ = offered_ || t.is_dmi_allowed();
        if (t.is_dmi_allowed() && !covered(addr)) request(addr, write);
        addr += n, data += n, len -= n;
    }
    return total;
}

sc_core::sc_time TlmPort::read(uint64_t addr, uint8_t* data, uint64_t len) { return access(false, addr, data, len); }
sc_core::sc_time TlmPort::write(uint64_t addr, const uint8_t* data, uint64_t len) { return access(true, addr, const_cast<uint8_t*>(data), len); }

void TlmPort::debug(bool write, uint64_t addr, uint8_t* data, uint64_t len) {
    while (len) {
        const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(len, 0x40000000ull));
        tlm::tlm_generic_payload t;
        payload(t, write, addr, data, n);
        if ((*sock_)->transport_dbg(t) != n) fail(write, addr, n, "the target's debug transport did not move every byte");
        addr += n, data += n, len -= n;
    }
}

void TlmPort::debug_read(uint64_t addr, uint8_t* data, uint64_t len) { debug(false, addr, data, len); }
void TlmPort::debug_write(uint64_t addr, const uint8_t* data, uint64_t len) { debug(true, addr, const_cast<uint8_t*>(data), len); }

}  // namespace neuronsim::platform
