// FunctionEvaluator (act eval's and the Python package's evaluator) against the reference code
// of each path, element by element: the reference simulator's buffer loop (activate), the
// blobs read one element at a time (TableEvaluator::evaluate_reference) and evaluate_generic.
// Same bits, the same failing element, whatever the thread count.
#include "model/pwp/function_eval.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "model/fp/bits.h"
#include "model/pwp/act_fn.h"
#include "model/pwp/catalog_writer.h"
#include "model/pwp/evaluate.h"
#include "model/pwp/profile_loader.h"
#include "model/pwp/table_eval.h"

namespace neuronsim::test {
namespace {

using namespace model::pwp;

std::vector<float> inputs(size_t n) {
    std::mt19937 g(7);
    std::vector<float> v(n);
    for (float& x : v) {
        const uint32_t u = g();
        std::memcpy(&x, &u, 4);
    }
    const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-40f, -1e-40f, 3.0e38f, -3.0e38f};
    std::memcpy(v.data(), specials, sizeof specials);
    return v;
}

// out[] of the reference call, or the index it failed at.
template <class F>
size_t failing_index(F&& f) {
    try {
        f();
    } catch (const ElementError& e) {
        return e.index;
    }
    return SIZE_MAX;
}

void expect_same(const std::vector<float>& want, size_t want_fail, const std::vector<float>& got, size_t got_fail, const std::string& what) {
    ASSERT_EQ(got_fail, want_fail) << what;
    const size_t n = want_fail == SIZE_MAX ? want.size() : want_fail;
    for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(model::fp::bits_of(got[i]), model::fp::bits_of(want[i])) << what << " element " << i << " input 0x" << std::hex << i;
}

TEST(FunctionEvaluator, TheReferenceSimulatorsNamesOnTheBatchPathMatchItsLoop) {
    const std::string dir = default_catalog_dir() + "/pwp_jsons";
    const Simulator sim(dir);
    const std::vector<float> in = inputs(1 << 16);
    model::WorkerPool two(2);
    for (std::string_view name : act_fn_names()) {
        for (bool exact : {false, true}) {
            const std::string what = std::string(name) + (exact ? " exact" : "");
            std::vector<float> want(in.size()), got(in.size());
            const size_t wf = failing_index([&] { activate(sim, std::string(name), want.data(), in.data(), in.size(), 1.5f, -0.25f, 0.25f, !exact); });
            const FunctionEvaluator fe = FunctionEvaluator::of_pwp_dir(dir, builtin_func_map(), std::string(name), exact, 0.25f);
            const size_t gf = failing_index([&] { fe.evaluate(in.data(), got.data(), in.size(), Prescale{1.5f, -0.25f}, two); });
            expect_same(want, wf, got, gf, what);
        }
    }
}

TEST(FunctionEvaluator, SetAndProfilePathsMatchTheirOracles) {
    const std::vector<float> in = inputs(1 << 16);
    model::WorkerPool two(2);
    const PackedSet set = read_set(default_catalog_dir() + "/pwp_bin_trainium/exp_and_others.json");
    const TableEvaluator te(set);
    for (const FuncMeta& f : set.manifest.profile_meta_data) {
        std::vector<float> want(in.size()), got(in.size());
        size_t wf = SIZE_MAX;
        for (size_t i = 0; i < in.size() && wf == SIZE_MAX; ++i) {
            try {
                want[i] = te.evaluate_reference(f, in[i]);
            } catch (const Error&) {
                wf = i;
            }
        }
        const FunctionEvaluator fe = FunctionEvaluator::of_set(set, f.func_name);
        const size_t gf = failing_index([&] { fe.evaluate(in.data(), got.data(), in.size(), std::nullopt, two); });
        expect_same(want, wf, got, gf, "set " + f.func_name);
    }
    const Profile p = load_profile(default_catalog_dir() + "/pwp_jsons/gelu_4p.json");
    std::vector<float> want(in.size()), got(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
        float v = 2.0f * in[i];
        want[i] = evaluate_generic(p, v + 1.0f);
    }
    const FunctionEvaluator fe = FunctionEvaluator::of_profile(p);
    fe.evaluate(in.data(), got.data(), in.size(), Prescale{2.0f, 1.0f}, two);
    expect_same(want, SIZE_MAX, got, SIZE_MAX, "profile gelu");
}

TEST(FunctionEvaluator, ANameInTheWrongCaseIsRefusedWithTheRightOne) {
    try {
        FunctionEvaluator::of_pwp_dir("", builtin_func_map(), "gelu", true, 0);
        FAIL() << "accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("did you mean 'Gelu'"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace neuronsim::test
