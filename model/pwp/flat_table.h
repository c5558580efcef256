#pragma once
// One function's PWP table decoded once into the shape the fast evaluator (fast_eval.h) reads:
// integer keys for the 4-way clamp, one entry per (side, octave) plus two per side for the
// clamps, and every section's coefficients as structure-of-arrays floats, so a batch of
// elements costs a few gathers and no branches. Decoded either from a Profile (the
// evaluate_generic path) or from a packed set's function (profile_meta_data record, control
// words, buckets: the table-memory path); both decoders encode exactly the reference
// pipeline's selection (pipeline.h, meta_table.h), including where it would throw: such a
// selection is marked invalid and the element goes to the reference path, which throws.
#include <cstdint>
#include <vector>

#include "model/pwp/manifest.h"
#include "model/pwp/profile.h"
#include "model/pwp/table_image.h"

namespace neuronsim::model::pwp {

struct FlatTable {
    // Special-value results as raw bits (returned verbatim, never computed with).
    uint32_t zero_bits = 0, pinf_bits = 0, ninf_bits = 0;
    bool sym_en = false, sym_invert = false, sym_neg = false;
    float sym_point = 0;

    // The clamp tests on k = sel & 0x7FFFFFFF (biased exponent and mantissa of the folded
    // input), side 0 = positive, 1 = negative. The reference's (exponent, then mantissa on a
    // tie) comparisons select an upward-closed set of k for "high" and a downward-closed one
    // for "low", so each is one signed compare: high iff k > high_above[side]; low iff
    // k <= low_upto[side] (checked after high). 0x7FFFFFFF / -1 mean "never".
    int32_t high_above[2] = {0x7FFFFFFF, 0x7FFFFFFF};
    int32_t low_upto[2] = {-1, -1};

    // Selection entries: side * kEntriesPerSide + (octave 0..255 | kHighEntry | kLowEntry).
    // bucket = (k & 0x7FFFFF) >> (shift_count & 31); valid iff bucket < (shift_count >> 5);
    // section index = base + bucket. A clamp entry has shift 31 (bucket 0) and count 1, or 0
    // when the reference could not read its section.
    static constexpr int kEntriesPerSide = 258;
    static constexpr int kHighEntry = 256, kLowEntry = 257;
    std::vector<int32_t> entry_base;
    std::vector<uint32_t> entry_shift_count;

    // Section coefficients; index 0 is a zero dummy that invalid lanes read.
    std::vector<float> x, d0, d1, d2, d3;

    // The same, paired for 64-bit gathers (a gather costs per element loaded, so two
    // coefficients per load halve the cost): entry = base | shift_count << 32,
    // x_d0 = x | d0 << 32, d1_d2 = d1 | d2 << 32 (bit patterns). Filled by finish().
    std::vector<uint64_t> entry, x_d0, d1_d2;

    // When each side reaches at most 30 octaves between its clamps (the usual table), its
    // entries also sit in 32 slots: octave E at E - compact_first[side], the high clamp at 30,
    // the low clamp at 31, so a pass can pick them with register permutes instead of gathers.
    bool compact = false;
    int32_t compact_first[2] = {0, 0};
    uint32_t compact_base[64] = {}, compact_shift_count[64] = {};  // side * 32 + slot
    // Otherwise, when a symmetric function folds every input onto one side (`one_side`) and
    // that side reaches at most 126 octaves: 128 slots, octave E at E - wide_first, the high
    // clamp at 126, the low clamp at 127.
    bool wide = false;
    int one_side = 0;
    int32_t wide_first = 0;
    uint32_t wide_base[128] = {}, wide_shift_count[128] = {};

    void finish();

    size_t sections() const { return x.size(); }
};

// From a Profile in memory: identical selections to evaluate_generic.
FlatTable flatten_profile(const Profile& p);

// From a packed set's function as the table memory holds it: identical selections to
// evaluate_from_tables(view, f, .) (and so to TableEvaluator::evaluate).
FlatTable flatten_tables(const TableView& view, const FuncMeta& f);
FlatTable flatten_set(const PackedSet& set, const FuncMeta& f);

}  // namespace neuronsim::model::pwp
