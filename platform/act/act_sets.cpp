// build_act_set_region (include/neuronsim/act_sets.h): a pwp_bin_* directory's sets as the
// DRAM region LoadActFuncSet reads.
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

#include "model/common/error.h"
#include "model/io/json_path.h"
#include "model/pwp/catalog_writer.h"
#include "model/pwp/roster.h"
#include "model/pwp/table_image.h"
#include "neuronsim/act_sets.h"
#include "platform/act/act_set_region.h"

namespace neuronsim {

namespace {
uint64_t align_down(uint64_t v) { return v & ~uint64_t{4095}; }
uint64_t align_up(uint64_t v) { return (v + 4095) & ~uint64_t{4095}; }
}  // namespace

namespace {

ActSetRegion build_region(const Config& cfg, const std::string& dir, uint64_t top) {
    const std::string act_info = dir + "/act_info.json";
    const auto roster = model::pwp::parse_act_info(model::io::read_text_file(act_info), act_info);
    const ActTablesConfig& t = cfg.act.tables;
    const model::pwp::TableGeometry geo = model::pwp::table_geometry(t);
    struct Set {
        model::pwp::SetImage image;
        std::string names;  // "SET\0F0\0F1\0..." or the reason it cannot be loaded
        bool loadable = true;
        std::vector<ActSetFunction> functions;
    };
    std::vector<Set> sets;
    uint64_t images = 0, names = 0;
    for (const auto& rs : roster) {
        Set s;
        const model::pwp::PackedSet set = model::pwp::read_set(dir + "/" + rs.name + ".json");
        s.names = rs.name + '\0';
        for (const auto& f : set.manifest.profile_meta_data) {
            s.names += f.bare_name() + '\0';
            s.functions.push_back({f.bare_name(), static_cast<uint32_t>(f.func_id)});
        }
        try {
            s.image = model::pwp::build_set_image(set, geo);
        } catch (const Error& e) {
            s.loadable = false;
            s.names = std::string(e.what()) + '\0';
        }
        if (s.names.size() > kActSetNamesMaxBytes)
            throw Error(dir + "/" + rs.name + ".json: the set's names take more than " + std::to_string(kActSetNamesMaxBytes) + " bytes");
        images += align_up(s.image.bytes());
        names += s.names.size();
        sets.push_back(std::move(s));
    }
    const uint64_t directory = sets.size() * sizeof(ActSetEntry);
    if (align_up(images) + align_up(directory + names) + 4096 > top)
        throw Error("the function sets of " + dir + " (" + std::to_string(images + directory + names) + " bytes) do not fit below DRAM address " +
                    std::to_string(top));
    // The images at the top (each 4 KiB aligned), the directory and the names below them.
    const uint64_t image_base = align_down(top - images);
    ActSetRegion r;
    r.base = align_down(image_base - directory - names);
    r.count = static_cast<uint32_t>(sets.size());
    r.bytes.assign(top - r.base, 0);
    uint64_t image_at = image_base, names_at = r.base + directory;
    for (size_t i = 0; i < sets.size(); ++i) {
        const Set& s = sets[i];
        ActSetEntry e;
        e.image_addr = image_at;
        e.cam_bytes = static_cast<uint32_t>(s.image.cam.size());
        e.profile_bytes = static_cast<uint32_t>(s.image.profile.size());
        e.control_bytes = static_cast<uint32_t>(s.image.control.size());
        e.bucket_bytes = static_cast<uint32_t>(s.image.bucket.size());
        e.control_words = s.image.ctrl_words;
        e.flags = s.loadable ? 0 : kActSetUnloadable;
        e.names_addr = names_at;
        e.names_bytes = static_cast<uint32_t>(s.names.size());
        std::memcpy(r.bytes.data() + i * sizeof e, &e, sizeof e);
        std::memcpy(r.bytes.data() + (names_at - r.base), s.names.data(), s.names.size());
        names_at += s.names.size();
        uint64_t at = image_at - r.base;
        for (const auto* part : {&s.image.cam, &s.image.profile, &s.image.control, &s.image.bucket}) {
            if (!part->empty()) std::memcpy(r.bytes.data() + at, part->data(), part->size());
            at += part->size();
        }
        image_at += align_up(s.image.bytes());
        r.names.push_back(s.loadable ? s.names.substr(0, s.names.find('\0')) : roster[i].name);
        r.sets.push_back({roster[i].name, s.loadable, s.functions});
    }
    return r;
}

}  // namespace

}  // namespace neuronsim

namespace neuronsim::platform {

std::shared_ptr<const ActSetRegion> shared_act_set_region(const Config& cfg, const std::string& pwp_dir, uint64_t top) {
    if (!pwp_dir.empty()) return std::make_shared<const ActSetRegion>(build_region(cfg, pwp_dir, top));
    const std::string dir = model::pwp::default_catalog_dir() + "/pwp_bin_trainium";
    const model::pwp::TableGeometry g = model::pwp::table_geometry(cfg.act.tables);
    const auto key = std::make_tuple(dir, top, g.cam_entries, g.profile_slots, g.control_entries, g.control_stride, g.bucket_entries);
    static std::mutex mutex;
    static std::map<decltype(key), std::shared_ptr<const ActSetRegion>> built;
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (auto it = built.find(key); it != built.end()) return it->second;
    }
    auto r = std::make_shared<const ActSetRegion>(build_region(cfg, dir, top));
    std::lock_guard<std::mutex> lock(mutex);
    return built.emplace(key, std::move(r)).first->second;
}

}  // namespace neuronsim::platform

namespace neuronsim {

// The built-in catalog is installed with the build and never changes under it: its region is
// built once per table geometry and top in a process (a sweep's warmed worker, a VP's cores).
ActSetRegion build_act_set_region(const Config& cfg, const std::string& pwp_dir, uint64_t top) { return *platform::shared_act_set_region(cfg, pwp_dir, top); }

namespace {
std::string listed(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}
std::vector<std::string> function_names(const ActSetRegion& region) {
    std::vector<std::string> names;
    for (const ActSetInfo& s : region.sets)
        for (const ActSetFunction& f : s.functions)
            if (std::find(names.begin(), names.end(), f.name) == names.end()) names.push_back(f.name);
    return names;
}
}  // namespace

uint32_t act_set_index(const ActSetRegion& region, const std::string& set) {
    for (size_t i = 0; i < region.sets.size(); ++i)
        if (region.sets[i].name == set) return static_cast<uint32_t>(i);
    std::vector<std::string> names;
    for (const ActSetInfo& s : region.sets) names.push_back(s.name);
    throw Error("\"" + set + "\" is not a function set of this directory; it has " + listed(names));
}

uint32_t act_func_id(const ActSetRegion& region, const std::string& func) {
    for (const ActSetInfo& s : region.sets)
        for (const ActSetFunction& f : s.functions)
            if (f.name == func) return f.func_id;
    throw Error("\"" + func + "\" is in no function set of this directory; the functions are " + listed(function_names(region)));
}

uint32_t act_set_holding(const ActSetRegion& region, const std::string& func) {
    for (size_t i = 0; i < region.sets.size(); ++i)
        if (region.sets[i].loadable)
            for (const ActSetFunction& f : region.sets[i].functions)
                if (f.name == func) return static_cast<uint32_t>(i);
    throw Error("\"" + func + "\" is in no loadable function set of this directory; the functions are " + listed(function_names(region)));
}

}  // namespace neuronsim
