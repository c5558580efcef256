// Layers of YAML (config/config_layers.h): maps merge key by key, scalars and lists replace,
// and an error blames the layer (and line) that last set the value, or for a relation the
// latest layer among the fields involved.
#include "config/config_layers.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "model/common/error.h"
#include "tests/support/error_of.h"

namespace neuronsim::config {
namespace {

using test::error_of;

ConfigLayers three_layers() {
    ConfigLayers l;
    l.add_document("act:\n  clock_ghz: 1.4\n  opcodes: [1, 2]\ndma:\n  engines: 16\n", "base.yaml");
    l.add_document("# an overlay\nact:\n  opcodes: [7]\n", "over.yaml");
    l.add_override("dma.engines=8");
    return l;
}

TEST(ConfigLayers, MapsMergeAndValuesReplace) {
    const ConfigLayers l = three_layers();
    EXPECT_EQ(l.at("act.clock_ghz").as<double>(), 1.4) << "kept from the base";
    ASSERT_EQ(l.at("act.opcodes").size(), 1u) << "a list replaces, it does not append";
    EXPECT_EQ(l.at("act.opcodes")[0].as<int>(), 7);
    EXPECT_EQ(l.at("dma.engines").as<int>(), 8);
    EXPECT_FALSE(l.at("act.nothing"));
    EXPECT_FALSE(l.at("act.clock_ghz.deeper")) << "looking below a scalar finds nothing";
    EXPECT_FALSE(l.root()["act"]["nothing"].IsDefined()) << "looking must not create keys";
    EXPECT_EQ(l.description(), "base.yaml + over.yaml + -p dma.engines=8");
}

TEST(ConfigLayers, ErrorsBlameTheLayerAndLineThatSetTheValue) {
    const ConfigLayers l = three_layers();
    EXPECT_EQ(error_of([&] { l.fail("act.clock_ghz", "too fast"); }), "base.yaml:2: act.clock_ghz: too fast");
    EXPECT_EQ(error_of([&] { l.fail("act.opcodes[0]", "unknown"); }), "over.yaml:3: act.opcodes[0]: unknown");
    EXPECT_EQ(error_of([&] { l.fail("dma.engines", "odd"); }), "-p dma.engines=8: dma.engines: odd");
    EXPECT_EQ(error_of([&] { l.fail("dma.missing", "required"); }).rfind("base.yaml", 0), 0u) << "the closest enclosing key's layer";
    // A relation: the latest layer among the fields is blamed.
    EXPECT_EQ(error_of([&] { l.fail_relation("act.clock_ghz", {"dma.engines"}, "do not fit"); }), "-p dma.engines=8: act.clock_ghz: do not fit");
}

TEST(ConfigLayers, BadLayersAreRefusedWithTheirName) {
    ConfigLayers l;
    EXPECT_NE(error_of([&] { l.add_document("act: [1,\n", "broken.yaml"); }).find("broken.yaml:"), std::string::npos);
    EXPECT_NE(error_of([&] { l.add_document("", "empty.yaml"); }).find("empty.yaml: empty configuration"), std::string::npos);
    EXPECT_NE(error_of([&] { l.add_document("- 1\n", "list.yaml"); }).find("list.yaml: expected a mapping"), std::string::npos);
    EXPECT_NE(error_of([&] { l.add_document("act: {a: 1}\nact: {b: 2}\n", "dup.yaml"); }).find("dup.yaml"), std::string::npos);
    ConfigLayers ok = three_layers();
    EXPECT_NE(error_of([&] { ok.add_override("noequals"); }).find("-p noequals: expected dotted.key=value"), std::string::npos);
    EXPECT_NE(error_of([&] { ok.add_override("act..clock=1"); }).find("empty key component"), std::string::npos);
    EXPECT_NE(error_of([&] { ok.add_override("act.clock_ghz.x=1"); }).find("act.clock_ghz is not a mapping in base.yaml"), std::string::npos);
    EXPECT_NE(error_of([&] { ok.add_override("act.clock_ghz=[1"); }).find("value is not valid YAML"), std::string::npos);
}

}  // namespace
}  // namespace neuronsim::config
