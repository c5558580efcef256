#include "model/pwp/catalog_writer.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "model/common/error.h"
#include "model/pwp/catalog.h"
#include "model/pwp/generator.h"
#include "model/pwp/packer.h"
#include "model/pwp/profile_writer.h"
#include "model/pwp/roster.h"

namespace neuronsim::model::pwp {

namespace fs = std::filesystem;

#include "model/pwp/catalog_hash.h"

CatalogReport write_catalog(const std::string& out_dir, const std::vector<std::string>& only) {
    CatalogReport rep;
    const std::set<std::string> wanted(only.begin(), only.end());
    for (const std::string& w : wanted) {
        bool known = false;
        for (const CatalogFn& fn : catalog()) known |= fn.name == w || fn.file_name() == w + ".json";
        if (!known) throw Error("--func " + w + ": not a catalog function (see 'neuronsim pwp accuracy' for the list)");
    }
    fs::create_directories(out_dir + "/pwp_jsons");
    std::map<std::string, Profile> profiles;  // by stem
    for (const CatalogFn& fn : catalog()) {
        const std::string stem = fn.file_name().substr(0, fn.file_name().size() - 5);
        if (!wanted.empty() && !wanted.count(fn.name) && !wanted.count(stem)) continue;
        Profile p = generate_profile(fn);
        write_profile(p, out_dir + "/pwp_jsons/" + fn.file_name());
        rep.profiles.push_back(stem);
        profiles.emplace(stem, std::move(p));
    }
    for (Target t : {Target::Trainium, Target::WithLn}) {
        const std::string dir = out_dir + "/pwp_bin_" + target_name(t);
        fs::create_directories(dir);
        const auto& roster = builtin_roster(t);
        write_text(dir + "/act_info.json", act_info_to_json(roster).dump(2) + "\n");
        write_text(dir + "/version.json", "{\"KaenaPWP\": {\"brazil_version\": \"\", \"git_sha\": \"\"}}\n");
        for (const RosterSet& rs : roster) {
            std::vector<SetMember> members;
            for (const auto& [name, budget] : rs.act) {
                auto it = profiles.find(name + "_" + std::to_string(budget) + "p");
                if (it == profiles.end()) break;
                members.push_back({it->first, it->second});
            }
            if (members.size() != rs.act.size()) {
                rep.skipped_sets.push_back(target_name(t) + "/" + rs.name);
                continue;
            }
            write_set(pack_set(t, rs.name, members), dir);
            rep.sets.push_back(target_name(t) + "/" + rs.name);
        }
    }
    return rep;
}

std::string default_catalog_dir() {
    std::string base;
    if (const char* c = std::getenv("NEURONSIM_CACHE"); c && *c) base = c;
    else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) base = std::string(x) + "/neuronsim";
    else if (const char* h = std::getenv("HOME"); h && *h) base = std::string(h) + "/.cache/neuronsim";
    else base = (fs::temp_directory_path() / "neuronsim-cache").string();
    const std::string dir = base + "/catalog-" + NEURONSIM_CATALOG_HASH;
    if (fs::exists(dir + "/pwp_bin_with_ln/act_info.json")) return dir;
    // Generate beside the final place, then rename, so a concurrent or interrupted run never
    // leaves a half-written catalog behind.
    std::error_code ec;
    fs::create_directories(base, ec);
    if (ec) throw Error(base + ": cannot create the catalog cache directory: " + ec.message());
    const std::string tmp = dir + ".tmp-" + std::to_string(static_cast<long>(::getpid()));
    fs::remove_all(tmp, ec);
    spdlog::info("generating the built-in PWP catalog into {}", dir);
    write_catalog(tmp);
    fs::rename(tmp, dir, ec);
    if (ec) {
        fs::remove_all(tmp, ec);
        if (!fs::exists(dir + "/pwp_bin_with_ln/act_info.json")) throw Error(dir + ": cannot install the generated catalog");
    }
    return dir;
}

}  // namespace neuronsim::model::pwp
