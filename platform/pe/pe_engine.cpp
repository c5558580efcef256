#include "platform/pe/pe_engine.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/isa/layouts.h"
#include "model/pe/matmul.h"
#include "platform/core/pattern_rows.h"
#include "platform/core/work_budget.h"
#include "platform/dma/dma_engines.h"

namespace neuronsim::platform {

using model::fp::Dtype;
using model::isa::Bundle;
using model::isa::MemSpace;
using model::isa::Region;
namespace pe = model::pe;

namespace {

// TensorE reads bf16, fp16, fp32 and the three fp8 types (public-figures §0, §5).
Dtype input_dtype(uint8_t code) {
    const Dtype d = static_cast<Dtype>(code);
    switch (d) {
        case Dtype::Bfloat16:
        case Dtype::Fp16:
        case Dtype::Fp32:
        case Dtype::Fp8Exp3:
        case Dtype::Fp8Exp4:
        case Dtype::Fp8Exp5: return d;
        default:
            throw Error("in_dtype " + model::fp::hex2(code) + " (" + model::fp::dtype_name(code) +
                        ") is not a TensorE input type (BF16, FP16, FP32, FP8_EXP3/4/5)");
    }
}

uint32_t contraction(uint32_t nch) {
    if (nch < 1 || nch > pe::kMaxContraction)
        throw Error("num_active_channels " + std::to_string(nch) + " (K, the contracted partitions) is not in 1.." + std::to_string(pe::kMaxContraction));
    return nch;
}

// rows (partitions x n elements of d) as binary32, row-major.
std::vector<float> to_f32(const std::vector<uint8_t>& rows, Dtype d, uint64_t count) {
    std::vector<float> out(static_cast<size_t>(count));
    const size_t b = model::fp::dtype_bytes(d);
    for (uint64_t i = 0; i < count; ++i) out[i] = model::fp::to_f32(d, rows.data() + i * b);
    return out;
}

}  // namespace

uint64_t PeTiming::stream_cycles(bool stationary, uint64_t columns, Dtype in, bool mx) const {
    // fp8's double row and the MX matmul's rows divide the columns' time, not the interval's
    // floor; fp32's 4x and load_stationary's 4x are of the whole matmul time (public-figures §3).
    uint64_t c = columns;
    if (mx) c = (c + cfg->mx_speedup - 1) / cfg->mx_speedup;
    else if (in == Dtype::Fp8Exp4 || in == Dtype::Fp8Exp5) c = (c + cfg->fp8_speedup - 1) / cfg->fp8_speedup;
    c = std::max<uint64_t>(c, cfg->min_ii_cycles);
    if (in == Dtype::Fp32) c *= cfg->fp32_slowdown;
    if (stationary) c = (c + cfg->load_stationary_speedup - 1) / cfg->load_stationary_speedup;
    return c;
}

PeEngine::PeEngine(sc_core::sc_module_name name, EngineContext& ctx, InstructionSource& source)
    : DatapathEngine(name, "pe", ctx, source, ctx.config().tensor.clock_ghz) {
    timing_.cfg = &ctx.config().tensor;
}

void PeEngine::reset_state() {
    DatapathEngine::reset_state();
    stationary_.clear();
    k_ = m_ = partition_ = 0;
    loaded_ = false;
    ls_free_ = bg_free_ = stationary_ready_ = sc_core::SC_ZERO_TIME;
    taken_ = true;
}

bool PeEngine::execute(const Bundle& b, uint64_t index) {
    index_now_ = index;
    switch (b.opcode()) {
        case model::isa::kPeLoadStationary: load_stationary(b); return true;
        case model::isa::kPeMatmul: matmul(b); return true;
        default: return false;
    }
}

void PeEngine::load_stationary(const Bundle& b) {
    model::isa::PeLoadStationaryOp op;
    std::memcpy(&op, b.b.data(), sizeof op);
    const Dtype in = input_dtype(op.in_dtype);
    const uint32_t k = contraction(op.num_active_channels);
    const Pattern src = tile("src", op.src, in, k);
    if (src.space != MemSpace::Sbuf) throw Error("src is in PSUM; TensorE loads the stationary tile from SBUF");
    const uint64_t m = src.elements();
    if (m < 1 || m > pe::kMaxStationary)
        throw Error("src has " + std::to_string(m) + " elements per partition (M, the PSUM partitions a matmul writes); TensorE holds 1.." +
                    std::to_string(pe::kMaxStationary));
    ctx_.budget().elements(m * k, "load_stationary");
    detail_.shape.n = m;
    detail_.shape.rows = k;
    detail_.shape.in_dtype = op.in_dtype;
    detail_.elements = m * k;
    {
        const StageCycles st = timing_.stages(true, m, in);
        std::vector<Region> reads{pattern_region(src, k)};
        const sc_core::sc_time start = results_ready(reads, false, std::max(ls_free_, bg_free_));
        if (start > now() && std::max(ls_free_, bg_free_) >= start) {  // it waits for the buffer (or the load before it)
            detail_.producer = &label();
            detail_.producer_index = bg_free_ >= ls_free_ ? bg_index_ : ls_index_;
        }
        if (start > now()) hold(start - now());
        detail_.start = now();
        detail_.end = now() + cycles(static_cast<double>(st.cycles[1])) + cycles(static_cast<double>(st.cycles[2]));
        seq_free_ = now();  // the sequencer goes on: the load runs beside the pipeline
        ctx_.dma().copies().settle(reads, {});
        note_access(reads, {});
        pending_.push_back({detail_.end, index_now_, std::move(reads), {}});
        ls_free_ = stationary_ready_ = detail_.end;
        ls_index_ = index_now_;
        taken_ = false;
    }
    k_ = k;
    m_ = static_cast<uint32_t>(m);
    partition_ = src.partition;
    loaded_ = true;
    if (ctx_.options().timing_only) return;
    stationary_ = to_f32(gather(src, k), in, m * k);
}

void PeEngine::matmul(const Bundle& b) {
    model::isa::PeMatmulOp op;
    std::memcpy(&op, b.b.data(), sizeof op);
    const Dtype in = input_dtype(op.in_dtype);
    const uint32_t k = contraction(op.num_active_channels);
    if (!loaded_) throw Error("matmul before any load_stationary: the array holds no stationary tile");
    if (k != k_) throw Error("num_active_channels " + std::to_string(k) + " (K) differs from the stationary tile's " + std::to_string(k_) + " partitions");
    if (op.start > 1) throw Error("start " + std::to_string(op.start) + " is not 0 (accumulate) or 1 (begin the accumulation group)");
    if (op.mx > 1) throw Error("mx " + std::to_string(op.mx) + " is not 0 or 1 (nc_matmul_mx's rate)");
    if (op.mx) {  // timing only: the MX scales' layout inside TensorE is not modelled
        if (!ctx_.config().tensor.mx_speedup)
            throw Error("mx=1: " + ctx_.config().generation.name + "'s TensorE has no MX matmul (tensor.mx_speedup is 0; NC-v4 has nc_matmul_mx)");
        if (in != Dtype::Fp8Exp4 && in != Dtype::Fp8Exp5)
            throw Error("mx=1 takes in_dtype fp8_exp4 or fp8_exp5 (MXFP8's elements), not " + model::fp::dtype_name(op.in_dtype));
        if (!ctx_.options().timing_only)
            throw Error("mx=1: the MX matmul is modelled for its time only (the numerics of its block scales are not): run with --numerics none");
    }
    const Pattern mv = tile("moving", op.moving, in, k);
    if (mv.partition != partition_)
        throw Error("moving starts at partition " + std::to_string(mv.partition) + ", the stationary tile at " + std::to_string(partition_) +
                    "; a matmul contracts the partitions the stationary tile was loaded from");
    if (mv.space != MemSpace::Sbuf) throw Error("moving is in PSUM; TensorE streams the moving tile from SBUF");
    const uint64_t n = mv.elements();
    if (n < 1 || n > pe::kMaxMoving)
        throw Error("moving has " + std::to_string(n) + " elements per partition (N); one matmul streams 1.." + std::to_string(pe::kMaxMoving));
    const Pattern dst = tile("dst", op.dst, Dtype::Fp32, m_);
    if (dst.space != MemSpace::Psum) throw Error("dst is in SBUF; a matmul writes PSUM");
    if (dst.elements() != n)
        throw Error("dst has " + std::to_string(dst.elements()) + " elements per partition, moving " + std::to_string(n) + "; they must be equal");
    const uint64_t bank = ctx_.config().memory.psum_bank_bytes;
    if (dst.ap.lo / static_cast<int64_t>(bank) != (dst.ap.hi - 1) / static_cast<int64_t>(bank))
        throw Error("dst spans bytes " + std::to_string(dst.ap.lo) + ".." + std::to_string(dst.ap.hi - 1) + " of its partitions, across a " +
                    std::to_string(bank) + "-byte PSUM bank boundary; a matmul writes one bank");
    // Each column its own fp32 (a pattern that revisits an address would drop a column's sum).
    std::vector<bool> seen(static_cast<size_t>(dst.ap.span() / 4), false);
    model::isa::AccessPattern::Cursor cur(dst.ap);
    for (uint64_t i = 0; i < n; ++i) {
        const uint64_t at = cur.next() / 4;
        if (seen[at]) throw Error("dst visits byte " + std::to_string(dst.ap.lo + 4 * at) + " twice; each of the N columns needs its own fp32");
        seen[at] = true;
    }
    ctx_.budget().elements(n * m_ * k, "matmul");
    detail_.shape.n = n;
    detail_.shape.rows = k;
    detail_.shape.in_dtype = op.in_dtype;
    detail_.shape.out_dtype = static_cast<uint8_t>(Dtype::Fp32);
    detail_.elements = n * m_;
    std::vector<Region> reads{pattern_region(mv, k)};
    // Accumulating reads the bank; the matmuls before it that write it are ahead of it in
    // the pipeline, which adds in order as the columns stream: an accumulation group streams
    // back to back (public-figures §3: 8 groups in flight, one per bank).
    std::vector<Region> ordered;
    if (!op.start) ordered.push_back(pattern_region(dst, m_));
    // Its access start-up may overlap the load of its stationary; its streaming may not.
    const StageCycles st = timing_.stages(false, n, in, op.mx != 0);
    const sc_core::sc_time access = cycles(static_cast<double>(st.cycles[1]));
    if (stationary_ready_ > now() + access) {  // a stall waits for the load (unless later data does)
        detail_.producer = &label();
        detail_.producer_index = ls_index_;
    }
    const StagePipeline::Slot s = issue(st, std::move(reads), {pattern_region(dst, m_)},
                                        stationary_ready_ > access ? stationary_ready_ - access : sc_core::SC_ZERO_TIME, std::move(ordered));
    if (!taken_) {  // the tile moves to the foreground as the first matmul with it streams
        bg_free_ = sc_core::sc_time(static_cast<double>(s.streaming), sc_core::SC_PS);
        bg_index_ = index_now_;
        taken_ = true;
    }
    if (ctx_.options().timing_only) return;
    const std::vector<float> moving = to_f32(gather(mv, k), in, n * k);
    std::vector<uint8_t> out = op.start ? std::vector<uint8_t>(static_cast<size_t>(n * m_ * 4)) : gather(dst, m_);
    std::vector<float> psum(static_cast<size_t>(n * m_));
    std::memcpy(psum.data(), out.data(), out.size());
    pe::MatmulArgs a{stationary_.data(), m_, moving.data(), n, psum.data(), n, k, m_, static_cast<uint32_t>(n), op.start != 0};
    pe::matmul(a);
    std::memcpy(out.data(), psum.data(), out.size());
    scatter(out, dst, m_);
}

}  // namespace neuronsim::platform
