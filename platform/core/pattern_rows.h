#pragma once
// A pattern's elements as dense rows, for the engines that compute on whole tiles (VectorE,
// TensorE): gather() copies the elements of partitions [0, nch) of `p`, each partition's in
// element order, into rows of consecutive elements; scatter() writes such rows back.
#include <cstdint>
#include <vector>

#include "platform/core/tensor_operand.h"

namespace neuronsim::platform {

std::vector<uint8_t> gather(const Pattern& p, uint32_t nch);
void scatter(const std::vector<uint8_t>& rows, const Pattern& p, uint32_t nch);

}  // namespace neuronsim::platform
