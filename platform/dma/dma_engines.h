#pragma once
// The core's DMA engines as the public documents describe them (docs/timing-model.md, "DMA"):
// a transfer (a DmaJob) is split into packets, one per engine it touches (an engine serves 8
// consecutive partitions: partitions / engines), or put whole on one engine when the job names
// it; each engine keeps a FIFO per queue and serves its queues round-robin, one packet at a
// time. It accepts up to dma.outstanding_per_engine packets in arrival order; an accepted packet
// is ready dma.fixed_overhead_ns later (that latency runs while the engine moves other data:
// it overlaps them), then costs the engine
// dma.descriptor_ns per row plus its bytes at the engine's bandwidth, which the engines moving
// data at the same moment share up to dma.aggregate_bytes_per_ns. Its rows move through the
// sockets when its engine takes it up, before that time passes (so that, queued, the copy is
// made on a host thread while the engines compute: CopiesInFlight); what the memories
// annotate comes on top. The transfer completes when its last packet does. Clockless: a
// packet costs a few waits, whatever its size.
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "model/isa/address_map.h"
#include "model/isa/region.h"
#include "platform/config.h"
#include "platform/core/busy_intervals.h"
#include "platform/core/stats.h"
#include "platform/dma/copies_in_flight.h"
#include "platform/tlm/tlm_port.h"

namespace neuronsim::platform {

class Recorder;
class WorkBudget;

// Where a DMA reads or writes: the three memories of the trace's address spaces, or the
// ACT table memory (a flat address space, like DRAM).
enum class DmaSpace : uint8_t { Dram = 0, Sbuf = 1, Psum = 2, ActTables = 3 };

struct DmaEndpoint {
    DmaSpace space = DmaSpace::Dram;
    uint64_t addr = 0;  // DRAM/table byte address, or an SBUF/PSUM ADDR4
    uint64_t row_stride = 0;  // DRAM bytes between rows (SBUF/PSUM rows are partitions)
};

// Rows of `bytes` each: one descriptor per row.
struct DmaTransfer {
    DmaEndpoint src, dst;
    uint32_t rows = 1;
    uint32_t bytes = 0;
    uint64_t total() const { return uint64_t{rows} * bytes; }
};

// The bytes an endpoint of `t` covers, appended to `out`: in SBUF/PSUM one region of `rows`
// partitions, in DRAM one per row (one in all when the rows are contiguous); none in the ACT
// table memory (the engine's own state). For the dependencies of ACT's copies and the hazard
// detector.
void append_regions(const DmaTransfer& t, const DmaEndpoint& ep, std::vector<model::isa::Region>& out);

// One DMA transfer: what the trace's `copy` (or a table load) asks the engines to do.
struct DmaJob {
    std::vector<DmaTransfer> parts;
    uint32_t queue = 0;  // the queue id on each engine
    int engine = -1;  // every row on this engine; -1: spread by partition
    bool element_values = true;  // false: state (table images), moved even in a timing-only run
    std::string label;  // names its packets on the timeline ("dma.0#3")
    std::function<void()> done;  // called when its last packet ends (in a DMA engine's process)
    // A memory answered an error while its rows moved (named range and target); called once,
    // before done.
    std::function<void(const std::string&)> failed;
};

class DmaEngines : public sc_core::sc_module, public StatsProvider {
public:
    TlmPort sbuf, psum, act_tables;  // bound by the device; DRAM is the device's own port

    // `budget` (may be null) is charged every job's bytes; `timing_only`: jobs of element
    // values take their time but move no data; `cancel` (DeviceOptions::cancel) is checked
    // between the chunks a packet moves.
    // `map`: the core's address map (outlives the engines). `pool`: the core's host threads,
    // where the copies land when `copies` queues them (CopiesInFlight; Inline: made at once).
    DmaEngines(sc_core::sc_module_name name, const Config& cfg, const model::isa::AddressMap& map, TlmPort& dram, Recorder* recorder, model::WorkerPool& pool,
               CopiesInFlight::Mode copies, WorkBudget* budget = nullptr, bool timing_only = false, const std::atomic<int>* cancel = nullptr);
    ~DmaEngines() override;

    // Validates every row (an Error names the endpoint and the range) and charges the budget
    // before any time passes, then queues the job's packets; returns at once. `done` follows.
    void submit(DmaJob job);
    // The device's RESET: every packet queued or being served is dropped (a packet whose rows
    // are moving stops at the next chunk); no job of before completes or fails. The rows moved
    // so far (every packet's its engine had taken up) stay where they are.
    void reset();

    uint32_t engines() const { return static_cast<uint32_t>(units_.size()); }
    // The engine a row of a spread transfer goes to: its SBUF/PSUM partition (or, DRAM to DRAM,
    // its row number) over the partitions each engine serves.
    uint32_t engine_of_row(const DmaTransfer& t, uint32_t row) const;
    // The rows of the engine that moves most of a job's rows (all of them when it is pinned).
    uint32_t busiest_rows(const DmaJob& job) const;
    void collect_stats(nlohmann::ordered_json& node) const override;
    // When some DMA engine was moving data: the union of every engine's packet times.
    BusyIntervals busy_union() const;
    // The copies queued beside the simulation: what touches a memory settles over its bytes
    // first (an engine's operands, the table load, the fetch, the host).
    CopiesInFlight& copies() { return copies_; }

private:
    struct Job;
    struct Packet;
    class Unit;
    friend class Unit;

    TlmPort& port(DmaSpace s);
    uint64_t tlm_address(const DmaEndpoint& ep, uint32_t row, uint32_t bytes) const;
    // Streams `bytes` at the engines' shared rate: waits until they have moved.
    void stream(double bytes, const Packet& p);  // (until a RESET drops `p`)
    double rate() const;
    // Moves the packet's rows; returns the time the memories annotated.
    sc_core::sc_time move(const Packet& p, std::vector<uint8_t>& buf);
    // (`queue`: the copies are appended to it instead of made)
    bool direct_copy(TlmPort& from, uint64_t src, TlmPort& to, uint64_t dst, uint64_t n, sc_core::sc_time& annotated,
                     std::vector<CopiesInFlight::Piece>* queue);
    void finished(const Packet& p);
    bool stale(const Packet& p) const;

    const Config& cfg_;
    const model::isa::AddressMap& map_;
    TlmPort& dram_;
    Recorder* recorder_;
    WorkBudget* budget_;
    bool timing_only_;
    const std::atomic<int>* cancel_;
    std::vector<std::unique_ptr<Unit>> units_;
    uint32_t streaming_ = 0;  // engines moving bytes now
    sc_core::sc_event share_changed_;  // their rate changed
    uint64_t jobs_ = 0, bytes_ = 0;  // (packets and descriptors are the engines')
    sc_core::sc_time annotated_ = sc_core::SC_ZERO_TIME;
    int64_t in_flight_ = 0;  // bytes of packets being served (the counter track)
    uint64_t epoch_ = 0;  // RESETs so far
    sc_core::sc_event reset_event_;
    CopiesInFlight copies_;  // (last: its destructor lands what is queued before the rest goes)
};

}  // namespace neuronsim::platform
