#pragma once
// The hardware path: evaluates a function of a packed set from the bkt/ctrl blobs and its
// profile_meta_data record alone, as the table memory holds them. For every input where
// evaluate_generic on the source profile is defined, the bits are identical.
#include <string>

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

    const PackedSet& set() const { return set_; }

private:
    const PackedSet& set_;
};

}  // namespace neuronsim::model::pwp
