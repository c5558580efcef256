#include "platform/dma.h"

#include "model/common/error.h"
#include "model/isa/address.h"
#include "platform/recorder.h"

namespace neuronsim::platform {

using model::isa::MemSpace;

DmaEngines::DmaEngines(sc_core::sc_module_name name, const Config& cfg, Recorder* recorder)
    : sc_core::sc_module(name), dram_socket("dram_socket"), sbuf_socket("sbuf_socket"), psum_socket("psum_socket"), cfg_(cfg),
      recorder_(recorder), busy_until_(cfg.dma.engines, sc_core::SC_ZERO_TIME), busy_(cfg.dma.engines, sc_core::SC_ZERO_TIME),
      transfers_(cfg.dma.engines, 0), bytes_(cfg.dma.engines, 0) {}

sc_core::sc_time DmaEngines::duration(uint64_t bytes) const {
    return sc_core::sc_time(cfg_.dma.fixed_overhead_ns + static_cast<double>(bytes) / cfg_.dma.bytes_per_ns_per_engine, sc_core::SC_NS);
}

tlm_utils::simple_initiator_socket<DmaEngines>& DmaEngines::socket(MemSpace s) {
    return s == MemSpace::Dram ? dram_socket : s == MemSpace::Sbuf ? sbuf_socket : psum_socket;
}

uint64_t DmaEngines::tlm_address(const DmaEndpoint& ep, uint32_t row, uint32_t bytes) const {
    if (ep.space == MemSpace::Dram) return ep.addr + uint64_t{row} * ep.row_stride;
    if (ep.addr > UINT32_MAX) throw Error("an SBUF/PSUM address is an ADDR4 (32 bits)");
    model::isa::Location l = model::isa::decode_addr4(static_cast<uint32_t>(ep.addr));
    if (l.space != ep.space)
        throw Error(model::isa::format_location(l) + " is not in " + model::isa::space_name(ep.space));
    const uint64_t per = ep.space == MemSpace::Sbuf ? cfg_.memory.sbuf_bytes_per_partition : cfg_.memory.psum_bytes_per_partition();
    const uint32_t p = l.partition + row;
    if (p >= cfg_.memory.partitions)
        throw Error(model::isa::space_name(ep.space) + " row " + std::to_string(row) + " is partition " + std::to_string(p) + ", past the " +
                    std::to_string(cfg_.memory.partitions) + " partitions");
    if (l.offset + bytes > per)
        throw Error(model::isa::format_location(l) + " + " + std::to_string(bytes) + " bytes runs past the partition's " + std::to_string(per) + " bytes");
    return uint64_t{p} * per + l.offset;
}

void DmaEngines::move(MemSpace s, bool write, uint64_t addr, uint8_t* data, uint32_t len) {
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
        throw Error(std::string(write ? "write to " : "read from ") + model::isa::space_name(s) + " [" + std::to_string(addr) + ", +" +
                    std::to_string(len) + "): " + t.get_response_string());
}

void DmaEngines::transfer(uint32_t e, const DmaTransfer& t, const std::string& label) {
    if (e >= busy_until_.size()) throw Error("DMA engine " + std::to_string(e) + " does not exist (" + std::to_string(busy_until_.size()) + " configured)");
    // Validate every row before any time passes.
    std::vector<uint64_t> src(t.rows), dst(t.rows);
    for (uint32_t r = 0; r < t.rows; ++r) {
        src[r] = tlm_address(t.src, r, t.bytes);
        dst[r] = tlm_address(t.dst, r, t.bytes);
    }
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time start = busy_until_[e] > now ? busy_until_[e] : now;
    const sc_core::sc_time end = start + duration(t.total());
    busy_until_[e] = end;
    busy_[e] += end - start;
    ++transfers_[e];
    bytes_[e] += t.total();
    sc_core::wait(end - now);
    std::vector<uint8_t> buf(t.bytes);
    for (uint32_t r = 0; r < t.rows; ++r) {
        move(t.src.space, false, src[r], buf.data(), t.bytes);
        move(t.dst.space, true, dst[r], buf.data(), t.bytes);
    }
    if (recorder_)
        recorder_->slice("dma engine " + std::to_string(e), label, start, end, "{\"bytes\": " + std::to_string(t.total()) + "}");
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
