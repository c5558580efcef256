// The meaning of Activate's operand fields, written once (model/isa/act_operands.h) and used by
// the engine, the advisor's dependency rule and the trace writer: the source encodings (bias's
// inverted), the dtype nibbles, and when imm is read. The advisor used to count an imm pointer
// as a read whatever the function; the engine reads it only for parametric ReLU or LoadAccumulate.
#include <gtest/gtest.h>

#include "model/isa/act_operands.h"
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

}  // namespace
}  // namespace neuronsim::test
