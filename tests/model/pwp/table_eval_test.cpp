// The table-memory evaluator against evaluate_generic on the source profiles: identical bits
// for every function of every generated set of both targets, over clamp ties, bucket edges,
// special values and random inputs.
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/pwp/evaluate.h"
#include "model/pwp/profile_loader.h"
#include "model/pwp/roster.h"
#include "model/pwp/table_eval.h"
#include "tests/support/catalog_fixture.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::test {
namespace {

using namespace model::pwp;

// Inputs that exercise every boundary of a profile.
std::vector<uint32_t> probe_inputs(const Profile& p, std::mt19937& rng) {
    std::set<uint32_t> in = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7fa00001, 0x00000001,
                             0x80000001, 0x007fffff, 0x807fffff, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000};
    auto around = [&](int biased, int mant) {
        for (int d = -1; d <= 1; ++d) {
            int64_t m = static_cast<int64_t>(mant) + d;
            int b = biased;
            if (m < 0) {
                m = 0x7fffff;
                --b;
            }
            if (m > 0x7fffff) {
                m = 0;
                ++b;
            }
            if (b < 0 || b > 255) continue;
            uint32_t u = static_cast<uint32_t>(b) << 23 | static_cast<uint32_t>(m);
            in.insert(u);
            in.insert(u | 0x80000000u);
        }
    };
    for (const SatRegion* s : {&p.sat_pos_high, &p.sat_pos_low, &p.sat_neg_high, &p.sat_neg_low}) around(s->sat_point, s->mantissa_point);
    for (const Region* r : {&p.pos, &p.neg})
        for (int b = 0; b < 256; ++b) {
            const auto& o = r->octaves[b];
            if (!o.declared) continue;
            for (uint32_t k = 0; k <= o.count; ++k) around(b, static_cast<int>(k << (23 - o.extract_size)));
        }
    for (int i = 0; i < 3000; ++i) in.insert(static_cast<uint32_t>(rng()));
    return {in.begin(), in.end()};
}

void compare_target(Target t) {
    std::mt19937 rng(11);
    const std::string dir = generated_catalog() + "/pwp_bin_" + target_name(t);
    size_t compared = 0, functions = 0;
    for (const RosterSet& rs : builtin_roster(t)) {
        PackedSet set = read_set(dir + "/" + rs.name + ".json");
        TableEvaluator te(set);
        for (const FuncMeta& f : set.manifest.profile_meta_data) {
            ++functions;
            Profile p = load_profile(generated_catalog() + "/pwp_jsons/" + f.func_name + ".json");
            for (uint32_t u : probe_inputs(p, rng)) {
                float v = flt(u);
                bool ea = false, eb = false;
                float a = 0, b = 0;
                try {
                    a = evaluate_generic(p, v);
                } catch (const Error&) {
                    ea = true;
                }
                try {
                    b = te.evaluate(f, v);
                } catch (const Error&) {
                    eb = true;
                }
                ASSERT_FALSE(ea) << f.func_name << " 0x" << std::hex << u << ": the generated table leaves a hole";
                ASSERT_FALSE(eb) << rs.name << "/" << f.func_name << " 0x" << std::hex << u;
                ASSERT_EQ(bits(a), bits(b)) << rs.name << "/" << f.func_name << " input 0x" << std::hex << u;
                ++compared;
            }
        }
    }
    EXPECT_EQ(functions, t == Target::Trainium ? 309u : 100u);
    EXPECT_GT(compared, t == Target::Trainium ? 1000000u : 300000u);
}

TEST(TableEval, IdenticalToEvaluateGenericTrainium) { compare_target(Target::Trainium); }
TEST(TableEval, IdenticalToEvaluateGenericWithLn) { compare_target(Target::WithLn); }

TEST(TableEval, LookupByNameStemOrId) {
    PackedSet set = read_set(generated_catalog() + "/pwp_bin_with_ln/reciprocal_and_small.json");
    TableEvaluator te(set);
    EXPECT_EQ(&te.lookup("reciprocal"), &te.lookup("reciprocal_400p"));
    EXPECT_EQ(&te.lookup("reciprocal"), &te.lookup("15"));  // tonga_id on with_ln
    try {
        te.lookup("exp");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("function 'exp' is not in set reciprocal_and_small"), std::string::npos) << e.what();
    }
}

TEST(TableEval, HoleInATableIsAnErrorLikeEvaluateGeneric) {
    // A hand-made set whose octave stores fewer buckets than its clamp leaves reachable.
    Profile p;
    p.name = "hole";
    add_octave(p.pos, 0, 2, {sec(1.0f, 1), sec(1.25f, 2)});
    p.sat_pos_high = sat(128, 0, sec(0, 9));
    p.sat_pos_low = sat(127, 0, sec(0, 8));
    p.meta.sunda_id = 3;
    PackedSet s = pack_set(Target::Trainium, "h", {{"hole_4p", p}});
    TableEvaluator te(s);
    EXPECT_EQ(te.evaluate(te.lookup("hole"), 1.3f), evaluate_generic(p, 1.3f));
    EXPECT_THROW(evaluate_generic(p, 1.6f), UnhandledSection);
    EXPECT_THROW(te.evaluate(te.lookup("hole"), 1.6f), Error);
}

}  // namespace
}  // namespace neuronsim::test
