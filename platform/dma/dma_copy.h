#pragma once
// The trace's `copy` bundle (0xD1, model/isa/layouts.h DmaCopyOp) as a DMA job, validated: the
// same instruction on a DMA queue, on ACT (hardware DGE) or on POOL (software DGE).
#include "model/isa/bundle.h"
#include "platform/dma/dma_engines.h"

namespace neuronsim::platform {

// The transfer a copy bundle describes (queue, engine and callbacks left to the caller).
DmaJob copy_job(const model::isa::Bundle& b);

}  // namespace neuronsim::platform
