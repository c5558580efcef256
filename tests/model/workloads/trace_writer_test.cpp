// The generators' trace writer (model/workloads/trace_writer.h): each line is assembled as it
// is written (a line the simulator would refuse fails here, naming it), immediates keep their
// exact bits, and Activate's fields mean what model/isa/act_operands.h says (bias_src_n
// inverted, the dtype nibbles, the accumulator commands).
#include "model/workloads/trace_writer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "model/common/error.h"
#include "model/isa/act_operands.h"
#include "model/isa/address.h"
#include "model/isa/layouts.h"
#include "model/isa/opcodes.h"

namespace neuronsim::model::workloads {
namespace {

TEST(TraceWriter, LinesAreCheckedAndCountedAsTheyAreWritten) {
    std::ostringstream out;
    TraceWriter w(out);
    w.comment("a test");
    w.instr("act", "load_act_func_set", {"set=4"}, "small");
    w.instr("act", "sync", {wait_ge(3, 2), inc(5)});
    w.instr("dma3", "sync", {});
    EXPECT_EQ(out.str(), "# a test\nact load_act_func_set set=4   # small\nact sync wait=3>=2 update=5+1\ndma3 sync\n");
    EXPECT_EQ(w.instructions().at("act"), 2u);
    EXPECT_EQ(w.instructions().at("dma3"), 1u);
    EXPECT_EQ(w.lines(), 4u) << "the comment is a line of the file";
    try {
        w.instr("act", "activate", {"nonsense=1"});
        FAIL() << "a refused line was written";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("generated trace line 5 (act activate)"), std::string::npos) << e.what();
    }
    EXPECT_EQ(out.str().find("nonsense"), std::string::npos);
    EXPECT_EQ(f32_field("imm", 1.0f), "imm=0x3f800000");
    EXPECT_EQ(f32_field("scale", -0.0f), "scale=0x80000000") << "the sign of zero kept";
    EXPECT_EQ(sbuf(3, 0x40), "sbuf:3:0x40");
}

TEST(TraceWriter, ActivateFieldsEncodeWhatTheOperandsMean) {
    ActivateSpec a;
    a.function = "exp";
    a.channels = 64;
    a.src = 0x100;
    a.dst = 0x2000;
    a.n = 256;
    a.in = fp::Dtype::Bfloat16;
    a.bias = ActOperand::at(0x80);
    a.acc = Accumulate::ZeroAdd;
    const isa::Bundle b = isa::assemble("act", "activate", activate_fields(a));
    isa::ActivateOp op;
    std::memcpy(&op, b.b.data(), sizeof op);
    EXPECT_EQ(op.num_active_channels, 64);
    EXPECT_EQ(isa::bias_source(op.bias_src_n), isa::OperandSource::Pointer);
    EXPECT_EQ(isa::scale_or_imm_source(op.scale_src), isa::OperandSource::Immediate);
    EXPECT_EQ(isa::input_dtype_code(op.in_bias_dtype), uint8_t(fp::Dtype::Bfloat16));
    EXPECT_EQ(isa::bias_dtype_code(op.in_bias_dtype), uint8_t(fp::Dtype::Fp32)) << "a pointer bias is fp32";
    EXPECT_EQ(op.accumulator_cmd, isa::kAccZeroAccumulate);
    EXPECT_EQ(isa::decode_addr4(op.bias).offset, 0x80u);
    EXPECT_EQ(isa::decode_addr4(op.src.start_addr).offset, 0x100u);
    EXPECT_EQ(op.src.num_elem[0], 256);
    EXPECT_EQ(op.dst.num_elem[0], 256);
    const isa::Bundle r = isa::assemble("act", "read_accumulator", read_accumulator_fields(64, 0x3000));
    EXPECT_EQ(r.opcode(), isa::kReadAccumulator);
}

}  // namespace
}  // namespace neuronsim::model::workloads
