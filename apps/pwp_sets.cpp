#include "apps/pwp_sets.h"

#include <filesystem>

#include "model/common/error.h"
#include "model/pwp/blob.h"
#include "model/pwp/catalog_writer.h"

namespace neuronsim::apps {

std::string resolve_set(const std::string& set, const std::string& target) {
    if (set.find('/') != std::string::npos || (set.size() > 5 && set.compare(set.size() - 5, 5, ".json") == 0)) return set;
    const model::pwp::Target t = model::pwp::parse_target(target);
    const std::string path = model::pwp::default_catalog_dir() + "/pwp_bin_" + model::pwp::target_name(t) + "/" + set + ".json";
    if (!std::filesystem::exists(path)) throw Error("--set " + set + ": no such set in the built-in " + target + " catalog (" + path + ")");
    return path;
}

}  // namespace neuronsim::apps
