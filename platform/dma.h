#pragma once
// The DMA engines: TLM initiators moving rows between DRAM (the device's memory port), SBUF,
// PSUM and the ACT table memory. Each engine serves one transfer at a time, in the order they
// were asked for; a transfer takes the fixed per-transfer overhead plus its bytes over the
// engine's bandwidth (public-figures §4), then the data moves and the time the memories
// annotate (b_transport delay or DMI latency) is added. Clockless: the calling process waits
// a few times per transfer, whatever its size.
#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "model/isa/address_map.h"
#include "model/isa/layouts.h"
#include "platform/config/config.h"
#include "platform/stats.h"
#include "platform/tlm_port.h"

namespace neuronsim::platform {

class Recorder;
class WorkBudget;

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

// What a DMA job costs: a fixed overhead plus its bytes over a bandwidth.
struct DmaCost {
    double fixed_overhead_ns = 0;
    double bytes_per_ns = 1;
    sc_core::sc_time duration(uint64_t bytes) const;
};

class DmaEngines : public sc_core::sc_module, public StatsProvider {
public:
    TlmPort sbuf, psum, act_tables;  // bound by the device; DRAM is the device's own port

    // `budget` (may be null) is charged every job's bytes; `timing_only`: jobs take their time
    // but move no data (the memories are not asked, so their annotated delays are absent).
    DmaEngines(sc_core::sc_module_name name, const Config& cfg, TlmPort& dram, Recorder* recorder, WorkBudget* budget = nullptr,
               bool timing_only = false, const std::atomic<int>* cancel = nullptr);

    sc_core::sc_time duration(uint64_t bytes) const;
    // Called from an engine's thread: waits for engine `e` and the transfer's time, then
    // moves the data through the sockets. Errors name the endpoint and the range. Returns how
    // long the transfer queued behind earlier work on engine `e` (a busy-resource stall).
    sc_core::sc_time transfer(uint32_t e, const DmaTransfer& t, const std::string& label);
    // Several transfers as one DMA job: one fixed overhead, their bytes over the bandwidth
    // (the data DMA's, dma.*, unless `cost` says otherwise, as for table loads). A job that
    // moves state rather than element values (`element_values` false: the table images) moves
    // its data even in a timing-only run.
    sc_core::sc_time transfer_group(uint32_t e, const std::vector<DmaTransfer>& ts, const std::string& label, const DmaCost* cost = nullptr,
                                    bool element_values = true);


    uint32_t engines() const { return static_cast<uint32_t>(busy_.size()); }
    void collect_stats(nlohmann::ordered_json& node) const override;

private:
    TlmPort& port(DmaSpace s);
    uint64_t tlm_address(const DmaEndpoint& ep, uint32_t row, uint32_t bytes) const;

    const Config& cfg_;
    model::isa::AddressMap map_;
    TlmPort& dram_;
    Recorder* recorder_;
    WorkBudget* budget_;
    bool timing_only_;
    const std::atomic<int>* cancel_;  // DeviceOptions::cancel: checked between rows
    // Per engine: tickets in request order (next to give, now serving) and the time it was
    // freed, so that transfers run one at a time in the order asked.
    std::vector<uint64_t> next_ticket_, serving_;
    std::vector<sc_core::sc_time> free_at_, busy_;
    sc_core::sc_event freed_;
    std::vector<uint64_t> transfers_, bytes_;
    sc_core::sc_time annotated_ = sc_core::SC_ZERO_TIME;
    int64_t in_flight_ = 0;  // bytes of transfers in progress (the counter track)
};

}  // namespace neuronsim::platform
