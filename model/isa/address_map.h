#pragma once
// The one address map of a core's memories: an ADDR4 (or a trace location) to its space,
// partition and offset, checked against the configured partition sizes, and to the linear
// address inside that memory (partition x bytes per partition + offset), the address the
// memories' TLM targets and the device's windows use. DRAM is flat.
#include <cstdint>
#include <string>

#include "model/isa/address.h"
#include "neuronsim/config.h"

namespace neuronsim::model::isa {

class AddressMap {
public:
    // Throws when a partition is larger than its ADDR4 window (256 KiB SBUF, 32 KiB PSUM).
    AddressMap(uint32_t partitions, uint64_t sbuf_bytes_per_partition, uint64_t psum_bytes_per_partition, uint64_t dram_bytes);
    // The map of a configuration's memory.* (the one derivation a core and its host use).
    explicit AddressMap(const MemoryConfig& m);

    uint32_t partitions() const { return partitions_; }
    uint64_t bytes_per_partition(MemSpace s) const { return s == MemSpace::Sbuf ? sbuf_ : psum_; }
    uint64_t dram_bytes() const { return dram_; }

    // The linear address of `bytes` at `l` (SBUF/PSUM: inside one partition), or an Error
    // "WHERE: ..." naming the location and the limit.
    uint64_t linear(const Location& l, uint64_t bytes, const std::string& where) const;
    // The same with WHERE built only when it throws (`where()` returns it): a path taken per row
    // or per access builds no string.
    template <class Where>
    uint64_t linear_named_by(const Location& l, uint64_t bytes, const Where& where) const {
        return fits(l, bytes) ? placed(l) : linear(l, bytes, where());
    }
    // The same for `partitions` consecutive partitions from l (each row `bytes` long).
    void check_rows(const Location& l, uint32_t rows, uint64_t bytes, const std::string& where) const;

private:
    bool fits(const Location& l, uint64_t bytes) const {
        const uint64_t size = l.space == MemSpace::Dram ? dram_ : bytes_per_partition(l.space);
        return (l.space == MemSpace::Dram || l.partition < partitions_) && l.offset <= size && bytes <= size - l.offset;
    }
    uint64_t placed(const Location& l) const { return l.space == MemSpace::Dram ? l.offset : uint64_t{l.partition} * bytes_per_partition(l.space) + l.offset; }

    uint32_t partitions_;
    uint64_t sbuf_, psum_, dram_;
};

}  // namespace neuronsim::model::isa
