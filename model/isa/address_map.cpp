#include "model/isa/address_map.h"

#include <cstdio>

#include "model/common/error.h"
#include "model/fp/bits.h"

namespace neuronsim::model::isa {

AddressMap::AddressMap(const MemoryConfig& m) : AddressMap(m.partitions, m.sbuf_bytes_per_partition, m.psum_bytes_per_partition(), m.dram_bytes) {}

AddressMap::AddressMap(uint32_t partitions, uint64_t sbuf, uint64_t psum, uint64_t dram) : partitions_(partitions), sbuf_(sbuf), psum_(psum), dram_(dram) {
    if (sbuf > (uint64_t{1} << kSbufPartitionShift))
        throw Error("memory.sbuf_bytes_per_partition " + std::to_string(sbuf) + " exceeds the " + std::to_string(uint64_t{1} << kSbufPartitionShift) +
                    "-byte SBUF partition window of an ADDR4");
    if (psum > (uint64_t{1} << kPsumPartitionShift))
        throw Error("PSUM partition " + std::to_string(psum) + " bytes exceeds the " + std::to_string(uint64_t{1} << kPsumPartitionShift) +
                    "-byte PSUM partition window of an ADDR4");
}

uint64_t AddressMap::linear(const Location& l, uint64_t bytes, const std::string& where) const {
    if (fits(l, bytes)) return placed(l);
    if (l.space == MemSpace::Dram)
        throw Error(where + ": dram [" + fp::hex(l.offset) + ", +" + std::to_string(bytes) + ") is past the " + std::to_string(dram_) + "-byte DRAM");
    if (l.partition >= partitions_) throw Error(where + ": partition " + std::to_string(l.partition) + " does not exist");
    throw Error(where + ": " + format_location(l) + " + " + std::to_string(bytes) + " bytes is past the partition's " +
                std::to_string(bytes_per_partition(l.space)) + " bytes");
}

void AddressMap::check_rows(const Location& l, uint32_t rows, uint64_t bytes, const std::string& where) const {
    if (l.space == MemSpace::Dram) {
        linear(l, bytes * rows, where);
        return;
    }
    if (rows && l.partition + uint64_t{rows} > partitions_)
        throw Error(where + ": partitions " + std::to_string(l.partition) + ".." + std::to_string(l.partition + uint64_t{rows} - 1) + " do not all exist");
    linear(l, bytes, where);
}

}  // namespace neuronsim::model::isa
