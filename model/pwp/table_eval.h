#pragma once
// The hardware path: evaluates a function of a packed set from the bkt/ctrl blobs and its
// profile_meta_data record alone, as the table memory holds them. For every input where
// evaluate_generic on the source profile is defined, the bits are identical.
//
// Every function's tables are decoded once, when the evaluator is made (flat_table.h), and
// evaluated by the fast path (fast_eval.h); the element-by-element reading of the blobs stays
// as evaluate_reference, the oracle the fast path falls back to. The set must not change
// while the evaluator lives.
#include <string>
#include <vector>

#include "model/pwp/flat_table.h"
#include "model/pwp/packer.h"

namespace neuronsim::model::pwp {

class TableEvaluator {
public:
    explicit TableEvaluator(const PackedSet& set);

    // By bare name ("exp"), stem ("exp_400p") or func_id ("7"); nullptr when absent.
    const FuncMeta* find(const std::string& name_or_id) const;
    // As find, but a function not in the set is an error naming the function and the set.
    const FuncMeta& lookup(const std::string& name_or_id) const;

    float evaluate(const FuncMeta& f, float v) const;
    // out[i] = evaluate(f, in[i]) over a batch (the SIMD pass). If an element throws, out[]
    // past it may already hold results.
    void evaluate_n(const FuncMeta& f, const float* in, float* out, size_t n) const;
    // The blobs read element by element (meta_table.h): the oracle and the fallback.
    float evaluate_reference(const FuncMeta& f, float v) const;

    // The decoded tables of f (f one of the set's records, or decoded now into `scratch`).
    const FlatTable& flat(const FuncMeta& f, FlatTable& scratch) const;

    const PackedSet& set() const { return set_; }

private:
    const PackedSet& set_;
    std::vector<FlatTable> flats_;  // by position in profile_meta_data
};

}  // namespace neuronsim::model::pwp
