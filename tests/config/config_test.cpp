// The per-generation configs: the five shipped files load, overrides apply last-wins, and
// every kind of bad field is rejected with its YAML path.
#include <gtest/gtest.h>

#include <algorithm>

#include "model/common/error.h"
#include "platform/config.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

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
    struct Want {
        const char* gen;
        const char* name;
        int nc;
        double act_ghz;
        uint64_t sbuf;
        double dma_bw;
        uint32_t e16;
        bool act2;
    };
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
    Config c =
        parse_config(builtin_config_text("mariana"), "m",
                     {"dma.fixed_overhead_ns=10", "act.clock_ghz=2.0", "dma.fixed_overhead_ns=20", "gpsimd.cptc_routing.6=5", "act.opcodes=[0x21, 0x23]"});
    EXPECT_DOUBLE_EQ(c.dma.fixed_overhead_ns, 20);
    EXPECT_DOUBLE_EQ(c.act.clock_ghz, 2.0);
    EXPECT_EQ(c.gpsimd.cptc_routing.at(6), 5u);
    EXPECT_EQ(c.act.opcodes, (std::vector<uint32_t>{0x21, 0x23}));
}

TEST(Config, RejectsBadFieldsNamingThePath) {
    // A bad -p is blamed on itself, not on the file it overrides.
    EXPECT_NE(err({"act.clokc_ghz=1"}).find("-p act.clokc_ghz=1: act.clokc_ghz: unknown key"), std::string::npos) << err({"act.clokc_ghz=1"});
    EXPECT_NE(err({"dma.engines=4"}).find("-p dma.engines=4: act.table_load_dma_engine"), std::string::npos) << err({"dma.engines=4"});
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

// Numbers print as the shortest decimal that reads back exactly: 1.4, not 1.3999999999999999,
// and every preset's values survive the trip bit for bit.
TEST(Config, NumbersPrintShortAndReadBackExactly) {
    const Config c = parse_config(builtin_config_text("sunda"), "s", {"act.clock_ghz=1.4", "dma.descriptor_ns=0.1"});
    const std::string y = config_to_yaml(c);
    EXPECT_NE(y.find("clock_ghz: 1.4\n"), std::string::npos) << y;
    EXPECT_NE(y.find("descriptor_ns: 0.1\n"), std::string::npos) << y;
    EXPECT_EQ(y.find("99999"), std::string::npos) << y;
    for (const std::string& g : generation_names()) {
        const Config p = parse_config(builtin_config_text(g), g, {"dma.descriptor_ns=0.30000000000000004"});
        const Config q = parse_config(config_to_yaml(p), "resolved");
        EXPECT_EQ(q.act.clock_ghz, p.act.clock_ghz) << g;
        EXPECT_EQ(q.dma.descriptor_ns, 0.30000000000000004) << g;
        EXPECT_EQ(config_to_yaml(q), config_to_yaml(p)) << g;
    }
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
    const size_t at = dup.find("act:\n  clock_ghz: 1.2\n") + 5;
    dup.replace(at, 0, "  clock_ghz: 9.9\n");
    const std::string line = std::to_string(std::count(dup.begin(), dup.begin() + static_cast<long>(at), '\n') + 2);  // the second one
    EXPECT_NE(error(dup).find("c.yaml:" + line + ": act.clock_ghz: duplicate key"), std::string::npos) << error(dup);
    EXPECT_NE(error("- 1\n- 2\n", {"act.lanes=4"}).find("c.yaml: expected a mapping of sections"), std::string::npos);
    EXPECT_NE(error(base, {"act.tables.control_stride_bytes=5"}).find("act.tables.control_stride_bytes: expected a multiple of 4"), std::string::npos);
}

TEST(Config, OverlaysApplyInOrderOnThePresetThenOverrides) {
    const Config c = compose_config_text("cayman",
                                         {{"a.yaml", "act:\n  clock_ghz: 2.0\n  table_load_dma_engine: 7\ndma:\n  engines: 8\n  fixed_overhead_ns: 10\n"},
                                          {"b.yaml", "act: {clock_ghz: 3.0, elems_per_partition_cycle: {FP32: 2}}\n"}},
                                         {"dma.fixed_overhead_ns=20"});
    EXPECT_EQ(c.generation.name, "CAYMAN");
    EXPECT_DOUBLE_EQ(c.act.clock_ghz, 3.0);  // b over a
    EXPECT_EQ(c.dma.engines, 8u);  // a, untouched by b
    EXPECT_DOUBLE_EQ(c.dma.fixed_overhead_ns, 20);  // -p last
    EXPECT_DOUBLE_EQ(c.dma.bytes_per_ns_per_engine, 23.0);  // the preset
    EXPECT_EQ(c.act.rate("FP32"), 2u);  // maps merge key by key...
    EXPECT_EQ(c.act.rate("BFLOAT16"), 1u);  // ...keeping the preset's other keys
    EXPECT_EQ(c.act.table_load_dma_engine, 7u);
    EXPECT_EQ(c.source, "configs/cayman.yaml (built in) + a.yaml + b.yaml + -p dma.fixed_overhead_ns=20");
}

TEST(Config, LayerErrorsNameTheLayerAndLine) {
    auto error = [](std::vector<std::pair<std::string, std::string>> overlays, std::vector<std::string> p = {}, std::string gen = "mariana") {
        try {
            compose_config_text(gen, overlays, p);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    EXPECT_EQ(error({{"o.yaml", "act:\n  clock_ghz: 500\n"}}), "o.yaml:2: act.clock_ghz: expected a number in [0.01, 100], got \"500\"");
    EXPECT_EQ(error({{"o.yaml", "act:\n  clokc_ghz: 1\n"}}), "o.yaml:2: act.clokc_ghz: unknown key");
    EXPECT_EQ(error({{"o.yaml", "dma: {engines: 4}\n"}}).rfind("o.yaml:1: act.table_load_dma_engine: 15 is not one of the 4 DMA engines", 0), 0u)
        << error({{"o.yaml", "dma: {engines: 4}\n"}});
    // The later layer is blamed for the value it set, the earlier one for its own.
    EXPECT_EQ(error({{"a.yaml", "act: {lanes: 7}\n"}, {"b.yaml", "act: {lanes: 700}\n"}}).rfind("b.yaml:1: act.lanes", 0), 0u);
    EXPECT_EQ(error({{"a.yaml", "act: {lanes: 700}\n"}, {"b.yaml", "dma: {engines: 16}\n"}}).rfind("a.yaml:1: act.lanes", 0), 0u);
    EXPECT_EQ(error({{"a.yaml", "act: {lanes: 7}\n"}}, {"act.lanes=-1"}).rfind("-p act.lanes=-1: act.lanes: expected a number in [1, 128]", 0), 0u);
    EXPECT_EQ(error({{"a.yaml", "- 1\n"}}), "a.yaml: expected a mapping of sections (generation, memory, ...) at the top level");
    EXPECT_EQ(error({{"a.yaml", "act: {lanes: 1, lanes: 2}\n"}}), "a.yaml:1: act.lanes: duplicate key");
    EXPECT_EQ(error({{"a.yaml", "generation: {name: CAYMAN}\n"}}).rfind("a.yaml:1: generation.name: CAYMAN differs from the preset's MARIANA", 0), 0u);
    EXPECT_EQ(error({}, {"generation.name=SUNDA"}).rfind("-p generation.name=SUNDA: generation.name: SUNDA differs", 0), 0u);
    EXPECT_EQ(error({{"a.yaml", "act: [1\n"}}).rfind("a.yaml:2:", 0), 0u) << error({{"a.yaml", "act: [1\n"}});
    // A complete file alone picks its own generation's preset.
    const Config full = compose_config_text("", {{"full.yaml", builtin_config_text("sunda")}});
    EXPECT_EQ(full.generation.name, "SUNDA");
    EXPECT_EQ(config_to_yaml(full), config_to_yaml(parse_config(builtin_config_text("sunda"), "s")));
}

// Aliases of aliases (a 480-byte overlay of nine levels of ten expands to 10^9
// values, and the layer checks walked them all) and deep nesting are refused, naming the layer.
TEST(Config, AliasBombsAndDeepNestingAreRefused) {
    auto error = [](std::vector<std::pair<std::string, std::string>> overlays, std::vector<std::string> p = {}) {
        try {
            compose_config_text("mariana", overlays, p);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    auto levels = [](int n) {
        std::string y = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
        for (int i = 1; i < n; ++i) {
            y += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
            for (int k = 0; k < 10; ++k) y += (k ? ", *a" : "*a") + std::to_string(i - 1);
            y += "]\n";
        }
        return y;
    };
    const std::string bomb = levels(9);
    EXPECT_LT(bomb.size(), 520u);
    EXPECT_EQ(error({{"bomb.yaml", bomb}}).rfind("bomb.yaml: more than 100000 values once its aliases are expanded", 0), 0u) << error({{"bomb.yaml", bomb}});
    // -p: seven levels in one value.
    std::string v = "[&b0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]";
    for (int i = 1; i < 7; ++i) {
        v += ", &b" + std::to_string(i) + " [";
        for (int k = 0; k < 10; ++k) v += (k ? ", *b" : "*b") + std::to_string(i - 1);
        v += "]";
    }
    v += "]";
    EXPECT_EQ(error({}, {"act.opcodes=" + v}).rfind("-p act.opcodes=" + v + ": more than 100000 values", 0), 0u) << error({}, {"act.opcodes=" + v});
    // A few aliases are fine (they are checked like any value), and nesting is bounded.
    EXPECT_EQ(error({{"ok.yaml", "act: {lanes: &l 7}\ngpsimd: {cores: *l}\n"}}).find("alias"), std::string::npos);
    const std::string deep = "act:\n  opcodes: " + std::string(40, '[') + std::string(40, ']') + "\n";
    EXPECT_NE(error({{"deep.yaml", deep}}).find("deep.yaml:2: act.opcodes[0]"), std::string::npos) << error({{"deep.yaml", deep}});
    EXPECT_NE(error({{"deep.yaml", deep}}).find("nested more than 32 levels deep"), std::string::npos);
}

TEST(Config, DmaQueuesOfTheEnginesAreChecked) {
    // Every queue a DMA is sent to exists on the engines.
    for (const std::string key : {"act.table_load_dma_queue", "act.hwdge_queue", "gpsimd.swdge_queue"}) {
        try {
            compose_config_text("mariana", {}, {key + "=16"});
            ADD_FAILURE() << key << " 16 accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("dma.queues_per_engine"), std::string::npos) << e.what();
        }
    }
    EXPECT_NO_THROW(compose_config_text("mariana", {}, {"act.table_load_dma_queue=16", "dma.queues_per_engine=17"}));
}

// One table declares every field: the written config.yaml holds exactly the table's keys, in
// its order, and configs/README.md shows the table generated from it.
TEST(Config, FieldTableDrivesYamlAndReadme) {
    const std::string y = config_to_yaml(parse_config(builtin_config_text("maverick"), "m"));
    size_t at = 0;
    for (const ConfigFieldInfo& f : config_fields()) {
        const std::string leaf = f.key.substr(f.key.rfind('.') + 1) + ":";
        const size_t next = y.find(leaf, at);
        ASSERT_NE(next, std::string::npos) << f.key << " missing or out of order in\n" << y;
        at = next;
    }
    const std::string readme = read_file(std::string(NEURONSIM_SOURCE_DIR) + "/configs/README.md");
    const std::string begin = "<!-- config-fields:begin (generated: neuronsim config fields) -->\n", end = "<!-- config-fields:end -->";
    const size_t b = readme.find(begin), e = readme.find(end);
    ASSERT_NE(b, std::string::npos);
    ASSERT_NE(e, std::string::npos);
    EXPECT_EQ(readme.substr(b + begin.size(), e - b - begin.size()), config_fields_markdown())
        << "configs/README.md's field table differs from the field table: regenerate it with `neuronsim config fields`";
}

}  // namespace
}  // namespace neuronsim::test
