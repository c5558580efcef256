#include "platform/dve/dve_engine.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "model/common/error.h"
#include "model/dve/vector_arrays.h"
#include "model/dve/vector_ops.h"
#include "model/fp/bits.h"
#include "model/isa/layouts.h"
#include "platform/core/pattern_rows.h"
#include "platform/core/tensor_operand.h"
#include "platform/core/work_budget.h"
#include "platform/dve/dve_pass_tap.h"

namespace neuronsim::platform {

using model::fp::Dtype;
using model::isa::Bundle;
using model::isa::MemSpace;
using model::isa::Region;
namespace dve = model::dve;

namespace {

Dtype dtype_of(uint8_t code, const char* field, bool output) {
    const Dtype d = static_cast<Dtype>(code);
    if (!dve::dve_dtype(d) || (!output && d == Dtype::Fp32R))
        throw Error(std::string(field) + " " + model::fp::hex2(code) + " (" + model::fp::dtype_name(code) + ") is not an element type VectorE " +
                    (output ? "writes" : "reads"));
    return d;
}

dve::AluOp alu_code(uint8_t code, const char* field) {
    if (auto op = dve::alu_of_code(code)) return *op;
    throw Error(std::string(field) + " " + model::fp::hex2(code) +
                " is not a VectorE ALU code (add 0x04, subtract 0x05, multiply 0x06, divide 0x07, max 0x08, min 0x09)");
}

dve::Tile dense(std::vector<uint8_t>& rows, Dtype d, uint32_t partitions, uint64_t n) {
    return dve::Tile{d, rows.data(), partitions, static_cast<uint32_t>(n), n * model::fp::dtype_bytes(d), 1};
}

uint32_t channels(const Config& c, uint32_t nch) {
    if (nch < 1 || nch > c.memory.partitions)
        throw Error("num_active_channels " + std::to_string(nch) + " is not in 1.." + std::to_string(c.memory.partitions));
    return nch;
}

constexpr size_t kChunk = 512;  // elements a row is streamed by (on the stack)

// The row's next m elements into `to` (where a result is computed in place): read there, or
// copied there from where they lie (streams() has ruled out overlap other than the same
// elements, which are then already there).
void into(RowReader& r, float* to, size_t m) {
    const float* at = r.next(to, m);
    if (at != to) std::memcpy(to, at, m * sizeof(float));
}

// fn(at, m) for every chunk of a row of n elements; a cancel is seen every half million.
template <typename F>
void chunks(const DeviceOptions& o, uint64_t n, F&& fn) {
    for (uint64_t at = 0; at < n; at += kChunk) {
        if (at % (kChunk << 10) == 0) check_cancel(o);
        fn(static_cast<size_t>(std::min<uint64_t>(kChunk, n - at)));
    }
}

}  // namespace

bool DveEngine::streams(std::initializer_list<const Pattern*> reads, const Pattern& dst, uint32_t nch, bool elementwise) const {
    if (ctx_.options().dve_reference_kernel) return false;
    const Region w = pattern_region(dst, nch);
    for (const Pattern* r : reads)
        if (model::isa::overlap(pattern_region(*r, nch), w) && !(elementwise && r->partition == dst.partition && elements_batchable(*r, dst))) return false;
    return true;
}

bool DveTiming::fast_dtype(Dtype d) const {
    if (d == Dtype::Bfloat16 || d == Dtype::Fp16) return true;
    return cfg->fp8_perf_mode && (d == Dtype::Fp8Exp3 || d == Dtype::Fp8Exp4 || d == Dtype::Fp8Exp5);
}

uint64_t DveTiming::stream_cycles(Kind k, uint64_t n, bool fast, bool strided) const {
    auto ceil_div = [](uint64_t a, uint64_t b) { return (a + b - 1) / b; };
    const uint64_t slow = strided ? cfg->strided_slowdown : 1;
    uint64_t c = 0;
    switch (k) {
        case Kind::Copy:
        case Kind::TensorScalar: c = fast ? ceil_div(n, strided ? cfg->copy_speedup_strided : cfg->copy_speedup_contiguous) : n * slow; break;
        case Kind::TensorTensor: c = fast ? ceil_div(2 * n, cfg->tensor_tensor_speedup) : 2 * n * slow; break;
        case Kind::Reciprocal: c = n * cfg->reciprocal_cycles_per_element * slow; break;
        case Kind::Plain: c = n * slow; break;
    }
    return std::max<uint64_t>(c, cfg->min_ii_cycles);
}

DveEngine::DveEngine(sc_core::sc_module_name name, EngineContext& ctx, InstructionSource& source)
    : DatapathEngine(name, "dve", ctx, source, ctx.config().vector.clock_ghz) {
    port_role_ = PortRole::SharesPort;
    timing_.cfg = &ctx.config().vector;
}

void DveEngine::account(const char* mnemonic, uint64_t n, uint8_t in_dtype, uint8_t out_dtype, uint32_t nch) {
    ctx_.budget().elements(n * nch, mnemonic);
    detail_.shape.n = n;
    detail_.shape.in_dtype = in_dtype;
    detail_.shape.out_dtype = out_dtype;
    detail_.elements = n * nch;
}

bool DveEngine::execute(const Bundle& b, uint64_t index) {
    index_now_ = index;
    switch (b.opcode()) {
        case model::isa::kDveTensorTensor: tensor_tensor(b); return true;
        case model::isa::kDveTensorScalar: tensor_scalar(b); return true;
        case model::isa::kDveTensorReduce:
        case model::isa::kDveTensorCopy:
        case model::isa::kDveMemset:
        case model::isa::kDveIota:
        case model::isa::kDveReciprocal:
        case model::isa::kDveTranspose:
        case model::isa::kDveBnStats:
        case model::isa::kDveBnAggr: one_tensor(b); return true;
        default: return false;
    }
}

void DveEngine::tensor_tensor(const Bundle& b) {
    model::isa::DveTensorTensorOp op;
    std::memcpy(&op, b.b.data(), sizeof op);
    const Config& c = ctx_.config();
    const dve::AluOp alu = alu_code(op.op, "op");
    const Dtype in0 = dtype_of(op.in0_dtype, "in0_dtype", false), in1 = dtype_of(op.in1_dtype, "in1_dtype", false),
                out = dtype_of(op.out_dtype, "out_dtype", true);
    const uint32_t nch = channels(c, op.num_active_channels);
    const Pattern a = tile("src0", op.src0, in0, nch), bb = tile("src1", op.src1, in1, nch), dst = tile("dst", op.dst, out, nch);
    const uint64_t n = a.elements();
    if (bb.elements() != n || dst.elements() != n)
        throw Error("src0, src1 and dst have " + std::to_string(n) + ", " + std::to_string(bb.elements()) + " and " + std::to_string(dst.elements()) +
                    " elements per partition; they must be equal");
    account("tensor_tensor", n, op.in0_dtype, op.out_dtype, nch);
    const bool fast = timing_.fast_dtype(in0) && timing_.fast_dtype(in1) && timing_.fast_dtype(out);
    issue(timing_.stages(DveTiming::Kind::TensorTensor, n, fast, a.strided() || bb.strided() || dst.strided()),
          {pattern_region(a, nch), pattern_region(bb, nch)}, {pattern_region(dst, nch)});
    if (ctx_.options().timing_only) return;
    if (streams({&a, &bb}, dst, nch, true)) {
        each_partition(nch, host_threads(), [&](uint32_t q) {
            RowReader ra(a, q, in0), rb(bb, q, in1);
            RowWriter w(dst, q, out);
            float x[kChunk], y[kChunk];
            // (fp32 rows where they lie: streams() has ruled out an operand sharing bytes with
            // dst other than element for element, so computing in place is the chunk's result)
            chunks(ctx_.options(), n, [&](size_t m) {
                const float* pa = ra.next(x, m);
                const float* pb = rb.next(y, m);
                float* o = w.begin(x, m);
                if (VectorPassTap* tap = vector_pass_tap()) tap->pass({VectorPass::Kind::Alu, static_cast<uint8_t>(alu)}, pa, pb, m);
                dve::alu_n(alu, pa, pb, o, m);
                w.end(o, m);
            });
        });
        return;
    }
    std::vector<uint8_t> ra = gather(a, nch), rb = gather(bb, nch), ro(static_cast<size_t>(n * nch * dst.bytes));
    dve::tensor_tensor(dense(ra, in0, nch, n), dense(rb, in1, nch, n), alu, dense(ro, out, nch, n));
    scatter(ro, dst, nch);
}

void DveEngine::tensor_scalar(const Bundle& b) {
    model::isa::DveTensorScalarOp op;
    std::memcpy(&op, b.b.data(), sizeof op);
    const Config& c = ctx_.config();
    const Dtype in = dtype_of(op.in_dtype, "in_dtype", false), out = dtype_of(op.out_dtype, "out_dtype", true);
    const uint32_t nch = channels(c, op.num_active_channels);
    const Pattern src = tile("src", op.src, in, nch), dst = tile("dst", op.dst, out, nch);
    const uint64_t n = src.elements();
    if (dst.elements() != n) throw Error("src has " + std::to_string(n) + " elements per partition, dst " + std::to_string(dst.elements()));
    std::vector<Region> reads{pattern_region(src, nch)};
    // An operand: the immediate, or (operand*_src 1) the first element of each partition at operand*_addr.
    std::optional<Pattern> column[2];
    const uint8_t sources[2] = {op.operand0_src, op.operand1_src};
    const uint32_t addrs[2] = {op.operand0_addr, op.operand1_addr};
    const bool two = op.op1 != 0;
    Dtype operand_dtype = Dtype::Fp32;
    for (int k = 0; k < (two ? 2 : 1); ++k) {
        const char* name = k ? "operand1" : "operand0";
        if (sources[k] > 1) throw Error(std::string(name) + "_src " + std::to_string(sources[k]) + " is not 0 (immediate) or 1 (pointer)");
        if (sources[k] == 0) continue;
        operand_dtype = dtype_of(op.operand_dtype, "operand_dtype", false);
        static const uint16_t one = 1;
        column[k] = pattern(c, memory(model::isa::decode_addr4(addrs[k]).space), name, addrs[k], nullptr, &one, 1, model::fp::dtype_bytes(operand_dtype), nch);
        reads.push_back(pointer_region(addrs[k], model::fp::dtype_bytes(operand_dtype), nch));
    }
    const dve::AluOp op0 = alu_code(op.op0, "op0");
    std::optional<dve::AluOp> op1;
    if (two) op1 = alu_code(op.op1, "op1");
    account("tensor_scalar", n, op.in_dtype, op.out_dtype, nch);
    const bool fast = timing_.fast_dtype(in) && timing_.fast_dtype(out);
    issue(timing_.stages(DveTiming::Kind::TensorScalar, n, fast, src.strided() || dst.strided()), std::move(reads), {pattern_region(dst, nch)});
    if (ctx_.options().timing_only) return;
    std::vector<uint8_t> cols[2];
    dve::ScalarStep steps[2];
    const uint32_t imms[2] = {op.imm0, op.imm1};
    const uint8_t reverse[2] = {op.reverse0, op.reverse1};
    for (int k = 0; k < 2; ++k) {
        steps[k].op = k ? (op1 ? *op1 : dve::AluOp::Add) : op0;
        steps[k].reverse = reverse[k] != 0;
        steps[k].operand.imm = model::fp::float_of(imms[k]);
        if (column[k]) {
            cols[k] = gather(*column[k], nch);
            steps[k].operand.per_partition = dense(cols[k], operand_dtype, nch, 1);
        }
    }
    if (streams({&src}, dst, nch, true)) {
        // Each partition's scalars (the first element of its row), read before anything is
        // written, as the reference path reads them.
        std::vector<float> value[2];
        for (int k = 0; k < (two ? 2 : 1); ++k) {
            value[k].assign(nch, steps[k].operand.imm);
            if (column[k])
                for (uint32_t q = 0; q < nch; ++q) value[k][q] = model::fp::to_f32(operand_dtype, column[k]->at(q, 0, 0, 0));
        }
        each_partition(nch, host_threads(), [&](uint32_t q) {
            RowReader r(src, q, in);
            RowWriter w(dst, q, out);
            float x[kChunk];
            chunks(ctx_.options(), n, [&](size_t m) {
                float* o = w.begin(x, m);
                into(r, o, m);
                for (int k = 0; k < (two ? 2 : 1); ++k) {
                    if (VectorPassTap* tap = vector_pass_tap())
                        tap->pass({VectorPass::Kind::Scalar, static_cast<uint8_t>(steps[k].op), steps[k].reverse, value[k][q]}, o, nullptr, m);
                    dve::scalar_n(steps[k].op, steps[k].reverse, value[k][q], o, m);
                }
                w.end(o, m);
            });
        });
        return;
    }
    std::vector<uint8_t> rs = gather(src, nch), ro(static_cast<size_t>(n * nch * dst.bytes));
    dve::tensor_scalar(dense(rs, in, nch, n), steps[0], op1 ? std::optional<dve::ScalarStep>(steps[1]) : std::nullopt, dense(ro, out, nch, n));
    scatter(ro, dst, nch);
}

void DveEngine::one_tensor(const Bundle& b) {
    model::isa::DveUnaryOp op;
    std::memcpy(&op, b.b.data(), sizeof op);
    const Config& c = ctx_.config();
    const uint8_t code = b.opcode();
    const bool reads_src = code != model::isa::kDveMemset && code != model::isa::kDveIota;
    const char* mnemonic = code == model::isa::kDveTensorReduce ? "tensor_reduce"
                           : code == model::isa::kDveTensorCopy ? "tensor_copy"
                           : code == model::isa::kDveMemset     ? "memset"
                           : code == model::isa::kDveIota       ? "iota"
                           : code == model::isa::kDveReciprocal ? "reciprocal"
                           : code == model::isa::kDveBnStats    ? "bn_stats"
                           : code == model::isa::kDveBnAggr     ? "bn_aggr"
                                                                : "transpose";
    const Dtype out = dtype_of(op.out_dtype, "out_dtype", true);
    const Dtype in = reads_src ? dtype_of(op.in_dtype, "in_dtype", false) : out;
    const uint32_t nch = channels(c, op.num_active_channels);
    std::optional<Pattern> src;
    if (reads_src) src = tile("src", op.src, in, nch);
    const uint64_t n = src ? src->elements() : 0;
    // transpose: dst has src's elements as partitions and src's partitions as elements.
    const bool transpose = code == model::isa::kDveTranspose;
    if (transpose && (nch > 32 || n > 32))
        throw Error("transpose: src is " + std::to_string(nch) + " partitions x " + std::to_string(n) +
                    " elements; VectorE transposes blocks of at most 32 x 32 (one 32-partition bank)");
    const uint32_t dst_partitions = transpose ? static_cast<uint32_t>(n) : nch;
    const Pattern dst = tile("dst", op.dst, out, dst_partitions);
    const uint64_t dn = dst.elements();
    const bool bn_stats = code == model::isa::kDveBnStats, bn_aggr = code == model::isa::kDveBnAggr;
    if (bn_stats && n > dve::kBnStatsMax)
        throw Error("bn_stats: src has " + std::to_string(n) + " elements per partition; at most " + std::to_string(dve::kBnStatsMax) +
                    " (nl.tile_size.bn_stats_fmax: aggregate several with bn_aggr)");
    if (bn_aggr && n % 3 != 0)
        throw Error("bn_aggr: src has " + std::to_string(n) + " elements per partition; expected (count, mean, M2) triples (a multiple of 3)");
    const uint64_t expected = code == model::isa::kDveTensorReduce ? 1 : transpose ? nch : bn_stats ? 6 : bn_aggr ? 2 : src ? n : dn;
    if (dn != expected)
        throw Error(std::string(mnemonic) + ": dst has " + std::to_string(dn) + " elements per partition, expected " + std::to_string(expected) +
                    (code == model::isa::kDveTensorReduce ? " (one per partition)"
                     : transpose                          ? " (src's partitions)"
                     : bn_stats                           ? " (count, mean, M2 of the even and the odd elements)"
                     : bn_aggr                            ? " (mean, variance)"
                                                          : " (src's elements per partition)"));
    if (code == model::isa::kDveTensorReduce) {
        if (!dve::alu_of_code(op.reduce_op) || (*dve::alu_of_code(op.reduce_op) != dve::AluOp::Add && *dve::alu_of_code(op.reduce_op) != dve::AluOp::Max &&
                                                *dve::alu_of_code(op.reduce_op) != dve::AluOp::Min))
            throw Error("reduce_op " + model::fp::hex2(op.reduce_op) + " is not add 0x04, max 0x08 or min 0x09");
    }
    const uint64_t streamed = src ? n : dn;  // elements per partition through the datapath
    account(mnemonic, streamed, static_cast<uint8_t>(in), op.out_dtype, nch);
    const DveTiming::Kind kind = code == model::isa::kDveTensorCopy   ? DveTiming::Kind::Copy
                                 : code == model::isa::kDveReciprocal ? DveTiming::Kind::Reciprocal
                                                                      : DveTiming::Kind::Plain;
    const bool fast = timing_.fast_dtype(in) && timing_.fast_dtype(out);
    std::vector<Region> reads;
    if (src) reads.push_back(pattern_region(*src, nch));
    issue(timing_.stages(kind, streamed, fast, (src && src->strided()) || dst.strided()), std::move(reads), {pattern_region(dst, dst_partitions)});
    if (ctx_.options().timing_only) return;
    if (src && streamed_fast(code, *src, in, dst, out, nch, op.reduce_op, op.negate != 0)) return;
    std::vector<uint8_t> rs = src ? gather(*src, nch) : std::vector<uint8_t>{}, ro(static_cast<size_t>(dn * dst_partitions * dst.bytes));
    const dve::Tile o = dense(ro, out, dst_partitions, dn);
    switch (code) {
        case model::isa::kDveTensorReduce: {
            const dve::AluOp r = *dve::alu_of_code(op.reduce_op);
            const dve::ReduceOp ro_op = r == dve::AluOp::Add ? dve::ReduceOp::Add : r == dve::AluOp::Max ? dve::ReduceOp::Max : dve::ReduceOp::Min;
            dve::tensor_reduce(dense(rs, in, nch, n), ro_op, op.negate != 0, o);
            break;
        }
        case model::isa::kDveTensorCopy: dve::tensor_copy(dense(rs, in, nch, n), o); break;
        case model::isa::kDveMemset: dve::memset(o, model::fp::float_of(op.imm0)); break;
        case model::isa::kDveIota: dve::iota(o, static_cast<int32_t>(op.imm0), static_cast<int32_t>(op.imm1), static_cast<int32_t>(op.imm2)); break;
        case model::isa::kDveReciprocal: dve::reciprocal(dense(rs, in, nch, n), o); break;
        case model::isa::kDveBnStats: dve::bn_stats(dense(rs, in, nch, n), o); break;
        case model::isa::kDveBnAggr: dve::bn_aggr(dense(rs, in, nch, n), o); break;
        default: dve::transpose(dense(rs, in, nch, n), o); break;
    }
    scatter(ro, dst, dst_partitions);
}

bool DveEngine::streamed_fast(uint8_t code, const Pattern& src, Dtype in, const Pattern& dst, Dtype out, uint32_t nch, uint8_t reduce_code, bool negate) {
    using namespace model::isa;
    const bool elementwise = code == kDveTensorCopy || code == kDveReciprocal;
    if (!(elementwise || code == kDveTensorReduce || code == kDveBnStats) || !streams({&src}, dst, nch, elementwise)) return false;
    const uint64_t n = src.elements();
    each_partition(nch, host_threads(), [&](uint32_t q) {
        RowReader r(src, q, in);
        RowWriter w(dst, q, out);
        float x[kChunk];
        if (code == kDveBnStats) {  // (n <= kBnStatsMax = kChunk: one chunk)
            const float* in = r.next(x, static_cast<size_t>(n));
            float o[6];
            if (VectorPassTap* tap = vector_pass_tap()) tap->pass({VectorPass::Kind::BnStats}, in, nullptr, static_cast<size_t>(n));
            dve::bn_stats_row(in, static_cast<size_t>(n), o);
            w.write(o, 6);
            return;
        }
        if (code == kDveTensorReduce) {
            const dve::AluOp a = *dve::alu_of_code(reduce_code);
            const dve::ReduceOp op = a == dve::AluOp::Add ? dve::ReduceOp::Add : a == dve::AluOp::Max ? dve::ReduceOp::Max : dve::ReduceOp::Min;
            float acc = 0.0f;
            bool first = true;
            chunks(ctx_.options(), n, [&](size_t m) {
                const float* in = r.next(x, m);
                const float from = first ? in[0] : acc;
                const float* rest = first ? in + 1 : in;
                const size_t k = first ? m - 1 : m;
                if (VectorPassTap* tap = vector_pass_tap()) tap->pass({VectorPass::Kind::Fold, static_cast<uint8_t>(op), false, from}, rest, nullptr, k);
                acc = dve::fold_n(op, from, rest, k);
                first = false;
            });
            acc = negate ? -acc : acc;
            w.write(&acc, 1);
            return;
        }
        chunks(ctx_.options(), n, [&](size_t m) {
            float* o = w.begin(x, m);
            into(r, o, m);
            if (code == kDveReciprocal) {
                if (VectorPassTap* tap = vector_pass_tap()) tap->pass({VectorPass::Kind::Reciprocal}, o, nullptr, m);
                dve::reciprocal_n(o, m);
            }
            w.end(o, m);
        });
    });
    return true;
}

}  // namespace neuronsim::platform
