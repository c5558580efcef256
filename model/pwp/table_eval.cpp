#include "model/pwp/table_eval.h"

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/pwp/fast_eval.h"
#include "model/pwp/meta_table.h"

namespace neuronsim::model::pwp {

using fp::float_of;
using fp::hex8;

TableEvaluator::TableEvaluator(const PackedSet& set) : set_(set) {
    flats_.reserve(set.manifest.profile_meta_data.size());
    for (const FuncMeta& f : set.manifest.profile_meta_data) flats_.push_back(flatten_set(set, f));
}

const FlatTable& TableEvaluator::flat(const FuncMeta& f, FlatTable& scratch) const {
    const auto& metas = set_.manifest.profile_meta_data;
    if (!metas.empty() && &f >= metas.data() && &f < metas.data() + metas.size()) return flats_[static_cast<size_t>(&f - metas.data())];
    scratch = flatten_set(set_, f);
    return scratch;
}

const FuncMeta* TableEvaluator::find(const std::string& key) const {
    for (const FuncMeta& f : set_.manifest.profile_meta_data)
        if (f.func_name == key || f.bare_name() == key || std::to_string(f.func_id) == key) return &f;
    return nullptr;
}

const FuncMeta& TableEvaluator::lookup(const std::string& key) const {
    if (const FuncMeta* f = find(key)) return *f;
    std::string names;
    for (const FuncMeta& f : set_.manifest.profile_meta_data) names += (names.empty() ? "" : ", ") + f.bare_name();
    throw Error("function '" + key + "' is not in set " + set_.name + " (it holds " + names + ")");
}

namespace {

// The manifest's blobs as a MetaTable source.
struct BlobSource {
    const PackedSet& set;
    Section bkt(int64_t i) const { return read_bkt(set.bkt, static_cast<size_t>(i)); }
    uint32_t ctrl(int64_t i) const { return read_ctrl(set.ctrl, static_cast<size_t>(i), set.stride); }
    int64_t ctl_count() const { return set.manifest.ctl_entry_cnt; }
    int64_t bkt_count() const { return set.manifest.bkt_entry_cnt; }
    const std::string& set_name() const { return set.name; }
};

}  // namespace

float TableEvaluator::evaluate_reference(const FuncMeta& f, float v) const {
    BlobSource src{set_};
    return evaluate_pipeline(MetaTable<BlobSource>{src, f}, v);
}

float TableEvaluator::evaluate(const FuncMeta& f, float v) const {
    FlatTable scratch;
    float out;
    if (fast_one(flat(f, scratch), v, out)) return out;
    return evaluate_reference(f, v);
}

void TableEvaluator::evaluate_n(const FuncMeta& f, const float* in, float* out, size_t n) const {
    FlatTable scratch;
    evaluate_fast_n(flat(f, scratch), in, out, n, [&](float v) { return evaluate_reference(f, v); });
}

}  // namespace neuronsim::model::pwp
