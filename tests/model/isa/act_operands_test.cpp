// The meaning of Activate's operand fields, written once (model/isa/act_operands.h) and used by
// the engine, the advisor's dependency rule and the trace writer: the source encodings (bias's
// inverted), the dtype nibbles, and when imm is read. The advisor used to count an imm pointer
// as a read whatever the function; the engine reads it only for parametric ReLU or LoadAccumulate.
#include <gtest/gtest.h>

#include "model/isa/act_operands.h"
#include "model/isa/address.h"
#include "model/isa/layouts.h"
#include "model/isa/opcodes.h"
#include "model/trace/trace_reader.h"
#include "model/workloads/act_dependencies.h"

namespace neuronsim::test {
namespace {

using namespace model::isa;

TEST(ActOperands, SourceEncodings) {
    EXPECT_EQ(scale_or_imm_source(0), OperandSource::Immediate);
    EXPECT_EQ(scale_or_imm_source(1), OperandSource::Pointer);
    EXPECT_EQ(scale_or_imm_source(2), OperandSource::Register);
    EXPECT_EQ(scale_or_imm_source(3), std::nullopt);
    EXPECT_EQ(bias_source(0), OperandSource::Pointer);  // inverted
    EXPECT_EQ(bias_source(1), OperandSource::Immediate);
    EXPECT_EQ(bias_source(2), OperandSource::Register);
    EXPECT_EQ(bias_source(3), std::nullopt);
    for (OperandSource s : {OperandSource::Immediate, OperandSource::Pointer, OperandSource::Register}) {
        EXPECT_EQ(bias_source(bias_src_n_of(s)), s);
        EXPECT_EQ(scale_or_imm_source(scale_or_imm_src_of(s)), s);
    }
    EXPECT_EQ(input_dtype_code(0xa7), 0x7);
    EXPECT_EQ(bias_dtype_code(0xa7), 0xa);
    EXPECT_EQ(in_bias_dtype_of(0x7, 0xa), 0xa7);
    EXPECT_TRUE(activate_reads_imm(true, kAccIdle));
    EXPECT_TRUE(activate_reads_imm(false, kAccLoad));
    EXPECT_FALSE(activate_reads_imm(false, kAccAccumulate));
}

model::workloads::ActAccess access_of(const std::string& line) {
    auto r = model::trace::parse_trace_line(line, "t", 1, ".");
    return model::workloads::act_access(r->instruction.bundle);
}

TEST(ActOperands, TheAdvisorCountsImmOnlyWhenTheEngineReadsIt) {
    const std::string base =
        "act activate func=7 in_bias_dtype=10 out_dtype=10 num_active_channels=4 scale=1.0 bias_src_n=1 src=sbuf:0:0x0 src.num=8,1,1 "
        "src.step=1,0,0 dst=sbuf:0:0x100 dst.num=8,1,1 dst.step=1,0,0 imm_src=1 imm=sbuf:0:0x200";
    EXPECT_EQ(access_of(base).reads.size(), 1u) << "exp ignores imm: only src is read";
    EXPECT_EQ(access_of(base + " accumulator_cmd=4").reads.size(), 2u) << "LoadAccumulate reads imm";
    // A register-sourced imm the engine never reads does not pin the instruction either.
    EXPECT_FALSE(access_of("act activate func=7 in_bias_dtype=10 out_dtype=10 num_active_channels=4 scale=1.0 bias_src_n=1 src=sbuf:0:0x0 "
                           "src.num=8,1,1 src.step=1,0,0 dst=sbuf:0:0x100 dst.num=8,1,1 dst.step=1,0,0 imm_src=2 imm=3")
                     .fixed);
    EXPECT_TRUE(access_of("act activate func=7 in_bias_dtype=10 out_dtype=10 num_active_channels=4 scale_src=2 scale=3 bias_src_n=1 src=sbuf:0:0x0 "
                          "src.num=8,1,1 src.step=1,0,0 dst=sbuf:0:0x100 dst.num=8,1,1 dst.step=1,0,0")
                    .fixed);
    // A pointer bias of bf16 (high nibble 6) covers 2 bytes per partition.
    const auto a = access_of(
        "act activate func=7 in_bias_dtype=0x6a out_dtype=10 num_active_channels=4 scale=1.0 bias_src_n=0 bias=sbuf:0:0x300 "
        "src=sbuf:0:0x0 src.num=8,1,1 src.step=1,0,0 dst=sbuf:0:0x100 dst.num=8,1,1 dst.step=1,0,0");
    ASSERT_EQ(a.reads.size(), 2u);
    EXPECT_EQ(a.reads[1].hi - a.reads[1].lo, 2);
}

// Operands read by the opcode table (model/isa/opcodes.h): what an activation is, and the
// tensors and fields of any of them, so that a new activation needs no case of its own in the
// advisor or the cost model.
TEST(ActOperands, TheTableSaysWhatAnActivationReadsAndWrites) {
    for (uint8_t op : {kActivate, kActivateQuantize, kActivate2}) EXPECT_TRUE(is_activation(*find_opcode(op))) << int(op);
    for (uint8_t op : {kTableLoad, kReadAccumulator, kDmaCopy, kConvLutLoad, kSync}) EXPECT_FALSE(is_activation(*find_opcode(op))) << int(op);
    auto r = model::trace::parse_trace_line(
        "act activate2 func=2 op0=6 op1=5 reduce_cmd=3 reduce_op=8 in_dtype=6 out_dtype=10 num_active_channels=32 "
        "src=sbuf:2:0x40 src.num=4,3 src.step=1,-8 dst=psum:1:0x10 dst.num=12,1 dst.step=1,0",
        "t", 1, ".");
    const Bundle& b = r->instruction.bundle;
    const OpcodeInfo& info = *find_opcode(kActivate2);
    const auto src = tensor_operand(info, b, "src");
    ASSERT_TRUE(src);
    EXPECT_EQ(src->dims, 2);
    EXPECT_EQ(src->addr4, encode_addr4(MemSpace::Sbuf, 2, 0x40));
    EXPECT_EQ(src->num[0], 4);
    EXPECT_EQ(src->num[1], 3);
    EXPECT_EQ(src->step[1], -8);
    EXPECT_FALSE(tensor_operand(info, b, "bias"));
    EXPECT_EQ(field_value(info, b, "num_active_channels"), 32u);
    EXPECT_EQ(field_value(info, b, "reduce_cmd"), 3u);
    EXPECT_FALSE(field_value(info, b, "imm0")) << "an F32 field has no integer value";
    EXPECT_FALSE(field_value(info, b, "nothing"));
    // The advisor's view of it: bf16 src (2 bytes) over [0x40 - 2*16, 0x40 + 2*4) in partitions 2..33,
    // fp32 dst in PSUM, and the accumulator (a reduction).
    const model::workloads::ActAccess a = access_of(
        "act activate2 func=2 op0=6 op1=5 reduce_cmd=3 reduce_op=8 in_dtype=6 out_dtype=10 num_active_channels=32 "
        "src=sbuf:2:0x40 src.num=4,3 src.step=1,-8 dst=psum:1:0x10 dst.num=12,1 dst.step=1,0");
    ASSERT_EQ(a.reads.size(), 1u);
    EXPECT_EQ(a.reads[0].p0, 2u);
    EXPECT_EQ(a.reads[0].p1, 34u);
    EXPECT_EQ(a.reads[0].lo, 0x40 - 2 * 16);
    EXPECT_EQ(a.reads[0].hi, 0x40 + 2 * 4);
    ASSERT_EQ(a.writes.size(), 1u);
    EXPECT_EQ(a.writes[0].space, MemSpace::Psum);
    EXPECT_EQ(a.writes[0].hi - a.writes[0].lo, 12 * 4);
    EXPECT_TRUE(a.accumulator);
    EXPECT_EQ(a.func_id, 2);
    // ActivateQuantize's bias_addr: one 4-byte value per partition.
    const model::workloads::ActAccess q = access_of(
        "act activate_quantize func=2 in_bias_dtype=10 out_dtype=2 num_active_channels=8 bias_addr=sbuf:0:0x300 "
        "src=sbuf:0:0x0 src.num=8,1,1 src.step=1,0,0 dst=sbuf:0:0x100 dst.num=8,1,1 dst.step=1,0,0");
    ASSERT_EQ(q.reads.size(), 2u);
    EXPECT_EQ(q.reads[1].lo, 0x300);
    EXPECT_EQ(q.reads[1].hi, 0x304);
    EXPECT_EQ(q.reads[1].p1, 8u);
    EXPECT_FALSE(q.accumulator);
}

}  // namespace
}  // namespace neuronsim::test
