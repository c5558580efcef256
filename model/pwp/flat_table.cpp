#include "model/pwp/flat_table.h"

#include <algorithm>
#include <cstring>

#include "model/fp/bits.h"
#include "model/pwp/blob.h"

namespace neuronsim::model::pwp {

namespace {

// The smallest k = (E << 23 | M), E in 0..255, M in 0..0x7FFFFF, with
// E > H || (E == H && M >= HM), minus one; 0x7FFFFFFF when there is none.
int32_t high_above(int32_t H, int32_t HM) {
    for (int64_t E = 0; E < 256; ++E) {
        if (E > H) return static_cast<int32_t>((E << 23) - 1);
        if (E == H) {
            if (HM <= 0) return static_cast<int32_t>((E << 23) - 1);
            if (HM <= 0x7FFFFF) return static_cast<int32_t>((E << 23 | HM) - 1);
        }
    }
    return 0x7FFFFFFF;
}

// The largest k with E < L || (E == L && M <= LM); -1 when there is none.
int32_t low_upto(int32_t L, int32_t LM) {
    for (int64_t E = 255; E >= 0; --E) {
        if (E < L) return static_cast<int32_t>(E << 23 | 0x7FFFFF);
        if (E == L) {
            if (LM >= 0x7FFFFF) return static_cast<int32_t>(E << 23 | 0x7FFFFF);
            if (LM >= 0) return static_cast<int32_t>(E << 23 | LM);
        }
    }
    return -1;
}

void push(FlatTable& t, const Section& s) {
    t.x.push_back(s.x);
    t.d0.push_back(s.d0);
    t.d1.push_back(s.d1);
    t.d2.push_back(s.d2);
    t.d3.push_back(s.d3);
}

void start(FlatTable& t) {
    t.entry_base.assign(2 * FlatTable::kEntriesPerSide, 0);
    t.entry_shift_count.assign(2 * FlatTable::kEntriesPerSide, 0);  // count 0: invalid
    push(t, Section{});
}

void set_entry(FlatTable& t, int side, int e, int64_t base, uint32_t shift, uint64_t count) {
    const size_t i = static_cast<size_t>(side * FlatTable::kEntriesPerSide + e);
    // Counts beyond any reachable bucket are capped (2^23 buckets at most), keeping the
    // packed field in range.
    count = std::min<uint64_t>(count, uint64_t{1} << 23);
    t.entry_base[i] = static_cast<int32_t>(base);
    t.entry_shift_count[i] = (shift & 31u) | static_cast<uint32_t>(count) << 5;
}

}  // namespace

void FlatTable::finish() {
    entry.resize(entry_base.size());
    for (size_t i = 0; i < entry.size(); ++i) entry[i] = static_cast<uint32_t>(entry_base[i]) | uint64_t{entry_shift_count[i]} << 32;
    x_d0.resize(x.size());
    d1_d2.resize(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        x_d0[i] = fp::bits_of(x[i]) | uint64_t{fp::bits_of(d0[i])} << 32;
        d1_d2[i] = fp::bits_of(d1[i]) | uint64_t{fp::bits_of(d2[i])} << 32;
    }
    // The octaves a side can reach: keys k with low_upto < k <= high_above. Slots past the
    // reachable octaves hold count 0 (never read).
    auto reach = [&](int side, int64_t& first) {
        first = (int64_t{low_upto[side]} + 1) >> 23;
        const int64_t last = high_above[side] >> 23;
        return low_upto[side] < high_above[side] && last >= first ? last - first + 1 : 0;
    };
    auto fill = [&](int side, int64_t first, int64_t span, int slots, uint32_t* base, uint32_t* sc) {
        for (int slot = 0; slot < slots; ++slot) {
            const int64_t e = slot == slots - 2 ? kHighEntry : slot == slots - 1 ? kLowEntry : first + slot;
            const bool used = slot >= slots - 2 || slot < span;
            const size_t i = static_cast<size_t>(side * kEntriesPerSide + e);
            base[slot] = used ? static_cast<uint32_t>(entry_base[i]) : 0;
            sc[slot] = used ? entry_shift_count[i] : 0;
        }
    };
    compact = true;
    for (int side = 0; side < 2; ++side) {
        int64_t first;
        const int64_t span = reach(side, first);
        compact_first[side] = static_cast<int32_t>(first);
        if (span > 30) compact = false;
        else fill(side, first, span, 32, compact_base + 32 * side, compact_shift_count + 32 * side);
    }
    wide = false;
    if (!compact && sym_en) {
        one_side = sym_neg ? 1 : 0;
        int64_t first;
        const int64_t span = reach(one_side, first);
        wide_first = static_cast<int32_t>(first);
        if (span <= 126) {
            wide = true;
            fill(one_side, first, span, 128, wide_base, wide_shift_count);
        }
    }
}

FlatTable flatten_profile(const Profile& p) {
    FlatTable t;
    t.zero_bits = fp::bits_of(p.zero_result);
    t.pinf_bits = fp::bits_of(p.pinf_result);
    t.ninf_bits = fp::bits_of(p.ninf_result);
    t.sym_en = p.symmetry_en;
    t.sym_invert = p.symmetry_invert_sign_opt;
    t.sym_neg = p.symmetry_opt_use_neg_region;
    t.sym_point = p.symmetry_point;
    start(t);
    const SatRegion* high[2] = {&p.sat_pos_high, &p.sat_neg_high};
    const SatRegion* low[2] = {&p.sat_pos_low, &p.sat_neg_low};
    const Region* region[2] = {&p.pos, &p.neg};
    for (int side = 0; side < 2; ++side) {
        t.high_above[side] = high_above(high[side]->sat_point, high[side]->mantissa_point);
        t.low_upto[side] = low_upto(low[side]->sat_point, low[side]->mantissa_point);
        set_entry(t, side, FlatTable::kHighEntry, static_cast<int64_t>(t.sections()), 31, 1);
        push(t, high[side]->section);
        set_entry(t, side, FlatTable::kLowEntry, static_cast<int64_t>(t.sections()), 31, 1);
        push(t, low[side]->section);
        const int64_t first = static_cast<int64_t>(t.sections());
        for (const Section& s : region[side]->sections) push(t, s);
        for (int o = 0; o < 256; ++o) {
            const Region::Octave& oct = region[side]->octaves[o];
            // An extract_size over 23 makes the reference's shift undefined: left to it.
            if (oct.extract_size > 23) continue;
            set_entry(t, side, o, first + oct.first, 23u - oct.extract_size, oct.count);
        }
    }
    t.finish();
    return t;
}

namespace {

// The storage a MetaTable reads (meta_table.h): buckets and control words by index.
template <class Source>
FlatTable flatten_meta(const Source& src, const FuncMeta& f) {
    FlatTable t;
    t.zero_bits = f.fzero_result;
    t.pinf_bits = f.fpinf_result;
    t.ninf_bits = f.fninf_result;
    t.sym_en = f.symmetry_opt_en;
    t.sym_invert = f.sym_invert_sign_point;
    t.sym_neg = f.symmetry_opt_use_neg_region;
    t.sym_point = fp::float_of(f.symmetry_point);
    start(t);
    // Every loaded bucket, at section index 1 + bucket.
    const int64_t buckets = src.bkt_count();
    for (int64_t i = 0; i < buckets; ++i) push(t, src.bkt(i));
    auto valid_bucket = [&](int64_t i) { return i >= 0 && i < buckets; };
    const int64_t ctl = src.ctl_count();
    for (int side = 0; side < 2; ++side) {
        const bool neg = side == 1;
        // MetaTable casts the 64-bit thresholds to int32; the low clamp has no mantissa threshold.
        t.high_above[side] = high_above(static_cast<int32_t>(neg ? f.large_neg_signal_exp_threshold : f.large_pos_signal_exp_threshold),
                                        static_cast<int32_t>(neg ? f.large_neg_signal_mantissa_threshold : f.large_pos_signal_mantissa_threshold));
        t.low_upto[side] = low_upto(static_cast<int32_t>(neg ? f.small_neg_signal_exp_threshold : f.small_pos_signal_exp_threshold), 0);
        const int64_t hi = neg ? f.neg_large_signal_pwl_control : f.pos_large_signal_pwl_control;
        const int64_t lo = neg ? f.neg_small_signal_pwl_control : f.pos_small_signal_pwl_control;
        set_entry(t, side, FlatTable::kHighEntry, valid_bucket(hi) ? 1 + hi : 0, 31, valid_bucket(hi) ? 1 : 0);
        set_entry(t, side, FlatTable::kLowEntry, valid_bucket(lo) ? 1 + lo : 0, 31, valid_bucket(lo) ? 1 : 0);
        const int64_t base = neg ? f.pwl_control_base_neg : f.pwl_control_base_pos;
        for (int biased = 0; biased < 256; ++biased) {
            const int64_t idx = base + (biased - 127 - f.exp_offset);
            if (idx < 0 || idx >= ctl) continue;  // the reference throws: left invalid
            const CtrlWord w = unpack_ctrl(src.ctrl(idx));
            // Bucket b is readable iff bkt_base + b < end (the octave's extent) and the
            // bucket is loaded.
            int64_t end = f.pos_small_signal_pwl_control;
            if (idx + 1 < ctl) {
                const int64_t next = unpack_ctrl(src.ctrl(idx + 1)).bkt_base;
                if (next >= w.bkt_base) end = std::min(end, next);
            }
            const int64_t count = std::min(end, buckets) - static_cast<int64_t>(w.bkt_base);
            if (count <= 0) continue;
            set_entry(t, side, biased, 1 + static_cast<int64_t>(w.bkt_base), w.extract_lsb, static_cast<uint64_t>(count));
        }
    }
    t.finish();
    return t;
}

struct ViewSource {
    const TableView& v;
    Section bkt(int64_t i) const { return read_bkt_record(v.bucket + i * kBktRecordBytes); }
    uint32_t ctrl(int64_t i) const { return read_u32le(v.control + i * v.control_stride); }
    int64_t ctl_count() const { return v.control_words; }
    int64_t bkt_count() const { return v.bucket_entries; }
};

struct SetSource {
    const PackedSet& s;
    Section bkt(int64_t i) const { return read_bkt(s.bkt, static_cast<size_t>(i)); }
    uint32_t ctrl(int64_t i) const { return read_ctrl(s.ctrl, static_cast<size_t>(i), s.stride); }
    int64_t ctl_count() const { return s.manifest.ctl_entry_cnt; }
    int64_t bkt_count() const { return s.manifest.bkt_entry_cnt; }
};

}  // namespace

FlatTable flatten_tables(const TableView& view, const FuncMeta& f) { return flatten_meta(ViewSource{view}, f); }
FlatTable flatten_set(const PackedSet& set, const FuncMeta& f) { return flatten_meta(SetSource{set}, f); }

}  // namespace neuronsim::model::pwp
