#pragma once
// The hazard detector's findings (model/isa/hazard_detector.h) as the device's public
// neuronsim::Hazard, and their one-line text.
#include "model/isa/hazard_detector.h"
#include "neuronsim/neuron_core.h"

namespace neuronsim::platform {

Hazard public_hazard(const model::isa::HazardDetector& d, const model::isa::HazardDetector::Hazard& h);

}  // namespace neuronsim::platform
