#include "platform/core/work_budget.h"

#include "model/common/error.h"

namespace neuronsim::platform {

void WorkBudget::elements(uint64_t n, const std::string& what) {
    if (n > limits_.max_elements_per_instruction)
        throw Error(what + ": " + std::to_string(n) + " elements exceed the per-instruction limit of " + std::to_string(limits_.max_elements_per_instruction) +
                    " (run.max_elements_per_instruction)");
    if (n > limits_.max_elements_per_run - elements_)
        throw Error(what + ": " + std::to_string(n) + " more elements exceed the run's budget of " + std::to_string(limits_.max_elements_per_run) + " (" +
                    std::to_string(elements_) + " used; run.max_elements_per_run)");
    elements_ += n;
}

void WorkBudget::dma_bytes(uint64_t n, const std::string& what) {
    if (n > limits_.max_dma_bytes_per_instruction)
        throw Error(what + ": " + std::to_string(n) + " bytes exceed the per-transfer limit of " + std::to_string(limits_.max_dma_bytes_per_instruction) +
                    " (run.max_dma_bytes_per_instruction)");
    if (n > limits_.max_dma_bytes_per_run - bytes_)
        throw Error(what + ": " + std::to_string(n) + " more bytes exceed the run's DMA budget of " + std::to_string(limits_.max_dma_bytes_per_run) + " (" +
                    std::to_string(bytes_) + " used; run.max_dma_bytes_per_run)");
    bytes_ += n;
}

}  // namespace neuronsim::platform
