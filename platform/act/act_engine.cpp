#include "platform/act/act_engine.h"
#include "platform/work_budget.h"

#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/fp/dtype.h"
#include "model/isa/address.h"
#include "model/isa/layouts.h"
#include "model/pwp/catalog.h"
#include "model/pwp/closed_forms.h"
#include "model/isa/access_pattern.h"
#include "model/isa/act_operands.h"
#include "model/isa/address_map.h"
#include "neuronsim/act_sets.h"
#include "platform/dma/dma_copy.h"
#include "platform/dma/dma_engines.h"
#include "platform/memory.h"
#include "platform/recorder.h"
#include "stats/stat_records.h"

namespace neuronsim::platform {

using namespace model::isa;
using model::fp::Dtype;
using model::isa::AccessPattern;
using model::isa::Region;

// A TENSORnD operand over SBUF or PSUM, validated once per instruction: the access pattern
// (model/isa/access_pattern.h) at a partition of a memory the engine sees through DMI.
struct Pattern {
    MemSpace space;
    uint32_t partition;   // first partition
    AccessPattern ap;
    size_t bytes;         // element size
    uint8_t* base = nullptr;
    uint64_t per = 0;     // bytes per partition

    uint64_t elements() const { return ap.n; }
    bool strided() const { return ap.strided(); }
    uint8_t* at(uint32_t p, uint64_t i0, uint64_t i1, uint64_t i2) const {
        return base + uint64_t{partition + p} * per + static_cast<uint64_t>(ap.offset(i0, i1, i2));
    }
};

static Pattern pattern(const Config& c, uint8_t* memory_of_space, const char* what, uint32_t addr4, const int16_t* step, const uint16_t* num, int dims,
                       size_t bytes, uint32_t channels) {
    const Location l = decode_addr4(addr4);
    if (l.space != MemSpace::Sbuf && l.space != MemSpace::Psum) throw Error(std::string(what) + " " + format_location(l) + " is not in SBUF or PSUM");
    static const int16_t zero_steps[3] = {0, 0, 0};
    for (int d = 0; d < dims; ++d)
        if (num[d] == 0) throw Error(std::string(what) + ".num[" + std::to_string(d) + "] is 0");
    Pattern p;
    p.space = l.space;
    p.partition = l.partition;
    p.bytes = bytes;
    p.ap = model::isa::make_access_pattern(l.offset, step ? step : zero_steps, num, dims, bytes, what);
    p.per = l.space == MemSpace::Sbuf ? c.memory.sbuf_bytes_per_partition : c.memory.psum_bytes_per_partition();
    p.base = memory_of_space;
    if (p.partition + channels > c.memory.partitions)
        throw Error(std::string(what) + " " + format_location(l) + ": partitions " + std::to_string(p.partition) + ".." +
                    std::to_string(p.partition + channels - 1) + " do not all exist");
    model::isa::check_in_partition(p.ap, p.per, what, format_location(l), space_name(l.space) + " partition");
    return p;
}

namespace {

using model::isa::OperandSource;

using model::fp::hex2;

// start partition rule (public-figures §1.4): >64 partitions start at 0; 33-64 at 0 or 64;
// up to 32 at 0, 32, 64 or 96.
void check_quadrant(const char* what, uint32_t start, uint32_t channels) {
    bool ok = channels > 64 ? start == 0 : channels > 32 ? (start == 0 || start == 64) : (start % 32 == 0);
    if (!ok)
        throw Error(std::string(what) + " starts at partition " + std::to_string(start) + ", but " + std::to_string(channels) +
                    " active channels must start at " + (channels > 64 ? "0" : channels > 32 ? "0 or 64" : "0, 32, 64 or 96"));
}

uint32_t active_channels(const Config& c, uint32_t nch) {
    if (nch < 1 || nch > c.act.lanes) throw Error("num_active_channels " + std::to_string(nch) + " is not in 1.." + std::to_string(c.act.lanes));
    return nch;
}

// The src -> dst operands of an element-wise instruction: each on an allowed start partition,
// with the same element count per partition. `dims`: 3 (TENSOR3D) or 2 (TENSOR2D).
struct SrcDst {
    Pattern src, dst;
};
template <class Tensor, class Mem>
SrcDst src_dst(const Config& c, Mem&& mem, const Tensor& s, const Tensor& d, int dims, Dtype in, Dtype out, uint32_t nch) {
    SrcDst o{pattern(c, mem(decode_addr4(s.start_addr).space), "src", s.start_addr, s.step_elem, s.num_elem, dims, model::fp::dtype_bytes(in), nch),
             pattern(c, mem(decode_addr4(d.start_addr).space), "dst", d.start_addr, d.step_elem, d.num_elem, dims, model::fp::dtype_bytes(out), nch)};
    check_quadrant("src", o.src.partition, nch);
    check_quadrant("dst", o.dst.partition, nch);
    if (o.src.elements() != o.dst.elements())
        throw Error("src has " + std::to_string(o.src.elements()) + " elements per partition, dst " + std::to_string(o.dst.elements()));
    return o;
}

}  // namespace

void ActEngine::bind(CoreMemories& m) {
    sbuf.socket().bind(m.sbuf.socket);
    psum.socket().bind(m.psum.socket);
    m.dma.act_tables.socket().bind(tables_->socket);
}

ActEngine::ActEngine(sc_core::sc_module_name name, EngineContext& ctx, InstructionSource& source)
    : Engine(name, "act", ctx, source, ctx.config().act.clock_ghz), sbuf("sbuf_socket", "SBUF"), psum("psum_socket", "PSUM"),
      tables_(std::make_unique<ActTables>("act_tables", ctx.config().act.tables)), acc_(ctx.config().memory.partitions, 0.0f) {
    timing_.cfg = &ctx.config().act;
    pool_ = std::make_unique<model::WorkerPool>(ctx.config().run.host_threads);
}

ActEngine::~ActEngine() = default;

uint8_t* ActEngine::memory(MemSpace s) {
    const Config& c = ctx_.config();
    TlmPort& port = s == MemSpace::Sbuf ? sbuf : psum;
    const uint64_t size = uint64_t{c.memory.partitions} * (s == MemSpace::Sbuf ? c.memory.sbuf_bytes_per_partition : c.memory.psum_bytes_per_partition());
    uint8_t* p = port.direct(0, size);
    if (!p) throw Error(port.what() + " did not grant DMI over its " + std::to_string(size) + " bytes; the ACT engine streams tensors through DMI");
    return p;
}

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
    Engine::reset_state();
    pending_.clear();
    pipe_ = ActPipeline{};
    pending_switch_ = nullptr;
    if (tables_loading_) {  // the abandoned load may have written part of the tables: no set is resident
        tables_loading_ = false;
        tables_->set_resident("", 0, {});
        tables_loaded_.notify(sc_core::SC_ZERO_TIME);
    }
}

