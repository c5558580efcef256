#include "platform/core/cost_model.h"

#include <algorithm>
#include <cmath>

#include "model/fp/dtype.h"
#include "model/isa/layouts.h"
#include "model/isa/opcodes.h"

namespace neuronsim::platform {

namespace {
// The case an opcode's estimate falls in: every activation (model/isa/opcodes.h
// is_activation) is costed as one, by the same formulas.
uint8_t family(uint8_t opcode) {
    const model::isa::OpcodeInfo* info = model::isa::find_opcode(opcode);
    return info && model::isa::is_activation(*info) ? uint8_t{model::isa::kActivate} : opcode;
}

std::string num(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
}

// CoreV4Hwm's Activation latency (hardware-facts §E): readInit floor(init x 100/120) with init
// 222 when a 16-bit dtype is present, 172 for 32-bit, 100 otherwise; exec floor(N x 100/120).
// Model cycles are 100/freq ns, freq 120 = 1.2 GHz: the result is in ns.
CostEstimate corev4_activation(const InstructionShape& s) {
    auto bytes = [](uint8_t code) { return code <= 0x0F ? model::fp::dtype_bytes(static_cast<model::fp::Dtype>(code)) : 0; };
    const size_t bi = bytes(s.in_dtype), bo = bytes(s.out_dtype);
    const int init = (bi == 2 || bo == 2) ? 222 : (bi == 4 || bo == 4) ? 172 : 100;
    const double read_init = std::floor(init * 100.0 / 120), exec = std::floor(static_cast<double>(s.n) * 100 / 120);
    return {read_init + exec, "CoreV4Hwm: floor(" + std::to_string(init) + "*100/120) + floor(N*100/120), N=" + std::to_string(s.n)};
}

// nki.isa `activation`: max(MIN_II, N) ScalarE cycles plus the static (~100) and access
// (~60) overheads (public-figures §1.4).
CostEstimate nki_activation(const Config& c, const InstructionShape& s) {
    const double cyc = static_cast<double>(std::max<uint64_t>(64, s.n)) + 160;
    return {cyc / c.act.clock_ghz, "nki.isa: max(64,N)+160 cycles at " + num(c.act.clock_ghz) + " GHz, N=" + std::to_string(s.n)};
}

// The compiler's DMA readInit (hardware-facts §E), the formula's fixed term.
constexpr double kDmaReadInit = 1300;

double dma_divisor(const Config& c) { return c.generation.nc_version <= 2 ? 17 : c.generation.nc_version == 3 ? 23 : 33; }

double dge_overhead_ns(const Config& c, InstructionShape::Dge dge) {
    const bool tonga = c.generation.nc_version <= 2;
    const double freq = tonga ? 140 : 120;
    switch (dge) {
        case InstructionShape::Dge::Software: return std::floor((tonga ? 500 : 700) * 100 / freq);
        case InstructionShape::Dge::Hardware: return tonga ? 0 : std::floor(500 * 100 / freq);
        default: return 0;
    }
}

}  // namespace

std::string divergence_reason(const Config& c, const InstructionShape& s, double sim, double model) {
    using namespace model::isa;
    if (model < 0 || std::fabs(sim - model) <= 0.01 * std::max(model, 1.0)) return "";
    std::string why;
    auto add = [&](const std::string& part) { why += (why.empty() ? "" : "; ") + part; };
    double explained = 0;  // of sim - model
    switch (family(s.opcode)) {
        case kDmaCopy: {
            const uint32_t formula_rows = (s.rows + 15) >> 4;
            const double per = s.rows ? static_cast<double>(s.bytes) / s.rows : 0, bw = c.dma.bytes_per_ns_per_engine;
            if (s.busiest_rows != formula_rows) {
                add(std::to_string(s.busiest_rows) + " rows on its busiest engine" + (s.pinned ? " (pinned to one engine)" : "") +
                    ", the formula's ((P+15)>>4) = " + std::to_string(formula_rows));
            }
            if (bw != dma_divisor(c)) add("engines at " + num(bw) + " B/ns, the formula divides by " + num(dma_divisor(c)));
            const double engine_ns = s.busiest_rows * per / bw, formula_ns = formula_rows * per / dma_divisor(c);
            explained += engine_ns - formula_ns;
            if (c.dma.descriptor_ns > 0) {
                add(std::to_string(s.busiest_rows) + " descriptors x " + num(c.dma.descriptor_ns) + " ns (dma.descriptor_ns; the formula has no per-row cost)");
                explained += s.busiest_rows * c.dma.descriptor_ns;
            }
            if (c.dma.fixed_overhead_ns != kDmaReadInit) {
                add("dma.fixed_overhead_ns " + num(c.dma.fixed_overhead_ns) + ", the formula's readInit " + num(kDmaReadInit));
                explained += c.dma.fixed_overhead_ns - kDmaReadInit;
            }
            const double dge = dge_overhead_ns(c, s.dge);
            if (s.dge != InstructionShape::Dge::None) {
                const double own = s.dge == InstructionShape::Dge::Hardware ? c.act.hwdge_ns : c.gpsimd.swdge_cycles / c.gpsimd.clock_ghz;
                add("descriptor generation " + num(own) + " ns (act.hwdge_ns / gpsimd.swdge_cycles), the formula's " + num(dge));
                explained += own - dge;
            }
            break;
        }
        case kTableLoad:
            add("the compiler gives LoadActFuncSet no latency; neuronsim moves the table image as a DMA transfer");
            explained = sim - model;
            break;
        case kActivate:  // (every activation: family())
            add(c.generation.nc_version >= 4 ? "neuronsim's stages (static + access + stream + drain, act.*) against CoreV4Hwm's readInit + exec"
                                             : "the pipeline drain act.pipeline_latency_cycles, which the public formula leaves out");
            explained = c.generation.nc_version >= 4 ? sim - model : c.act.pipeline_latency_cycles / c.act.clock_ghz;
            break;
        case kReadAccumulator:
            add("the read-out passes the pipeline's static, access and drain stages too (act.*)");
            explained = sim - model;
            break;
        case kConvLutLoad:
        case kExtended:
            add("the decode's read/write ports and 64-element groups (docs/cptc-format.md), not 150 + N");
            explained = sim - model;
            break;
        default: break;
    }
    const double rest = sim - model - explained;
    if (rest > 1) add(num(rest) + " ns waiting behind other work once issued (other transfers on its engines, the shared bandwidth, the pipeline)");
    return why;
}

CostEstimate cost_estimate(const Config& c, const InstructionShape& s) {
    using namespace model::isa;
    switch (family(s.opcode)) {
        case kActivate: return c.generation.nc_version >= 4 ? corev4_activation(s) : nki_activation(c, s);
        case kReadAccumulator: return {64 / c.act.clock_ghz, "nki.isa: activation_reduce readout MIN_II = 64 cycles"};
        case kTableLoad: return {0, "compiler: LoadActFuncSet has no latency (treated as free)"};
        case kDmaCopy: {
            // DMA exec ((P+15)>>4) x bytes per partition / DIV, DIV 17 (Tonga) or 23 (Gen3) B/ns;
            // CoreV4's is not given: the public 33 B/ns per engine. readInit 1300; the DGE
            // overhead floor(base x 100 / freq): SWDGE 500 (Tonga) / 700 (Gen3), HWDGE 500 (Gen3).
            const double div = dma_divisor(c);
            const uint64_t per = s.rows ? s.bytes / s.rows : 0;
            const double dge = dge_overhead_ns(c, s.dge);
            const double ns = kDmaReadInit + std::floor(((s.rows + 15) >> 4) * static_cast<double>(per) / div) + dge;
            return {ns, "compiler DMA: 1300 + ((P+15)>>4)*bytes/" + num(div) + (dge > 0 ? " + DGE " + num(dge) : "") + ", P=" + std::to_string(s.rows) +
                            " bytes=" + std::to_string(per)};
        }
        case kConvLutLoad:
        case kExtended: {
            // GpSimd instructions: GPSIMD_START (~150) + N cycles (nki.isa iota/affine_select).
            const double cyc = 150.0 + static_cast<double>(s.n);
            return {cyc / c.gpsimd.clock_ghz, "nki.isa GpSimd: 150+N cycles at " + num(c.gpsimd.clock_ghz) + " GHz, N=" + std::to_string(s.n)};
        }
        case kDveTensorTensor:
        case kDveTensorScalar:
        case kDveTensorReduce:
        case kDveTensorCopy:
        case kDveMemset:
        case kDveIota:
        case kDveReciprocal:
        case kDveTranspose:
        case kDveBnStats:
        case kDveBnAggr: {
            // VectorE: about N cycles per input, 2N with two, reciprocal max(MIN_II, 8N)
            // (public-figures §3, §1.4), plus the static and access overheads as for ScalarE;
            // no performance mode (the documents' baseline).
            const uint64_t k = s.opcode == kDveTensorTensor ? 2 : s.opcode == kDveReciprocal ? 8 : 1;
            const double cyc = static_cast<double>(std::max<uint64_t>(64, k * s.n)) + 160;
            return {cyc / c.vector.clock_ghz, "nki.isa VectorE: max(64," + (k > 1 ? std::to_string(k) + "*" : std::string()) + "N)+160 cycles at " +
                                                  num(c.vector.clock_ghz) + " GHz, N=" + std::to_string(s.n)};
        }
        case kPeMatmul: {
            // The compiler's K-only matmul estimator (hardware-facts §E), in its PE band's
            // model cycles (freq 140 on v2, 120 on v3+): it sees neither N nor the dtype.
            const double freq = c.generation.nc_version <= 2 ? 140 : 120;
            return {std::floor((s.rows / 2.0 + 200) * 100 / freq),
                    "compiler matmul: (K/2+200)*100/" + num(freq) + ", K=" + std::to_string(s.rows) + " (N and the dtype not counted)"};
        }
        default: return {};
    }
}

}  // namespace neuronsim::platform
