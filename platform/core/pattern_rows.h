#pragma once
// A pattern's elements as dense rows, for the engines that compute on whole tiles (VectorE,
// TensorE): gather() copies the elements of partitions [0, nch) of `p`, each partition's in
// element order, into rows of consecutive elements; scatter() writes such rows back.
// RowReader/RowWriter stream one partition's elements in element order as binary32 chunks,
// converted as model/fp converts (the engines' fast paths, with no copy of the tile); a row of
// plain, aligned fp32 elements is used where it lies, not copied at all (next(), begin()).
#include <cstdint>
#include <vector>

#include "model/fp/dtype.h"
#include "platform/core/tensor_operand.h"

namespace neuronsim::platform {

std::vector<uint8_t> gather(const Pattern& p, uint32_t nch);
void scatter(const std::vector<uint8_t>& rows, const Pattern& p, uint32_t nch);

// Partition q of `p` (elements of type d) from its first element on: what a reader and a writer
// of the row both keep.
class RowWalk {
protected:
    RowWalk(const Pattern& p, uint32_t q, model::fp::Dtype d);
    uint8_t* row_;  // the row's lowest byte
    model::fp::Dtype d_;
    size_t bytes_;
    bool plain_;
    bool in_place_;  // plain, aligned fp32
    uint64_t at_ = 0;  // elements passed (plain rows)
    model::isa::AccessPattern::Cursor c_;
};

// Partition q of `p`, read `m` elements at a time.
class RowReader : private RowWalk {
public:
    RowReader(const Pattern& p, uint32_t q, model::fp::Dtype d) : RowWalk(p, q, d) {}
    void read(float* out, size_t m);
    // The next m elements: where they lie when the row is plain, aligned fp32, else read into
    // `buf` (and buf returned).
    const float* next(float* buf, size_t m);
};

// Partition q of `p`, written `m` elements at a time.
class RowWriter : private RowWalk {
public:
    RowWriter(const Pattern& p, uint32_t q, model::fp::Dtype d) : RowWalk(p, q, d) {}
    void write(const float* in, size_t m);
    // Where the next m results are to be computed: in the row itself when it is plain, aligned
    // fp32, else in `buf`; end() then stores them (from buf, converted) and moves on.
    float* begin(float* buf, size_t m);
    void end(const float* at, size_t m);
};

}  // namespace neuronsim::platform
