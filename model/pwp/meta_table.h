#pragma once
// A packed set's function seen through the evaluation pipeline's Table interface: everything
// comes from its profile_meta_data record, its control words and its buckets. `Source`
// supplies the storage: `Section bkt(int64_t)`, `uint32_t ctrl(int64_t)`, `int64_t
// ctl_count()`, `int64_t bkt_count()`, `std::string set_name()` (the manifest's blobs, or the
// ACT engine's table memories).
#include <algorithm>
#include <string>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/pwp/blob.h"
#include "model/pwp/manifest.h"
#include "model/pwp/pipeline.h"

namespace neuronsim::model::pwp {

template <class Source>
struct MetaTable {
    const Source& src;
    const FuncMeta& f;
    float zero() const { return fp::float_of(f.fzero_result); }
    float pinf() const { return fp::float_of(f.fpinf_result); }
    float ninf() const { return fp::float_of(f.fninf_result); }
    bool sym_en() const { return f.symmetry_opt_en; }
    bool sym_invert() const { return f.sym_invert_sign_point; }
    bool sym_neg() const { return f.symmetry_opt_use_neg_region; }
    float sym_point() const { return fp::float_of(f.symmetry_point); }
    int32_t high_exp(bool neg) const { return static_cast<int32_t>(neg ? f.large_neg_signal_exp_threshold : f.large_pos_signal_exp_threshold); }
    int32_t high_mant(bool neg) const { return static_cast<int32_t>(neg ? f.large_neg_signal_mantissa_threshold : f.large_pos_signal_mantissa_threshold); }
    int32_t low_exp(bool neg) const { return static_cast<int32_t>(neg ? f.small_neg_signal_exp_threshold : f.small_pos_signal_exp_threshold); }
    int32_t low_mant(bool) const { return 0; }  // the small-signal regions carry no mantissa threshold
    Section bkt(int64_t i) const {
        if (i < 0 || i >= src.bkt_count())
            throw Error("function " + f.func_name + " of set " + src.set_name() + ": bucket " + std::to_string(i) + " is outside the " +
                        std::to_string(src.bkt_count()) + " loaded");
        return src.bkt(i);
    }
    Section high(bool neg) const { return bkt(neg ? f.neg_large_signal_pwl_control : f.pos_large_signal_pwl_control); }
    Section low(bool neg) const { return bkt(neg ? f.neg_small_signal_pwl_control : f.pos_small_signal_pwl_control); }

    // ctrl index = pwl_control_base + (unbiased exponent - exp_offset); bucket = bkt_base +
    // (mant >> extract_lsb). The extent of an octave is up to the next ctrl word's base or the
    // function's clamp slots, so an empty (sentinel) octave has none.
    Section nonsat(bool neg, uint32_t sel_bits, uint32_t v_bits) const {
        const int biased = static_cast<int>((sel_bits >> 23) & 0xFF);
        const int64_t idx = (neg ? f.pwl_control_base_neg : f.pwl_control_base_pos) + (biased - 127 - f.exp_offset);
        auto unhandled = [&](const std::string& why) {
            return Error("Unhandled section: function " + f.func_name + " of set " + src.set_name() + ", input 0x" + fp::hex8(v_bits) + ", " +
                         (neg ? "neg" : "pos") + " octave exponent " + std::to_string(biased - 127) + ": " + why);
        };
        const int64_t cnt = src.ctl_count();
        if (idx < 0 || idx >= cnt) throw unhandled("ctrl index " + std::to_string(idx) + " is outside the table");
        const CtrlWord w = unpack_ctrl(src.ctrl(idx));
        const uint32_t bucket = (sel_bits & 0x7FFFFFu) >> w.extract_lsb;
        int64_t end = f.pos_small_signal_pwl_control;
        if (idx + 1 < cnt) {
            int64_t next = unpack_ctrl(src.ctrl(idx + 1)).bkt_base;
            if (next >= w.bkt_base) end = std::min(end, next);
        }
        if (static_cast<int64_t>(w.bkt_base) + bucket >= end)
            throw unhandled("bucket " + std::to_string(bucket) + " but " + std::to_string(std::max<int64_t>(0, end - w.bkt_base)) + " stored");
        return bkt(w.bkt_base + bucket);
    }
};

}  // namespace neuronsim::model::pwp
