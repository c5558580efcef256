#include "model/isa/address.h"

#include <cstdio>

#include "model/common/error.h"

namespace neuronsim::model::isa {

Location decode_addr4(uint32_t addr) {
    Location l;
    if (addr & kPsumBase) {
        uint32_t a = addr - kPsumBase;
        l.space = MemSpace::Psum;
        l.partition = a >> kPsumPartitionShift;
        l.offset = a & ((1u << kPsumPartitionShift) - 1);
    } else {
        l.space = MemSpace::Sbuf;
        l.partition = addr >> kSbufPartitionShift;
        l.offset = addr & ((1u << kSbufPartitionShift) - 1);
    }
    return l;
}

uint32_t encode_addr4(MemSpace space, uint32_t partition, uint32_t offset) {
    if (space == MemSpace::Dram) throw Error("an ADDR4 names SBUF or PSUM, not DRAM");
    const uint32_t shift = space == MemSpace::Psum ? kPsumPartitionShift : kSbufPartitionShift;
    if (partition >= 128) throw Error("partition " + std::to_string(partition) + " is out of range 0..127");
    if (offset >= (1u << shift))
        throw Error(space_name(space) + " offset " + std::to_string(offset) + " does not fit the " + std::to_string(1u << shift) + "-byte partition window");
    return (space == MemSpace::Psum ? kPsumBase : 0) + (partition << shift) + offset;
}

std::string space_name(MemSpace s) {
    switch (s) {
        case MemSpace::Dram: return "dram";
        case MemSpace::Sbuf: return "sbuf";
        case MemSpace::Psum: return "psum";
    }
    return "?";
}

std::string format_location(const Location& l) {
    char buf[64];
    if (l.space == MemSpace::Dram) std::snprintf(buf, sizeof buf, "dram:0x%llx", static_cast<unsigned long long>(l.offset));
    else std::snprintf(buf, sizeof buf, "%s:%u:0x%llx", space_name(l.space).c_str(), l.partition, static_cast<unsigned long long>(l.offset));
    return buf;
}

}  // namespace neuronsim::model::isa
