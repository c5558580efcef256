#pragma once
// Addresses in bundles. An ADDR4 (32-bit) names a partition and a byte offset in SBUF or
// PSUM: the PSUM window is the 4 MiB at bit 25 (hardware-facts §I.2), 32 KiB per partition;
// below it SBUF, 256 KiB per partition (the "SOC step"). DRAM is a flat 64-bit byte space.
#include <cstdint>
#include <string>

#include "model/isa/layouts.h"

namespace neuronsim::model::isa {

inline constexpr uint32_t kPsumBase = 0x2000000;
inline constexpr uint32_t kSbufPartitionShift = 18;  // 256 KiB
inline constexpr uint32_t kPsumPartitionShift = 15;  // 32 KiB

struct Location {
    MemSpace space = MemSpace::Sbuf;
    uint32_t partition = 0;
    uint64_t offset = 0;  // byte offset in the partition (or the DRAM address)
};

Location decode_addr4(uint32_t addr);
uint32_t encode_addr4(MemSpace space, uint32_t partition, uint32_t offset);  // throws on overflow

// Text forms: "sbuf:P:OFF", "psum:P:OFF", "dram:ADDR" (numbers decimal or 0x hex).
std::string format_location(const Location& l);
std::string space_name(MemSpace s);

}  // namespace neuronsim::model::isa
