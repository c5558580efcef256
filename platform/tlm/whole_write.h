#pragma once
// An ignorable TLM-2.0 extension for a DMI request to write: the initiator promises to write
// every byte of [the request's address, + bytes) through the pointer it is granted before it or
// anyone else reads them, so a target may grant memory there that it has not cleared (DRAM's
// pages taken from a reused slab: the zeroing a copy would overwrite at once). The range is a
// length from the payload's address, so that it stays right when a router translates the
// address. The promise holds for a transfer that completes: when one fails (its job reports
// the error), what the rest of the range holds is not defined. A target that does not know the
// extension ignores it, as TLM-2.0 asks of extensions; a grant is the same either way.
#include <cstdint>

#include <tlm>

namespace neuronsim::platform {

struct WholeWrite : tlm::tlm_extension<WholeWrite> {
    uint64_t bytes = 0;
    WholeWrite() = default;
    explicit WholeWrite(uint64_t n) : bytes(n) {}
    tlm::tlm_extension_base* clone() const override { return new WholeWrite(*this); }
    void copy_from(const tlm::tlm_extension_base& e) override { *this = static_cast<const WholeWrite&>(e); }
};

}  // namespace neuronsim::platform
