// The table-residency advisor's analysis and reordering rule, on small traces written here.
#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/workloads/advisor.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::test {
namespace {

namespace wl = model::workloads;

const std::string kSrc = NEURONSIM_SOURCE_DIR;

// An activation of `func` from SBUF offset src to dst, 16 fp32 per partition, 128 partitions.
std::string act(int func, const std::string& src, const std::string& dst, const std::string& extra = "") {
    return "act activate func=" + std::to_string(func) + " in_bias_dtype=10 out_dtype=10 num_active_channels=128 scale=1.0 bias_src_n=1 src=sbuf:0:" + src +
           " src.num=16,1,1 src.step=1,0,0 dst=sbuf:0:" + dst + " dst.num=16,1,1 dst.step=1,0,0 " + extra + "\n";
}

TEST(Advisor, FindsTheBetterOrderOfSetThrash) {
    const wl::Advice a = wl::advise(kSrc + "/traces/set_thrash.trace");
    ASSERT_EQ(a.loads.size(), 5u);
    EXPECT_EQ(a.redundant, 1u);
    EXPECT_TRUE(a.loads[4].redundant);
    EXPECT_EQ(a.loads[1].forced_by, std::vector<std::string>{"sigmoid"});
    EXPECT_EQ(a.suggested_loads, 2u);
    ASSERT_TRUE(a.improves());
    // exp, exp under exp_and_others; sigmoid, sigmoid under sigmoid_and_others.
    std::vector<std::string> order;
    for (const auto& s : a.suggested) order.push_back(s.load ? "load " + std::to_string(s.set) : s.function);
    EXPECT_EQ(order, (std::vector<std::string>{"load 0", "exp", "exp", "load 2", "sigmoid", "sigmoid"}));
}

TEST(Advisor, KeepsTheOrderOfDependentActivations) {
    TempDir t;
    // exp -> sigmoid -> exp through SBUF: each reads what the previous wrote. Nothing may move.
    const std::string trace = t.write("chain.trace", "act load_act_func_set set=0\n" + act(7, "0x0", "0x1000") + "act load_act_func_set set=2\n" +
                                                         act(5, "0x1000", "0x2000") + "act load_act_func_set set=0\n" + act(7, "0x2000", "0x3000"));
    const wl::Advice a = wl::advise(trace);
    EXPECT_EQ(a.loads.size(), 3u);
    EXPECT_EQ(a.suggested_loads, 3u);
    EXPECT_FALSE(a.improves());
}

TEST(Advisor, WriteAfterReadAndPartialOverlapsAlsoOrder) {
    TempDir t;
    // The sigmoid overwrites the bytes the second exp reads (write after read, overlapping by
    // 4 bytes only): the exp may not move before it.
    const std::string trace = t.write("war.trace", "act load_act_func_set set=0\n" + act(7, "0x0", "0x1000") + "act load_act_func_set set=2\n" +
                                                       act(5, "0x1000", "0x203c") + "act load_act_func_set set=0\n" + act(7, "0x2000", "0x3000"));
    EXPECT_EQ(wl::advise(trace).suggested_loads, 3u);
}

TEST(Advisor, NothingMovesAcrossASemaphore) {
    TempDir t;
    // Independent data, but the sigmoid signals another engine: it is a fixed point.
    const std::string trace = t.write("sem.trace", "act load_act_func_set set=0\n" + act(7, "0x0", "0x1000") + "act load_act_func_set set=2\n" +
                                                       act(5, "0x0", "0x2000", "update=3+1") + "act load_act_func_set set=0\n" + act(7, "0x0", "0x3000"));
    const wl::Advice a = wl::advise(trace);
    EXPECT_EQ(a.suggested_loads, 3u);
    EXPECT_EQ(a.fixed, 1u);
}

TEST(Advisor, ChoosesOneSetForFunctionsThatShareIt) {
    TempDir t;
    // exp then tanh, loaded as exp_and_others then tanh_and_derivative: exp_and_others holds both.
    const std::string trace =
        t.write("cover.trace", "act load_act_func_set set=0\n" + act(7, "0x0", "0x1000") + "act load_act_func_set set=8\n" + act(6, "0x0", "0x2000"));
    const wl::Advice a = wl::advise(trace);
    EXPECT_EQ(a.loads.size(), 2u);
    EXPECT_EQ(a.suggested_loads, 1u);
    EXPECT_EQ(a.suggested_switches[0].set, 0);
}

TEST(Advisor, ReportsAnActivationWhoseFunctionIsNotResident) {
    TempDir t;
    const std::string trace = t.write("bad.trace", "act load_act_func_set set=2\n" + act(7, "0x0", "0x1000"));
    const wl::Advice a = wl::advise(trace);
    ASSERT_EQ(a.problems.size(), 1u);
    EXPECT_NE(a.problems[0].find("line 2: exp is not in the resident set sigmoid_and_others"), std::string::npos) << a.problems[0];
}

TEST(Advisor, ASetPastTheRosterIsAnErrorNamingTheLine) {
    TempDir t;
    for (int set : {21, 22, 35, 100, 255}) {
        const std::string trace = t.write("s.trace", "act sync\nact load_act_func_set set=" + std::to_string(set) + "\n");
        try {
            wl::advise(trace);
            FAIL() << "set " << set << ": no error";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("s.trace:2: load_act_func_set " + std::to_string(set) + ": the trainium roster has 21 sets (0..20)"),
                      std::string::npos)
                << e.what();
        }
    }
}

TEST(Advisor, MalformedLinesNameFileAndLine) {
    TempDir t;
    const std::string trace = t.write("m.trace", "act load_act_func_set set=0\nact activate fnc=7\n");
    try {
        wl::advise(trace);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("m.trace:2"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace neuronsim::test
