#pragma once
// VectorE (DVE) reference numerics: the NKI ISA operations kernels use, on tiles of SBUF/PSUM
// rows (issue 27). No bit-exact hardware reference is public, so this is neuronsim's model,
// stated in docs/vector-engine.md and held by tests/model/dve: every input element converted
// to binary32 (model/fp's hub), the arithmetic in binary32 (no FMA, no wider intermediate),
// reductions in element order from the first element, each result rounded to the output type
// (nearest even; integers saturate). The engine that times these is the next step.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/fp/bits.h"
#include "model/fp/dtype.h"

namespace neuronsim::model::dve {

// The arithmetic operators of tensor_tensor and tensor_scalar (nl.add ... nl.divide).
enum class AluOp : uint8_t { Add, Subtract, Multiply, Max, Min, Divide };
const char* alu_name(AluOp op);  // "add", ...
std::optional<AluOp> parse_alu(std::string_view name);
// a <op> b in binary32. A NaN operand gives its quiet form, the first NaN operand's (C++ leaves
// the payload of a + b with two NaNs to the compiler's operand order; neuronsim states it, the
// hardware's rule is not public). max/min follow IEEE 754-2019 maximum/minimum: +0 > -0
// (neuronsim's choice). Inline: the array kernels of vector_arrays.h are this per element.
inline float quiet_nan(float x) { return fp::float_of(fp::bits_of(x) | 0x00400000u); }
// r (= a <op> b) with the NaN rule applied: branch-free, so that loops over it vectorise.
inline float nan_rule(float a, float b, float r) {
    r = std::isnan(b) ? quiet_nan(b) : r;
    return std::isnan(a) ? quiet_nan(a) : r;
}
inline float alu(AluOp op, float a, float b) {
    switch (op) {
        case AluOp::Add: return nan_rule(a, b, a + b);
        case AluOp::Subtract: return nan_rule(a, b, a - b);
        case AluOp::Multiply: return nan_rule(a, b, a * b);
        case AluOp::Divide: return nan_rule(a, b, a / b);
        case AluOp::Max:
        case AluOp::Min: {
            if (std::isnan(a)) return quiet_nan(a);
            if (std::isnan(b)) return quiet_nan(b);
            if (a == b) {  // +0 and -0 compare equal: the sign decides
                const bool a_neg = std::signbit(a);
                return (op == AluOp::Max) == a_neg ? b : a;
            }
            return (op == AluOp::Max) == (a > b) ? a : b;
        }
    }
    return 0.0f;
}

// The ISA's ALU codes of the op/op0/op1/reduce_op fields (docs/isa-codes.md): add 0x04,
// subtract 0x05, multiply 0x06, divide 0x07, max 0x08, min 0x09; nullopt for another code.
std::optional<AluOp> alu_of_code(uint8_t code);

enum class ReduceOp : uint8_t { Add, Max, Min };
const char* reduce_name(ReduceOp op);
std::optional<ReduceOp> parse_reduce(std::string_view name);

// The element types VectorE reads and writes here: the floats (fp32, FP32R on output, bf16,
// fp16, the three fp8) and the 8/16/32-bit integers.
bool dve_dtype(fp::Dtype d);

// `partitions` rows of `n` elements of `dtype`: element i of row p is at
// base + p * partition_stride + i * step * dtype_bytes(dtype). Inputs are only read.
struct Tile {
    fp::Dtype dtype = fp::Dtype::Fp32;
    uint8_t* base = nullptr;
    uint32_t partitions = 0;
    uint32_t n = 0;
    uint64_t partition_stride = 0;  // bytes
    uint32_t step = 1;  // elements
};

// A scalar operand of tensor_scalar: an immediate, or the first element of each row of a
// [P, 1] tile (one value per partition).
struct Scalar {
    float imm = 0.0f;
    std::optional<Tile> per_partition;
};
struct ScalarStep {
    AluOp op = AluOp::Add;
    Scalar operand;
    bool reverse = false;  // operand <op> x instead of x <op> operand
};

// Each function checks its tiles (shapes, dtypes, a non-null base) and throws Error naming the
// operation and the operand otherwise. Elements are processed row by row in element order, so
// an output that is also an input (in place) reads each element before writing it.

// out = a <op> b, elementwise; a, b and out of one shape.
void tensor_tensor(const Tile& a, const Tile& b, AluOp op, const Tile& out);
// out = (x <op0> s0) <op1> s1, the intermediate kept in binary32.
void tensor_scalar(const Tile& in, const ScalarStep& s0, const std::optional<ScalarStep>& s1, const Tile& out);
// out[p] = op over in[p][0..n) in element order from in[p][0] (negated when `negate`); out
// has in's partitions and one element per row.
void tensor_reduce(const Tile& in, ReduceOp op, bool negate, const Tile& out);
// out = in, converted through binary32.
void tensor_copy(const Tile& in, const Tile& out);
// Every element of out = value (rounded to out's type).
void memset(const Tile& out, float value);
// out[p][i] = base + p * partition_step + i * step, computed exactly in 64-bit integers, then
// rounded to out's type (to nearest even for floats, saturated for integers).
void iota(const Tile& out, int64_t base, int64_t partition_step, int64_t step);
// out = 1 / in in binary32 (an IEEE division, not an estimate).
void reciprocal(const Tile& in, const Tile& out);
// out[j][p] = in[p][j] for a block of at most 32 x 32 (VectorE transposes within a
// 32-partition bank); out has in's n as partitions and in's partitions as n.
void transpose(const Tile& in, const Tile& out);

// bn_stats (nki.isa.bn_stats): per partition of in (at most kBnStatsMax elements), six
// elements: for the even-indexed elements, then the odd-indexed ones, (count, mean, M2) where
// M2 = variance * count. neuronsim's arithmetic (the hardware's is not public): count exact;
// mean = (the class's sum in element order from its first element) / count; M2 = the sum in
// element order of (x - mean) * (x - mean), each step binary32; an empty class gives (0, 0, 0).
inline constexpr uint32_t kBnStatsMax = 512;  // nl.tile_size.bn_stats_fmax (public-figures §3)
void bn_stats(const Tile& in, const Tile& out);
// bn_aggr (nki.isa.bn_aggr): in holds (count, mean, M2) triples per partition (a multiple of
// three elements, e.g. several bn_stats outputs side by side); out gets (mean, variance) of
// them all. The triples are combined left to right (Chan et al.'s pairwise update), each step
// binary32: n = na + nb, t = nb / n, delta = mb - ma, mean = ma + delta * t,
// M2 = (M2a + M2b) + ((delta * delta) * na) * t; a triple of count 0 is skipped; variance =
// M2 / n (the population variance; 0 and 0 when every count is 0).
void bn_aggr(const Tile& in, const Tile& out);

}  // namespace neuronsim::model::dve
