#pragma once
// A function set as the ACT engine's four table memories hold it (hardware-facts §A.6):
//   CAM      cam_entries x 32 B   {opcode, func_id, rsvd[2], opcode_mask, func_id_mask, rsvd[2], valid, ...}
//   PROFILE  profile_slots x 128 B one function's control record (layout in docs/act-engine.md)
//   CONTROL  control_entries x stride   the packed octave words
//   BUCKET   bucket_entries x 32 B      [d0, d1, d2, d3, x] + pad
// CAM entry i selects PROFILE slot i. The images are what LoadActFuncSet DMAs in; evaluation
// reads only the table memories, so whatever a platform writes there is what Activate uses.
#include <cstdint>
#include <string>
#include <vector>

#include "model/pwp/manifest.h"
#include "model/pwp/packer.h"
#include "model/pwp/profile.h"
#include "neuronsim/config.h"

namespace neuronsim::model::pwp {

inline constexpr size_t kCamEntryBytes = 32;
inline constexpr size_t kProfileSlotBytes = 128;

struct TableGeometry {
    uint32_t cam_entries = 128, profile_slots = 64, control_entries = 512, control_stride = 32, bucket_entries = 2048;
};
// A generation's table memory (act.tables.*) as the image builder and the evaluator see it.
TableGeometry table_geometry(const ActTablesConfig& t);

struct SetImage {
    std::string name;
    std::vector<uint8_t> cam, profile, control, bucket;  // cam covers every entry (the rest invalid)
    uint32_t functions = 0, ctrl_words = 0, buckets = 0;
    uint64_t bytes() const { return cam.size() + profile.size() + control.size() + bucket.size(); }
};

// Errors name the set and the table that is too small.
SetImage build_set_image(const PackedSet& set, const TableGeometry& g);

void encode_profile_slot(const FuncMeta& f, uint8_t* slot);
FuncMeta decode_profile_slot(const uint8_t* slot, uint8_t func_id);

// The CAM match: valid && ((opcode ^ e.opcode) & e.opcode_mask) == 0 && ((func ^ e.func_id)
// & e.func_id_mask) == 0; the lowest matching entry wins. -1 when none matches.
int cam_lookup(const uint8_t* cam, uint32_t entries, uint8_t opcode, uint8_t func_id);

// The table memories as the evaluator sees them.
struct TableView {
    const uint8_t* control = nullptr;
    uint32_t control_words = 0;  // words loaded (the rest of the table is not this set's)
    uint32_t control_stride = 32;
    const uint8_t* bucket = nullptr;
    uint32_t bucket_entries = 0;
    std::string set_name;
};

// The table-memory evaluator over raw table memory: identical to TableEvaluator::evaluate.
float evaluate_from_tables(const TableView& t, const FuncMeta& f, float v);

}  // namespace neuronsim::model::pwp
