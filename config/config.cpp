#include "neuronsim/config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "config/builtin_configs.h"
#include "config/config_fields.h"
#include "config/config_layers.h"
#include "config/features.h"
#include "model/common/error.h"
#include "model/fp/dtype.h"
#include "model/io/json_path.h"

namespace neuronsim {

bool ActConfig::has_opcode(uint32_t op) const { return std::find(opcodes.begin(), opcodes.end(), op) != opcodes.end(); }

uint32_t ActConfig::rate(const std::string& dtype_name) const {
    auto it = elems_per_partition_cycle.find(dtype_name);
    return it != elems_per_partition_cycle.end() ? it->second : elems_per_partition_cycle.at("default");
}

// The presets compiled in from configs/*.yaml, ordered by their generation.nc_version (then
// name); read without validation, which itself needs this list.
const std::vector<std::string>& generation_names() {
    static const std::vector<std::string> n = [] {
        std::vector<std::pair<int, std::string>> v;
        for (const auto& [name, text] : config::builtin_configs()) {
            int version = 0;
            try {
                version = YAML::Load(text)["generation"]["nc_version"].as<int>();
            } catch (const YAML::Exception&) {  // (the preset's own validation reports it when it is used)
            }
            v.emplace_back(version, name);
        }
        std::sort(v.begin(), v.end());
        std::vector<std::string> names;
        for (const auto& e : v) names.push_back(e.second);
        return names;
    }();
    return n;
}

std::string default_generation() { return "mariana"; }

// The instance families a NeuronCore generation ships in, accepted by --gen for its codename
// (hardware-facts §I.1, public-figures: NC-v2 Trn1/Inf2, NC-v3 Trn2, NC-v4 Trn3).
const std::vector<std::pair<std::string, std::string>>& generation_aliases() {
    static const std::vector<std::pair<std::string, std::string>> a = {{"trn1", "sunda"}, {"inf2", "sunda"}, {"trn2", "cayman"}, {"trn3", "mariana"}};
    return a;
}

std::string canonical_generation(const std::string& generation) {
    std::string g = generation;
    std::transform(g.begin(), g.end(), g.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const auto& [alias, name] : generation_aliases())
        if (g == alias) return name;
    return g;
}

std::string builtin_config_text(const std::string& generation) {
    const std::string g = canonical_generation(generation);
    for (const auto& [name, text] : config::builtin_configs())
        if (name == g) return text;
    std::string aliases;
    for (const auto& [alias, name] : generation_aliases()) aliases += ", " + alias;
    throw Error("--gen " + generation + ": unknown generation; expected one of " + generation_list(false, ", ") + " or an instance family" + aliases);
}

namespace {

using config::config_field_table;
using config::ConfigField;
using config::ConfigLayers;

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
    return s;
}

// Every key of the tree must be a field or a section holding fields; a field's own children
// (maps of values) are checked by its reader.
void check_known_keys(const ConfigLayers& l, const YAML::Node& n, const std::string& path) {
    for (auto it = n.begin(); it != n.end(); ++it) {
        const std::string p = path.empty() ? it->first.Scalar() : path + "." + it->first.Scalar();
        bool field = false, section = false;
        for (const ConfigField& f : config_field_table()) {
            field |= f.info.key == p;
            section |= f.info.key.compare(0, p.size() + 1, p + ".") == 0;
        }
        if (field) continue;
        if (!section) l.fail(p, "unknown key");
        if (!it->second.IsMap()) l.fail(p, "expected a mapping");
        check_known_keys(l, it->second, p);
    }
}

Config build(const ConfigLayers& l) {
    Config c;
    c.source = l.description();
    check_known_keys(l, l.root(), "");
    for (const ConfigField& f : config_field_table()) {
        const YAML::Node v = l.at(f.info.key);
        if (!v) l.fail(f.info.key, "missing required key");
        f.read(c, v, l);
    }
    config::check_config_relations(c, l);
    return c;
}

std::string preset_name(const std::string& generation) { return "configs/" + lower(generation) + ".yaml (built in)"; }

}  // namespace

namespace {
std::string value_text(const ConfigField& f, const Config& c) {
    YAML::Emitter e;
    f.write(c, e);
    return e.c_str();
}
}  // namespace

// Each field's source says where the presets' values come from; a value MARIANA_PLUS or
// MAVERICK has only because it is MARIANA's (no public figure of their own) says so too,
// found by comparing the presets themselves.
const std::vector<ConfigFieldInfo>& config_fields() {
    static const std::vector<ConfigFieldInfo> info = [] {
        // MARIANA is the newest generation with public figures of its own; the later presets
        // start from its values.
        const Config base = parse_config(builtin_config_text("mariana"), "mariana");
        std::vector<std::pair<std::string, Config>> copies;
        for (const std::string& g : generation_names()) {
            Config c = parse_config(builtin_config_text(g), g);
            if (g != "mariana" && c.generation.nc_version >= base.generation.nc_version) copies.emplace_back(c.generation.name, std::move(c));
        }
        std::vector<ConfigFieldInfo> v;
        for (const ConfigField& f : config_field_table()) {
            ConfigFieldInfo i = f.info;
            v.push_back(i);
            if (i.key.rfind("generation.", 0) == 0) continue;  // what the generation is: its own, by its source
            std::string same;
            for (const auto& [name, c] : copies)
                if (value_text(f, c) == value_text(f, base)) same += (same.empty() ? "" : " and ") + name;
            if (!same.empty()) v.back().source += "; " + same + ": MARIANA's value, copied";
        }
        return v;
    }();
    return info;
}

