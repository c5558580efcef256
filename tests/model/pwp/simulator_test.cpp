// The reference simulator surface: probe, FuncMap, name dispatch, usePwp gate, operand order.
#include <sys/stat.h>

#include <cmath>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/pwp/closed_forms.h"
#include "model/pwp/func_map.h"
#include "model/pwp/profile_writer.h"
#include "model/pwp/simulator.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::test {
namespace {

using namespace model::pwp;

// A profile directory holding an identity-like "exp" table that returns 42 everywhere, so the
// PWP path is unmistakable, plus a Sigmoid table that is present but truncated.
struct Dir {
    TempDir tmp;
    Dir() {
        Profile p = clamp_only("exp", sec(0, 42.0f));
        p.zero_result = 42.0f;
        write_profile(p, tmp.file("exp_400p.json"));
    }
};

TEST(Simulator, ProbeIsNonEmptyAndOpens) {
    Dir d;
    EXPECT_FALSE(Simulator("").can_use_pwp_table());
    EXPECT_FALSE(Simulator(d.tmp.file("nope")).can_use_pwp_table());
    EXPECT_TRUE(Simulator(d.tmp.path()).can_use_pwp_table());
    EXPECT_TRUE(Simulator(d.tmp.path() + "/").can_use_pwp_table());
    // A file opens too: the probe does not read anything.
    EXPECT_TRUE(Simulator(d.tmp.file("exp_400p.json")).can_use_pwp_table());
}

TEST(Simulator, DispatchOrderAndUnknownName) {
    const auto& n = act_fn_names();
    ASSERT_EQ(n.size(), 31u);
    EXPECT_EQ(n.front(), "Identity");
    EXPECT_EQ(n[12], "Ln_prime");
    EXPECT_EQ(n[27], "MemsetZero");
    EXPECT_EQ(n.back(), "Derivative_Gelu_apprx_sigmoid");
    Simulator sim("");
    float out;
    float in = 1.0f;
    try {
        sim.simulate("Is_finite", &out, &in, 0.0f, 1.0f, 0.0f, 1, true);
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "Unsupported activation function Simulator::simulation: Is_finite");
    }
    EXPECT_THROW(sim.simulate("exp", 1.0f, 0.0f, false), Error);  // names are case-sensitive
}

TEST(Simulator, UsePwpGate) {
    Dir d;
    Simulator with(d.tmp.path());
    Simulator without("");
    EXPECT_EQ(with.simulate("Exp", 1.0f, 0.0f, true), 42.0f);  // table
    EXPECT_EQ(with.simulate("Exp", 1.0f, 0.0f, false), std::exp(1.0f));  // usePwp off
    EXPECT_EQ(without.simulate("Exp", 1.0f, 0.0f, true), std::exp(1.0f));  // no table dir
    ASSERT_NE(with.table(ActFn::Exp), nullptr);
    EXPECT_EQ(with.table(ActFn::Sigmoid), nullptr);
}

TEST(Simulator, AbsentProfileFailsOnlyWhenUsed) {
    Dir d;
    Simulator sim(d.tmp.path());
    try {
        sim.simulate("Sigmoid", 0.5f, 0.0f, true);
        FAIL();
    } catch (const Error& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("PWP profile for Sigmoid not found"), std::string::npos) << m;
        EXPECT_NE(m.find("sigmoid_40p.json"), std::string::npos) << m;
    }
    EXPECT_EQ(sim.simulate("Sigmoid", 0.0f, 0.0f, false), 0.5f);
}

TEST(Simulator, MalformedProfileFailsAtConstruction) {
    Dir d;
    d.tmp.write("tanh_4p.json", "{ not json");
    try {
        Simulator sim(d.tmp.path());
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("tanh_4p.json:1:"), std::string::npos) << e.what();
    }
}

TEST(Simulator, NameWithoutFuncMapEntryEvaluatesTheEmptyTable) {
    // Ln_prime is in the dispatch but no profile maps to it: the reference's tables[name]
    // creates a zeroed AFTable and evaluate_generic runs on it -> +0 for finite inputs.
    Dir d;
    Simulator sim(d.tmp.path());
    EXPECT_EQ(bits(sim.simulate("Ln_prime", 5.0f, 0.0f, true)), 0u);
    EXPECT_EQ(bits(sim.simulate("Ln_prime", -5.0f, 0.0f, true)), 0u);
    EXPECT_EQ(bits(sim.simulate("Ln_prime", INFINITY, 0.0f, true)), 0u);
    EXPECT_EQ(sim.simulate("Ln_prime", 4.0f, 0.0f, false), 0.25f);  // exact path
}

TEST(Simulator, PreluHasNoPwpPathAndUsesAlpha) {
    Dir d;
    Simulator sim(d.tmp.path());
    EXPECT_EQ(sim.simulate("Prelu", -2.0f, 0.25f, true), -0.5f);
    EXPECT_EQ(sim.simulate("Prelu", 3.0f, 0.25f, true), 3.0f);
}

TEST(Simulator, LreluSlopeIsHardcoded) {
    Simulator sim("");
    EXPECT_EQ(sim.simulate("Lrelu", -2.0f, 0.5f, false), 0.01f * -2.0f);
}

