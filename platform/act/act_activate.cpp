// Activate, ActivateQuantize and Activate2: operands, the resident function, and the element
// loops over the partitions (threaded, batched through the fast pass where they can be).
#include "platform/act/act_engine.h"
#include "platform/act/act_pass_tap.h"
#include "platform/core/pattern_rows.h"
#include "platform/core/tensor_operand.h"
#include "platform/core/work_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "model/common/error.h"
#include "model/dve/vector_ops.h"
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
using model::isa::OperandSource;

namespace {
// acc + y into the accumulator with VectorE's NaN rule (model/dve/vector_ops.h): a NaN gives the
// quiet form of the first NaN operand, the accumulator's before the output's. Plain `acc + y`
// leaves the payload of two NaNs to the compiler's operand order, which differed between the
// element loop and the lane groups' unrolled sums.
inline float acc_add(float acc, float y) { return model::dve::nan_rule(acc, y, acc + y); }

// A batch's sum onto the accumulator, `sum` = acc + y[0] + ... + y[m-1] in element order with
// plain adds (the hot loops): exact unless it is a NaN, since without NaNs the order of a + b's
// operands does not matter. A NaN sum is done again by acc_add for the rule's payload.
inline float nan_checked(float acc, const float* y, size_t m, float sum) {
    if (!std::isnan(sum)) return sum;
    for (size_t j = 0; j < m; ++j) acc = acc_add(acc, y[j]);
    return acc;
}

// acc + y[0] + ... + y[m-1]: one partition's batch summed in element order.
inline float summed(float acc, const float* y, size_t m) {
    float a = acc;
    for (size_t j = 0; j < m; ++j) a = a + y[j];
    return nan_checked(acc, y, m, a);
}
}  // namespace