// One table per component (its fields' first key), in the field table's order: what a
// component of the device is configured by, read in one place (as QBox's per-component tables).
std::string config_fields_markdown() {
    auto cell = [](std::string s) {
        for (size_t at = 0; (at = s.find('|', at)) != std::string::npos; at += 2) s.replace(at, 1, "\\|");
        return s;
    };
    static const std::map<std::string, std::string> kComponents = {
        {"generation", "the generation: its name and NeuronCore version (what gates features)"},
        {"memory", "the core's memories: partitions, SBUF, PSUM and DRAM"},
        {"act", "the Activation engine (ScalarE): clock, rates, pipeline stages, table memory and table loads"},
        {"gpsimd", "the GpSimd engine (POOL): clock, firmware dispatch, the CPTC decode kernels"},
        {"vector", "the Vector engine (VectorE, DVE): clock, pipeline stages, performance modes"},
        {"tensor", "the Tensor engine (TensorE, PE): clock, initiation interval, dtype rates, PSUM banks"},
        {"dma", "the DMA engines and queues"},
        {"sync", "semaphores and the Sync engine that sequences the DMA queue streams"},
        {"run", "the run's limits and budgets, and the host threads"},
        {"device", "the TLM device's instruction fetch"},
    };
    std::string md, section;
    for (const ConfigFieldInfo& f : config_fields()) {
        const std::string top = f.key.substr(0, f.key.find('.'));
        if (top != section) {
            section = top;
            auto it = kComponents.find(top);
            md += std::string(md.empty() ? "" : "\n") + "### " + top + (it != kComponents.end() ? ": " + it->second : "") + "\n\n";
            md += "| field | type | unit | accepted values | meaning | presets and source |\n|---|---|---|---|---|---|\n";
        }
        md += "| " + f.key + " | " + cell(f.type) + " | " + cell(f.unit) + " | " + cell(f.range) + " | " + cell(f.meaning) + " | " + cell(f.source) + " |\n";
    }
    return md;
}

Config parse_config(const std::string& yaml_text, const std::string& source, const std::vector<std::string>& overrides) {
    ConfigLayers l;
    l.add_document(yaml_text, source);
    for (const std::string& ov : overrides) l.add_override(ov);
    return build(l);
}

Config load_config(const std::string& path, const std::vector<std::string>& overrides) {
    return parse_config(model::io::read_text_file(path), path, overrides);
}

Config compose_config_text(const std::string& generation, const std::vector<std::pair<std::string, std::string>>& overlays,
                           const std::vector<std::string>& overrides) {
    ConfigLayers l;
    std::string gen = generation;
    if (gen.empty() && !overlays.empty()) {
        // A complete config file given alone names its generation: its preset is the base.
        ConfigLayers first;
        first.add_document(overlays.front().second, overlays.front().first);
        const YAML::Node n = first.at("generation.name");
        if (n && n.IsScalar()) {
            gen = lower(n.Scalar());
            if (std::find(generation_names().begin(), generation_names().end(), gen) == generation_names().end())
                first.fail("generation.name", "expected " + generation_list(true) + ", got \"" + n.Scalar() + "\"");
        }
    }
    if (gen.empty()) gen = default_generation();
    gen = canonical_generation(gen);
    l.add_document(builtin_config_text(gen), preset_name(gen));
    const std::string name = l.at("generation.name").Scalar();
    for (const auto& [overlay, text] : overlays) l.add_document(text, overlay);
    for (const std::string& ov : overrides) l.add_override(ov);
    Config c = build(l);
    if (c.generation.name != name)
        l.fail("generation.name",
               c.generation.name + " differs from the preset's " + name + ": a layer changes fields of a generation, not which one (choose it with --gen)");
    return c;
}

Config compose_config(const std::string& generation, const std::vector<std::string>& overlay_paths, const std::vector<std::string>& overrides) {
    std::vector<std::pair<std::string, std::string>> overlays;
    for (const std::string& p : overlay_paths) overlays.emplace_back(p, model::io::read_text_file(p));
    return compose_config_text(generation, overlays, overrides);
}

std::string config_to_yaml(const Config& c) {
    // Sections open and close as the table's dotted keys go (a section's fields are adjacent).
    YAML::Emitter e;
    e << YAML::BeginMap;
    std::vector<std::string> open;
    for (const ConfigField& f : config_field_table()) {
        std::vector<std::string> parts;
        std::stringstream ss(f.info.key);
        for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
        size_t common = 0;
        while (common < open.size() && common + 1 < parts.size() && open[common] == parts[common]) ++common;
        while (open.size() > common) {
            e << YAML::EndMap;
            open.pop_back();
        }
        for (size_t i = common; i + 1 < parts.size(); ++i) {
            e << YAML::Key << parts[i] << YAML::Value << YAML::BeginMap;
            open.push_back(parts[i]);
        }
        e << YAML::Key << parts.back() << YAML::Value;
        f.write(c, e);
    }
    while (!open.empty()) {
        e << YAML::EndMap;
        open.pop_back();
    }
    e << YAML::EndMap;
    return std::string(e.c_str()) + "\n";
}

}  // namespace neuronsim
