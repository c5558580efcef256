#include "platform/dma.h"

#include "model/common/error.h"
#include "model/isa/address.h"
#include "platform/recorder.h"

namespace neuronsim::platform {

using model::isa::MemSpace;

DmaEngines::DmaEngines(sc_core::sc_module_name name, const Config& cfg, Recorder* recorder)
    : sc_core::sc_module(name), dram_socket("dram_socket"), sbuf_socket("sbuf_socket"), psum_socket("psum_socket"),
      act_tables_socket("act_tables_socket"), cfg_(cfg),
      recorder_(recorder), busy_until_(cfg.dma.engines, sc_core::SC_ZERO_TIME), busy_(cfg.dma.engines, sc_core::SC_ZERO_TIME),
      transfers_(cfg.dma.engines, 0), bytes_(cfg.dma.engines, 0) {}

sc_core::sc_time DmaEngines::duration(uint64_t bytes) const {
    return sc_core::sc_time(cfg_.dma.fixed_overhead_ns + static_cast<double>(bytes) / cfg_.dma.bytes_per_ns_per_engine, sc_core::SC_NS);
}

tlm_utils::simple_initiator_socket<DmaEngines>& DmaEngines::socket(DmaSpace s) {
    switch (s) {
        case DmaSpace::Dram: return dram_socket;
        case DmaSpace::Sbuf: return sbuf_socket;
        case DmaSpace::Psum: return psum_socket;
        default: return act_tables_socket;
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
    const uint64_t per = ep.space == DmaSpace::Sbuf ? cfg_.memory.sbuf_bytes_per_partition : cfg_.memory.psum_bytes_per_partition();
    const uint32_t p = l.partition + row;
    if (p >= cfg_.memory.partitions)
        throw Error(space_text(ep.space) + " row " + std::to_string(row) + " is partition " + std::to_string(p) + ", past the " +
                    std::to_string(cfg_.memory.partitions) + " partitions");
    if (l.offset + bytes > per)
        throw Error(model::isa::format_location(l) + " + " + std::to_string(bytes) + " bytes runs past the partition's " + std::to_string(per) + " bytes");
    return uint64_t{p} * per + l.offset;
}

void DmaEngines::move(DmaSpace s, bool write, uint64_t addr, uint8_t* data, uint32_t len) {
    tlm::tlm_generic_payload t;
    t.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    t.set_address(addr);
    t.set_data_ptr(data);
    t.set_data_length(len);
    t.set_streaming_width(len);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket(s)->b_transport(t, delay);
    if (t.get_response_status() != tlm::TLM_OK_RESPONSE)
        throw Error(std::string(write ? "write to " : "read from ") + space_text(s) + " [" + std::to_string(addr) + ", +" +
                    std::to_string(len) + "): " + t.get_response_string());
}

sc_core::sc_time DmaEngines::transfer(uint32_t e, const DmaTransfer& t, const std::string& label) { return transfer_group(e, {t}, label); }

void DmaEngines::flush_counter(const sc_core::sc_time& upto) {
    while (!in_flight_delta_.empty() && in_flight_delta_.begin()->first < upto) {
        auto it = in_flight_delta_.begin();
        in_flight_ += it->second;
        if (recorder_) recorder_->counter("DMA bytes in flight", it->first, static_cast<double>(in_flight_));
        in_flight_delta_.erase(it);
    }
}

sc_core::sc_time DmaEngines::transfer_group(uint32_t e, const std::vector<DmaTransfer>& ts, const std::string& label) {
    if (e >= busy_until_.size()) throw Error("DMA engine " + std::to_string(e) + " does not exist (" + std::to_string(busy_until_.size()) + " configured)");
    // Validate every row before any time passes.
    std::vector<std::vector<uint64_t>> src(ts.size()), dst(ts.size());
    uint64_t total = 0;
    for (size_t i = 0; i < ts.size(); ++i) {
        for (uint32_t r = 0; r < ts[i].rows; ++r) {
            src[i].push_back(tlm_address(ts[i].src, r, ts[i].bytes));
            dst[i].push_back(tlm_address(ts[i].dst, r, ts[i].bytes));
        }
        total += ts[i].total();
    }
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time start = busy_until_[e] > now ? busy_until_[e] : now;
    const sc_core::sc_time end = start + duration(total);
    busy_until_[e] = end;
    flush_counter(now);  // transfers scheduled from now on start at now or later
    in_flight_delta_[start] += static_cast<int64_t>(total);
    in_flight_delta_[end] -= static_cast<int64_t>(total);
    busy_[e] += end - start;
    ++transfers_[e];
    bytes_[e] += total;
    sc_core::wait(end - now);
    for (size_t i = 0; i < ts.size(); ++i) {
        std::vector<uint8_t> buf(ts[i].bytes);
        for (uint32_t r = 0; r < ts[i].rows; ++r) {
            move(ts[i].src.space, false, src[i][r], buf.data(), ts[i].bytes);
            move(ts[i].dst.space, true, dst[i][r], buf.data(), ts[i].bytes);
        }
    }
    if (recorder_) recorder_->slice("dma engine " + std::to_string(e), label, start, end, "{\"bytes\": " + std::to_string(total) + "}");
    return start - now;
}

void DmaEngines::collect_stats(nlohmann::ordered_json& node) const {
    uint64_t transfers = 0, bytes = 0;
    nlohmann::ordered_json per = nlohmann::ordered_json::object();
    for (size_t e = 0; e < busy_until_.size(); ++e) {
        transfers += transfers_[e];
        bytes += bytes_[e];
        if (!transfers_[e]) continue;
        per[std::to_string(e)] = {{"transfers", transfers_[e]}, {"bytes", bytes_[e]}, {"busy_ps", busy_[e].value()}};
    }
    node["transfers"] = transfers;
    node["bytes"] = bytes;
    node["engines"] = std::move(per);
}

}  // namespace neuronsim::platform
