#pragma once
// The one table of configuration fields: each entry's key, type, unit, range, meaning and
// source (what configs/README.md shows), how it is read and validated from the layered YAML,
// and how it is written into config.yaml. A field is declared here and nowhere else.
#include <functional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/config_layers.h"
#include "neuronsim/config.h"

namespace neuronsim::config {

struct ConfigField {
    ConfigFieldInfo info;
    // Reads the field's node (present) into the Config; errors go through layers.fail(key...).
    std::function<void(Config&, const YAML::Node&, const ConfigLayers&)> read;
    std::function<void(const Config&, YAML::Emitter&)> write;  // the value only
};

const std::vector<ConfigField>& config_field_table();

// Checks relations between fields once all are read (errors name the fields involved).
void check_config_relations(const Config& c, const ConfigLayers& layers);

}  // namespace neuronsim::config
