#pragma once
// Writes a text trace (traces/README.md) line by line. Every instruction is encoded by the
// trace assembler (model/isa/opcodes.h) as it is written, so a generated line the simulator
// would refuse fails here, naming the line, instead of at run time.
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "model/fp/dtype.h"

namespace neuronsim::model::workloads {

using Fields = std::vector<std::string>;  // "key=value"

class TraceWriter {
public:
    explicit TraceWriter(std::ostream& out) : out_(out) {}
    void comment(const std::string& text);  // "# text"
    void blank();
    void instr(const std::string& engine, const std::string& mnemonic, const Fields& fields, const std::string& note = "");
    void data_file(const std::string& location, const std::string& file, uint32_t partitions = 1);
    void dump(const std::string& location, uint64_t bytes, const std::string& file, uint32_t partitions = 1);

    uint64_t lines() const { return lines_; }
    const std::map<std::string, uint64_t>& instructions() const { return per_engine_; }

private:
    std::ostream& out_;
    uint64_t lines_ = 0;
    std::map<std::string, uint64_t> per_engine_;
};

// Trace locations and operands.
std::string sbuf(uint32_t partition, uint64_t offset);  // "sbuf:P:0x..."
std::string psum(uint32_t partition, uint64_t offset);  // "psum:P:0x..."
std::string dram(uint64_t addr);  // "dram:0x..."
std::string f32_field(const std::string& key, float v);  // "key=0x3f800000": exact bits
std::string wait_ge(uint32_t sem, uint64_t value);  // "wait=S>=V"
std::string inc(uint32_t sem);  // "update=S+1"

// The Activate (0x21) fields of `out = f(scale * in + bias)` over `n` contiguous elements per
// partition of `channels` partitions from partition 0. A pointer operand reads each
// partition's fp32 at its SBUF offset.
struct ActOperand {
    bool pointer = false;
    float value = 0;  // immediate
    uint64_t offset = 0;  // pointer: SBUF offset (partition 0 of the active ones)
    static ActOperand imm(float v) { return {false, v, 0}; }
    static ActOperand at(uint64_t off) { return {true, 0, off}; }
};
enum class Accumulate : uint8_t { None = 0, Zero = 1, Add = 2, ZeroAdd = 3 };
struct ActivateSpec {
    std::string function;  // catalog name: "exp"
    uint32_t channels = 128;
    uint64_t src = 0, dst = 0;  // SBUF offsets
    uint32_t n = 1;
    fp::Dtype in = fp::Dtype::Fp32, out = fp::Dtype::Fp32;
    ActOperand scale = ActOperand::imm(1.0f), bias = ActOperand::imm(0.0f);
    Accumulate acc = Accumulate::None;
    bool src_psum = false;  // src is a PSUM offset (a matmul's result)
};
Fields activate_fields(const ActivateSpec& a);
// ReadAccumulator (0x24): each partition's accumulator, fp32, to SBUF `offset`.
Fields read_accumulator_fields(uint32_t channels, uint64_t offset);

// VectorE (docs/vector-engine.md) over `n` contiguous elements per partition of `channels`
// partitions from partition 0, SBUF offsets. A per-partition scalar is the fp32 at its offset.
struct DveRow {
    uint64_t offset = 0;
    uint32_t n = 1;
    fp::Dtype dtype = fp::Dtype::Fp32;
    bool psum = false;  // a PSUM offset (fp32 matmul results) instead of SBUF
};
// dst[p] = max/add/min over src[p], negated when `negate` (reduce_op: "max", "add", "min").
Fields dve_reduce_fields(uint32_t channels, const DveRow& src, const std::string& reduce_op, bool negate, const DveRow& dst);
// dst = src <op> scalar (op: "mult", "add", ...); the scalar a per-partition pointer or an immediate.
Fields dve_scalar_fields(uint32_t channels, const DveRow& src, const std::string& op, const ActOperand& scalar, const DveRow& dst);
// dst = src0 <op> src1, elementwise.
Fields dve_tensor_tensor_fields(uint32_t channels, const DveRow& src0, const std::string& op, const DveRow& src1, const DveRow& dst);
// dst = 1 / src.
Fields dve_reciprocal_fields(uint32_t channels, const DveRow& src, const DveRow& dst);
// dst = src, converted between the rows' types.
Fields dve_copy_fields(uint32_t channels, const DveRow& src, const DveRow& dst);

// TensorE (docs/tensor-engine.md): hold `k` partitions x `m` elements of SBUF at `offset` as
// the stationary tile; then psum[0..m) at `psum_offset` (+)= stationary^T x the moving tile
// (`k` partitions x `n` elements of SBUF at `moving`), `start` beginning the accumulation.
Fields pe_load_stationary_fields(uint32_t k, fp::Dtype d, uint64_t offset, uint32_t m);
Fields pe_matmul_fields(uint32_t k, fp::Dtype d, bool start, uint64_t moving, uint32_t n, uint64_t psum_offset);

}  // namespace neuronsim::model::workloads
