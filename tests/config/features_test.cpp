// What a generation is comes from configs/*.yaml alone: the list of generations (ordered by
// nc_version), the features derived from a configuration, and selections of generations by
// feature (the goldens' list, `neuronsim config generations --select`).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "config/features.h"
#include "model/common/error.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

// The files of configs/ (the built-in list must be exactly these, whatever they are).
std::vector<std::string> preset_files() {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(std::string(NEURONSIM_SOURCE_DIR) + "/configs"))
        if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

TEST(Features, TheGenerationsAreThePresetFilesByVersion) {
    std::vector<std::string> sorted = generation_names();
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, preset_files());
    for (const std::string g : {"sunda", "cayman", "mariana", "mariana_plus", "maverick"}) EXPECT_TRUE(has(generation_names(), g)) << g;
    int last = 0;
    for (const std::string& g : generation_names()) {
        const Config c = compose_config(g, {});
        EXPECT_GE(c.generation.nc_version, last) << g;
        last = c.generation.nc_version;
        std::string upper = g;
        for (char& ch : upper) ch = char(std::toupper(static_cast<unsigned char>(ch)));
        EXPECT_EQ(c.generation.name, upper) << "a preset's generation.name is its file name in upper case";
    }
    EXPECT_EQ(generation_list(true).rfind("SUNDA, CAYMAN, MARIANA, MARIANA_PLUS", 0), 0u) << generation_list(true);
    EXPECT_NE(generation_list(true).find(" or "), std::string::npos);
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
    const std::vector<std::string> cptc = generations_with(can_decode_cptc);
    EXPECT_EQ(std::vector<std::string>(cptc.begin(), cptc.begin() + 3), (std::vector<std::string>{"MARIANA", "MARIANA_PLUS", "MAVERICK"}));
}

TEST(Features, SelectionsNameGenerationsByFeature) {
    EXPECT_EQ(select_generations("all"), generation_names());
    // A feature and its negation split the generations, each by its own preset.
    for (const Feature& f : features()) {
        const auto with = select_generations(f.name), without = select_generations("no_" + f.name);
        EXPECT_EQ(with.size() + without.size(), generation_names().size()) << f.name;
        for (const std::string& g : with) EXPECT_TRUE(f.has(compose_config(g, {}))) << f.name << " " << g;
        for (const std::string& g : without) EXPECT_FALSE(f.has(compose_config(g, {}))) << f.name << " " << g;
    }
    const auto cptc = select_generations("cptc_decode"), no_cptc = select_generations("no_cptc_decode");
    for (const std::string g : {"mariana", "mariana_plus", "maverick"}) EXPECT_TRUE(has(cptc, g)) << g;
    for (const std::string g : {"sunda", "cayman"}) EXPECT_TRUE(has(no_cptc, g)) << g;
    EXPECT_EQ(select_generations("Maverick,sunda"), (std::vector<std::string>{"maverick", "sunda"}));
    for (const std::string bad : {"", "no_such_gen9", "mariana,", "no_such_feature"}) {
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
    r = run_cli("config generations --select no_such_gen9");  // (a name no preset has)
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("\"no_such_gen9\" is not a generation (" + generation_list(false, ", ") + ")"), std::string::npos) << r.err;
    EXPECT_EQ(run_cli("config show --select all").status, 2);
    r = run_cli("run --help");
    EXPECT_NE(r.out.find("generation preset: sunda, cayman, mariana"), std::string::npos) << r.out;  // (boost wraps the rest)
}

}  // namespace
}  // namespace neuronsim::test
