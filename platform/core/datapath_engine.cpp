#include "platform/core/datapath_engine.h"

#include <algorithm>
#include <exception>

#include "model/common/error.h"
#include "model/fp/dtype.h"
#include "platform/core/shared_ports.h"
#include "platform/dma/dma_engines.h"
#include "platform/tlm/memory.h"

namespace neuronsim::platform {

using model::isa::MemSpace;
using model::isa::Region;

DatapathEngine::DatapathEngine(sc_core::sc_module_name name, const std::string& label, EngineContext& ctx, InstructionSource& source, double clock_ghz)
    : Engine(name, label, ctx, source, clock_ghz), sbuf("sbuf_socket", "SBUF"), psum("psum_socket", "PSUM"), pool_(ctx.host_pool()) {}

void DatapathEngine::each_partition(uint32_t nch, bool independent, const std::function<void(uint32_t)>& partition) {
    if (!independent) {
        for (uint32_t p = 0; p < nch; ++p) partition(p);
        return;
    }
    // Each partition's error is kept; the first partition's is the one a single thread would
    // have met first. (Partitions after it may have been written: after an error the
    // instruction's outputs are not defined.)
    std::vector<std::exception_ptr> failed(nch);
    pool_.run(nch, [&](size_t p) {
        try {
            partition(static_cast<uint32_t>(p));
        } catch (...) {
            failed[p] = std::current_exception();
        }
    });
    for (const auto& e : failed)
        if (e) std::rethrow_exception(e);
}

void DatapathEngine::bind(CoreMemories& m) {
    sbuf.socket().bind(m.sbuf.socket);
    psum.socket().bind(m.psum.socket);
}

uint8_t* DatapathEngine::memory(MemSpace s) {
    const Config& c = ctx_.config();
    TlmPort& port = s == MemSpace::Sbuf ? sbuf : psum;
    const uint64_t size = uint64_t{c.memory.partitions} * (s == MemSpace::Sbuf ? c.memory.sbuf_bytes_per_partition : c.memory.psum_bytes_per_partition());
    uint8_t* p = port.direct(0, size);
    if (!p) throw Error(port.what() + " did not grant DMI over its " + std::to_string(size) + " bytes; the " + label() + " engine streams tensors through DMI");
    return p;
}

Pattern DatapathEngine::tile(const char* what, const model::isa::Tensor2D& t, model::fp::Dtype d, uint32_t partitions) {
    Pattern p = pattern(ctx_.config(), memory(model::isa::decode_addr4(t.start_addr).space), what, t.start_addr, t.step_elem, t.num_elem, 2,
                        model::fp::dtype_bytes(d), partitions);
    check_quadrant(what, p.partition, partitions);
    return p;
}

void DatapathEngine::reset_state() {
    Engine::reset_state();
    pending_.clear();
    pipe_ = StagePipeline{};
}

sc_core::sc_time DatapathEngine::results_ready(const std::vector<Region>& reads, bool any, sc_core::sc_time at) {
    at = std::max(at, now());
    pending_.erase(std::remove_if(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.end <= now(); }), pending_.end());
    for (const Pending& p : pending_)
        if ((model::isa::any_overlap(p.writes, reads) || (any && model::isa::any_overlap(p.reads, reads))) && p.end > at) {
            at = p.end;
            detail_.producer = &label();
            detail_.producer_index = p.index;
        }
    return at;
}

StagePipeline::Slot DatapathEngine::issue(const StageCycles& st, std::vector<Region> reads, std::vector<Region> writes, sc_core::sc_time at,
                                          std::vector<Region> ordered) {
    sc_core::sc_time earliest = results_ready(reads, false, at);
    SharedPorts* ports = port_role_ == PortRole::None ? nullptr : ctx_.shared_ports();
    if (ports) {
        const bool shares = port_role_ == PortRole::SharesPort;
        const sc_core::sc_time port = shares ? ports->pool_until : ports->psum_writes_done;
        if (port > earliest) {
            earliest = port;
            detail_.resource = shares ? &ports->port_name : &ports->psum_name;
            detail_.producer = nullptr;
        }
    }
    reads.insert(reads.end(), ordered.begin(), ordered.end());
    uint64_t ps[4];
    for (int k = 0; k < 4; ++k) ps[k] = cycles(static_cast<double>(st.cycles[k])).value();
    const StagePipeline::Slot s = pipe_.issue(earliest.value(), ps);
    if (ports && port_role_ == PortRole::SharesPort)  // as it decides: GpSimd, arriving meanwhile, waits
        ports->reserve(true, sc_core::sc_time(static_cast<double>(s.end), sc_core::SC_PS),
                       std::any_of(writes.begin(), writes.end(), [](const Region& r) { return r.space == model::isa::MemSpace::Psum; }));
    const sc_core::sc_time start(static_cast<double>(s.start), sc_core::SC_PS);
    if (start > now()) hold(start - now());
    detail_.start = now();
    detail_.end = sc_core::sc_time(static_cast<double>(s.end), sc_core::SC_PS);
    seq_free_ = sc_core::sc_time(static_cast<double>(s.moved_on), sc_core::SC_PS);
    ctx_.dma().copies().settle(reads, writes);  // (the caller touches its operands next)
    note_access(reads, writes);
    pending_.push_back({detail_.end, index_now_, std::move(reads), std::move(writes)});
    return s;
}

}  // namespace neuronsim::platform
