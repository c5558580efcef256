#include "platform/dma.h"

#include "model/common/error.h"
#include "model/isa/address.h"
#include "platform/engine_context.h"
#include "platform/recorder.h"
#include "platform/work_budget.h"

namespace neuronsim::platform {

using model::isa::MemSpace;

DmaEngines::DmaEngines(sc_core::sc_module_name name, const Config& cfg, TlmPort& dram, Recorder* recorder, WorkBudget* budget, bool timing_only,
                       const std::atomic<int>* cancel)
    : sc_core::sc_module(name), sbuf("sbuf_socket", "SBUF"), psum("psum_socket", "PSUM"), act_tables("act_tables_socket", "the ACT table memory"),
      cfg_(cfg), map_(cfg.memory.partitions, cfg.memory.sbuf_bytes_per_partition, cfg.memory.psum_bytes_per_partition(), cfg.memory.dram_bytes),
      dram_(dram), recorder_(recorder), budget_(budget), timing_only_(timing_only), cancel_(cancel), next_ticket_(cfg.dma.engines, 0), serving_(cfg.dma.engines, 0),
      free_at_(cfg.dma.engines, sc_core::SC_ZERO_TIME), busy_(cfg.dma.engines, sc_core::SC_ZERO_TIME), transfers_(cfg.dma.engines, 0),
      bytes_(cfg.dma.engines, 0) {}

sc_core::sc_time DmaCost::duration(uint64_t bytes) const {
    return sc_core::sc_time(fixed_overhead_ns + static_cast<double>(bytes) / bytes_per_ns, sc_core::SC_NS);
}

sc_core::sc_time DmaEngines::duration(uint64_t bytes) const { return DmaCost{cfg_.dma.fixed_overhead_ns, cfg_.dma.bytes_per_ns_per_engine}.duration(bytes); }

TlmPort& DmaEngines::port(DmaSpace s) {
    switch (s) {
        case DmaSpace::Dram: return dram_;
        case DmaSpace::Sbuf: return sbuf;
        case DmaSpace::Psum: return psum;
        default: return act_tables;
    }
}

static std::string space_text(DmaSpace s) {
    return s == DmaSpace::ActTables ? "act tables" : model::isa::space_name(static_cast<MemSpace>(s));
}

uint64_t DmaEngines::tlm_address(const DmaEndpoint& ep, uint32_t row, uint32_t bytes) const {
    if (ep.space == DmaSpace::Dram || ep.space == DmaSpace::ActTables) return ep.addr + uint64_t{row} * ep.row_stride;
    if (ep.addr > UINT32_MAX) throw Error("an SBUF/PSUM address is an ADDR4 (32 bits)");
    model::isa::Location l = model::isa::decode_addr4(static_cast<uint32_t>(ep.addr));
    if (static_cast<uint8_t>(l.space) != static_cast<uint8_t>(ep.space))
        throw Error(model::isa::format_location(l) + " is not in " + space_text(ep.space));
    if (l.partition + uint64_t{row} >= map_.partitions())
        throw Error(space_text(ep.space) + " row " + std::to_string(row) + " is partition " + std::to_string(l.partition + row) + ", past the " +
                    std::to_string(map_.partitions()) + " partitions");
    l.partition += row;
    return map_.linear(l, bytes, "row " + std::to_string(row));
}

sc_core::sc_time DmaEngines::transfer(uint32_t e, const DmaTransfer& t, const std::string& label) { return transfer_group(e, {t}, label); }

sc_core::sc_time DmaEngines::transfer_group(uint32_t e, const std::vector<DmaTransfer>& ts, const std::string& label, const DmaCost* cost,
                                            bool element_values) {
    if (e >= busy_.size()) throw Error("DMA engine " + std::to_string(e) + " does not exist (" + std::to_string(busy_.size()) + " configured)");
    // Bound the work, then validate every row before any time passes.
    uint64_t total = 0;
    for (const DmaTransfer& t : ts) total += t.total();
    if (budget_) budget_->dma_bytes(total, label);
    for (const DmaTransfer& t : ts) {
        for (uint32_t r = 0; r < t.rows; ++r) {
            tlm_address(t.src, r, t.bytes);
            tlm_address(t.dst, r, t.bytes);
        }
    }
    // Wait for the engine: one transfer at a time, in the order asked.
    const sc_core::sc_time asked = sc_core::sc_time_stamp();
    const uint64_t ticket = next_ticket_[e]++;
    while (serving_[e] != ticket) wait(freed_);
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    const sc_core::sc_time nominal = cost ? cost->duration(total) : duration(total);
    if (recorder_) recorder_->counter("DMA bytes in flight", start, static_cast<double>(in_flight_ += static_cast<int64_t>(total)));
    wait(nominal);
    // The data moves at the end of the nominal time; what the memories annotate comes on top.
    sc_core::sc_time annotated = sc_core::SC_ZERO_TIME;
    std::vector<uint8_t> buf;
    try {
        for (const DmaTransfer& t : ts) {
            if (timing_only_ && element_values) break;
            buf.resize(t.bytes);
            TlmPort &from = port(t.src.space), &to = port(t.dst.space);
            for (uint32_t r = 0; r < t.rows; ++r) {
                if (cancel_ && cancel_->load(std::memory_order_relaxed)) throw Cancelled{};
                annotated += from.read(tlm_address(t.src, r, t.bytes), buf.data(), t.bytes);
                annotated += to.write(tlm_address(t.dst, r, t.bytes), buf.data(), t.bytes);
            }
        }
    } catch (...) {
        ++serving_[e];  // free the engine for the others before reporting
        freed_.notify(sc_core::SC_ZERO_TIME);
        throw;
    }
    if (annotated > sc_core::SC_ZERO_TIME) wait(annotated);
    annotated_ += annotated;
    const sc_core::sc_time end = sc_core::sc_time_stamp();
    busy_[e] += end - start;
    ++transfers_[e];
    bytes_[e] += total;
    if (recorder_) {
        recorder_->counter("DMA bytes in flight", end, static_cast<double>(in_flight_ -= static_cast<int64_t>(total)));
        recorder_->slice("dma engine " + std::to_string(e), label, start, end, "{\"bytes\": " + std::to_string(total) + "}");
    }
    ++serving_[e];
    freed_.notify(sc_core::SC_ZERO_TIME);
    return start - asked;
}

void DmaEngines::collect_stats(nlohmann::ordered_json& node) const {
    uint64_t transfers = 0, bytes = 0;
    nlohmann::ordered_json per = nlohmann::ordered_json::object();
    for (size_t e = 0; e < busy_.size(); ++e) {
        transfers += transfers_[e];
        bytes += bytes_[e];
        per[std::to_string(e)] = {{"transfers", transfers_[e]}, {"bytes", bytes_[e]}, {"busy_ps", busy_[e].value()}};
    }
    node["transfers"] = transfers;
    node["bytes"] = bytes;
    node["annotated_delay_ps"] = annotated_.value();
    node["engines"] = std::move(per);
}

}  // namespace neuronsim::platform
