#include "model/workloads/act_dependencies.h"

#include <cstring>

#include "model/common/error.h"
#include "model/fp/dtype.h"
#include "model/isa/access_pattern.h"
#include "model/isa/act_operands.h"
#include "model/isa/address.h"
#include "model/isa/opcodes.h"
#include "model/workloads/act_functions.h"

namespace neuronsim::model::workloads {

namespace {

using namespace isa;

Region region(uint32_t addr4, const int16_t* step, const uint16_t* num, int dims, uint64_t elem_bytes, uint32_t channels, const char* what) {
    const Location l = decode_addr4(addr4);
    const AccessPattern ap = make_access_pattern(l.offset, step, num, dims, elem_bytes, what);
    return {l.space, l.partition, l.partition + channels, ap.lo, ap.hi};
}

Region pointer(uint32_t addr4, uint64_t bytes, uint32_t channels) {
    const Location l = decode_addr4(addr4);
    return {l.space, l.partition, l.partition + channels, static_cast<int64_t>(l.offset), static_cast<int64_t>(l.offset + bytes)};
}

size_t bytes_of(uint8_t code) { return fp::dtype_bytes(static_cast<fp::Dtype>(code)); }

// Any activation, by the opcode table's fields: it reads src and writes dst (the input dtype
// is in_dtype, or in_bias_dtype's low nibble), reads one 4-byte value per partition at each
// other ADDR4 field (ActivateQuantize's bias_addr), and uses the accumulator when its
// accumulator_cmd or reduce_cmd is not idle.
void activation(const Bundle& b, ActAccess& a) {
    const OpcodeInfo& info = *find_opcode(b.opcode());
    auto value = [&](const char* name) { return field_value(info, b, name); };
    a.kind = ActAccess::Kind::Compute;
    a.func_id = static_cast<int>(value("func").value_or(0));
    const uint32_t ch = static_cast<uint32_t>(value("num_active_channels").value_or(0));
    const uint8_t in =
        static_cast<uint8_t>(value("in_dtype") ? *value("in_dtype") : input_dtype_code(static_cast<uint8_t>(value("in_bias_dtype").value_or(0))));
    const uint8_t out = static_cast<uint8_t>(value("out_dtype").value_or(0));
    const TensorOperand src = *tensor_operand(info, b, "src"), dst = *tensor_operand(info, b, "dst");
    a.reads.push_back(region(src.addr4, src.step, src.num, src.dims, bytes_of(in), ch, "src"));
    a.writes.push_back(region(dst.addr4, dst.step, dst.num, dst.dims, bytes_of(out), ch, "dst"));
    for (const Field& f : info.fields)
        if (f.kind == FieldKind::Addr4 && f.name != "src" && f.name != "dst") a.reads.push_back(pointer(b.u32(f.offset), 4, ch));
    a.accumulator = value("accumulator_cmd").value_or(kAccIdle) != kAccIdle || value("reduce_cmd").value_or(0) != 0;
}

}  // namespace

ActAccess act_access(const Bundle& b) {
    ActAccess a;
    const Events ev = read_events(b);
    if (ev.wait != WaitMode::None) a.fixed = true, a.why_fixed = "waits on semaphore " + std::to_string(ev.wait_idx);
    else if (ev.update != UpdateMode::None) a.fixed = true, a.why_fixed = "updates semaphore " + std::to_string(ev.update_idx);
    switch (b.opcode()) {
        case kTableLoad:
            a.kind = ActAccess::Kind::TableLoad;
            a.set = b.u8(offsetof(TableLoadOp, act_tbl_sel));
            return a;
        case kActivate: {
            // Activate's own operands (model/isa/act_operands.h): scale, bias and imm may each
            // be an immediate, a pointer or a register; imm is read only as parametric ReLU's
            // alpha or LoadAccumulate's value; its tensors are every activation's (first).
            ActivateOp op;
            std::memcpy(&op, b.b.data(), sizeof op);
            activation(b, a);
            const uint32_t ch = op.num_active_channels;
            const bool reads_imm = activate_reads_imm(function_of_id(op.activation_func) == "parametric_relu", op.accumulator_cmd);
            const auto scale = scale_or_imm_source(op.scale_src), imm = scale_or_imm_source(op.imm_src), bias = bias_source(op.bias_src_n);
            if (scale == OperandSource::Pointer) a.reads.push_back(pointer(op.scale_value, 4, ch));
            if (reads_imm && imm == OperandSource::Pointer) a.reads.push_back(pointer(op.imm, 4, ch));
            if (bias == OperandSource::Pointer) a.reads.push_back(pointer(op.bias, bytes_of(bias_dtype_code(op.in_bias_dtype)), ch));
            if (scale == OperandSource::Register || (reads_imm && imm == OperandSource::Register) || bias == OperandSource::Register)
                if (!a.fixed) a.fixed = true, a.why_fixed = "has a register-sourced operand";
            return a;
        }
        case kReadAccumulator: {
            ReadAccumulatorOp op;
            std::memcpy(&op, b.b.data(), sizeof op);
            a.kind = ActAccess::Kind::ReadAccumulator;
            a.writes.push_back(region(op.dst.start_addr, &op.dst.step_elem, &op.dst.num_elem, 1, bytes_of(op.dtype), op.num_active_channels, "dst"));
            a.accumulator = true;
            return a;
        }
        default:
            if (const OpcodeInfo* info = find_opcode(b.opcode()); info && is_activation(*info)) {
                activation(b, a);
                return a;
            }
            a.kind = ActAccess::Kind::Other;
            if (!a.fixed) a.fixed = true, a.why_fixed = "is not a table load or an activation";
            return a;
    }
}

bool conflict(const ActAccess& a, const ActAccess& b) {
    if (a.fixed || b.fixed) return true;
    if (a.accumulator && b.accumulator) return true;
    return isa::must_order(a.reads, a.writes, b.reads, b.writes);
}

}  // namespace neuronsim::model::workloads
