#pragma once
// Where commands find packed sets: an explicit DIR/SET.json, or a set name resolved in the
// built-in generated catalog.
#include <string>

namespace neuronsim::apps {

// "path/to/SET.json" is returned as is; a bare name ("exp_and_others") resolves to the
// built-in catalog's pwp_bin_<target>/<name>.json, generating the catalog on first use.
std::string resolve_set(const std::string& set, const std::string& target);

}  // namespace neuronsim::apps