void ActEngine::activate(const Bundle& b) {
    wait_for_tables();
    ActivateOp op;
    std::memcpy(&op, b.b.data(), sizeof op);
    const uint8_t in_code = model::isa::input_dtype_code(op.in_bias_dtype), bias_code = model::isa::bias_dtype_code(op.in_bias_dtype);
    if (!model::fp::act_input_dtype(in_code)) throw Error("input dtype " + model::fp::dtype_name(in_code) + " is not an ACT input type");
    if (!model::fp::act_output_dtype(op.out_dtype)) throw Error("output dtype " + model::fp::dtype_name(op.out_dtype) + " is not an ACT output type");
    const uint32_t nch = active_channels(ctx_.config(), op.num_active_channels);
    const Dtype in = static_cast<Dtype>(in_code), out = static_cast<Dtype>(op.out_dtype);
    const SrcDst ops = src_dst(
        ctx_.config(), [this](MemSpace sp) { return memory(sp); }, op.src, op.dst, 3, in, out, nch);
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
        uint16_t one = 1;
        if (l.space != MemSpace::Sbuf && l.space != MemSpace::Psum)
            throw Error(std::string(what) + " pointer " + format_location(l) + " is not in SBUF or PSUM");
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

    // The partitions may run on several host threads when none can see another's writes
    // (partitions_independent); then reading every operand first is the same as reading it at
    // the start of its partition.
    std::vector<Location> reads{decode_addr4(op.src.start_addr)};
    auto pointer_at = [&](std::optional<OperandSource> mode, uint32_t field) {
        if (mode && *mode != OperandSource::Immediate) reads.push_back(decode_addr4(*mode == OperandSource::Register ? ctx_.reg(field & 0xFF) : field));
    };
    pointer_at(scale_mode, op.scale_value);
    pointer_at(bias_mode, op.bias);
    if (load_alpha) pointer_at(imm_mode, op.imm);
    const bool independent = partitions_independent(dst, nch, reads);
    std::vector<Region> pointers;
    auto pointer_read = [&](std::optional<OperandSource> mode, uint32_t field, size_t bytes) {
        if (mode && *mode != OperandSource::Immediate)
            pointers.push_back(pointer_region(*mode == OperandSource::Register ? ctx_.reg(field & 0xFF) : field, bytes, nch));
    };
    pointer_read(scale_mode, op.scale_value, 4);
    pointer_read(bias_mode, op.bias, model::fp::dtype_bytes(bias_dtype));
    if (load_alpha) pointer_read(imm_mode, op.imm, 4);

    auto start_acc = [&](uint32_t p, float alpha) {
        float& acc = acc_[src.partition + p];  // the lane of the partition read
        switch (op.accumulator_cmd) {
            case model::isa::kAccZero:
            case model::isa::kAccZeroAccumulate: acc = 0.0f; break;
            case model::isa::kAccLoad: acc = alpha; break;
            default: break;
        }
        return &acc;
    };
    const bool summing = op.accumulator_cmd >= model::isa::kAccAccumulate;
    auto partition = [&](uint32_t p, float scale, float bias, float alpha) {
        // The accumulator takes each result as it is produced, in element order (seed 003 §1:
        // doEngineAccumReduce folds the outputs into the engine accumulator); Activate2's
        // reduction does the same.
        float& acc = *start_acc(p, alpha);
        auto body = [&](auto load, auto store) {
            if (batched) {
                auto pre = [scale, bias](float x) {
                    const float v = scale * x;  // multiply, then add: two roundings, no FMA
                    return v + bias;
                };
                if (!summing)
                    return this->batched(
                        src, dst, p, fn, view, in, pre, [](const float*, size_t) {}, [](float y) { return y; }, out);
                // The sum in element order (binary32 adds, one rounding each: not reassociated),
                // in a local: the stores through byte pointers could alias `acc`.
                auto sum = [&acc](const float* y, size_t m) { acc = summed(acc, y, m); };
                return this->batched(
                    src, dst, p, fn, view, in, pre, sum, [](float y) { return y; }, out);
            }
            // Operands by value: the stores go through uint8_t pointers, which may alias.
            for_each(src, dst, p, [&acc, &view, &fn, scale, bias, alpha, prelu, summing, load, store](const uint8_t* s, uint8_t* d) {
                float v = scale * load(s);  // multiply, then add: two roundings, no FMA
                v = v + bias;
                const float y = prelu ? model::pwp::exact(model::pwp::ActFn::Prelu, v, alpha) : fn.eval(view, v);
                if (summing) acc = acc_add(acc, y);
                store(y, d);
            });
        };
        if (ctx_.options().timing_only) return;  // operands checked, no element touched
        // fp32 in and out, the common case, without the per-element dtype switch.
        if (in == Dtype::Fp32 && out == Dtype::Fp32)
            body(
                [](const uint8_t* s) {
                    float x;
                    std::memcpy(&x, s, 4);
                    return x;
                },
                [](float y, uint8_t* d) { std::memcpy(d, &y, 4); });
        else body([in](const uint8_t* s) { return model::fp::to_f32(in, s); }, [out](float y, uint8_t* d) { model::fp::from_f32(out, y, d); });
    };
    auto operands = [&](uint32_t p, float& scale, float& bias, float& alpha) {
        scale = operand(scale_mode, op.scale_src, op.scale_value, p, "scale", Dtype::Fp32);
        bias = operand(bias_mode, op.bias_src_n, op.bias, p, "bias", bias_dtype);
        alpha = load_alpha ? operand(imm_mode, op.imm_src, op.imm, p, "imm", Dtype::Fp32) : 0.0f;
    };
    detail_.function = fn.meta.bare_name();
    start_streaming(src, dst, nch, in, out, std::move(pointers));
    std::vector<float> scale(nch), bias(nch), alpha(nch);
    if (batched && summing && !ctx_.options().timing_only && rows_independent(dst, nch, reads)) {
        // kLanes partitions at a time (batched_lanes): each partition's sum is still its own
        // binary32 adds in element order, but the sums of a lane group overlap instead of
        // waiting on one chain of dependent adds at a time.
        for (uint32_t p = 0; p < nch; ++p) operands(p, scale[p], bias[p], alpha[p]);
        auto pre_of = [&](uint32_t p) {
            return [s = scale[p], b = bias[p]](float x) {
                const float v = s * x;  // multiply, then add: two roundings, no FMA
                return v + b;
            };
        };
        auto sums = [&](uint32_t p0, const float* const* y, uint32_t count, size_t m) {
            float* acc = &acc_[src.partition + p0];
            if (count == kLanes) {
                float a[kLanes];
                for (uint32_t i = 0; i < kLanes; ++i) a[i] = acc[i];
                for (size_t j = 0; j < m; ++j)
#pragma GCC unroll 8
                    for (uint32_t i = 0; i < kLanes; ++i) a[i] = a[i] + y[i][j];
                for (uint32_t i = 0; i < kLanes; ++i) acc[i] = nan_checked(acc[i], y[i], m, a[i]);
                return;
            }
            for (uint32_t i = 0; i < count; ++i) acc[i] = summed(acc[i], y[i], m);
        };
        each_partition((nch + kLanes - 1) / kLanes, independent, [&](uint32_t g) {
            const uint32_t p0 = g * kLanes, count = std::min(kLanes, nch - p0);
            for (uint32_t p = p0; p < p0 + count; ++p) start_acc(p, alpha[p]);
            batched_lanes(
                src, dst, p0, count, fn, view, in, pre_of, sums, [](float y) { return y; }, out);
        });
        return;
    }
    if (independent)
        for (uint32_t p = 0; p < nch; ++p) operands(p, scale[p], bias[p], alpha[p]);
    each_partition(nch, independent, [&](uint32_t p) {
        if (!independent) operands(p, scale[p], bias[p], alpha[p]);
        partition(p, scale[p], bias[p], alpha[p]);
    });
}

