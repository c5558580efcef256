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

// A region ready to copy into DRAM at `base`: the directory first, then names and images.
struct ActSetRegion {
    uint64_t base = 0;
    uint32_t count = 0;  // sets in the directory
    std::vector<uint8_t> bytes;
    std::vector<std::string> names;  // set names, by index
};

// The sets of a pwp_bin_* directory (ours or the vendor's; "" = the built-in catalog's
// trainium sets), laid out for the table geometry of `cfg`. The region ends at or below
// `top` (4 KiB aligned); a set too large for the tables is listed as unloadable with the reason.
// Throws std::runtime_error naming the file on unreadable sets.
ActSetRegion build_act_set_region(const Config& cfg, const std::string& pwp_dir, uint64_t top);

}  // namespace neuronsim
