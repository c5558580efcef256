#pragma once
// Writes the generated catalog in the vendor's layout:
//   DIR/pwp_jsons/<func>_<N>p.json            every catalog function
//   DIR/pwp_bin_trainium/{act_info.json, version.json, <set>_bkt.bin, <set>_ctrl.bin, <set>.json}
//   DIR/pwp_bin_with_ln/...                    the same for the with_ln roster
#include <string>
#include <vector>

namespace neuronsim::model::pwp {

struct CatalogReport {
    std::vector<std::string> profiles;  // stems written
    std::vector<std::string> sets;  // "<target>/<set>" written
    std::vector<std::string> skipped_sets;  // sets with a member that was not generated
};

// `only`: bare names or stems to generate (empty: all). Sets need all their members.
CatalogReport write_catalog(const std::string& out_dir, const std::vector<std::string>& only = {});

// The built-in default catalog: generated once into a cache directory ($NEURONSIM_CACHE, else
// $XDG_CACHE_HOME/neuronsim, else ~/.cache/neuronsim) under a hash of the generator's
// sources, and reused; returns its path.
std::string default_catalog_dir();

}  // namespace neuronsim::model::pwp
