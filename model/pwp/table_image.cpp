#include "model/pwp/table_image.h"

#include <cstring>

#include "model/common/error.h"
#include "model/fp/bits.h"
#include "model/pwp/meta_table.h"

namespace neuronsim::model::pwp {

namespace {

void put32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }
uint32_t get32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// PROFILE slot byte layout (docs/act-engine.md). Bytes 54 and 94 stay zero: bit 435
// (bias_scale_fma_bypass, CAYMAN+) and bit 754 (batchnorm_accumulator_rd) of §A.6 live there.
enum : size_t {
    kZero = 0,
    kNan = 4,
    kPinf = 8,
    kNinf = 12,
    kSymPoint = 16,
    kFlags = 20,
    kSrcSel = 21,
    kImmBias = 22,
    kBasePos = 24,
    kBaseNeg = 28,
    kPosSmall = 32,
    kNegSmall = 36,
    kPosLarge = 40,
    kNegLarge = 44,
    kExpOffset = 48,
    kSmallPos = 56,
    kSmallNeg = 60,
    kLargePos = 64,
    kLargeNeg = 68,
    kLargePosMant = 72,
    kLargeNegMant = 76,
    kFma0 = 80,
    kFma1 = 84,
    kLower = 88,
    kUpper = 96,
};

}  // namespace

void encode_profile_slot(const FuncMeta& f, uint8_t* s) {
    std::memset(s, 0, kProfileSlotBytes);
    put32(s + kZero, f.fzero_result);
    put32(s + kNan, f.fnan_result);
    put32(s + kPinf, f.fpinf_result);
    put32(s + kNinf, f.fninf_result);
    put32(s + kSymPoint, f.symmetry_point);
    s[kFlags] = static_cast<uint8_t>(f.symmetry_opt_en | f.sym_invert_sign_point << 1 | f.symmetry_opt_use_neg_region << 2 | f.use_multipass << 3);
    s[kSrcSel] = static_cast<uint8_t>(f.fma_indirection_src_sel);
    s[kImmBias] = static_cast<uint8_t>(f.imm_bias);
    put32(s + kBasePos, static_cast<uint32_t>(f.pwl_control_base_pos));
    put32(s + kBaseNeg, static_cast<uint32_t>(f.pwl_control_base_neg));
    put32(s + kPosSmall, static_cast<uint32_t>(f.pos_small_signal_pwl_control));
    put32(s + kNegSmall, static_cast<uint32_t>(f.neg_small_signal_pwl_control));
    put32(s + kPosLarge, static_cast<uint32_t>(f.pos_large_signal_pwl_control));
    put32(s + kNegLarge, static_cast<uint32_t>(f.neg_large_signal_pwl_control));
    put32(s + kExpOffset, static_cast<uint32_t>(static_cast<int32_t>(f.exp_offset)));
    put32(s + kSmallPos, static_cast<uint32_t>(f.small_pos_signal_exp_threshold));
    put32(s + kSmallNeg, static_cast<uint32_t>(f.small_neg_signal_exp_threshold));
    put32(s + kLargePos, static_cast<uint32_t>(f.large_pos_signal_exp_threshold));
    put32(s + kLargeNeg, static_cast<uint32_t>(f.large_neg_signal_exp_threshold));
    put32(s + kLargePosMant, static_cast<uint32_t>(f.large_pos_signal_mantissa_threshold));
    put32(s + kLargeNegMant, static_cast<uint32_t>(f.large_neg_signal_mantissa_threshold));
    put32(s + kFma0, f.fma_const_0);
    put32(s + kFma1, f.fma_const_1);
    put32(s + kLower, f.lower_bound);
    put32(s + kUpper, f.upper_bound);
}

