#pragma once
// Packs per-function profiles into one function set: <set>_bkt.bin, <set>_ctrl.bin and the
// manifest <set>.json (seed 000 §8 "to pack a fresh set"). Errors are reported, never wrapped
// into the fields: a bkt_base over its 11 bits, an extract_size over the CONTROL field, octave
// ranges the shared exp_offset cannot address, a low clamp with a mantissa threshold.
#include <string>
#include <vector>

#include "model/pwp/blob.h"
#include "model/pwp/manifest.h"
#include "model/pwp/profile.h"

namespace neuronsim::model::pwp {

struct SetMember {
    std::string stem;  // profile file stem, "exp_400p"; the bare name drops "_400p"
    Profile profile;
};

struct PackedSet {
    std::string name;
    Target target = Target::Trainium;
    SetManifest manifest;
    std::vector<uint8_t> bkt, ctrl;
    size_t stride = 32;  // ctrl bytes per entry
};

PackedSet pack_set(Target target, const std::string& set_name, const std::vector<SetMember>& members);

// Writes <dir>/<name>_bkt.bin, <name>_ctrl.bin, <name>.json.
void write_set(const PackedSet& set, const std::string& dir);

// Reads a manifest and the blobs it names (from the manifest's directory). Only the
// structure needed to use the set is checked here: blob sizes against the counts (the
// ctrl stride is size / count) and indices within the blobs; `pwp check` does the rest.
PackedSet read_set(const std::string& manifest_path);

// Writes raw bytes; errors name the file.
void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes);
void write_text(const std::string& path, const std::string& text);

}  // namespace neuronsim::model::pwp