bool ActEngine::rows_independent(const Pattern& dst, uint32_t nch, const std::vector<Location>& reads) const {
    if (nch <= 1 || ctx_.options().act_reference_kernel) return false;
    for (const Location& l : reads)
        if (l.space == dst.space && l.partition != dst.partition) return false;
    return true;
}

bool ActEngine::partitions_independent(const Pattern& dst, uint32_t nch, const std::vector<Location>& reads) const {
    return host_threads() && rows_independent(dst, nch, reads);
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

// The batched partition loop (see the header): one partition, as lanes of one.
template <typename Pre, typename Fold, typename Post>
void ActEngine::batched(const Pattern& src, const Pattern& dst, uint32_t p, const Resolved& fn, const model::pwp::TableView& view, Dtype in, Pre pre, Fold fold,
                        Post post, Dtype out) {
    batched_lanes(
        src, dst, p, 1, fn, view, in, [&pre](uint32_t) { return pre; }, [&fold](uint32_t, const float* const* y, uint32_t, size_t m) { fold(y[0], m); }, post,
        out);
}

// Walks each lane's src and dst in pattern order (RowReader/RowWriter); evaluates up to kBatch
// elements of a lane at a time through the fast pass, then the fold over every lane's batch, then
// the stores. Plain, aligned fp32 rows are read and written where they lie: the pass computes into
// dst's row (elements_batchable leaves only disjoint rows or element-for-element in place, and a
// batch is read whole before its results are written). An error in lane i stops lanes i and after
// (as one partition after another would have stopped there); the lanes before it go on, and the
// error thrown is the lowest lane's.
template <typename PreOf, typename Fold, typename Post>
void ActEngine::batched_lanes(const Pattern& src, const Pattern& dst, uint32_t p0, uint32_t count, const Resolved& fn, const model::pwp::TableView& view,
                              Dtype in, PreOf pre_of, Fold fold, Post post, Dtype out) {
    constexpr size_t kBatch = 512;
    struct Lane {
        RowReader from;
        RowWriter to;
    };
    std::vector<Lane> lanes;
    lanes.reserve(count);
    for (uint32_t i = 0; i < count; ++i) lanes.push_back({RowReader(src, p0 + i, in), RowWriter(dst, p0 + i, out)});
    float vin[kBatch], vout[kLanes][kBatch];
    float* ys[kLanes];
    uint32_t flagged[kBatch];
    uint32_t live = count;  // lanes [0, live) still run
    std::exception_ptr failed;  // the error of lane `live`, when live < count
    const uint64_t n = src.elements();
    const uint64_t cancel_every = std::max<uint64_t>(1, 1024 / count);  // batches: half a million elements
    for (uint64_t at = 0; at < n && live; at += kBatch) {
        if ((at / kBatch) % cancel_every == 0) check_cancel(ctx_.options());
        const size_t m = static_cast<size_t>(std::min<uint64_t>(kBatch, n - at));
        for (uint32_t i = 0; i < live; ++i) {
            Lane& l = lanes[i];
            const float* x = l.from.next(vin, m);
            const auto pre = pre_of(p0 + i);
            for (size_t j = 0; j < m; ++j) vin[j] = pre(x[j]);
            if (ActPassTap* tap = act_pass_tap()) tap->batch(vin, m);
            float* y = ys[i] = l.to.begin(vout[i], m);
            const size_t k = model::pwp::fast_pass(*fn.flat, vin, y, m, flagged);
            // The elements the batch pass handed back, by the reference path, in place (an
            // error stops the instruction: its outputs are then not defined).
            for (size_t f = 0; f < k && i < live; ++f) {
                const size_t j = flagged[f];
                try {
                    y[j] = model::pwp::evaluate_from_tables(view, fn.meta, vin[j]);
                } catch (const Error& e) {
                    failed = std::make_exception_ptr(
                        Error("partition " + std::to_string(src.partition + p0 + i) + ", element " + std::to_string(at + j) + ": " + e.what()));
                    live = i;  // (ends this loop too)
                }
            }
        }
        if (!live) break;
        fold(p0, ys, live, m);
        for (uint32_t i = 0; i < live; ++i) {
            float* y = ys[i];
            for (size_t j = 0; j < m; ++j) y[j] = post(y[j]);
            lanes[i].to.end(y, m);
        }
    }
    if (failed) std::rethrow_exception(failed);
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
    if (!ctx_.options().act_reference_kernel) {
        r.flat = &tables_->flat(slot, r.meta);
        if (ActPassTap* tap = act_pass_tap()) tap->table(*r.flat);
    }
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
    const SrcDst ops = src_dst(
        ctx_.config(), [this](MemSpace sp) { return memory(sp); }, op.src, op.dst, 3, in, out, nch);
    const Pattern &src = ops.src, &dst = ops.dst;
    ctx_.budget().elements(src.elements() * nch, "activate_quantize");
    const Resolved fn = resolve(kActivateQuantize, op.activation_func);
    if (fn.meta.bare_name() == "parametric_relu") throw Error("activate_quantize does not support parametric_relu");
    const model::pwp::TableView view = tables_->view();
    uint16_t one = 1;
    const MemSpace bias_space = decode_addr4(op.bias_addr).space;
    if (bias_space != MemSpace::Sbuf && bias_space != MemSpace::Psum)
        throw Error("bias_addr " + format_location(decode_addr4(op.bias_addr)) + " is not in SBUF or PSUM");
    Pattern bias_ptr = pattern(ctx_.config(), memory(bias_space), "bias_addr", op.bias_addr, nullptr, &one, 1, 4, nch);
    const float qzero = model::fp::float_of(op.quant_zero_value);
    detail_.function = fn.meta.bare_name();
    start_streaming(src, dst, nch, in, out, {pointer_region(op.bias_addr, 4, nch)});
    const bool batch = !fn.exact && fn.flat && elements_batchable(src, dst);
    const bool independent = partitions_independent(dst, nch, {decode_addr4(op.src.start_addr), decode_addr4(op.bias_addr)});
    std::vector<float> bias(nch);
    auto read_bias = [&](uint32_t p) { bias[p] = model::fp::to_f32(Dtype::Fp32, bias_ptr.at(p, 0, 0, 0)); };
    if (independent)
        for (uint32_t p = 0; p < nch; ++p) read_bias(p);
    each_partition(nch, independent, [&](uint32_t p) {
        if (!independent) read_bias(p);
        if (ctx_.options().timing_only) return;
        const float b = bias[p];
        auto load = [in](const uint8_t* s) { return model::fp::to_f32(in, s); };
        auto pre = [dqscale, b](float x) {
            const float v = x * dqscale;
            return v + b;
        };
        auto quantize = [qscale, qzero](float y) {
            float q = qscale * y;
            return q + qzero;
        };
        auto store = [quantize, out](float y, uint8_t* d) { model::fp::from_f32(out, quantize(y), d); };
        if (batch)
            return batched(
                src, dst, p, fn, view, in, pre, [](const float*, size_t) {}, quantize, out);
        for_each(src, dst, p, [&](const uint8_t* s, uint8_t* d) { store(fn.eval(view, pre(load(s))), d); });
    });
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
    const SrcDst ops = src_dst(
        ctx_.config(), [this](MemSpace sp) { return memory(sp); }, op.src, op.dst, 2, in, out, nch);
    const Pattern &src = ops.src, &dst = ops.dst;
    ctx_.budget().elements(src.elements() * nch, "activate2");
    if (model::isa::scale_or_imm_source(op.relu_param_src) != OperandSource::Immediate)
        throw Error("activate2: relu_param_src " + std::to_string(op.relu_param_src) + ": only an immediate (0) is modelled");
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
            case kAdd: return acc_add(acc, y);
            case kMax: return std::fmax(acc, y);
            case kMin: return std::fmin(acc, y);
            case kAbsMax: return std::fmax(acc, std::fabs(y));
            default: return std::fmin(acc, std::fabs(y));
        }
    };
    const float identity = op.reduce_op == kMax ? -INFINITY : (op.reduce_op == kMin || op.reduce_op == kAbsMin) ? INFINITY : 0.0f;
    detail_.function = fn.meta.bare_name();
    start_streaming(src, dst, nch, in, out, {});
    const bool batch = !prelu && !fn.exact && fn.flat && elements_batchable(src, dst);
    const bool reducing = op.reduce_cmd >= 2;  // REDUCE, RESET_REDUCE
    each_partition(nch, partitions_independent(dst, nch, {decode_addr4(op.src.start_addr)}), [&](uint32_t p) {
        float& acc = acc_[src.partition + p];
        if (op.reduce_cmd == 1 || op.reduce_cmd == 3) acc = identity;  // RESET, RESET_REDUCE
        if (ctx_.options().timing_only) return;
        auto load = [in](const uint8_t* s) { return model::fp::to_f32(in, s); };
        auto pre = [&](float x) { return alu(op.op1, alu(op.op0, x, imm0), imm1); };
        auto store = [out](float y, uint8_t* d) { model::fp::from_f32(out, y, d); };
        if (batch) {
            // In element order, in a local (the stores through byte pointers could alias `acc`).
            auto fold = [&](const float* y, size_t m) {
                if (!reducing) return;
                float a = acc;
                for (size_t j = 0; j < m; ++j) a = reduce(a, y[j]);
                acc = a;
            };
            return batched(
                src, dst, p, fn, view, in, pre, fold, [](float y) { return y; }, out);
        }
        for_each(src, dst, p, [&](const uint8_t* s, uint8_t* d) {
            const float t = pre(load(s));
            const float y = prelu ? model::pwp::exact(model::pwp::ActFn::Prelu, t, slope) : fn.eval(view, t);
            if (reducing) acc = reduce(acc, y);
            store(y, d);
        });
    });
}

}  // namespace neuronsim::platform
