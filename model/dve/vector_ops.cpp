#include "model/dve/vector_ops.h"

#include <cmath>
#include <limits>

#include "model/common/error.h"
#include "model/fp/bits.h"

namespace neuronsim::model::dve {

namespace {

constexpr const char* kAluNames[] = {"add", "subtract", "multiply", "max", "min", "divide"};
constexpr const char* kReduceNames[] = {"add", "max", "min"};

uint8_t* at(const Tile& t, uint32_t p, uint32_t i) { return t.base + p * t.partition_stride + uint64_t{i} * t.step * fp::dtype_bytes(t.dtype); }
float get(const Tile& t, uint32_t p, uint32_t i) { return fp::to_f32(t.dtype, at(t, p, i)); }
void put(const Tile& t, uint32_t p, uint32_t i, float v) { fp::from_f32(t.dtype, v, at(t, p, i)); }

void check(const Tile& t, const char* op, const char* operand, bool output) {
    const std::string where = std::string(op) + ": " + operand;
    if (!dve_dtype(t.dtype) || (!output && t.dtype == fp::Dtype::Fp32R))
        throw Error(where + " has element type " + fp::dtype_name(static_cast<uint8_t>(t.dtype)) + ", which VectorE does not " + (output ? "write" : "read"));
    if (t.partitions == 0 || t.n == 0) throw Error(where + " is empty (" + std::to_string(t.partitions) + " x " + std::to_string(t.n) + ")");
    if (!t.base) throw Error(where + " has no memory");
    if (t.step == 0) throw Error(where + " has an element step of 0");
}

void same_shape(const Tile& a, const Tile& b, const char* op, const char* an, const char* bn) {
    if (a.partitions != b.partitions || a.n != b.n)
        throw Error(std::string(op) + ": " + an + " is " + std::to_string(a.partitions) + " x " + std::to_string(a.n) + ", " + bn + " " +
                    std::to_string(b.partitions) + " x " + std::to_string(b.n) + ": they must match");
}

float scalar_value(const Scalar& s, uint32_t p) { return s.per_partition ? get(*s.per_partition, p, 0) : s.imm; }

void check_scalar(const Scalar& s, const Tile& in, const char* name) {
    if (!s.per_partition) return;
    check(*s.per_partition, "tensor_scalar", name, false);
    if (s.per_partition->partitions != in.partitions)
        throw Error(std::string("tensor_scalar: ") + name + " has " + std::to_string(s.per_partition->partitions) + " partitions, the data " +
                    std::to_string(in.partitions));
}

float step(const ScalarStep& s, float x, uint32_t p) {
    const float v = scalar_value(s.operand, p);
    return s.reverse ? alu(s.op, v, x) : alu(s.op, x, v);
}

void put_integer(const Tile& t, uint32_t p, uint32_t i, int64_t v) {
    auto clamp = [&](int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; };
    uint8_t* d = at(t, p, i);
    auto store = [&](uint64_t u, size_t bytes) {
        for (size_t b = 0; b < bytes; ++b) d[b] = static_cast<uint8_t>(u >> (8 * b));
    };
    switch (t.dtype) {
        case fp::Dtype::Int8: return store(static_cast<uint64_t>(clamp(INT8_MIN, INT8_MAX)), 1);
        case fp::Dtype::Uint8: return store(static_cast<uint64_t>(clamp(0, UINT8_MAX)), 1);
        case fp::Dtype::Int16: return store(static_cast<uint64_t>(clamp(INT16_MIN, INT16_MAX)), 2);
        case fp::Dtype::Uint16: return store(static_cast<uint64_t>(clamp(0, UINT16_MAX)), 2);
        case fp::Dtype::Int32: return store(static_cast<uint64_t>(clamp(INT32_MIN, INT32_MAX)), 4);
        case fp::Dtype::Uint32: return store(static_cast<uint64_t>(clamp(0, UINT32_MAX)), 4);
        default: return put(t, p, i, static_cast<float>(v));  // (int64 to float: nearest even)
    }
}

}  // namespace

const char* alu_name(AluOp op) { return kAluNames[static_cast<int>(op)]; }
const char* reduce_name(ReduceOp op) { return kReduceNames[static_cast<int>(op)]; }

std::optional<AluOp> parse_alu(std::string_view name) {
    for (int i = 0; i < 6; ++i)
        if (name == kAluNames[i]) return static_cast<AluOp>(i);
    return std::nullopt;
}

std::optional<ReduceOp> parse_reduce(std::string_view name) {
    for (int i = 0; i < 3; ++i)
        if (name == kReduceNames[i]) return static_cast<ReduceOp>(i);
    return std::nullopt;
}

std::optional<AluOp> alu_of_code(uint8_t code) {
    switch (code) {
        case 0x04: return AluOp::Add;
        case 0x05: return AluOp::Subtract;
        case 0x06: return AluOp::Multiply;
        case 0x07: return AluOp::Divide;
        case 0x08: return AluOp::Max;
        case 0x09: return AluOp::Min;
        default: return std::nullopt;
    }
}

bool dve_dtype(fp::Dtype d) {
    switch (d) {
        case fp::Dtype::Int8:
        case fp::Dtype::Uint8:
        case fp::Dtype::Int16:
        case fp::Dtype::Uint16:
        case fp::Dtype::Bfloat16:
        case fp::Dtype::Fp16:
        case fp::Dtype::Int32:
        case fp::Dtype::Uint32:
        case fp::Dtype::Fp32:
        case fp::Dtype::Fp32R:
        case fp::Dtype::Fp8Exp3:
        case fp::Dtype::Fp8Exp4:
        case fp::Dtype::Fp8Exp5: return true;
        default: return false;
    }
}

void tensor_tensor(const Tile& a, const Tile& b, AluOp op, const Tile& out) {
    check(a, "tensor_tensor", "in0", false);
    check(b, "tensor_tensor", "in1", false);
    check(out, "tensor_tensor", "out", true);
    same_shape(a, b, "tensor_tensor", "in0", "in1");
    same_shape(a, out, "tensor_tensor", "in0", "out");
    for (uint32_t p = 0; p < a.partitions; ++p)
        for (uint32_t i = 0; i < a.n; ++i) put(out, p, i, alu(op, get(a, p, i), get(b, p, i)));
}

void tensor_scalar(const Tile& in, const ScalarStep& s0, const std::optional<ScalarStep>& s1, const Tile& out) {
    check(in, "tensor_scalar", "data", false);
    check(out, "tensor_scalar", "out", true);
    same_shape(in, out, "tensor_scalar", "data", "out");
    check_scalar(s0.operand, in, "operand0");
    if (s1) check_scalar(s1->operand, in, "operand1");
    for (uint32_t p = 0; p < in.partitions; ++p)
        for (uint32_t i = 0; i < in.n; ++i) {
            float v = step(s0, get(in, p, i), p);
            if (s1) v = step(*s1, v, p);
            put(out, p, i, v);
        }
}

void tensor_reduce(const Tile& in, ReduceOp op, bool negate, const Tile& out) {
    check(in, "tensor_reduce", "data", false);
    check(out, "tensor_reduce", "out", true);
    if (out.partitions != in.partitions || out.n != 1)
        throw Error("tensor_reduce: out is " + std::to_string(out.partitions) + " x " + std::to_string(out.n) + ", expected " + std::to_string(in.partitions) +
                    " x 1 (one element per partition)");
    const AluOp alu_op = op == ReduceOp::Add ? AluOp::Add : op == ReduceOp::Max ? AluOp::Max : AluOp::Min;
    for (uint32_t p = 0; p < in.partitions; ++p) {
        float acc = get(in, p, 0);
        for (uint32_t i = 1; i < in.n; ++i) acc = alu(alu_op, acc, get(in, p, i));
        put(out, p, 0, negate ? -acc : acc);
    }
}

void tensor_copy(const Tile& in, const Tile& out) {
    check(in, "tensor_copy", "data", false);
    check(out, "tensor_copy", "out", true);
    same_shape(in, out, "tensor_copy", "data", "out");
    for (uint32_t p = 0; p < in.partitions; ++p)
        for (uint32_t i = 0; i < in.n; ++i) put(out, p, i, get(in, p, i));
}

void memset(const Tile& out, float value) {
    check(out, "memset", "out", true);
    for (uint32_t p = 0; p < out.partitions; ++p)
        for (uint32_t i = 0; i < out.n; ++i) put(out, p, i, value);
}

void iota(const Tile& out, int64_t base, int64_t partition_step, int64_t step) {
    check(out, "iota", "out", true);
    // |terms| < 2^62 each keeps the sum exact in 64 bits.
    constexpr int64_t kLimit = int64_t{1} << 40;
    if (base <= -kLimit || base >= kLimit || partition_step <= -kLimit || partition_step >= kLimit || step <= -kLimit || step >= kLimit)
        throw Error("iota: base and steps must lie within +-2^40");
    for (uint32_t p = 0; p < out.partitions; ++p)
        for (uint32_t i = 0; i < out.n; ++i) put_integer(out, p, i, base + int64_t{p} * partition_step + int64_t{i} * step);
}

void reciprocal(const Tile& in, const Tile& out) {
    check(in, "reciprocal", "data", false);
    check(out, "reciprocal", "out", true);
    same_shape(in, out, "reciprocal", "data", "out");
    for (uint32_t p = 0; p < in.partitions; ++p)
        for (uint32_t i = 0; i < in.n; ++i) put(out, p, i, alu(AluOp::Divide, 1.0f, get(in, p, i)));
}

void bn_stats(const Tile& in, const Tile& out) {
    check(in, "bn_stats", "data", false);
    check(out, "bn_stats", "out", true);
    if (in.n > kBnStatsMax)
        throw Error("bn_stats: data has " + std::to_string(in.n) + " elements per partition; at most " + std::to_string(kBnStatsMax) +
                    " (nl.tile_size.bn_stats_fmax: aggregate several with bn_aggr)");
    if (out.partitions != in.partitions || out.n != 6)
        throw Error("bn_stats: out is " + std::to_string(out.partitions) + " x " + std::to_string(out.n) + ", expected " + std::to_string(in.partitions) +
                    " x 6 (count, mean, M2 of the even and the odd elements)");
    for (uint32_t p = 0; p < in.partitions; ++p)
        for (uint32_t parity = 0; parity < 2; ++parity) {
            float count = 0.0f, sum = 0.0f, m2 = 0.0f, mean = 0.0f;
            for (uint32_t i = parity; i < in.n; i += 2) {
                sum = count == 0.0f ? get(in, p, i) : alu(AluOp::Add, sum, get(in, p, i));
                count = count + 1.0f;
            }
            if (count > 0.0f) {
                mean = alu(AluOp::Divide, sum, count);
                bool first = true;
                for (uint32_t i = parity; i < in.n; i += 2) {
                    const float d = alu(AluOp::Subtract, get(in, p, i), mean);
                    const float sq = alu(AluOp::Multiply, d, d);
                    m2 = first ? sq : alu(AluOp::Add, m2, sq);
                    first = false;
                }
            }
            put(out, p, parity * 3, count);
            put(out, p, parity * 3 + 1, mean);
            put(out, p, parity * 3 + 2, m2);
        }
}

void bn_aggr(const Tile& in, const Tile& out) {
    check(in, "bn_aggr", "data", false);
    check(out, "bn_aggr", "out", true);
    if (in.n % 3 != 0)
        throw Error("bn_aggr: data has " + std::to_string(in.n) + " elements per partition; expected (count, mean, M2) triples (a multiple of 3)");
    if (out.partitions != in.partitions || out.n != 2)
        throw Error("bn_aggr: out is " + std::to_string(out.partitions) + " x " + std::to_string(out.n) + ", expected " + std::to_string(in.partitions) +
                    " x 2 (mean, variance)");
    for (uint32_t p = 0; p < in.partitions; ++p) {
        float n = 0.0f, mean = 0.0f, m2 = 0.0f;
        for (uint32_t k = 0; k < in.n; k += 3) {
            const float nb = get(in, p, k), mb = get(in, p, k + 1), m2b = get(in, p, k + 2);
            if (nb == 0.0f) continue;
            if (n == 0.0f) {
                n = nb, mean = mb, m2 = m2b;
                continue;
            }
            const float na = n;
            n = alu(AluOp::Add, na, nb);
            const float t = alu(AluOp::Divide, nb, n);
            const float delta = alu(AluOp::Subtract, mb, mean);
            mean = alu(AluOp::Add, mean, alu(AluOp::Multiply, delta, t));
            const float dd = alu(AluOp::Multiply, delta, delta);
            const float dn = alu(AluOp::Multiply, dd, na);
            m2 = alu(AluOp::Add, alu(AluOp::Add, m2, m2b), alu(AluOp::Multiply, dn, t));
        }
        put(out, p, 0, mean);
        put(out, p, 1, n == 0.0f ? 0.0f : alu(AluOp::Divide, m2, n));
    }
}

void transpose(const Tile& in, const Tile& out) {
    check(in, "transpose", "data", false);
    check(out, "transpose", "out", true);
    if (in.partitions > 32 || in.n > 32)
        throw Error("transpose: data is " + std::to_string(in.partitions) + " x " + std::to_string(in.n) +
                    "; VectorE transposes blocks of at most 32 x 32 (one 32-partition bank)");
    if (out.partitions != in.n || out.n != in.partitions)
        throw Error("transpose: out is " + std::to_string(out.partitions) + " x " + std::to_string(out.n) + ", expected " + std::to_string(in.n) + " x " +
                    std::to_string(in.partitions));
    // Through a copy: out may be in's memory.
    float block[32][32];
    for (uint32_t p = 0; p < in.partitions; ++p)
        for (uint32_t i = 0; i < in.n; ++i) block[p][i] = get(in, p, i);
    for (uint32_t p = 0; p < in.partitions; ++p)
        for (uint32_t i = 0; i < in.n; ++i) put(out, i, p, block[p][i]);
}

}  // namespace neuronsim::model::dve
