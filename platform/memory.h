#pragma once
// The memories as TLM-2.0 targets (b_transport, transport_dbg, DMI): device DRAM with a sparse
// backing store over a 64-bit address space, and SBUF/PSUM as [partition][byte] arrays whose
// TLM address is partition * bytes_per_partition + offset. Accesses cost no time here: the
// engines and the DMA model account for time.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "platform/stats.h"

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

    // Direct access for loading and dumping (what transport_dbg does), bounds-checked: an
    // access outside the memory is an Error naming the memory and the range.
    void write(uint64_t addr, const uint8_t* data, uint64_t len);
    void read(uint64_t addr, uint8_t* data, uint64_t len) const;

    // The dense store (SBUF/PSUM) for engines that stream whole tensors; nullptr for DRAM.
    uint8_t* dense_data() { return partitions_ ? dense_.data() : nullptr; }
    void count_access(uint64_t read, uint64_t written) { bytes_read_ += read, bytes_written_ += written; }

    uint64_t bytes_read() const { return bytes_read_; }
    uint64_t bytes_written() const { return bytes_written_; }
    void collect_stats(nlohmann::ordered_json& node) const override;

private:
    void b_transport(int id, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
    unsigned int transport_dbg(int id, tlm::tlm_generic_payload& trans);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
    bool access(tlm::tlm_generic_payload& trans);
    uint8_t* page(uint64_t index, bool create) const;
    void check(uint64_t addr, uint64_t len) const;

    static constexpr uint64_t kPageBits = 16;
    uint64_t size_;
    uint32_t partitions_;
    std::vector<uint8_t> dense_;
    mutable std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
    uint64_t bytes_read_ = 0, bytes_written_ = 0;
};

}  // namespace neuronsim::platform
