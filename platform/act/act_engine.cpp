#include "platform/act/act_engine.h"
#include "platform/core/tensor_operand.h"
#include "platform/core/work_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/fp/dtype.h"
#include "model/isa/access_pattern.h"
#include "model/isa/act_operands.h"
#include "model/isa/address.h"
#include "model/isa/address_map.h"
#include "model/isa/layouts.h"
#include "model/pwp/catalog.h"
#include "model/pwp/closed_forms.h"
#include "neuronsim/act_sets.h"
#include "platform/dma/dma_copy.h"
#include "platform/dma/dma_engines.h"
#include "platform/record/recorder.h"
#include "platform/tlm/memory.h"
#include "stats/stat_records.h"

namespace neuronsim::platform {

using namespace model::isa;
using model::fp::Dtype;
using model::isa::AccessPattern;
using model::isa::Region;

using model::fp::hex2;

void ActEngine::bind(CoreMemories& m) {
    DatapathEngine::bind(m);
    m.dma.act_tables.socket().bind(tables_->socket);
}

ActEngine::ActEngine(sc_core::sc_module_name name, EngineContext& ctx, InstructionSource& source)
    : DatapathEngine(name, "act", ctx, source, ctx.config().act.clock_ghz),
      tables_(std::make_unique<ActTables>("act_tables", ctx.config().act.tables)),
      acc_(ctx.config().memory.partitions, 0.0f) {
    timing_.cfg = &ctx.config().act;
    port_role_ = PortRole::WaitsForPsumWriters;
}

ActEngine::~ActEngine() = default;

bool ActEngine::execute(const Bundle& b, uint64_t index) {
    const uint8_t op = b.opcode();
    index_now_ = index;
    if (op >= kActivate && op <= 0x26 && !ctx_.config().act.has_opcode(op))
        throw Error("opcode " + hex2(op) + " does not exist on " + ctx_.config().generation.name + " (NC-v" +
                    std::to_string(ctx_.config().generation.nc_version) + "): act.opcodes lists the generation's ACT opcodes");
    switch (op) {
        case kTableLoad: load_set(b, index); return true;
        case kActivate: activate(b); return true;
        case kActivateQuantize: activate_quantize(b); return true;
        case kActivate2: activate2(b); return true;
        case kReadAccumulator: read_accumulator(b); return true;
        case kDmaCopy: dge_copy(b, index); return true;
        default: return false;
    }
}

void ActEngine::reset_state() {
    DatapathEngine::reset_state();
    pending_switch_ = nullptr;
    if (tables_loading_) {  // the abandoned load may have written part of the tables: no set is resident
        tables_loading_ = false;
        tables_->set_resident("", 0, {});
        tables_loaded_.notify(sc_core::SC_ZERO_TIME);
    }
}

void ActEngine::dge_copy(const Bundle& b, uint64_t index) {
    const Config& c = ctx_.config();
    if (!c.act.hwdge)
        throw Error("copy: " + c.generation.name + " has no hardware DGE, so the ACT queue cannot trigger a DMA (act.hwdge); use a DMA queue stream");
    DmaJob job = copy_job(b);
    const DmaTransfer& t = job.parts[0];
    wait_dma_slot();  // a full queue is a stall before it issues
    // It reads SBUF/PSUM rows an earlier ACT instruction may still write, and writes rows one
    // may still read or write: it waits for them (a DMA moves its data asynchronously).
    auto rows = [&](const DmaEndpoint& ep) {  // (DRAM rows are no ACT result: left out)
        std::vector<Region> r;
        if (ep.space == DmaSpace::Sbuf || ep.space == DmaSpace::Psum) append_regions(t, ep, r);
        return r;
    };
    const sc_core::sc_time earliest = results_ready(rows(t.dst), true, results_ready(rows(t.src), false));
    const StagePipeline::Slot s = pipe_.sequencer(earliest.value(), sc_core::sc_time(c.act.hwdge_ns, sc_core::SC_NS).value());
    const sc_core::sc_time start(static_cast<double>(s.start), sc_core::SC_PS), generated(static_cast<double>(s.end), sc_core::SC_PS);
    if (start > now()) hold(start - now());
    detail_.start = start;
    detail_.shape.rows = t.rows;
    detail_.shape.bytes = t.total();
    // The DGE generates the descriptors, then triggers; ACT's datapath goes on meanwhile.
    hold(generated - now());
    job.queue = c.act.hwdge_queue;
    job.label = label() + "#" + std::to_string(index);
    detail_.shape.busiest_rows = ctx_.dma().busiest_rows(job);
    detail_.shape.dge = InstructionShape::Dge::Hardware;
    trigger_dma(std::move(job));
    seq_free_ = now();
}

void ActEngine::read_accumulator(const Bundle& b) {
    ReadAccumulatorOp op;
    std::memcpy(&op, b.b.data(), sizeof op);
    if (op.dst_element_count != 1) throw Error("read_accumulator: dst_element_count is " + std::to_string(op.dst_element_count) + ", must be 1");
    if (op.negated != 0) throw Error("read_accumulator: negated must be 0 on ACT (only DveReadAccumulator negates)");
    if (op.dtype != 0x06 && op.dtype != 0x07 && op.dtype != 0x0A && op.dtype != 0x0B)
        throw Error("read_accumulator: dtype " + model::fp::dtype_name(op.dtype) + " is not FP16, BF16, FP32 or FP32R");
    const uint32_t nch = active_channels(ctx_.config(), op.num_active_channels);
    if (op.dst.num_elem != 1) throw Error("read_accumulator: dst.num is " + std::to_string(op.dst.num_elem) + ", must be 1");
    const Dtype dt = static_cast<Dtype>(op.dtype);
    const MemSpace dst_space = decode_addr4(op.dst.start_addr).space;
    if (dst_space != MemSpace::Sbuf && dst_space != MemSpace::Psum)
        throw Error("dst " + format_location(decode_addr4(op.dst.start_addr)) + " is not in SBUF or PSUM");
    Pattern dst = pattern(ctx_.config(), memory(dst_space), "dst", op.dst.start_addr, &op.dst.step_elem, &op.dst.num_elem, 1, model::fp::dtype_bytes(dt), nch);
    check_quadrant("dst", dst.partition, nch);
    // The accumulator is the pipeline's own: read out in order after the instructions that
    // feed it, with no wait for them to complete.
    issue(timing_.read_accumulator(), {}, {pattern_region(dst, nch)});
    for (uint32_t p = 0; p < nch && !ctx_.options().timing_only; ++p) model::fp::from_f32(dt, acc_[dst.partition + p], dst.at(p, 0, 0, 0));
    detail_.shape.n = 1;
    detail_.shape.out_dtype = op.dtype;
    detail_.elements = nch;
    bytes_written_[dst.space == MemSpace::Psum] += uint64_t{nch} * dst.bytes;
}

void ActEngine::collect_stats(nlohmann::ordered_json& node) const {
    Engine::collect_stats(node);
    namespace s = stats::act;
    stats::put(node, s::elements, elements_);
    stats::put(node, s::table_loads, loads_);
    stats::put(node, s::redundant_table_loads, redundant_loads_);
    stats::put(node, s::table_load_bytes, load_bytes_);
    const sc_core::sc_time loading = busy_of("load_act_func_set");  // the loads' exclusive share
    stats::put(node, s::table_load_ps, loading.value());
    const sc_core::sc_time dma = busy_of("copy");  // DMA triggered from the ACT queue, in flight
    // Busy time apart from table loads: a table load is not computing.
    stats::put(node, s::compute_ps, (busy_time() - loading - dma).value());
    nlohmann::ordered_json sw = nlohmann::ordered_json::array();
    for (const auto& [k, v] : switches_) {
        nlohmann::ordered_json fns = nlohmann::ordered_json::array();
        for (const auto& f : v.functions) fns.push_back(f);
        sw.push_back({{s::switch_from.leaf(), k.first},
                      {s::switch_to.leaf(), k.second},
                      {s::switch_count.leaf(), v.count},
                      {s::switch_load_ps.leaf(), v.time.value()},
                      {s::switch_functions.leaf(), std::move(fns)}});
    }
    node[s::switch_from.head()] = std::move(sw);
    stats::put(node, s::sbuf_bytes_read, bytes_read_[0]);
    stats::put(node, s::sbuf_bytes_written, bytes_written_[0]);
    stats::put(node, s::psum_bytes_read, bytes_read_[1]);
    stats::put(node, s::psum_bytes_written, bytes_written_[1]);
}

}  // namespace neuronsim::platform
