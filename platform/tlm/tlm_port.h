#pragma once
// An initiator port of the device or of an engine, used by everything that reads or writes a
// memory target: b_transport with its annotated delay returned to the caller, DMI when the
// target grants it (at most kMaxRegions regions cached, a new grant replacing those it overlaps,
// the oldest dropped first; all dropped on invalidate_direct_mem_ptr), transport_dbg for
// zero-time loading and dumping. An error response is an Error naming the target and range.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

namespace neuronsim::platform {

// a + b, or an Error when the sum passes the end of simulated time (sc_time would wrap). `what`
// names the sum (a literal: a per-copy call must not allocate).
sc_core::sc_time add_delay(const sc_core::sc_time& a, const sc_core::sc_time& b, const char* what);
// now + `delay` as an Error when it passes the end of simulated time.
sc_core::sc_time after_now(const sc_core::sc_time& delay, const char* what);

class TlmPort {
public:
    // A port with its own socket (bound by the owner); `what` names the target in messages.
    TlmPort(const char* socket_name, std::string what);
    // A port over a socket its owner declares (a device's public socket, of any bus width),
    // given by attach() before the simulation; the owner forwards invalidate_direct_mem_ptr
    // to invalidate().
    explicit TlmPort(std::string what);
    void attach(sc_core::sc_port_b<tlm::tlm_fw_transport_if<>>& external) { sock_ = &external; }

    // The port's own socket (optional to bind: a port nobody uses may stay unbound).
    tlm_utils::simple_initiator_socket_optional<TlmPort>& socket() { return *own_; }
    void invalidate(sc_dt::uint64 start, sc_dt::uint64 end);

    // Timed access from a SystemC thread; returns the access's time: the DMI latency, or the
    // delay b_transport annotated. Never waits itself.
    sc_core::sc_time read(uint64_t addr, uint8_t* data, uint64_t len);
    sc_core::sc_time write(uint64_t addr, const uint8_t* data, uint64_t len);
    // Debug access (transport_dbg): no time, no side effects on timing.
    void debug_read(uint64_t addr, uint8_t* data, uint64_t len);
    void debug_write(uint64_t addr, const uint8_t* data, uint64_t len);
    // A pointer to [addr, addr + len) that the target granted for reading and writing (DMI),
    // or nullptr. Requests DMI when it has none for the range.
    uint8_t* direct(uint64_t addr, uint64_t len);

    // A pointer into a DMI region cached for reading (write: for writing) and the latency one
    // access through it takes. Each use is counted by count_direct(), as read() and write()
    // count theirs.
    struct Span {
        uint8_t* ptr = nullptr;
        sc_core::sc_time latency;
    };
    // The DMI region cached at `addr` (for writing when `write`): its pointer there and the
    // bytes from addr to its end, at most `len` (`room`); false when none holds addr. Asks
    // nothing of the target.
    bool span_from(uint64_t addr, uint64_t len, bool write, Span& out, uint64_t& room) const;
    // span_from, asking the target for DMI at addr first when it has said nothing about addr
    // yet and has offered DMI on a transaction before (the hint of TLM-2.0's DMI: a target that
    // never sets it, like the ACT table memory, is never asked; one that granted read-only DMI
    // at addr is not asked again for writing). `whole` (writing): the caller writes all of
    // [addr, +len) through the span(s) before anything reads it, which the request tells the
    // target (WholeWrite, platform/tlm/whole_write.h) so that it need not clear what it grants.
    bool span_or_request(uint64_t addr, uint64_t len, bool write, Span& out, uint64_t& room, bool whole = false);
    void count_direct(uint64_t accesses) { counters_.dmi_accesses += accesses; }

    struct Counters {
        uint64_t transports = 0, dmi_accesses = 0, dmi_grants = 0, invalidations = 0;
    };
    const Counters& counters() const { return counters_; }
    static constexpr size_t kMaxRegions = 64;
    size_t regions() const { return regions_.size(); }
    const std::string& what() const { return what_; }

private:
    sc_core::sc_time access(bool write, uint64_t addr, uint8_t* data, uint64_t len);
    void debug(bool write, uint64_t addr, uint8_t* data, uint64_t len);
    const tlm::tlm_dmi* region(uint64_t addr, bool write) const;
    bool covered(uint64_t addr) const;  // some region (of any access) holds addr
    // Asks the target for DMI at `addr` for reading (and writing); keeps what it grants.
    // `whole` > 0: the caller writes [addr, +whole) in full first (WholeWrite).
    bool request(uint64_t addr, bool write, uint64_t whole = 0);
    [[noreturn]] void fail(bool write, uint64_t addr, uint64_t len, const std::string& why) const;

    std::unique_ptr<tlm_utils::simple_initiator_socket_optional<TlmPort>> own_;
    sc_core::sc_port_b<tlm::tlm_fw_transport_if<>>* sock_ = nullptr;
    std::string what_;
    std::vector<tlm::tlm_dmi> regions_;  // oldest first
    bool offered_ = false;  // a transaction came back with the DMI hint set
    mutable size_t last_ = 0;  // the region used last: looked at first
    Counters counters_;
};

}  // namespace neuronsim::platform
