#pragma once
// An ignorable TLM-2.0 extension for a DMI request to write: the initiator promises to write
// every byte of [start, end] through the pointer it is granted before it or anyone else reads
// them, so a target may grant memory there that it has not cleared (DRAM's pages taken from a
// reused slab: the zeroing a copy would overwrite at once). A target that does not know the
// extension ignores it, as TLM-2.0 asks of extensions; a grant is the same either way.
#include <cstdint>

#include <tlm>

namespace neuronsim::platform {

struct WholeWrite : tlm::tlm_extension<WholeWrite> {
    uint64_t start = 0, end = 0;  // inclusive
    WholeWrite() = default;
    WholeWrite(uint64_t s, uint64_t e) : start(s), end(e) {}
    tlm::tlm_extension_base* clone() const override { return new WholeWrite(*this); }
    void copy_from(const tlm::tlm_extension_base& e) override { *this = static_cast<const WholeWrite&>(e); }
};

}  // namespace neuronsim::platform
