// The per-generation configs: the five shipped files load, overrides apply last-wins, and
// every kind of bad field is rejected with its YAML path.
#include <gtest/gtest.h>

#include "model/common/error.h"
#include "platform/config/config.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::test {
namespace {

using namespace platform;

std::string err(const std::vector<std::string>& overrides, const std::string& gen = "mariana") {
    try {
        parse_config(builtin_config_text(gen), "m.yaml", overrides);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Config, ShippedGenerationsLoad) {
    struct Want { const char* gen; const char* name; int nc; double act_ghz; uint64_t sbuf; double dma_bw; uint32_t e16; bool act2; };
    // e16: per-partition elements/cycle for BF16 (public-figures §0: 256 per engine on v4+).
    for (const Want& w : {Want{"sunda", "SUNDA", 2, 1.4, 196608, 17.0, 1, false}, Want{"cayman", "CAYMAN", 3, 1.2, 229376, 23.0, 1, false},
                          Want{"mariana", "MARIANA", 4, 1.2, 262144, 33.0, 2, true}, Want{"mariana_plus", "MARIANA_PLUS", 4, 1.2, 262144, 33.0, 2, true},
                          Want{"maverick", "MAVERICK", 5, 1.2, 262144, 33.0, 2, true}}) {
        Config c = parse_config(builtin_config_text(w.gen), w.gen);
        EXPECT_EQ(c.generation.name, w.name);
        EXPECT_EQ(c.generation.nc_version, w.nc);
        EXPECT_DOUBLE_EQ(c.act.clock_ghz, w.act_ghz);
        EXPECT_EQ(c.memory.sbuf_bytes_per_partition, w.sbuf);
        EXPECT_DOUBLE_EQ(c.dma.bytes_per_ns_per_engine, w.dma_bw);
        EXPECT_EQ(c.act.rate("BFLOAT16"), w.e16);
        EXPECT_EQ(c.act.rate("FP32"), 1u);
        EXPECT_EQ(c.act.rate("INT16"), 1u) << "integer 16-bit inputs get no faster rate: the public figure names 16/8-bit floats";
        EXPECT_EQ(c.act.has_opcode(0x25), w.act2) << w.gen;
        EXPECT_EQ(c.semaphores, 256u);
        EXPECT_EQ(c.memory.psum_bytes_per_partition(), 16384u);
        EXPECT_EQ(c.gpsimd.cptc_routing.at(3), 5u);
    }
    EXPECT_FALSE(parse_config(builtin_config_text("sunda"), "s").gpsimd.cptc_library);
    EXPECT_NO_THROW(builtin_config_text("MARIANA"));
    EXPECT_THROW(builtin_config_text("tonga"), Error);
}

TEST(Config, OverridesApplyInOrderLastWins) {
    Config c = parse_config(builtin_config_text("mariana"), "m", {"dma.fixed_overhead_ns=10", "act.clock_ghz=2.0", "dma.fixed_overhead_ns=20",
                                                                   "gpsimd.cptc_routing.6=5", "act.opcodes=[0x21, 0x23]"});
    EXPECT_DOUBLE_EQ(c.dma.fixed_overhead_ns, 20);
    EXPECT_DOUBLE_EQ(c.act.clock_ghz, 2.0);
    EXPECT_EQ(c.gpsimd.cptc_routing.at(6), 5u);
    EXPECT_EQ(c.act.opcodes, (std::vector<uint32_t>{0x21, 0x23}));
}

TEST(Config, RejectsBadFieldsNamingThePath) {
    EXPECT_NE(err({"act.clokc_ghz=1"}).find("m.yaml: act.clokc_ghz: unknown key"), std::string::npos);
    EXPECT_NE(err({"dma.bytes_per_ns_per_engine=-3"}).find("dma.bytes_per_ns_per_engine: expected a number in [0.001, 1e+06], got \"-3\""), std::string::npos);
    EXPECT_NE(err({"memory.partitions=fast"}).find("memory.partitions: expected a number in [1, 128], got \"fast\""), std::string::npos);
    EXPECT_NE(err({"memory.partitions=256"}).find("memory.partitions: expected a number in [1, 128]"), std::string::npos);
    EXPECT_NE(err({"generation.nc_version=7"}).find("generation.nc_version: expected a number in [2, 5]"), std::string::npos);
    EXPECT_NE(err({"generation.name=TONGA"}).find("generation.name: expected SUNDA, CAYMAN"), std::string::npos);
    EXPECT_NE(err({"gpsimd.cptc_library=maybe"}).find("gpsimd.cptc_library: expected true or false"), std::string::npos);
    EXPECT_NE(err({"gpsimd.cptc_routing.8=1"}).find("gpsimd.cptc_routing.8: unknown key"), std::string::npos);
    EXPECT_NE(err({"gpsimd.cptc_routing.3=2"}).find("gpsimd.cptc_routing.3: is fixed to 5 (observed in the firmware)"), std::string::npos);
    EXPECT_NE(err({"gpsimd.cptc_routing.2=9"}).find("gpsimd.cptc_routing.2: expected a number in [1, 6]"), std::string::npos);
    EXPECT_NE(err({"act.opcodes=[0x21, 0x99]"}).find("act.opcodes[1]: expected an ACT opcode 0x21..0x26"), std::string::npos);
    EXPECT_NE(err({"act.tables=3"}).find("act.tables: expected a mapping"), std::string::npos);
    EXPECT_NE(err({"dma.engines=4"}).find("act.table_load_dma_engine: 15 is not one of the 4 DMA engines"), std::string::npos);
    EXPECT_NE(err({"gpsimd.cores=7"}).find("gpsimd.cores: 7 cores must divide memory.partitions 128"), std::string::npos);
    EXPECT_NE(err({"novalue"}).find("-p novalue: expected dotted.key=value"), std::string::npos);
    EXPECT_NE(err({"act.clock_ghz.x=1"}).find("clock_ghz is not a mapping"), std::string::npos);
    std::string text = builtin_config_text("mariana");
    text.erase(text.find("  fixed_overhead_ns: 1300\n"), 26);
    try {
        parse_config(text, "m.yaml");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("m.yaml: dma.fixed_overhead_ns: missing required key"), std::string::npos) << e.what();
    }
    try {
        parse_config("generation: [1,\n", "bad.yaml");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("bad.yaml:"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("malformed YAML"), std::string::npos) << e.what();
    }
}

TEST(Config, ResolvedYamlRoundTrips) {
    Config c = parse_config(builtin_config_text("cayman"), "c", {"dma.engines=4", "act.table_load_dma_engine=3"});
    std::string y = config_to_yaml(c);
    Config d = parse_config(y, "resolved");
    EXPECT_EQ(config_to_yaml(d), y);
    EXPECT_EQ(d.dma.engines, 4u);
    EXPECT_EQ(d.act.opcodes, c.act.opcodes);
}

TEST(Config, DuplicateKeysRootsAndStridesAreRefusedWithTheirPlace) {
    const std::string base = builtin_config_text("mariana");
    auto error = [](const std::string& text, std::vector<std::string> o = {}) {
        try {
            parse_config(text, "c.yaml", o);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    std::string dup = base;
    dup.replace(dup.find("  clock_ghz: 1.2\n"), 0, "  clock_ghz: 9.9\n");
    EXPECT_NE(error(dup).find("c.yaml: act.clock_ghz: duplicate key"), std::string::npos) << error(dup);
    EXPECT_NE(error("- 1\n- 2\n", {"act.lanes=4"}).find("c.yaml: expected a mapping of sections"), std::string::npos);
    EXPECT_NE(error(base, {"act.tables.control_stride_bytes=5"}).find("act.tables.control_stride_bytes: expected a multiple of 4"), std::string::npos);
}

}  // namespace
}  // namespace neuronsim::test
