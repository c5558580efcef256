// The YAML configuration: a preset with a fuzzed overlay and fuzzed -p overrides, and the
// fuzzed text as a complete config. Bad input must end in neuronsim::Error naming the layer
// and place; a configuration that loads must write a config.yaml that loads to itself.
#include <sstream>

#include "neuronsim/config.h"
#include "tests/fuzz/fuzz_support.h"

using namespace neuronsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::vector<std::string> parts = fuzz::split_parts(data, size, 2);
    std::vector<std::string> overrides;
    std::istringstream in(parts[1]);
    for (std::string line; std::getline(in, line);) overrides.push_back(line);
    fuzz::expect_ok_or_error([&] {
        const Config c = compose_config_text("mariana", {{"overlay.yaml", parts[0]}}, overrides);
        const std::string y = config_to_yaml(c);
        if (config_to_yaml(parse_config(y, "config.yaml")) != y) fuzz::fuzz_fail("config.yaml does not load to itself:\n" + y);
    });
    fuzz::expect_ok_or_error([&] { parse_config(parts[0], "full.yaml", overrides); });
    return 0;
}
