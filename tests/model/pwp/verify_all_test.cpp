// `pwp verify`'s comparison (model/pwp/verify_all.h) over a slice of the inputs: a set's table
// against its own source profile agrees on every input, both ways (reference and fast); against
// another function's profile it reports the mismatches and the first one, which a direct
// comparison confirms.
#include <gtest/gtest.h>

#include "model/fp/bits.h"
#include "model/pwp/evaluate.h"
#include "model/pwp/profile_loader.h"
#include "model/pwp/verify_all.h"
#include "tests/support/catalog_fixture.h"

namespace neuronsim::test {
namespace {

using namespace model::pwp;

TEST(VerifyAll, TheSetAgreesWithItsProfileAndNotWithAnother) {
    PackedSet set = read_set(generated_catalog() + "/pwp_bin_with_ln/reciprocal_and_small.json");
    TableEvaluator te(set);
    const FuncMeta& f = te.lookup("reciprocal");
    const Profile own = load_profile(generated_catalog() + "/pwp_jsons/" + f.func_name + ".json");
    // Around 1.0f (0x3f800000) and the negative normals: 2^20 inputs each.
    for (const uint64_t first : {uint64_t{0x3f700000}, uint64_t{0xbf700000}}) {
        for (const bool fast : {false, true}) {
            uint64_t calls = 0;
            const VerifyResult r = verify_all_inputs(
                own, te, f, 2, fast, [&](uint64_t) { ++calls; }, first, first + (1u << 20));
            EXPECT_EQ(r.equal + r.both_unhandled, uint64_t{1} << 20) << fast;
            EXPECT_EQ(r.mismatched, 0u);
            EXPECT_FALSE(r.first_mismatch);
            if (!fast) EXPECT_EQ(r.fallbacks_profile + r.fallbacks_set, 0u);
        }
    }
    const Profile other = load_profile(generated_catalog() + "/pwp_jsons/abs_1p.json");
    const VerifyResult r = verify_all_inputs(other, te, f, 2, false, {}, 0x3f700000, 0x3f700000 + (1u << 16));
    EXPECT_GT(r.mismatched, 0u);
    ASSERT_TRUE(r.first_mismatch);
    const float v = model::fp::float_of(*r.first_mismatch);
    EXPECT_NE(model::fp::bits_of(evaluate_generic(other, v)), model::fp::bits_of(te.evaluate(f, v)));
    EXPECT_EQ(r.equal + r.both_unhandled + r.mismatched, uint64_t{1} << 16);
    EXPECT_THROW(verify_all_inputs(own, te, f, 1, false, {}, 5, uint64_t{1} << 33), Error);
}

}  // namespace
}  // namespace neuronsim::test
