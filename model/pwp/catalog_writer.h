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

// The built-in catalog is generated at build time (`neuronsim pwp catalog --out DIR --stamp`)
// into BUILD/share/neuronsim/catalog and installed as PREFIX/share/neuronsim/catalog. A stamp
// file named after a hash of the generator's sources marks it as this build's.
inline constexpr const char* kCatalogInstallDir = "share/neuronsim/catalog";
inline constexpr const char* kCatalogStampPrefix = "catalog-";
const char* catalog_hash();
// Marks DIR, a whole catalog write_catalog wrote, as this build's built-in catalog.
void stamp_built_in_catalog(const std::string& dir);
// True when DIR holds the catalog of this build (its stamp and its sets).
bool is_built_in_catalog(const std::string& dir);

// Where the built-in catalog is: $NEURONSIM_CATALOG if set, else share/neuronsim/catalog beside
// the binary that holds this code (the installed library or CLI, or a program of the build
// tree), found by walking up to four directories from it, so a moved install still finds its
// own. Reads only: nothing is generated or written at run time. Throws naming where it looked.
std::string default_catalog_dir();

// Lists a set packed from `member_stems` (exp_400p, ...) in DIR/act_info.json, added after the
// sets already there or replacing the one of its name, and writes DIR/version.json when absent:
// DIR is then a pwp_bin_* directory `run --pwp` loads. The set's index is its position there.
void list_set_in_act_info(const std::string& set_name, const std::vector<std::string>& member_stems, const std::string& dir);

// A packed set's manifest: "path/to/SET.json" (or any path with a '/') as is; a bare name
// ("exp_and_others") is the built-in catalog's pwp_bin_<target>/<name>.json. An unknown name
// is an error listing the target's sets.
std::string resolve_set(const std::string& set, const std::string& target);

}  // namespace neuronsim::model::pwp
