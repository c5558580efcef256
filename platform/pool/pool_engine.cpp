#include "platform/pool/pool_engine.h"

#include <algorithm>
#include <cstdio>
#include <exception>

#include "config/features.h"
#include "model/common/error.h"
#include "model/common/log.h"
#include "model/cptc/cptc.h"
#include "model/fp/bits.h"
#include "model/fp/dtype.h"
#include "model/isa/address_map.h"
#include "model/isa/layouts.h"
#include "platform/core/shared_ports.h"
#include "platform/core/work_budget.h"
#include "platform/dma/dma_copy.h"
#include "platform/dma/dma_engines.h"
#include "platform/tlm/memory.h"
#include "stats/stat_records.h"

namespace neuronsim::platform {

using namespace model::isa;

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// All the core's partitions move `bytes_per_partition` each through a port of `port_bits`.
uint64_t PoolTiming::port_cycles(uint64_t bytes_per_partition, uint32_t port_bits) const {
    return ceil_div(uint64_t{partitions_per_core} * bytes_per_partition * 8, port_bits);
}

// The core's share of the engine-wide datapath (public-figures §2: 128 elements/cycle).
uint64_t PoolTiming::datapath_cycles(uint64_t elements_per_partition) const {
    return ceil_div(uint64_t{partitions_per_core} * elements_per_partition * cfg->cores, cfg->elems_per_cycle);
}

PoolTiming::Stages PoolTiming::cptc_group(unsigned bits, uint64_t elements, unsigned out_bytes) const {
    Stages s;
    s.read = port_cycles(ceil_div(uint64_t{bits} * 8, 16) * 16, cfg->read_port_bits);  // the group's planes, whole 16-byte units
    s.kernel = datapath_cycles(elements);
    s.write = port_cycles(elements * out_bytes, cfg->write_port_bits);
    return s;
}

uint64_t PoolTiming::cptc_decode_cycles(unsigned bits, uint64_t elements, unsigned out_bytes, uint64_t scale_bytes) const {
    const uint64_t groups = ceil_div(elements, model::cptc::kGroup);
    if (!groups) return cfg->startup_cycles;
    const Stages full = cptc_group(bits, model::cptc::kGroup, out_bytes);
    const uint64_t last_n = elements - (groups - 1) * model::cptc::kGroup;
    const Stages last = cptc_group(bits, last_n, out_bytes);
    // In-order stages, one group each at a time: a stage starts a group when it has finished
    // the previous one and the stage before has finished this one. O(groups) additions, far
    // less than decoding the groups.
    uint64_t r = port_cycles(scale_bytes, cfg->read_port_bits), k = 0, w = 0;
    for (uint64_t g = 0; g < groups; ++g) {
        const Stages& s = g + 1 < groups ? full : last;
        r += s.read;
        k = std::max(r, k) + s.kernel;
        w = std::max(k, w) + s.write;
    }
    return cfg->startup_cycles + w;
}

uint64_t PoolTiming::copy_cycles(uint64_t elements_per_partition, uint64_t bytes_per_partition) const {
    return cfg->startup_cycles + std::max({port_cycles(bytes_per_partition, cfg->read_port_bits), port_cycles(bytes_per_partition, cfg->write_port_bits),
                                           datapath_cycles(elements_per_partition)});
}
uint64_t PoolTiming::lut_load_cycles() const { return cfg->startup_cycles + 16; }
uint64_t PoolTiming::nop_cycles() const { return cfg->startup_cycles; }

void PoolEngine::bind(CoreMemories& m) { sbuf.socket().bind(m.sbuf.socket); }

PoolEngine::PoolEngine(sc_core::sc_module_name name, EngineContext& ctx, InstructionSource& source)
    : Engine(name, "pool", ctx, source, ctx.config().gpsimd.clock_ghz),
      sbuf("sbuf_socket", "SBUF"),
      firmware_(firmware_model::firmware_config(ctx.config(), !ctx.options().timing_only)) {
    timing_.cfg = &ctx.config().gpsimd;
    timing_.partitions_per_core = ctx.config().memory.partitions / ctx.config().gpsimd.cores;
}

bool PoolEngine::wait_for_port(SharedPorts* ports) {
    bool waited = false;
    while (ports && ports->dve_until > now()) {  // VectorE holds the shared port (NC-v2); it may reserve again meanwhile
        hold(ports->dve_until - now());
        detail_.resource = &ports->port_name;
        waited = true;
    }
    return waited;
}

bool PoolEngine::execute(const Bundle& b, uint64_t index) {
    const uint8_t op = b.opcode();
    if (op == kDmaCopy) {
        // Software DGE: POOL generates the descriptors, then triggers the transfer.
        DmaJob job = copy_job(b);
        detail_.shape.rows = job.parts[0].rows;
        detail_.shape.bytes = job.parts[0].total();
        wait_dma_slot();  // a full queue is a stall before it issues
        SharedPorts* ports = ctx_.shared_ports();
        wait_for_port(ports);
        detail_.start = now();
        if (ports) ports->reserve(false, now() + cycles(ctx_.config().gpsimd.swdge_cycles), false);  // as it issues: first come, first served
        hold(cycles(ctx_.config().gpsimd.swdge_cycles));
        job.queue = ctx_.config().gpsimd.swdge_queue;
        job.label = label() + "#" + std::to_string(index);
        detail_.shape.busiest_rows = ctx_.dma().busiest_rows(job);
        detail_.shape.dge = InstructionShape::Dge::Software;
        trigger_dma(std::move(job));
        seq_free_ = now();
        return true;
    }
    if (op != kConvLutLoad && op != kExtended) return false;
    const Config& cfg = ctx_.config();
    SharedPorts* ports = ctx_.shared_ports();
    if (wait_for_port(ports)) detail_.start = now();
    // The firmware's own "UNKNOWN OPCODE" comes first (SUNDA has no 0xe4); say why it is unknown.
    try {
        firmware_.dispatch(b);
    } catch (const Error& e) {
        const bool cptc = op == kConvLutLoad || b.u8(offsetof(ConvLutOp, spec)) == 7;
        if (!cptc) throw;
        if (!gpsimd_ships_cptc_library(cfg)) throw Error(std::string(e.what()) + " (" + cfg.generation.name + "'s GPSIMD firmware has no CPTC library)");
        throw Error(std::string(e.what()) +
                    " (the CPTC library is staged only on a PERF core type with the opt-in: -p gpsimd.cptc_flag=true, "
                    "or NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE set)");
    }
    // The ISA of the generation must be able to name the lut_dtype (CPTC codes from MARIANA).
    const uint8_t lut = b.u8(offsetof(ConvLutOp, lut_dtype));
    if (!model::fp::dtype_exists(lut, cfg.generation.nc_version)) {
        static const std::vector<std::string> with = generations_with(isa_has_cptc_dtypes);  // (by nc_version)
        throw Error("lut_dtype " + model::fp::hex2(lut) + " (" + model::fp::dtype_name(lut) + ") is not a dtype of " + cfg.generation.name + "'s ISA (NC-v" +
                    std::to_string(cfg.generation.nc_version) + "); CPTC dtypes exist from " +
                    (with.empty() ? std::string("no built-in generation") : with.front()));
    }
    const uint64_t per = cfg.memory.sbuf_bytes_per_partition;
    uint8_t* const mem = sbuf.direct(0, uint64_t{cfg.memory.partitions} * per);
    if (!mem) throw Error("SBUF did not grant DMI; the GPSIMD engine works on SBUF through DMI");
    const model::isa::AddressMap& map = ctx_.address_map();
    firmware_model::SbufAccess access = [&](uint32_t p, uint64_t off, uint64_t len) -> uint8_t* {
        return mem + map.linear_named_by({MemSpace::Sbuf, p, off}, len, [] { return std::string("GPSIMD access"); });
    };
    // Each core runs the instruction on the partitions it owns; they work in parallel, so the
    // time is one core's.
    const uint32_t ppc = cfg.memory.partitions / cfg.gpsimd.cores;
    // What the cores will read and write (the firmware's plan, its checks first): the copies in
    // flight over those bytes land before the firmware touches them.
    const unsigned cores = cfg.gpsimd.cores;
    std::vector<firmware_model::ExecResult> plans(cores);
    std::vector<Region> reads, writes;
    for (unsigned c = 0; c < cores; ++c) {
        plans[c] = firmware_.plan(b, c, c * ppc, ppc);
        reads.insert(reads.end(), plans[c].reads.begin(), plans[c].reads.end());
        writes.insert(writes.end(), plans[c].writes.begin(), plans[c].writes.end());
    }
    ctx_.dma().copies().settle(reads, writes);
    // The cores run at once on the core's host threads (the firmware keeps nothing meanwhile),
    // unless one writes bytes another reads or writes (an instruction that moves rows to other
    // partitions): then one after another, as the model has it. A core fails only at an access
    // out of range (the plan made every other check): past the last partition, which those
    // above it with rows reach too, or past a partition's end, which every core with rows meets
    // at its first access, before it writes. So the lowest failing core's error, and the same
    // bytes, either way.
    bool apart = true;
    for (unsigned c = 0; apart && c < cores; ++c)
        for (unsigned d = c + 1; apart && d < cores; ++d) apart = !model::isa::must_order(plans[c].reads, plans[c].writes, plans[d].reads, plans[d].writes);
    check_cancel(ctx_.options());
    std::vector<firmware_model::ExecResult> ran(cores);
    std::vector<std::exception_ptr> failed(cores);
    auto run = [&](size_t c) {
        try {
            ran[c] = firmware_.apply(b, static_cast<unsigned>(c), access, static_cast<uint32_t>(c) * ppc, ppc);
        } catch (...) {
            failed[c] = std::current_exception();
        }
    };
    if (apart) ctx_.host_pool().run(cores, run);
    else
        for (unsigned c = 0; c < cores && !(c && failed[c - 1]); ++c) run(c);
    uint32_t partitions = 0;
    for (unsigned c = 0; c < cores; ++c) {
        if (failed[c]) std::rethrow_exception(failed[c]);
        firmware_.keep(ran[c]);
        for (const auto& line : ran[c].log) model::log(model::LogLevel::Debug, "pool", line);
        partitions += ran[c].partitions;
    }
    const firmware_model::ExecResult r = std::move(ran[0]);
    note_access(reads, writes);
    uint64_t cyc;
    if (r.impl) {
        const unsigned ob = static_cast<unsigned>(model::fp::dtype_bytes(static_cast<model::fp::Dtype>(b.u8(offsetof(ConvLutOp, out_dtype)))));
        cyc = timing_.cptc_decode_cycles(r.bits, r.elements, ob, r.scale_bytes);
        detail_.shape.n = r.elements;
        detail_.shape.out_dtype = b.u8(offsetof(ConvLutOp, out_dtype));
        detail_.shape.bytes = r.elements * partitions * ob;
        detail_.elements = r.elements * partitions;
        detail_.function = r.kernel;
        ++decodes_;
        ++by_impl_[r.impl];
        decoded_elements_ += r.elements * partitions;
        bytes_written_ += r.elements * partitions * ob;
    } else if (r.kernel == "ExtendedInstCopy") {
        const size_t eb = model::fp::dtype_bytes(static_cast<model::fp::Dtype>(b.u8(offsetof(ConvLutOp, in_dtype))));
        const uint64_t n = eb ? r.bytes_per_partition / eb : 0;
        cyc = timing_.copy_cycles(n, r.bytes_per_partition);
        detail_.shape.n = n;
        detail_.shape.in_dtype = b.u8(offsetof(ConvLutOp, in_dtype));
        detail_.shape.bytes = r.bytes_per_partition * partitions;
        ++copies_;
        bytes_read_ += r.bytes_per_partition * partitions;
        bytes_written_ += r.bytes_per_partition * partitions;
    } else if (r.kernel.rfind("pool_conv_lut_load", 0) == 0) {
        cyc = timing_.lut_load_cycles();
        ++lut_loads_;
    } else {
        cyc = timing_.nop_cycles();
    }
    // The run's budget (the firmware bounded the instruction itself before any work).
    ctx_.budget().elements(r.impl ? r.elements * partitions : r.bytes_per_partition / 4 * partitions, r.kernel);
    // The firmware runs one instruction at a time: nothing of it overlaps the next.
    detail_.end = now() + cycles(static_cast<double>(cyc));
    seq_free_ = detail_.end;
    if (ports) ports->reserve(false, detail_.end, false);  // GPSIMD reaches SBUF only
    return true;
}

void PoolEngine::collect_stats(nlohmann::ordered_json& node) const {
    Engine::collect_stats(node);
    namespace s = stats::pool;
    stats::put(node, s::cptc_decodes, decodes_);
    stats::put(node, s::cptc_decoded_elements, decoded_elements_);
    nlohmann::ordered_json by = nlohmann::ordered_json::object();
    for (unsigned i = 1; i <= 6; ++i)
        if (by_impl_[i]) by["cptc_decode_impl<" + std::to_string(i) + ">"] = by_impl_[i];
    node[s::cptc_by_kernel.head()] = std::move(by);
    stats::put(node, s::copies, copies_);
    stats::put(node, s::conv_lut_loads, lut_loads_);
    stats::put(node, s::sbuf_bytes_read, bytes_read_);
    stats::put(node, s::sbuf_bytes_written, bytes_written_);
    if (firmware_.conv_lut_loaded()) {
        nlohmann::ordered_json lut = nlohmann::ordered_json::array();
        for (uint16_t v : firmware_.conv_lut()) lut.push_back(v);
        stats::put(node, s::conv_lut, std::move(lut));
    }
}

}  // namespace neuronsim::platform
