#include "model/pwp/catalog_writer.h"

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <map>
#include <set>

#include "model/common/error.h"
#include "model/io/json_path.h"
#include "model/pwp/catalog.h"
#include "model/pwp/generator.h"
#include "model/pwp/manifest.h"
#include "model/pwp/packer.h"
#include "model/pwp/profile_writer.h"
#include "model/pwp/roster.h"

namespace neuronsim::model::pwp {

namespace fs = std::filesystem;

// version.json as the vendor's directories carry it; neuronsim reads none of its values.
const char* const kVersionJson = "{\"KaenaPWP\": {\"brazil_version\": \"\", \"git_sha\": \"\"}}\n";

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
        write_text(dir + "/version.json", kVersionJson);
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

const char* catalog_hash() { return NEURONSIM_CATALOG_HASH; }

void stamp_built_in_catalog(const std::string& dir) {
    write_text(dir + "/" + kCatalogStampPrefix + NEURONSIM_CATALOG_HASH,
               std::string("neuronsim's built-in PWP catalog; the hash of its generator's sources is ") + NEURONSIM_CATALOG_HASH + "\n");
}

bool is_built_in_catalog(const std::string& dir) {
    std::error_code ec;
    if (!fs::exists(dir + "/pwp_bin_with_ln/act_info.json", ec)) return false;
    return fs::exists(dir + "/" + kCatalogStampPrefix + NEURONSIM_CATALOG_HASH, ec);
}

std::string default_catalog_dir() {
    if (const char* c = std::getenv("NEURONSIM_CATALOG"); c && *c) {
        if (!is_built_in_catalog(c))
            throw Error(std::string("NEURONSIM_CATALOG=") + c + ": not a built-in catalog of this build (expected " + kCatalogStampPrefix +
                        NEURONSIM_CATALOG_HASH + " and pwp_bin_with_ln/act_info.json in it; 'neuronsim pwp catalog --out DIR' writes one)");
        return c;
    }
    // The binary holding this code: the installed library or CLI (PREFIX/lib, PREFIX/bin), or a
    // program of the build tree (BUILD/apps, BUILD/tests/platform/act, ...).
    Dl_info info{};
    if (!::dladdr(reinterpret_cast<void*>(&default_catalog_dir), &info) || !info.dli_fname)
        throw Error("the built-in PWP catalog: cannot tell which file this program was loaded from (set NEURONSIM_CATALOG)");
    std::error_code ec;
    fs::path at = fs::weakly_canonical(fs::path(info.dli_fname), ec).parent_path();
    std::string looked;
    for (int up = 0; up < 5 && !at.empty(); ++up, at = at.parent_path()) {
        const std::string dir = (at / kCatalogInstallDir).string();
        if (is_built_in_catalog(dir)) return dir;
        looked += (looked.empty() ? "" : ", ") + dir;
        if (at == at.root_path()) break;
    }
    throw Error(std::string("the built-in PWP catalog (") + kCatalogInstallDir + " with " + kCatalogStampPrefix + NEURONSIM_CATALOG_HASH +
                ") is not installed beside " + info.dli_fname + ": looked in " + looked +
                "; reinstall neuronsim, or set NEURONSIM_CATALOG to a directory 'neuronsim pwp catalog --out DIR' wrote");
}

void list_set_in_act_info(const std::string& set_name, const std::vector<std::string>& member_stems, const std::string& dir) {
    RosterSet entry{set_name, {}};
    for (const std::string& stem : member_stems) {
        const std::string bare = strip_budget(stem);
        int budget = 1;
        if (bare != stem) {
            try {
                budget = std::stoi(stem.substr(bare.size() + 1));
            } catch (const std::exception&) {
                throw Error("member " + stem + ": its budget (_<N>p) is not a number act_info.json can hold");
            }
        }
        entry.act.emplace_back(bare, budget);
    }
    const std::string path = dir + "/act_info.json";
    std::vector<RosterSet> roster;
    std::error_code ec;
    if (fs::exists(path, ec)) roster = parse_act_info(io::read_text_file(path, io::kMaxJsonFileBytes, "act_info.json"), path);
    auto at = std::find_if(roster.begin(), roster.end(), [&](const RosterSet& r) { return r.name == set_name; });
    if (at != roster.end()) *at = std::move(entry);
    else roster.push_back(std::move(entry));
    write_text(path, act_info_to_json(roster).dump(2) + "\n");
    if (!fs::exists(dir + "/version.json", ec)) write_text(dir + "/version.json", kVersionJson);
}

std::string resolve_set(const std::string& set, const std::string& target) {
    if (set.find('/') != std::string::npos || (set.size() > 5 && set.compare(set.size() - 5, 5, ".json") == 0)) return set;
    const Target t = parse_target(target);
    const std::string dir = default_catalog_dir() + "/pwp_bin_" + target_name(t);
    const std::string path = dir + "/" + set + ".json";
    std::error_code ec;
    if (fs::exists(path, ec)) return path;
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string f = e.path().filename().string();
        if (f.size() > 5 && f.compare(f.size() - 5, 5, ".json") == 0 && f != "act_info.json" && f != "version.json") names.push_back(f.substr(0, f.size() - 5));
    }
    std::sort(names.begin(), names.end());
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    throw Error("set '" + set + "': no such set in the built-in " + target_name(t) + " catalog (its sets: " + list + ")");
}

}  // namespace neuronsim::model::pwp