FuncMeta decode_profile_slot(const uint8_t* s, uint8_t func_id) {
    FuncMeta f;
    f.func_name = "func " + std::to_string(func_id);
    f.func_id = func_id;
    f.fzero_result = get32(s + kZero);
    f.fnan_result = get32(s + kNan);
    f.fpinf_result = get32(s + kPinf);
    f.fninf_result = get32(s + kNinf);
    f.symmetry_point = get32(s + kSymPoint);
    f.symmetry_opt_en = s[kFlags] & 1;
    f.sym_invert_sign_point = s[kFlags] & 2;
    f.symmetry_opt_use_neg_region = s[kFlags] & 4;
    f.use_multipass = s[kFlags] & 8;
    f.fma_indirection_src_sel = s[kSrcSel];
    f.imm_bias = s[kImmBias];
    f.pwl_control_base_pos = get32(s + kBasePos);
    f.pwl_control_base_neg = get32(s + kBaseNeg);
    f.pos_small_signal_pwl_control = get32(s + kPosSmall);
    f.neg_small_signal_pwl_control = get32(s + kNegSmall);
    f.pos_large_signal_pwl_control = get32(s + kPosLarge);
    f.neg_large_signal_pwl_control = get32(s + kNegLarge);
    f.exp_offset = static_cast<int32_t>(get32(s + kExpOffset));
    f.small_pos_signal_exp_threshold = static_cast<int32_t>(get32(s + kSmallPos));
    f.small_neg_signal_exp_threshold = static_cast<int32_t>(get32(s + kSmallNeg));
    f.large_pos_signal_exp_threshold = static_cast<int32_t>(get32(s + kLargePos));
    f.large_neg_signal_exp_threshold = static_cast<int32_t>(get32(s + kLargeNeg));
    f.large_pos_signal_mantissa_threshold = static_cast<int32_t>(get32(s + kLargePosMant));
    f.large_neg_signal_mantissa_threshold = static_cast<int32_t>(get32(s + kLargeNegMant));
    f.fma_const_0 = get32(s + kFma0);
    f.fma_const_1 = get32(s + kFma1);
    f.lower_bound = get32(s + kLower);
    f.upper_bound = get32(s + kUpper);
    return f;
}

TableGeometry table_geometry(const ActTablesConfig& t) { return {t.cam_entries, t.profile_slots, t.control_entries, t.control_stride_bytes, t.bucket_entries}; }

SetImage build_set_image(const PackedSet& set, const TableGeometry& g) {
    SetImage img;
    img.name = set.name;
    const auto& metas = set.manifest.profile_meta_data;
    img.functions = static_cast<uint32_t>(metas.size());
    img.ctrl_words = static_cast<uint32_t>(set.manifest.ctl_entry_cnt);
    img.buckets = static_cast<uint32_t>(set.manifest.bkt_entry_cnt);
    auto too_big = [&](const char* table, uint64_t need, uint64_t have) {
        if (need > have)
            throw Error("set " + set.name + " does not fit the ACT " + table + " table: it needs " + std::to_string(need) + " entries, the configuration has " +
                        std::to_string(have));
    };
    too_big("CAM", img.functions, g.cam_entries);
    too_big("PROFILE", img.functions, g.profile_slots);
    too_big("CONTROL", img.ctrl_words, g.control_entries);
    too_big("BUCKET", img.buckets, g.bucket_entries);
    img.cam.assign(uint64_t{g.cam_entries} * kCamEntryBytes, 0);
    img.profile.assign(uint64_t{img.functions} * kProfileSlotBytes, 0);
    for (uint32_t i = 0; i < img.functions; ++i) {
        const FuncMeta& f = metas[i];
        if (f.func_id < 0 || f.func_id > 255) throw Error("set " + set.name + ": " + f.func_name + ": func_id " + std::to_string(f.func_id) + " is not a byte");
        uint8_t* e = img.cam.data() + i * kCamEntryBytes;
        e[0] = 0x21;  // opcode (masked out: any activation opcode)
        e[1] = static_cast<uint8_t>(f.func_id);
        e[4] = 0x00;  // opcode_mask
        e[5] = 0xFF;  // func_id_mask
        e[8] = 1;  // valid
        encode_profile_slot(f, img.profile.data() + i * kProfileSlotBytes);
    }
    img.control.assign(uint64_t{img.ctrl_words} * g.control_stride, 0);
    for (uint32_t i = 0; i < img.ctrl_words; ++i) put32(img.control.data() + uint64_t{i} * g.control_stride, read_ctrl(set.ctrl, i, set.stride));
    img.bucket = set.bkt;
    return img;
}

int cam_lookup(const uint8_t* cam, uint32_t entries, uint8_t opcode, uint8_t func_id) {
    for (uint32_t i = 0; i < entries; ++i) {
        const uint8_t* e = cam + i * kCamEntryBytes;
        if ((e[8] & 1) && ((opcode ^ e[0]) & e[4]) == 0 && ((func_id ^ e[1]) & e[5]) == 0) return static_cast<int>(i);
    }
    return -1;
}

namespace {

struct MemorySource {
    const TableView& t;
    Section bkt(int64_t i) const { return read_bkt_record(t.bucket + i * kBktRecordBytes); }
    uint32_t ctrl(int64_t i) const { return get32(t.control + i * t.control_stride); }
    int64_t ctl_count() const { return t.control_words; }
    int64_t bkt_count() const { return t.bucket_entries; }
    const std::string& set_name() const { return t.set_name; }
};

}  // namespace

float evaluate_from_tables(const TableView& t, const FuncMeta& f, float v) {
    MemorySource src{t};
    return evaluate_pipeline(MetaTable<MemorySource>{src, f}, v);
}

}  // namespace neuronsim::model::pwp
