#pragma once
// The profile generator (the role of the vendor's offline table generator): fits a catalog
// function into a per-function profile in the shipped schema. Deterministic: the same bytes
// on every run and machine (fixed sample grids, no randomness, no threads).
#include "model/pwp/catalog.h"
#include "model/pwp/profile.h"

namespace neuronsim::model::pwp {

// Hero functions get fitted tables; budget-1 residents get their clamp-only shapes.
Profile generate_profile(const CatalogFn& fn);

}  // namespace neuronsim::model::pwp
