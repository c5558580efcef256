#include "model/pwp/table_eval.h"

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/pwp/pipeline.h"

namespace neuronsim::model::pwp {

using fp::float_of;
using fp::hex8;

TableEvaluator::TableEvaluator(const PackedSet& set) : set_(set) {}

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

// A function of a packed set seen through the pipeline's Table interface: everything comes
// from its profile_meta_data record and the two blobs.
struct MetaTable {
    const PackedSet& set;
    const FuncMeta& f;
    float zero() const { return float_of(f.fzero_result); }
    float pinf() const { return float_of(f.fpinf_result); }
    float ninf() const { return float_of(f.fninf_result); }
    bool sym_en() const { return f.symmetry_opt_en; }
    bool sym_invert() const { return f.sym_invert_sign_point; }
    bool sym_neg() const { return f.symmetry_opt_use_neg_region; }
    float sym_point() const { return float_of(f.symmetry_point); }
    int32_t high_exp(bool neg) const { return static_cast<int32_t>(neg ? f.large_neg_signal_exp_threshold : f.large_pos_signal_exp_threshold); }
    int32_t high_mant(bool neg) const { return static_cast<int32_t>(neg ? f.large_neg_signal_mantissa_threshold : f.large_pos_signal_mantissa_threshold); }
    int32_t low_exp(bool neg) const { return static_cast<int32_t>(neg ? f.small_neg_signal_exp_threshold : f.small_pos_signal_exp_threshold); }
    int32_t low_mant(bool) const { return 0; }  // the small-signal regions carry no mantissa threshold
    Section bkt(int64_t i) const { return read_bkt(set.bkt, static_cast<size_t>(i)); }
    Section high(bool neg) const { return bkt(neg ? f.neg_large_signal_pwl_control : f.pos_large_signal_pwl_control); }
    Section low(bool neg) const { return bkt(neg ? f.neg_small_signal_pwl_control : f.pos_small_signal_pwl_control); }

    // ctrl index = pwl_control_base + (unbiased exponent - exp_offset); bucket = bkt_base +
    // (mant >> extract_lsb). The extent of an octave is up to the next ctrl word's base or the
    // function's clamp slots, so an empty (sentinel) octave has none.
    Section nonsat(bool neg, uint32_t sel_bits, uint32_t v_bits) const {
        const int biased = static_cast<int>((sel_bits >> 23) & 0xFF);
        const int64_t idx = (neg ? f.pwl_control_base_neg : f.pwl_control_base_pos) + (biased - 127 - f.exp_offset);
        auto unhandled = [&](const std::string& why) {
            return Error("Unhandled section: function " + f.func_name + " of set " + set.name + ", input 0x" + hex8(v_bits) +
                         ", " + (neg ? "neg" : "pos") + " octave exponent " + std::to_string(biased - 127) + ": " + why);
        };
        const int64_t cnt = set.manifest.ctl_entry_cnt;
        if (idx < 0 || idx >= cnt) throw unhandled("ctrl index " + std::to_string(idx) + " is outside the table");
        const CtrlWord w = unpack_ctrl(read_ctrl(set.ctrl, static_cast<size_t>(idx), set.stride));
        const uint32_t bucket = (sel_bits & 0x7FFFFFu) >> w.extract_lsb;
        int64_t end = f.pos_small_signal_pwl_control;
        if (idx + 1 < cnt) {
            int64_t next = unpack_ctrl(read_ctrl(set.ctrl, static_cast<size_t>(idx + 1), set.stride)).bkt_base;
            if (next >= w.bkt_base) end = std::min(end, next);
        }
        if (static_cast<int64_t>(w.bkt_base) + bucket >= end)
            throw unhandled("bucket " + std::to_string(bucket) + " but " +
                            std::to_string(std::max<int64_t>(0, end - w.bkt_base)) + " stored");
        return bkt(w.bkt_base + bucket);
    }
};

}  // namespace

float TableEvaluator::evaluate(const FuncMeta& f, float v) const { return evaluate_pipeline(MetaTable{set_, f}, v); }

}  // namespace neuronsim::model::pwp
