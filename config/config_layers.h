#pragma once
// A configuration built from layers of YAML (a preset, overlay files, -p overrides) merged
// into one tree that remembers which layer set each value, so that validation can blame the
// file (and line) or the -p argument that is wrong rather than the preset.
#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace neuronsim::config {

class ConfigLayers {
public:
    // A YAML document: its maps merge into the tree key by key; a scalar or list replaces what
    // was there. Duplicate keys and a root that is not a mapping are errors naming `name`.
    void add_document(const std::string& text, const std::string& name);
    // "dotted.key=value" (value is YAML) as a one-key layer named "-p dotted.key=value".
    void add_override(const std::string& assignment);

    const YAML::Node& root() const { return root_; }
    // The node at a dotted path (an undefined node when absent).
    YAML::Node at(const std::string& path) const;
    // "<layer>[:line]: <path>: <what>" as an Error; the layer is the one that last set `path`
    // or the closest enclosing key.
    [[noreturn]] void fail(const std::string& path, const std::string& what) const;
    // The same for a relation between fields: the layer blamed is the latest to set any of
    // `path` and `related`.
    [[noreturn]] void fail_relation(const std::string& path, const std::vector<std::string>& related, const std::string& what) const;
    // The names of the layers, in order ("configs/mariana.yaml (built in) + fast.yaml + -p ...").
    const std::string& description() const { return description_; }

private:
    struct Origin {
        std::string name;
        bool file = false;  // a document: its lines mean something
        unsigned layer = 0;  // 1 for the first layer, then in order
    };
    // `set_at`: the path whose node the layer set (its line is the one to show).
    [[noreturn]] void fail_at(const std::string& path, const std::string& set_at, const Origin& o, const std::string& what) const;
    void merge(YAML::Node into, const YAML::Node& from, const std::string& path, const Origin& o);
    void record(const std::string& path, const Origin& o);
    const Origin& origin(const std::string& path) const;

    YAML::Node root_{YAML::NodeType::Map};
    std::map<std::string, Origin> origins_;  // dotted path -> the layer that last set it
    std::string description_;
    unsigned layers_ = 0;
};

}  // namespace neuronsim::config
