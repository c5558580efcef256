#pragma once
// The DMA engines: a TLM initiator moving rows between DRAM, SBUF and PSUM. Each engine
// serves one transfer at a time; a transfer takes the fixed per-transfer overhead plus its
// bytes over the engine's bandwidth (public-figures §4), and the data moves when it ends.
// Clockless: the calling process waits once per transfer, whatever its size.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "model/isa/layouts.h"
#include "platform/config/config.h"
#include "platform/stats.h"

namespace neuronsim::platform {

class Recorder;

// Where a DMA reads or writes: the three memories of the trace's address spaces, or the
// ACT table memory (a flat address space, like DRAM).
enum class DmaSpace : uint8_t { Dram = 0, Sbuf = 1, Psum = 2, ActTables = 3 };

struct DmaEndpoint {
    DmaSpace space = DmaSpace::Dram;
    uint64_t addr = 0;        // DRAM/table byte address, or an SBUF/PSUM ADDR4
    uint64_t row_stride = 0;  // DRAM bytes between rows (SBUF/PSUM rows are partitions)
};

struct DmaTransfer {
    DmaEndpoint src, dst;
    uint32_t rows = 1;
    uint32_t bytes = 0;       // per row
    uint64_t total() const { return uint64_t{rows} * bytes; }
};

class DmaEngines : public sc_core::sc_module, public StatsProvider {
public:
    tlm_utils::simple_initiator_socket<DmaEngines> dram_socket, sbuf_socket, psum_socket, act_tables_socket;

    DmaEngines(sc_core::sc_module_name name, const Config& cfg, Recorder* recorder);

    sc_core::sc_time duration(uint64_t bytes) const;
    // Called from an engine's thread: waits for engine `e` and the transfer's time, then
    // moves the data through the sockets. Errors name the endpoint and the range. Returns how
    // long the transfer queued behind earlier work on engine `e` (a busy-resource stall).
    sc_core::sc_time transfer(uint32_t e, const DmaTransfer& t, const std::string& label);
    // Several transfers as one DMA job: one fixed overhead, their bytes over the bandwidth.
    sc_core::sc_time transfer_group(uint32_t e, const std::vector<DmaTransfer>& ts, const std::string& label);
    // Writes the pending points of the "DMA bytes in flight" counter track (end of run).
    void flush_counter(const sc_core::sc_time& upto = sc_core::sc_max_time());

    uint32_t engines() const { return static_cast<uint32_t>(busy_until_.size()); }
    void collect_stats(nlohmann::ordered_json& node) const override;

private:
    tlm_utils::simple_initiator_socket<DmaEngines>& socket(DmaSpace s);
    uint64_t tlm_address(const DmaEndpoint& ep, uint32_t row, uint32_t bytes) const;
    void move(DmaSpace s, bool write, uint64_t addr, uint8_t* data, uint32_t len);

    const Config& cfg_;
    Recorder* recorder_;
    std::vector<sc_core::sc_time> busy_until_, busy_;
    std::vector<uint64_t> transfers_, bytes_;
    std::map<sc_core::sc_time, int64_t> in_flight_delta_;  // future changes of bytes in flight
    int64_t in_flight_ = 0;
};

}  // namespace neuronsim::platform
