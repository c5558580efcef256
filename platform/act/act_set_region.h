#pragma once
// build_act_set_region (include/neuronsim/act_sets.h) without the copy: the built-in catalog's
// region is built once per table geometry and top in a process and shared from then on, so a
// host that only writes it into DRAM (a sweep point forked from a warmed worker) does not copy
// a few MiB first. A user's directory is read every time (it may change between runs).
#include <memory>
#include <string>

#include "neuronsim/act_sets.h"

namespace neuronsim::platform {

std::shared_ptr<const ActSetRegion> shared_act_set_region(const Config& cfg, const std::string& pwp_dir, uint64_t top);

}  // namespace neuronsim::platform
