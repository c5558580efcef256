#include "model/workloads/trace_writer.h"

#include <cstdio>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/isa/act_operands.h"
#include "model/isa/opcodes.h"
#include "model/workloads/act_functions.h"

namespace neuronsim::model::workloads {

void TraceWriter::comment(const std::string& text) {
    out_ << "# " << text << "\n";
    ++lines_;
}

void TraceWriter::blank() {
    out_ << "\n";
    ++lines_;
}

void TraceWriter::instr(const std::string& engine, const std::string& mnemonic, const Fields& fields, const std::string& note) {
    ++lines_;
    try {
        (void)isa::assemble(engine, mnemonic, fields);
    } catch (const Error& e) {
        throw Error("generated trace line " + std::to_string(lines_) + " (" + engine + " " + mnemonic + "): " + e.what());
    }
    out_ << engine << ' ' << mnemonic;
    for (const std::string& f : fields) out_ << ' ' << f;
    if (!note.empty()) out_ << "   # " << note;
    out_ << '\n';
    ++per_engine_[engine];
}

void TraceWriter::data_file(const std::string& location, const std::string& file, uint32_t partitions) {
    out_ << ".data " << location;
    if (partitions != 1) out_ << " partitions=" << partitions;
    out_ << " file=" << file << '\n';
    ++lines_;
}

void TraceWriter::dump(const std::string& location, uint64_t bytes, const std::string& file, uint32_t partitions) {
    out_ << ".dump " << location << " bytes=" << bytes;
    if (partitions != 1) out_ << " partitions=" << partitions;
    out_ << " file=" << file << '\n';
    ++lines_;
}

std::string sbuf(uint32_t partition, uint64_t offset) { return "sbuf:" + std::to_string(partition) + ":" + fp::hex(offset); }
std::string psum(uint32_t partition, uint64_t offset) { return "psum:" + std::to_string(partition) + ":" + fp::hex(offset); }
std::string dram(uint64_t addr) { return "dram:" + fp::hex(addr); }
std::string f32_field(const std::string& key, float v) { return key + "=0x" + fp::hex8(fp::bits_of(v)); }
std::string wait_ge(uint32_t sem, uint64_t value) { return "wait=" + std::to_string(sem) + ">=" + std::to_string(value); }
std::string inc(uint32_t sem) { return "update=" + std::to_string(sem) + "+1"; }

namespace {
std::string code(fp::Dtype d) { return std::to_string(static_cast<unsigned>(d)); }
}  // namespace

Fields activate_fields(const ActivateSpec& a) {
    // A pointer bias is fp32 (model/isa/act_operands.h: in_bias_dtype).
    const unsigned in_bias = isa::in_bias_dtype_of(static_cast<uint8_t>(a.in), static_cast<uint8_t>(fp::Dtype::Fp32));
    const std::string n = std::to_string(a.n);
    Fields f = {"func=" + std::to_string(func_id(a.function)),
                "in_bias_dtype=" + fp::hex2(in_bias),
                "out_dtype=" + code(a.out),
                "num_active_channels=" + std::to_string(a.channels),
                "src=" + (a.src_psum ? psum(0, a.src) : sbuf(0, a.src)),
                "src.step=1,0,0",
                "src.num=" + n + ",1,1",
                "dst=" + sbuf(0, a.dst),
                "dst.step=1,0,0",
                "dst.num=" + n + ",1,1"};
    using isa::OperandSource;
    if (a.scale.pointer)
        f.insert(f.end(), {"scale_src=" + std::to_string(isa::scale_or_imm_src_of(OperandSource::Pointer)), "scale=" + sbuf(0, a.scale.offset)});
    else f.push_back(f32_field("scale", a.scale.value));
    const auto bias_src_n = [](OperandSource s) { return "bias_src_n=" + std::to_string(isa::bias_src_n_of(s)); };
    if (a.bias.pointer) f.insert(f.end(), {bias_src_n(OperandSource::Pointer), "bias=" + sbuf(0, a.bias.offset)});
    else f.insert(f.end(), {bias_src_n(OperandSource::Immediate), f32_field("bias", a.bias.value)});
    if (a.acc != Accumulate::None) f.push_back("accumulator_cmd=" + std::to_string(static_cast<unsigned>(a.acc)));
    return f;
}

Fields read_accumulator_fields(uint32_t channels, uint64_t offset) {
    return {"count=1", "dtype=" + code(fp::Dtype::Fp32), "num_active_channels=" + std::to_string(channels), "dst=" + sbuf(0, offset), "dst.num=1"};
}

namespace {
// A TENSOR2D operand `key` over one row of `r.n` elements.
Fields dve_ap(const std::string& key, const DveRow& r) {
    return {key + "=" + (r.psum ? psum(0, r.offset) : sbuf(0, r.offset)), key + ".num=" + std::to_string(r.n) + ",1", key + ".step=1,0"};
}
Fields dve_fields(Fields head, const std::vector<std::pair<std::string, DveRow>>& aps, uint32_t channels) {
    for (const auto& [key, r] : aps) {
        const Fields f = dve_ap(key, r);
        head.insert(head.end(), f.begin(), f.end());
    }
    head.push_back("num_active_channels=" + std::to_string(channels));
    return head;
}
}  // namespace

Fields dve_reduce_fields(uint32_t channels, const DveRow& src, const std::string& reduce_op, bool negate, const DveRow& dst) {
    return dve_fields({"reduce_op=" + reduce_op, std::string("negate=") + (negate ? "1" : "0"), "in_dtype=" + code(src.dtype), "out_dtype=" + code(dst.dtype)},
                      {{"src", src}, {"dst", dst}}, channels);
}

Fields dve_scalar_fields(uint32_t channels, const DveRow& src, const std::string& op, const ActOperand& scalar, const DveRow& dst) {
    Fields head = {"op0=" + op, "op1=bypass", "in_dtype=" + code(src.dtype), "out_dtype=" + code(dst.dtype)};
    if (scalar.pointer) head.insert(head.end(), {"operand0_src=pointer", "operand0=" + sbuf(0, scalar.offset), "operand_dtype=" + code(fp::Dtype::Fp32)});
    else head.push_back(f32_field("imm0", scalar.value));
    return dve_fields(head, {{"src", src}, {"dst", dst}}, channels);
}

Fields dve_tensor_tensor_fields(uint32_t channels, const DveRow& src0, const std::string& op, const DveRow& src1, const DveRow& dst) {
    return dve_fields({"op=" + op, "in0_dtype=" + code(src0.dtype), "in1_dtype=" + code(src1.dtype), "out_dtype=" + code(dst.dtype)},
                      {{"src0", src0}, {"src1", src1}, {"dst", dst}}, channels);
}

Fields dve_reciprocal_fields(uint32_t channels, const DveRow& src, const DveRow& dst) { return dve_copy_fields(channels, src, dst); }  // same fields

Fields dve_copy_fields(uint32_t channels, const DveRow& src, const DveRow& dst) {
    return dve_fields({"in_dtype=" + code(src.dtype), "out_dtype=" + code(dst.dtype)}, {{"src", src}, {"dst", dst}}, channels);
}

Fields pe_load_stationary_fields(uint32_t k, fp::Dtype d, uint64_t offset, uint32_t m) {
    return {"in_dtype=" + code(d), "num_active_channels=" + std::to_string(k), "src=" + sbuf(0, offset), "src.num=" + std::to_string(m) + ",1", "src.step=1,0"};
}

Fields pe_matmul_fields(uint32_t k, fp::Dtype d, bool start, uint64_t moving, uint32_t n, uint64_t psum_offset) {
    const std::string num = std::to_string(n) + ",1";
    return {"in_dtype=" + code(d),
            "num_active_channels=" + std::to_string(k),
            std::string("start=") + (start ? "1" : "0"),
            "moving=" + sbuf(0, moving),
            "moving.num=" + num,
            "moving.step=1,0",
            "dst=" + psum(0, psum_offset),
            "dst.num=" + num,
            "dst.step=1,0"};
}

}  // namespace neuronsim::model::workloads
