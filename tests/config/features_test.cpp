// What a generation is comes from configs/*.yaml alone: the list of generations (ordered by
// nc_version), the features derived from a configuration, and selections of generations by
// feature (the goldens' list, `neuronsim config generations --select`).
#include <gtest/gtest.h>

#include "config/features.h"
#include "model/common/error.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

const std::vector<std::string> kShipped = {"sunda", "cayman", "mariana", "mariana_plus", "maverick"};

TEST(Features, TheGenerationsAreThePresetFilesByVersion) {
    EXPECT_EQ(generation_names(), kShipped);
    int last = 0;
    for (const std::string& g : generation_names()) {
        const Config c = compose_config(g, {});
        EXPECT_GE(c.generation.nc_version, last) << g;
        last = c.generation.nc_version;
        std::string upper = g;
        for (char& ch : upper) ch = char(std::toupper(static_cast<unsigned char>(ch)));
        EXPECT_EQ(c.generation.name, upper) << "a preset's generation.name is its file name in upper case";
    }
    EXPECT_EQ(generation_list(true), "SUNDA, CAYMAN, MARIANA, MARIANA_PLUS or MAVERICK");
}

TEST(Features, FollowTheVersionAndTheGpsimdSwitches) {
    const Config sunda = compose_config("sunda", {}), cayman = compose_config("cayman", {}), mariana = compose_config("mariana", {});
    EXPECT_FALSE(isa_has_cptc_dtypes(sunda));
    EXPECT_FALSE(isa_has_cptc_dtypes(cayman));  // hardware-facts §F.4: CPTC dtypes from NC-v4
    EXPECT_TRUE(isa_has_cptc_dtypes(mariana));
    EXPECT_FALSE(gpsimd_ships_cptc_library(sunda));
    EXPECT_TRUE(gpsimd_ships_cptc_library(cayman));  // EXTISA_3 from NC-v3 (§F.9)
    EXPECT_FALSE(can_decode_cptc(cayman));
    EXPECT_TRUE(can_decode_cptc(mariana));
    // The switches count, not the version alone.
    EXPECT_FALSE(gpsimd_ships_cptc_library(compose_config("mariana", {}, {"gpsimd.cptc_library=false"})));
    const Config non_perf = compose_config("mariana", {}, {"gpsimd.coretype_perf=false"});
    EXPECT_TRUE(gpsimd_ships_cptc_library(non_perf));
    EXPECT_FALSE(gpsimd_can_stage_cptc_library(non_perf));
    EXPECT_FALSE(can_decode_cptc(non_perf));
    EXPECT_EQ(generations_with(can_decode_cptc), (std::vector<std::string>{"MARIANA", "MARIANA_PLUS", "MAVERICK"}));
}

TEST(Features, SelectionsNameGenerationsByFeature) {
    EXPECT_EQ(select_generations("all"), kShipped);
    EXPECT_EQ(select_generations("cptc_decode"), (std::vector<std::string>{"mariana", "mariana_plus", "maverick"}));
    EXPECT_EQ(select_generations("no_cptc_decode"), (std::vector<std::string>{"sunda", "cayman"}));
    EXPECT_EQ(select_generations("cptc_library"), (std::vector<std::string>{"cayman", "mariana", "mariana_plus", "maverick"}));
    EXPECT_EQ(select_generations("Maverick,sunda"), (std::vector<std::string>{"maverick", "sunda"}));
    for (const std::string bad : {"", "trn9", "mariana,", "no_such_feature"}) {
        try {
            select_generations(bad);
            ADD_FAILURE() << "accepted \"" << bad << "\"";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("generations \"" + bad + "\": "), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("(all, cptc_dtypes, no_cptc_dtypes,"), std::string::npos) << e.what();
        }
    }
}

TEST(Features, TheCliListsTheGenerationsAndSelects) {
    auto r = run_cli("config generations");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("cayman         3          cptc_library cptc_stageable\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("sunda          2          -\n"), std::string::npos) << r.out;
    r = run_cli("config generations --select no_cptc_decode");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "sunda\ncayman\n");
    r = run_cli("config generations --select trn9");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("\"trn9\" is not a generation (sunda, cayman, mariana, mariana_plus, maverick)"), std::string::npos) << r.err;
    EXPECT_EQ(run_cli("config show --select all").status, 2);
    r = run_cli("run --help");
    EXPECT_NE(r.out.find("generation preset: sunda, cayman, mariana"), std::string::npos) << r.out;  // (boost wraps the rest)
}

}  // namespace
}  // namespace neuronsim::test
