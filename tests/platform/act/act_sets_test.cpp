// The function sets a host places in DRAM: names instead of numbers (set index, func_id), and
// where the built-in catalog comes from (read beside the binary, never generated at run time).
#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/pwp/catalog_writer.h"
#include "neuronsim/act_sets.h"
#include "platform/act/act_set_region.h"
#include "platform/config.h"
#include "tests/support/device_host.h"

namespace neuronsim::test {
namespace {

namespace fs = std::filesystem;

// The ids the Activate instruction takes on trainium are the roster's sunda_id (the neuron_id
// column of the function enum; traces/README.md lists the same): exp 7, sigmoid 5, tanh 6,
// gelu 23, reciprocal 129. The directory order of the trainium roster puts exp_and_others
// first and gelu_and_others at index 10 (traces and examples use set=10 for GELU).
TEST(ActSets, NamesGiveTheFuncIdsAndSetIndicesOfTheTarget) {
    const Config cfg = cfg_of("mariana");
    const ActSetRegion r = build_act_set_region(cfg, "", 64ull << 20);
    ASSERT_EQ(r.sets.size(), r.count);
    EXPECT_EQ(act_func_id(r, "exp"), 7u);
    EXPECT_EQ(act_func_id(r, "sigmoid"), 5u);
    EXPECT_EQ(act_func_id(r, "tanh"), 6u);
    EXPECT_EQ(act_func_id(r, "gelu"), 23u);
    EXPECT_EQ(act_func_id(r, "reciprocal"), 129u);
    EXPECT_EQ(act_set_index(r, "exp_and_others"), 0u);
    EXPECT_EQ(act_set_index(r, "gelu_and_others"), 10u);
    // The set holding a function holds it, and is the first loadable one that does.
    const uint32_t g = act_set_holding(r, "gelu");
    ASSERT_LT(g, r.sets.size());
    bool has = false;
    for (const ActSetFunction& f : r.sets[g].functions) has |= f.name == "gelu" && f.func_id == 23;
    EXPECT_TRUE(has);
    for (uint32_t i = 0; i < g; ++i)
        for (const ActSetFunction& f : r.sets[i].functions) EXPECT_FALSE(r.sets[i].loadable && f.name == "gelu") << r.sets[i].name;
    // The names agree with the names area in DRAM ("SET\0FUNC0\0..."), entry by entry.
    for (uint32_t i = 0; i < r.count; ++i) {
        if (!r.sets[i].loadable) continue;
        ActSetEntry e;
        std::memcpy(&e, r.bytes.data() + i * sizeof e, sizeof e);
        const std::string area(reinterpret_cast<const char*>(r.bytes.data() + (e.names_addr - r.base)), e.names_bytes);
        std::string want = r.sets[i].name + '\0';
        for (const ActSetFunction& f : r.sets[i].functions) want += f.name + '\0';
        EXPECT_EQ(area, want) << r.sets[i].name;
    }
}

TEST(ActSets, AnUnknownNameIsAnErrorListingTheKnownOnes) {
    const ActSetRegion r = build_act_set_region(cfg_of("cayman"), "", 64ull << 20);
    try {
        act_func_id(r, "gelu_typo");
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("\"gelu_typo\" is in no function set"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("gelu"), std::string::npos) << e.what();
    }
    EXPECT_THROW(act_set_index(r, "no_such_set"), std::runtime_error);
    EXPECT_THROW(act_set_holding(r, "no_such_function"), std::runtime_error);
}

// The built-in catalog is the build's (BUILD/share/neuronsim/catalog, stamped with the
// generator's hash), found beside the test binary; finding it writes nothing, even with HOME
// and the cache variables pointing at an empty directory.
TEST(BuiltInCatalog, IsFoundBesideTheBinaryAndNothingIsWritten) {
    const fs::path empty = fs::temp_directory_path() / ("neuronsim-catalog-test-" + std::to_string(::getpid()));
    fs::remove_all(empty);
    fs::create_directories(empty);
    ::setenv("HOME", empty.c_str(), 1);
    ::setenv("XDG_CACHE_HOME", empty.c_str(), 1);
    ::unsetenv("NEURONSIM_CATALOG");
    const std::string dir = model::pwp::default_catalog_dir();
    EXPECT_TRUE(model::pwp::is_built_in_catalog(dir)) << dir;
    EXPECT_EQ(fs::path(dir).filename(), "catalog");
    EXPECT_TRUE(fs::exists(dir + "/catalog-" + model::pwp::catalog_hash())) << dir;
    (void)build_act_set_region(cfg_of("mariana"), "", 64ull << 20);
    EXPECT_TRUE(fs::is_empty(empty));
    fs::remove_all(empty);
}

TEST(BuiltInCatalog, AnEnvironmentOverrideMustBeACatalogOfThisBuild) {
    const fs::path empty = fs::temp_directory_path() / ("neuronsim-catalog-env-" + std::to_string(::getpid()));
    fs::create_directories(empty);
    ::setenv("NEURONSIM_CATALOG", empty.c_str(), 1);
    try {
        model::pwp::default_catalog_dir();
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("NEURONSIM_CATALOG=" + empty.string() + ": not a built-in catalog of this build"), std::string::npos) << e.what();
    }
    // The build's own catalog, named explicitly, is accepted.
    ::unsetenv("NEURONSIM_CATALOG");
    const std::string dir = model::pwp::default_catalog_dir();
    ::setenv("NEURONSIM_CATALOG", dir.c_str(), 1);
    EXPECT_EQ(model::pwp::default_catalog_dir(), dir);
    ::unsetenv("NEURONSIM_CATALOG");
    fs::remove_all(empty);
}

}  // namespace
}  // namespace neuronsim::test

namespace neuronsim::test {
namespace {

// The built-in sets' region is built once per table geometry and top, then shared
// (platform/act/act_set_region.h); a copy is what build_act_set_region returns.
TEST(ActSets, TheBuiltInRegionIsBuiltOnceAndShared) {
    const Config cfg = platform::compose_config("mariana", {}, {});
    const uint64_t top = cfg.memory.dram_bytes;
    const auto a = platform::shared_act_set_region(cfg, "", top), b = platform::shared_act_set_region(cfg, "", top);
    EXPECT_EQ(a.get(), b.get());
    const ActSetRegion copy = build_act_set_region(cfg, "", top);
    EXPECT_EQ(copy.bytes, a->bytes);
    EXPECT_EQ(copy.base, a->base);
    EXPECT_LE(a->base + a->bytes.size(), top);
    const auto lower = platform::shared_act_set_region(cfg, "", top - (1 << 20));
    EXPECT_NE(lower.get(), a.get());
    EXPECT_EQ(lower->base, a->base - (1 << 20)) << "the same region, 1 MiB lower";
    EXPECT_EQ(lower->bytes.size(), a->bytes.size()) << "(its bytes differ: the manifest holds the sets' DRAM addresses)";
}

}  // namespace
}  // namespace neuronsim::test