void ActEngine::wait_for_tables() {
    if (!tables_loading_) return;
    detail_.producer = &label();
    detail_.producer_index = loading_index_;
    while (tables_loading_) hold(tables_loaded_);
}

sc_core::sc_time ActEngine::results_ready(const std::vector<Region>& reads, bool any, sc_core::sc_time at) {
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

void ActEngine::issue(const ActTiming::Stages& st, std::vector<Region> reads, std::vector<Region> writes) {
    const sc_core::sc_time earliest = results_ready(reads, false);
    uint64_t ps[4];
    for (int k = 0; k < 4; ++k) ps[k] = cycles(static_cast<double>(st.cycles[k])).value();
    const ActPipeline::Slot s = pipe_.issue(earliest.value(), ps);
    const sc_core::sc_time start(static_cast<double>(s.start), sc_core::SC_PS);
    if (start > now()) hold(start - now());
    detail_.start = now();
    detail_.end = sc_core::sc_time(static_cast<double>(s.end), sc_core::SC_PS);
    seq_free_ = sc_core::sc_time(static_cast<double>(s.moved_on), sc_core::SC_PS);
    pending_.push_back({detail_.end, index_now_, std::move(reads), std::move(writes)});
}

void ActEngine::load_set(const Bundle& b, uint64_t index) {
    // One load at a time, and only once the instructions in flight (which read the tables)
    // have completed: it waits for the pipeline to drain.
    wait_for_tables();
    const uint8_t idx = b.u8(offsetof(TableLoadOp, act_tbl_sel));
    const ActSetDirectory dir = ctx_.act_sets();
    if (idx >= dir.count)
        throw Error("load_act_func_set " + std::to_string(idx) + ": the roster has " + std::to_string(dir.count) + " sets" +
                    (dir.count ? " (0.." + std::to_string(dir.count - 1) + ")" : " (the host placed none: ACT_SETS_COUNT is 0)"));
    // The directory entry and the names, from DRAM (part of the load's fixed overhead).
    ActSetEntry e;
    ctx_.dram().read(dir.base + uint64_t{idx} * sizeof e, reinterpret_cast<uint8_t*>(&e), sizeof e);
    if (e.names_bytes == 0 || e.names_bytes > kActSetNamesMaxBytes)
        throw Error("load_act_func_set " + std::to_string(idx) + ": directory entry at DRAM " + model::fp::hex(dir.base + uint64_t{idx} * sizeof e) +
                    " has names_bytes " + std::to_string(e.names_bytes) + ", expected 1.." + std::to_string(kActSetNamesMaxBytes));
    std::string names(e.names_bytes, '\0');
    ctx_.dram().read(e.names_addr, reinterpret_cast<uint8_t*>(names.data()), names.size());
    check_epoch();
    std::vector<std::string> parts;
    for (size_t at = 0; at < names.size();) {
        const size_t end = names.find('\0', at);
        parts.push_back(names.substr(at, end == std::string::npos ? std::string::npos : end - at));
        if (end == std::string::npos) break;
        at = end + 1;
    }
    if (e.flags & kActSetUnloadable) throw Error(parts.empty() ? "load_act_func_set " + std::to_string(idx) + ": the set cannot be loaded" : parts[0]);
    const std::string name = parts.empty() ? "set " + std::to_string(idx) : parts[0];
    const std::vector<std::string> functions(parts.empty() ? parts.begin() : parts.begin() + 1, parts.end());
    const ActTables& t = *tables_;
    const uint64_t sizes[4] = {e.cam_bytes, e.profile_bytes, e.control_bytes, e.bucket_bytes};
    const uint64_t room[4] = {t.profile_base() - t.cam_base(), t.control_base() - t.profile_base(), t.bucket_base() - t.control_base(), t.size() - t.bucket_base()};
    static const char* table[4] = {"CAM", "PROFILE", "CONTROL", "BUCKET"};
    for (int i = 0; i < 4; ++i)
        if (sizes[i] > room[i])
            throw Error("set " + name + ": its " + table[i] + " image of " + std::to_string(sizes[i]) + " bytes does not fit the " + std::to_string(room[i]) +
                        "-byte ACT " + table[i] + " table");
    // The directory is DRAM, which anything may write: every count is checked against the
    // table memory before it is trusted.
    if (e.control_words > t.geometry().control_entries)
        throw Error("set " + name + ": its directory entry at DRAM " + model::fp::hex(dir.base + uint64_t{idx} * sizeof e) + " gives control_words " +
                    std::to_string(e.control_words) + ", more than the " + std::to_string(t.geometry().control_entries) +
                    " CONTROL entries (act.tables.control_entries)");
    // One DMA transfer: the four images, DRAM -> table memory, a descriptor each, on the
    // table-load engine and queue.
    DmaJob job;
    uint64_t dram = e.image_addr;
    auto add = [&](uint64_t bytes, uint64_t table_addr) {
        if (!bytes) return;
        DmaTransfer tr;
        tr.src = {DmaSpace::Dram, dram, 0};
        tr.dst = {DmaSpace::ActTables, table_addr, 0};
        tr.rows = 1;
        tr.bytes = static_cast<uint32_t>(bytes);
        job.parts.push_back(tr);
        dram += bytes;
    };
    add(e.cam_bytes, t.cam_base());
    add(e.profile_bytes, t.profile_base());
    add(e.control_bytes, t.control_base());
    add(e.bucket_bytes, t.bucket_base());
    job.engine = static_cast<int>(ctx_.config().act.table_load_dma_engine);
    job.queue = ctx_.config().act.table_load_dma_queue;
    job.element_values = false;
    job.label = "load_act_func_set " + name;
    const uint64_t bytes = sizes[0] + sizes[1] + sizes[2] + sizes[3];
    // The sequencer issues it (the static overhead) once the pipeline has drained; then the
    // DMA runs while ACT's queue goes on (the next table user waits for it).
    const sc_core::sc_time drained(static_cast<double>(pipe_.drained()), sc_core::SC_PS);
    if (drained > now() && !pending_.empty()) {
        detail_.producer = &label();
        detail_.producer_index = pending_.back().index;
    }
    const ActPipeline::Slot s = pipe_.sequencer(std::max(drained, now()).value(), cycles(ctx_.config().act.static_overhead_cycles).value());
    const sc_core::sc_time start(static_cast<double>(s.start), sc_core::SC_PS), issued(static_cast<double>(s.end), sc_core::SC_PS);
    if (start > now()) hold(start - now());
    detail_.start = start;
    hold(issued - now());
    seq_free_ = issued;
    detail_.function = name;
    detail_.shape.bytes = bytes;
    const bool redundant = tables_->resident() == name;
    const std::string from = tables_->resident().empty() ? "(none)" : tables_->resident();
    tables_loading_ = true;
    loading_index_ = index;
    const uint32_t control_words = e.control_words;
    auto loaded = [this] {  // whether or not the image arrived: the next table user may go on
        tables_loading_ = false;
        tables_loaded_.notify(sc_core::SC_ZERO_TIME);
    };
    try {
        trigger_dma(
            std::move(job),
            [this, idx, name, from, functions, control_words, redundant, bytes, start] {
                check_loaded_image(name);
                tables_->set_resident(name, control_words, functions);
                if (Recorder* rec = ctx_.recorder()) rec->counter("act resident set", now(), idx);
                ++loads_;
                redundant_loads_ += redundant;
                load_bytes_ += bytes;
                Switch& sw = switches_[{from, name}];
                ++sw.count;
                sw.time += now() - start;
                pending_switch_ = &sw;
            },
            loaded);
    } catch (...) {
        loaded();
        throw;
    }
}

// The image that arrived, before it is used: every valid CAM entry must name a PROFILE slot the
// table memory has (an entry past them would be read out of the PROFILE table).
void ActEngine::check_loaded_image(const std::string& name) const {
    const model::pwp::TableGeometry& g = tables_->geometry();
    for (uint32_t i = 0; i < g.cam_entries; ++i) {
        const uint8_t* c = tables_->cam() + uint64_t{i} * model::pwp::kCamEntryBytes;
        if ((c[8] & 1) && i >= g.profile_slots)
            throw Error("set " + name + ": CAM entry " + std::to_string(i) + " is valid but the PROFILE table has " + std::to_string(g.profile_slots) +
                        " slots (act.tables.profile_slots): the image does not fit this table memory");
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
    auto rows = [&](const DmaEndpoint& ep) {
        std::vector<Region> r;
        if (ep.space == DmaSpace::Sbuf || ep.space == DmaSpace::Psum) {
            const Location l = decode_addr4(static_cast<uint32_t>(ep.addr));
            r.push_back({l.space, l.partition, l.partition + t.rows, static_cast<int64_t>(l.offset), static_cast<int64_t>(l.offset + t.bytes)});
        }
        return r;
    };
    const sc_core::sc_time earliest = results_ready(rows(t.dst), true, results_ready(rows(t.src), false));
    const ActPipeline::Slot s = pipe_.sequencer(earliest.value(), sc_core::sc_time(c.act.hwdge_ns, sc_core::SC_NS).value());
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

// A pointer operand's bytes in each of `nch` partitions, for the pipeline's dependencies.
static Region pointer_region(uint32_t addr4, uint64_t bytes, uint32_t nch) {
    const Location l = decode_addr4(addr4);
    return {l.space, l.partition, l.partition + nch, static_cast<int64_t>(l.offset), static_cast<int64_t>(l.offset + bytes)};
}

static Region pattern_region(const Pattern& p, uint32_t nch) { return {p.space, p.partition, p.partition + nch, p.ap.lo, p.ap.hi}; }

void ActEngine::activate(const Bundle& b) {
    wait_for_tables();
    ActivateOp op;
    std::memcpy(&op, b.b.data(), sizeof op);
    const uint8_t in_code = model::isa::input_dtype_code(op.in_bias_dtype), bias_code = model::isa::bias_dtype_code(op.in_bias_dtype);
    if (!model::fp::act_input_dtype(in_code)) throw Error("input dtype " + model::fp::dtype_name(in_code) + " is not an ACT input type");
    if (!model::fp::act_output_dtype(op.out_dtype)) throw Error("output dtype " + model::fp::dtype_name(op.out_dtype) + " is not an ACT output type");
    const uint32_t nch = active_channels(ctx_.config(), op.num_active_channels);
    const Dtype in = static_cast<Dtype>(in_code), out = static_cast<Dtype>(op.out_dtype);
    const SrcDst ops = src_dst(ctx_.config(), [this](MemSpace sp) { return memory(sp); }, op.src, op.dst, 3, in, out, nch);
    const Pattern &src = ops.src, &dst = ops.dst;
    ctx_.budget().elements(src.elements() * nch, "activate");
    if (op.accumulator_cmd > model::isa::kAccLoad) throw Error("accumulator_cmd " + std::to_string(op.accumulator_cmd) + " is not 0..4");

    const Resolved fn = resolve(kActivate, op.activation_func);
    const model::pwp::TableView view = tables_->view();

    // Per-partition operands: instruction immediate, pointer (fp32 at partition p), register.
    // `code`: the source field as written (for the message when it is not 0..2).
    auto operand = [&](std::optional<OperandSource> mode, uint8_t code, uint32_t field, uint32_t p, const char* what, Dtype ptr_dtype) -> float {
        if (mode == OperandSource::Immediate) return model::fp::float_of(field);
        if (!mode) throw Error(std::string(what) + " source " + std::to_string(code) + " is not 0..2");
        uint32_t addr = *mode == OperandSource::Register ? ctx_.reg(field & 0xFF) : field;
        Location l = decode_addr4(addr);
        const size_t n = model::fp::dtype_bytes(ptr_dtype);
        if (l.offset % n) throw Error(std::string(what) + " pointer " + format_location(l) + " is not " + std::to_string(n) + "-byte aligned");
        uint16_t one = 1;
        if (l.space != MemSpace::Sbuf && l.space != MemSpace::Psum) throw Error(std::string(what) + " pointer " + format_location(l) + " is not in SBUF or PSUM");
        Pattern pp = pattern(ctx_.config(), memory(l.space), what, addr, nullptr, &one, 1, n, nch);
        return model::fp::to_f32(ptr_dtype, pp.at(p, 0, 0, 0));
    };
    const auto scale_mode = model::isa::scale_or_imm_source(op.scale_src), imm_mode = model::isa::scale_or_imm_source(op.imm_src);
    const auto bias_mode = model::isa::bias_source(op.bias_src_n);
    if (!bias_mode) throw Error("bias_src_n " + std::to_string(op.bias_src_n) + " is not 0..2");
    Dtype bias_dtype = Dtype::Fp32;
    if (*bias_mode != OperandSource::Immediate) {
        if (bias_code != 0x06 && bias_code != 0x07 && bias_code != 0x0A)
            throw Error("bias dtype " + model::fp::dtype_name(bias_code) + " (in_bias_dtype high nibble) is not BF16, FP16 or FP32");
        bias_dtype = static_cast<Dtype>(bias_code);
    }

    // Parametric ReLU has no table path: its slope alpha is the instruction's imm operand
    // (seed 003 §1: out = ActFn(in*scale + bias; alpha); §5: Prelu has no usePwp branch).
    const bool prelu = fn.meta.bare_name() == "parametric_relu";
    const bool load_alpha = model::isa::activate_reads_imm(prelu, op.accumulator_cmd);
    const bool batched = !prelu && !fn.exact && fn.flat && elements_batchable(src, dst);

    // The partitions may run on several host threads when none can see another's writes:
    // every operand read from the memory dst writes (src, pointer operands) lies in the
    // partitions dst writes, at the same start, so partition p reads only what partition p
    // itself writes, and only after reading it. Then reading every operand first is the same
    // as reading it at the start of its partition.
    bool independent = pool_->threads() > 1 && nch > 1 && !ctx_.options().act_reference_kernel;
    auto same_rows = [&](MemSpace space, uint32_t partition) { return space != dst.space || partition == dst.partition; };
    auto pointer_ok = [&](std::optional<OperandSource> mode, uint32_t field) {
        if (!mode || *mode == OperandSource::Immediate) return true;
        const Location l = decode_addr4(*mode == OperandSource::Register ? ctx_.reg(field & 0xFF) : field);
        return same_rows(l.space, l.partition);
    };
    independent = independent && same_rows(src.space, src.partition) && pointer_ok(scale_mode, op.scale_value) &&
                  pointer_ok(bias_mode, op.bias) && (!load_alpha || pointer_ok(imm_mode, op.imm));
    std::vector<Region> pointers;
    auto pointer_read = [&](std::optional<OperandSource> mode, uint32_t field, size_t bytes) {
        if (mode && *mode != OperandSource::Immediate)
            pointers.push_back(pointer_region(*mode == OperandSource::Register ? ctx_.reg(field & 0xFF) : field, bytes, nch));
    };
    pointer_read(scale_mode, op.scale_value, 4);
    pointer_read(bias_mode, op.bias, model::fp::dtype_bytes(bias_dtype));
    if (load_alpha) pointer_read(imm_mode, op.imm, 4);

    auto partition = [&](uint32_t p, float scale, float bias, float alpha) {
        // The accumulator takes each result as it is produced, in element order (seed 003 §1:
        // doEngineAccumReduce folds the outputs into the engine accumulator); Activate2's
        // reduction does the same.
        float& acc = acc_[src.partition + p];  // the lane of the partition read
        switch (op.accumulator_cmd) {
            case model::isa::kAccZero:
            case model::isa::kAccZeroAccumulate: acc = 0.0f; break;
            case model::isa::kAccLoad: acc = alpha; break;
            default: break;
        }
        const bool summing = op.accumulator_cmd >= model::isa::kAccAccumulate;
        auto body = [&](auto load, auto store) {
            if (batched) return activate_batched(src, dst, p, fn, view, scale, bias, acc, summing, load, store);
            // Operands by value: the stores go through uint8_t pointers, which may alias.
            for_each(src, dst, p, [&acc, &view, &fn, scale, bias, alpha, prelu, summing, load, store](const uint8_t* s, uint8_t* d) {
                float v = scale * load(s);  // multiply, then add: two roundings, no FMA
                v = v + bias;
                const float y = prelu ? model::pwp::exact(model::pwp::ActFn::Prelu, v, alpha) : fn.eval(view, v);
                if (summing) acc = acc + y;
                store(y, d);
            });
        };
        if (ctx_.options().timing_only) return;  // operands checked, no element touched
        // fp32 in and out, the common case, without the per-element dtype switch.
        if (in == Dtype::Fp32 && out == Dtype::Fp32)
            body([](const uint8_t* s) { float x; std::memcpy(&x, s, 4); return x; }, [](float y, uint8_t* d) { std::memcpy(d, &y, 4); });
        else
            body([in](const uint8_t* s) { return model::fp::to_f32(in, s); }, [out](float y, uint8_t* d) { model::fp::from_f32(out, y, d); });
    };
    auto operands = [&](uint32_t p, float& scale, float& bias, float& alpha) {
        scale = operand(scale_mode, op.scale_src, op.scale_value, p, "scale", Dtype::Fp32);
        bias = operand(bias_mode, op.bias_src_n, op.bias, p, "bias", bias_dtype);
        alpha = load_alpha ? operand(imm_mode, op.imm_src, op.imm, p, "imm", Dtype::Fp32) : 0.0f;
    };
    detail_.function = fn.meta.bare_name();
    start_streaming(src, dst, nch, in, out, std::move(pointers));
    if (!independent) {
        for (uint32_t p = 0; p < nch; ++p) {
            float scale, bias, alpha;
            operands(p, scale, bias, alpha);
            partition(p, scale, bias, alpha);
        }
    } else {
        std::vector<float> scale(nch), bias(nch), alpha(nch);
        for (uint32_t p = 0; p < nch; ++p) operands(p, scale[p], bias[p], alpha[p]);
        // Each partition's error is kept; the first partition's is the one a single thread
        // would have met first. (Partitions after it may have been written: after an error the
        // instruction's outputs are not defined.)
        std::vector<std::exception_ptr> failed(nch);
        pool_->run(nch, [&](size_t p) {
            try {
                partition(static_cast<uint32_t>(p), scale[p], bias[p], alpha[p]);
            } catch (...) {
                failed[p] = std::current_exception();
            }
        });
        for (const auto& e : failed)
            if (e) std::rethrow_exception(e);
    }
}

// Every element of partition p in pattern order; dst walks its own pattern in the same order.
// Pointers advance incrementally (no per-element multiply or divide): this loop is the engine's
// hot path.
template <typename F>
void ActEngine::for_each(const Pattern& src, const Pattern& dst, uint32_t p, F&& f) {
    uint64_t k = 0;
    try {
        const int64_t ds0 = dst.ap.step[0], ss0 = src.ap.step[0];  // bytes
        const uint32_t* sn = src.ap.num;
        const uint32_t* dn = dst.ap.num;
        uint64_t d0 = 0, d1 = 0, d2 = 0;
        uint8_t* d = dst.at(p, 0, 0, 0);
        for (uint64_t i2 = 0; i2 < sn[2]; ++i2)
            for (uint64_t i1 = 0; i1 < sn[1]; ++i1) {
                check_cancel(ctx_.options());  // a row is at most 65535 elements
                const uint8_t* s = src.at(p, 0, i1, i2);
                for (uint64_t i0 = 0; i0 < sn[0]; ++i0, ++k, s += ss0) {
                    f(s, d);
                    if (++d0 < dn[0]) {
                        d += ds0;
                    } else {
                        d0 = 0;
                        if (++d1 == dn[1]) d1 = 0, ++d2;
                        if (d2 < dn[2]) d = dst.at(p, d0, d1, d2);
                    }
                }
            }
    } catch (const Error& e) {
        throw Error("partition " + std::to_string(src.partition + p) + ", element " + std::to_string(k) + ": " + e.what());
    }
}

// Activate's batched partition loop (see the header): walks src and dst in pattern order,
// evaluates up to kBatch pre-scaled inputs with the fast pass, then stores in element order,
// sending the flagged elements through the table-memory evaluator (whose error ends the
// partition at that element, as for_each does).
template <typename Load, typename Store>
void ActEngine::activate_batched(const Pattern& src, const Pattern& dst, uint32_t p, const Resolved& fn, const model::pwp::TableView& view,
                                 float scale, float bias, float& acc, bool summing, Load load, Store store) {
    constexpr size_t kBatch = 512;
    float vin[kBatch], vout[kBatch];
    uint8_t* dptr[kBatch];
    uint32_t flagged[kBatch];
    const uint8_t* srow = src.at(p, 0, 0, 0) - src.ap.start + src.ap.lo;  // byte lo of the row
    uint8_t* drow = dst.at(p, 0, 0, 0) - dst.ap.start + dst.ap.lo;
    AccessPattern::Cursor sc(src.ap), dc(dst.ap);
    const uint64_t n = src.elements();
    // A plain row (elements back to back in order) needs no cursor: the loops below become
    // straight-line code the compiler vectorises.
    auto plain = [](const Pattern& t) {
        const AccessPattern& a = t.ap;
        const int64_t e = static_cast<int64_t>(a.elem_bytes);
        return a.start == a.lo && a.step[0] == e && (a.num[1] <= 1 || a.step[1] == e * a.num[0]) &&
               (a.num[2] <= 1 || a.step[2] == e * a.num[0] * a.num[1]);
    };
    const bool plain_src = plain(src), plain_dst = plain(dst);
    for (uint64_t at = 0; at < n; at += kBatch) {
        if (at % (kBatch << 10) == 0) check_cancel(ctx_.options());  // every half million elements
        const size_t m = static_cast<size_t>(std::min<uint64_t>(kBatch, n - at));
        if (plain_src) {
            const uint8_t* s = srow + at * src.bytes;
            for (size_t j = 0; j < m; ++j) {
                float v = scale * load(s + j * src.bytes);  // multiply, then add: two roundings, no FMA
                vin[j] = v + bias;
            }
        } else {
            for (size_t j = 0; j < m; ++j) {
                float v = scale * load(srow + sc.next());
                vin[j] = v + bias;
            }
        }
        const size_t k = model::pwp::fast_pass(*fn.flat, vin, vout, m, flagged);
        if (plain_dst && k == 0 && !summing) {
            uint8_t* d = drow + at * dst.bytes;
            for (size_t j = 0; j < m; ++j) store(vout[j], d + j * dst.bytes);
            continue;
        }
        for (size_t j = 0; j < m; ++j) dptr[j] = plain_dst ? drow + (at + j) * dst.bytes : drow + dc.next();
        size_t f = 0;
        for (size_t j = 0; j < m; ++j) {
            float y = vout[j];
            if (f < k && flagged[f] == j) {
                ++f;
                try {
                    y = model::pwp::evaluate_from_tables(view, fn.meta, vin[j]);
                } catch (const Error& e) {
                    throw Error("partition " + std::to_string(src.partition + p) + ", element " + std::to_string(at + j) + ": " + e.what());
                }
            }
            if (summing) acc = acc + y;
            store(y, dptr[j]);
        }
    }
}

// Whether one partition's elements may be read a batch ahead of their stores: src and dst do
// not share bytes of a partition, or they are the same pattern (same element size) that
// visits every byte once, so an element's store never changes a later element's input.
bool ActEngine::elements_batchable(const Pattern& src, const Pattern& dst) {
    // Partition p reads row src.partition + p and writes row dst.partition + p: other rows
    // (or another memory) unless the starts are equal.
    if (src.space != dst.space || src.partition != dst.partition) return true;
    const AccessPattern &a = src.ap, &b = dst.ap;
    if (a.hi <= b.lo || b.hi <= a.lo) return true;
    if (a.start != b.start || a.elem_bytes != b.elem_bytes) return false;
    for (int d = 0; d < 3; ++d)
        if (a.num[d] != b.num[d] || a.step[d] != b.step[d]) return false;
    // Injective: dimensions by stride, each stride at least the extent of the smaller ones.
    int order[3] = {0, 1, 2};
    std::sort(order, order + 3, [&](int x, int y) { return std::llabs(a.step[x]) < std::llabs(a.step[y]); });
    int64_t extent = static_cast<int64_t>(a.elem_bytes);
    for (int d : order) {
        if (a.num[d] <= 1) continue;
        const int64_t st = std::llabs(a.step[d]);
        if (st < extent) return false;
        extent = st * (a.num[d] - 1) + extent;
    }
    return true;
}

void ActEngine::start_streaming(const Pattern& src, const Pattern& dst, uint32_t nch, Dtype in, Dtype out, std::vector<Region> pointer_reads) {
    const uint64_t n = src.elements();
    elements_ += n * nch;
    bytes_read_[src.space == MemSpace::Psum] += n * nch * src.bytes;
    bytes_written_[dst.space == MemSpace::Psum] += n * nch * dst.bytes;
    detail_.shape.n = n;
    detail_.shape.in_dtype = static_cast<uint8_t>(in);
    detail_.shape.out_dtype = static_cast<uint8_t>(out);
    detail_.elements = n * nch;
    if (pending_switch_) {  // the first function the loaded set served
        if (!detail_.function.empty()) pending_switch_->functions.insert(detail_.function);
        pending_switch_ = nullptr;
    }
    pointer_reads.push_back(pattern_region(src, nch));
    issue(timing_.compute(n, in, out, src.strided() || dst.strided()), std::move(pointer_reads), {pattern_region(dst, nch)});
}

// The resident function of (opcode, func_id), or an error naming the function and the set.
ActEngine::Resolved ActEngine::resolve(uint8_t opcode, uint8_t func_id) const {
    const int slot = model::pwp::cam_lookup(tables_->cam(), tables_->geometry().cam_entries, opcode, func_id);
    if (slot < 0)
        throw Error("function id " + std::to_string(func_id) + " is not in the resident set " +
                    (tables_->resident().empty() ? std::string("(no set loaded: load_act_func_set first)") : tables_->resident()));
    if (static_cast<uint32_t>(slot) >= tables_->geometry().profile_slots)  // a CAM written through the window
        throw Error("function id " + std::to_string(func_id) + " matches CAM entry " + std::to_string(slot) + ", past the " +
                    std::to_string(tables_->geometry().profile_slots) + " PROFILE slots");
    Resolved r;
    r.meta = model::pwp::decode_profile_slot(tables_->profile() + slot * model::pwp::kProfileSlotBytes, func_id);
    r.meta.func_name = tables_->function_name(slot);
    if (!ctx_.options().act_reference_kernel) r.flat = &tables_->flat(slot, r.meta);
    if (ctx_.options().act_exact) {
        r.exact = model::pwp::find_catalog_fn(r.meta.func_name);
        if (r.exact && r.exact->resident() && !r.exact->act) r.exact = nullptr;  // no closed form: the table is exact
    }
    return r;
}

void ActEngine::activate_quantize(const Bundle& b) {
    // OUT = quant_scale * f(in * dequant_scale + bias[p]) + quant_zero, written as out_dtype.
    wait_for_tables();
    ActivateQuantizeOp op;
    std::memcpy(&op, b.b.data(), sizeof op);
    const uint8_t in_code = model::isa::input_dtype_code(op.in_bias_dtype);
    if (in_code != 0x0A && in_code != 0x08) throw Error("activate_quantize: input dtype " + model::fp::dtype_name(in_code) + " must be FP32 or INT32");
    if (!model::fp::act_output_dtype(op.out_dtype)) throw Error("output dtype " + model::fp::dtype_name(op.out_dtype) + " is not an ACT output type");
    const float qscale = model::fp::float_of(op.quant_scale_value), dqscale = model::fp::float_of(op.dequant_scale_value);
    if (qscale == 0.0f || dqscale == 0.0f) throw Error("activate_quantize: quant_scale and dequant_scale must be non-zero");
    const uint32_t nch = active_channels(ctx_.config(), op.num_active_channels);
    const Dtype in = static_cast<Dtype>(in_code), out = static_cast<Dtype>(op.out_dtype);
    const SrcDst ops = src_dst(ctx_.config(), [this](MemSpace sp) { return memory(sp); }, op.src, op.dst, 3, in, out, nch);
    const Pattern &src = ops.src, &dst = ops.dst;
    ctx_.budget().elements(src.elements() * nch, "activate_quantize");
    const Resolved fn = resolve(kActivateQuantize, op.activation_func);
    if (fn.meta.bare_name() == "parametric_relu") throw Error("activate_quantize does not support parametric_relu");
    const model::pwp::TableView view = tables_->view();
    uint16_t one = 1;
    const MemSpace bias_space = decode_addr4(op.bias_addr).space;
    if (bias_space != MemSpace::Sbuf && bias_space != MemSpace::Psum) throw Error("bias_addr " + format_location(decode_addr4(op.bias_addr)) + " is not in SBUF or PSUM");
    Pattern bias_ptr = pattern(ctx_.config(), memory(bias_space), "bias_addr", op.bias_addr, nullptr, &one, 1, 4, nch);
    const float qzero = model::fp::float_of(op.quant_zero_value);
    detail_.function = fn.meta.bare_name();
    start_streaming(src, dst, nch, in, out, {pointer_region(op.bias_addr, 4, nch)});
    for (uint32_t p = 0; p < nch; ++p) {
        const float bias = model::fp::to_f32(Dtype::Fp32, bias_ptr.at(p, 0, 0, 0));
        if (ctx_.options().timing_only) continue;
        for_each(src, dst, p, [&](const uint8_t* s, uint8_t* d) {
            float v = model::fp::to_f32(in, s) * dqscale;
            v = v + bias;
            float q = qscale * fn.eval(view, v);
            q = q + qzero;
            model::fp::from_f32(out, q, d);
        });
    }
}

void ActEngine::activate2(const Bundle& b) {
    wait_for_tables();
    Activate2Op op;
    std::memcpy(&op, b.b.data(), sizeof op);
    enum Alu : uint8_t { kBypass = 0x00, kAdd = 0x04, kSub = 0x05, kMult = 0x06, kMax = 0x08, kMin = 0x09, kAbsMax = 0x0A, kAbsMin = 0x0B };
    // Stage 1 takes the six (op0, op1) pairs of nisa.activate2 (public-figures §1.1).
    const std::pair<uint8_t, uint8_t> pair{op.op0, op.op1};
    const std::pair<uint8_t, uint8_t> allowed[] = {{kMult, kAdd}, {kMult, kSub}, {kMult, kBypass}, {kAdd, kBypass}, {kSub, kBypass}, {kBypass, kBypass}};
    if (std::find(std::begin(allowed), std::end(allowed), pair) == std::end(allowed))
        throw Error("activate2: (op0, op1) = (" + hex2(op.op0) + ", " + hex2(op.op1) + ") is not one of mult+add, mult+sub, mult, add, sub, bypass");
    if (op.reduce_cmd > 3) throw Error("activate2: reduce_cmd " + std::to_string(op.reduce_cmd) + " is not 0..3");
    if (op.reduce_cmd != 0 && op.reduce_op != kAdd && op.reduce_op != kMax && op.reduce_op != kMin && op.reduce_op != kAbsMax && op.reduce_op != kAbsMin)
        throw Error("activate2: reduce_op " + hex2(op.reduce_op) + " is not add 0x04, max 0x08, min 0x09, abs_max 0x0a or abs_min 0x0b");
    if (!model::fp::act_input_dtype(op.in_dtype)) throw Error("input dtype " + model::fp::dtype_name(op.in_dtype) + " is not an ACT input type");
    if (!model::fp::act_output_dtype(op.out_dtype)) throw Error("output dtype " + model::fp::dtype_name(op.out_dtype) + " is not an ACT output type");
    const uint32_t nch = active_channels(ctx_.config(), op.num_active_channels);
    const Dtype in = static_cast<Dtype>(op.in_dtype), out = static_cast<Dtype>(op.out_dtype);
    const SrcDst ops = src_dst(ctx_.config(), [this](MemSpace sp) { return memory(sp); }, op.src, op.dst, 2, in, out, nch);
    const Pattern &src = ops.src, &dst = ops.dst;
    ctx_.budget().elements(src.elements() * nch, "activate2");
    if (model::isa::scale_or_imm_source(op.relu_param_src) != OperandSource::Immediate) throw Error("activate2: relu_param_src " + std::to_string(op.relu_param_src) + ": only an immediate (0) is modelled");
    const Resolved fn = resolve(kActivate2, op.activation_func);
    const bool prelu = fn.meta.bare_name() == "parametric_relu";
    const model::pwp::TableView view = tables_->view();
    const float imm0 = model::fp::float_of(op.imm0), imm1 = model::fp::float_of(op.imm1), slope = model::fp::float_of(op.relu_param);
    auto alu = [](uint8_t o, float a, float b) -> float {
        switch (o) {
            case kAdd: return a + b;
            case kSub: return a - b;
            case kMult: return a * b;
            default: return a;  // bypass
        }
    };
    auto reduce = [&](float acc, float y) -> float {
        switch (op.reduce_op) {
            case kAdd: return acc + y;
            case kMax: return std::fmax(acc, y);
            case kMin: return std::fmin(acc, y);
            case kAbsMax: return std::fmax(acc, std::fabs(y));
            default: return std::fmin(acc, std::fabs(y));
        }
    };
    const float identity = op.reduce_op == kMax ? -INFINITY : (op.reduce_op == kMin || op.reduce_op == kAbsMin) ? INFINITY : 0.0f;
    detail_.function = fn.meta.bare_name();
    start_streaming(src, dst, nch, in, out, {});
    for (uint32_t p = 0; p < nch; ++p) {
        float& acc = acc_[src.partition + p];
        if (op.reduce_cmd == 1 || op.reduce_cmd == 3) acc = identity;  // RESET, RESET_REDUCE
        if (ctx_.options().timing_only) continue;
        for_each(src, dst, p, [&](const uint8_t* s, uint8_t* d) {
            float t = alu(op.op1, alu(op.op0, model::fp::to_f32(in, s), imm0), imm1);
            float y = prelu ? model::pwp::exact(model::pwp::ActFn::Prelu, t, slope) : fn.eval(view, t);
            if (op.reduce_cmd >= 2) acc = reduce(acc, y);  // REDUCE, RESET_REDUCE
            model::fp::from_f32(out, y, d);
        });
    }
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
    if (dst_space != MemSpace::Sbuf && dst_space != MemSpace::Psum) throw Error("dst " + format_location(decode_addr4(op.dst.start_addr)) + " is not in SBUF or PSUM");
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
