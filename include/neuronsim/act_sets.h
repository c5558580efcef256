#pragma once
// neuronsim's public API: the activation function sets in DRAM, where LoadActFuncSet finds
// them. A host places a region (a directory of ActSetEntry records, each set's table images
// and names) in its DRAM and programs ACT_SETS_BASE / ACT_SETS_COUNT (registers.h);
// `load_act_func_set set=K` then DMAs entry K's images into the ACT table memory.
// Standard C++ only.
#include <cstdint>
#include <string>
#include <vector>

#include "neuronsim/config.h"

namespace neuronsim {

// One directory entry, 64 bytes, little-endian.
struct ActSetEntry {
    uint64_t image_addr = 0;  // DRAM: the CAM, PROFILE, CONTROL and BUCKET images, back to back
    uint32_t cam_bytes = 0, profile_bytes = 0, control_bytes = 0, bucket_bytes = 0;
    uint32_t control_words = 0;  // CONTROL words the set uses
    uint32_t flags = 0;  // kActSetUnloadable: names holds why the set cannot be loaded
    uint64_t names_addr = 0;  // DRAM: "SET\0FUNC0\0FUNC1\0..." (bare names by PROFILE slot)
    uint32_t names_bytes = 0;
    uint8_t reserved[20] = {};
};
static_assert(sizeof(ActSetEntry) == 64, "ActSetEntry is 64 bytes");
inline constexpr uint32_t kActSetUnloadable = 1;
inline constexpr uint32_t kActSetNamesMaxBytes = 65536;

// A function of a set: its bare name ("gelu", "exp") and the func_id an Activate's `func`
// operand takes for it (the target's silicon id: sunda_id for trainium sets).
struct ActSetFunction {
    std::string name;
    uint32_t func_id = 0;
};
// What the set at a directory index holds.
struct ActSetInfo {
    std::string name;  // "gelu_and_others"
    bool loadable = true;  // false: too large for the core's tables (the names area says why)
    std::vector<ActSetFunction> functions;  // by PROFILE slot
};

// A region ready to copy into DRAM at `base`: the directory first, then names and images.
struct ActSetRegion {
    uint64_t base = 0;
    uint32_t count = 0;  // sets in the directory
    std::vector<uint8_t> bytes;
    std::vector<std::string> names;  // set names, by index
    std::vector<ActSetInfo> sets;  // by index
};

// The sets of a pwp_bin_* directory (ours or the vendor's; "" = the built-in catalog's
// trainium sets), laid out for the table geometry of `cfg`. The region ends at or below
// `top` (4 KiB aligned); a set too large for the tables is listed as unloadable with the reason.
// Throws std::runtime_error naming the file on unreadable sets.
ActSetRegion build_act_set_region(const Config& cfg, const std::string& pwp_dir, uint64_t top);

// Names instead of numbers, for the sets of a region (so for its configured target):
// `load_act_func_set set=K` takes act_set_index(region, "gelu_and_others") or
// act_set_holding(region, "gelu") (the first loadable set with the function), and
// `activate func=F` takes act_func_id(region, "gelu") (23 on trainium). Each throws
// std::runtime_error listing the names the region has.
uint32_t act_set_index(const ActSetRegion& region, const std::string& set);
uint32_t act_func_id(const ActSetRegion& region, const std::string& func);
uint32_t act_set_holding(const ActSetRegion& region, const std::string& func);

}  // namespace neuronsim
