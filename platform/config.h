#pragma once
// The configuration is public (include/neuronsim/config.h); platform code names it as before.
#include "neuronsim/config.h"

namespace neuronsim::platform {

using neuronsim::ActConfig;
using neuronsim::ActTablesConfig;
using neuronsim::builtin_config_text;
using neuronsim::compose_config;
using neuronsim::compose_config_text;
using neuronsim::Config;
using neuronsim::config_to_yaml;
using neuronsim::default_generation;
using neuronsim::DeviceConfig;
using neuronsim::DmaConfig;
using neuronsim::generation_names;
using neuronsim::GenerationConfig;
using neuronsim::GpsimdConfig;
using neuronsim::load_config;
using neuronsim::MemoryConfig;
using neuronsim::parse_config;
using neuronsim::RunConfig;
using neuronsim::SyncConfig;

}  // namespace neuronsim::platform
