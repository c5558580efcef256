// The compiler's estimates (platform/core/cost_model.h), checked against the formulas as
// hardware-facts §E writes them, with the numbers worked by hand: CoreV4Hwm's activation
// (readInit floor(init*100/120), init 222 with a 16-bit dtype, 172 with 32-bit; exec
// floor(N*100/120)), the pre-v4 nki.isa activation (max(64, N) + 160 ScalarE cycles), the DMA
// (1300 + ((P+15)>>4) * bytes / DIV, DIV 23 on Gen3; SWDGE floor(700*100/120)), LoadActFuncSet free.
#include "platform/core/cost_model.h"

#include <gtest/gtest.h>

#include "model/isa/layouts.h"
#include "platform/config.h"

namespace neuronsim::platform {
namespace {

using namespace model::isa;
constexpr uint8_t kFp32 = 10, kBf16 = 6;  // dtype codes (the trace's in_dtype=10 is fp32)

InstructionShape activation(uint8_t opcode, uint64_t n, uint8_t in, uint8_t out) {
    InstructionShape s;
    s.opcode = opcode;
    s.n = n;
    s.in_dtype = in;
    s.out_dtype = out;
    return s;
}

TEST(CostModel, CoreV4ActivationsByTheirDtypes) {
    const Config mariana = compose_config("mariana", {}, {});
    // fp32: 143 + 833
    EXPECT_DOUBLE_EQ(cost_estimate(mariana, activation(kActivate, 1000, kFp32, kFp32)).ns, 143 + 833);
    // a bf16 operand: 185 + 833, for every activation the table lists
    for (uint8_t op : {kActivate, kActivateQuantize, kActivate2})
        EXPECT_DOUBLE_EQ(cost_estimate(mariana, activation(op, 1000, kBf16, kFp32)).ns, 185 + 833) << int(op);
    EXPECT_NE(cost_estimate(mariana, activation(kActivate2, 1000, kBf16, kFp32)).formula.find("CoreV4Hwm"), std::string::npos);
}

TEST(CostModel, OlderGenerationsUseTheNkiActivationFormula) {
    const Config cayman = compose_config("cayman", {}, {});
    const double ghz = cayman.act.clock_ghz;
    EXPECT_DOUBLE_EQ(cost_estimate(cayman, activation(kActivate, 10, kFp32, kFp32)).ns, (64 + 160) / ghz) << "MIN_II 64";
    EXPECT_DOUBLE_EQ(cost_estimate(cayman, activation(kActivate, 512, kFp32, kFp32)).ns, (512 + 160) / ghz);
}

TEST(CostModel, DmaTableLoadsAndWhatHasNoFormula) {
    const Config cayman = compose_config("cayman", {}, {});
    InstructionShape d;
    d.opcode = kDmaCopy;
    d.rows = 128;
    d.bytes = 128 * 2048;
    EXPECT_DOUBLE_EQ(cost_estimate(cayman, d).ns, 1300 + 712) << "8 * 2048 / 23 = 712.3, floored";
    d.dge = InstructionShape::Dge::Software;
    EXPECT_DOUBLE_EQ(cost_estimate(cayman, d).ns, 1300 + 712 + 583) << "SWDGE floor(700*100/120)";
    InstructionShape t;
    t.opcode = kTableLoad;
    EXPECT_EQ(cost_estimate(cayman, t).ns, 0);
    InstructionShape sync;
    sync.opcode = kSync;
    EXPECT_EQ(cost_estimate(cayman, sync).ns, -1) << "no formula";
}

}  // namespace
}  // namespace neuronsim::platform