TEST(Simulator, BufferOverloadUsesRegisterOrder) {
    // simulate(..., scale=2, bias=3, ...) computes bias*in + scale (seed 003 §2.3).
    Simulator sim("");
    float in[2] = {10.0f, -1.0f}, out[2];
    sim.simulate("Identity", out, in, /*scale=*/2.0f, /*bias=*/3.0f, 0.0f, 2, false);
    EXPECT_EQ(out[0], 32.0f);
    EXPECT_EQ(out[1], -1.0f);
    // The visitor-level contract: in*scale + bias.
    activate(sim, "Identity", out, in, 2, /*scale=*/2.0f, /*bias=*/3.0f, 0.0f, false);
    EXPECT_EQ(out[0], 23.0f);
    EXPECT_EQ(out[1], 1.0f);
}

TEST(Simulator, PreScaleIsMultiplyThenAddInFloat) {
    // scale = 1 + 2^-23, in = 1 + 2^-22, bias = -1: the float product rounds to 1 + 3*2^-23
    // before the add (result 3*2^-23 = 0x34c00000); a fused multiply-add would keep the
    // 2^-45 term and give 0x34c00001.
    Simulator sim("");
    float in = flt(0x3f800002), out;
    activate(sim, "Identity", &out, &in, 1, flt(0x3f800001), -1.0f, 0.0f, false);
    EXPECT_EQ(bits(out), 0x34c00000u);
    EXPECT_EQ(bits(std::fmaf(flt(0x3f800001), in, -1.0f)), 0x34c00001u);
}

TEST(Simulator, ElementErrorsCarryTheIndex) {
    TempDir tmp;
    Profile p;  // nothing stored and no clamp reaches 1.0: unhandled section
    p.name = "exp";
    p.sat_pos_high = sat(200, 0, sec(0, 0));
    p.sat_pos_low = sat(100, 0, sec(0, 0));
    write_profile(p, tmp.file("exp_400p.json"));
    Simulator sim(tmp.path());
    float in[3] = {1e-35f, 1e-36f, 1.0f}, out[3];
    try {
        activate(sim, "Exp", out, in, 3, 1.0f, 0.0f, 0.0f, true);
        FAIL();
    } catch (const ElementError& e) {
        EXPECT_EQ(e.index, 2u);
        EXPECT_NE(std::string(e.what()).find("Unhandled section in simulation"), std::string::npos);
    }
}

TEST(FuncMap, BuiltinDefaults) {
    const FuncMap& m = builtin_func_map();
    auto file_of = [&](ActFn fn) -> std::string {
        for (const auto& e : m)
            if (e.fn == fn) return e.file;
        return "";
    };
    EXPECT_EQ(file_of(ActFn::Exp), "exp_400p.json");
    EXPECT_EQ(file_of(ActFn::Reciprocal), "reciprocal_400p.json");
    EXPECT_EQ(file_of(ActFn::Sqrt), "sqrt_65536p.json");
    EXPECT_EQ(file_of(ActFn::Rsqrt), "reciprocal_sqrt_40000p.json");
    EXPECT_EQ(file_of(ActFn::Ln), "ln_40p.json");
    EXPECT_EQ(file_of(ActFn::Identity), "identity_1p.json");
    EXPECT_EQ(file_of(ActFn::Prelu), "");
    EXPECT_EQ(file_of(ActFn::Ln_prime), "");
}

TEST(FuncMap, Errors) {
    auto err = [](const std::string& text) -> std::string {
        try {
            parse_func_map(text, "fm.json");
        } catch (const Error& e) {
            return e.what();
        }
        return "";
    };
    EXPECT_NE(err("{\"a.json\": \"Nope\"}").find("fm.json: $[\"a.json\"]: \"Nope\" is not an activation name"), std::string::npos);
    EXPECT_NE(err("{\"a.json\": \"Prelu\"}").find("Prelu has no PWP path"), std::string::npos);
    EXPECT_NE(err("{\"a.json\": \"Exp\", \"b.json\": \"Exp\"}").find("Exp is mapped by more than one file"), std::string::npos);
    EXPECT_NE(err("{\"a.json\": 3}").find("expected a string"), std::string::npos);
    EXPECT_EQ(err("{\"_comment\": 1, \"a.json\": \"Exp\"}"), "");
}

TEST(FuncMap, UserMapReplacesTheBuiltin) {
    Dir d;
    FuncMap m = parse_func_map("{\"exp_400p.json\": \"Tanh\"}", "fm.json");
    Simulator sim(d.tmp.path(), m);
    EXPECT_EQ(sim.simulate("Tanh", 1.0f, 0.0f, true), 42.0f);
}

}  // namespace
}  // namespace neuronsim::test

namespace neuronsim::test {
namespace {

// The reference's "pwp_path opens" probe must not wait on a FIFO for a writer.
TEST(Simulator, ProbeOfAFifoDoesNotBlock) {
    TempDir t;
    ASSERT_EQ(mkfifo(t.file("p").c_str(), 0600), 0);
    model::pwp::Simulator sim(t.file("p"));
    EXPECT_TRUE(sim.can_use_pwp_table());  // it opens, as the reference's ifstream would once a writer came
}

}  // namespace
}  // namespace neuronsim::test
