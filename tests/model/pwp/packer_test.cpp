// The set packer against hand-made profiles in the exact schema: blob bytes, ctrl words,
// manifest fields, both targets, and every packing error.
#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/pwp/blob.h"
#include "model/pwp/packer.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

using namespace model::pwp;

// exp-like: neg octaves -19..-18 (1 section each), pos -19..-17 with the top one of extract
// size 2 truncated to 3 sections by a mantissa threshold.
Profile exp_like() {
    Profile p;
    p.name = "exp";
    p.zero_result = 1.0f;
    p.pinf_result = INFINITY;
    p.nan_result = flt(0x7fc00000);
    add_octave(p.neg, -19, 0, {sec_bits(0xb63fffff, 0x3f7fffd0, 0x3f7fffd0, 0x3effffd0, 0x3e2aaa8b)});
    add_octave(p.neg, -18, 0, {sec(-5e-6f, 0.99f)});
    add_octave(p.pos, -19, 0, {sec_bits(0x363fffff, 0x3f800018, 0x3f800018, 0x3f000018, 0x3e2aaacb)});
    add_octave(p.pos, -18, 0, {sec(5e-6f, 1.01f)});
    add_octave(p.pos, -17, 2, {sec(1e-5f, 1.02f), sec(1.2e-5f, 1.03f), sec(1.4e-5f, 1.04f)});
    p.sat_pos_high = sat(110, 0x500000, sec_bits(0, 0x7f800000, 0, 0, 0));
    p.sat_pos_low = sat(108, 0, sec(0, 1, 1, 0.5f, 1.0f / 6));
    p.sat_neg_high = sat(109, 0, sec(0, 0));
    p.sat_neg_low = sat(108, 0, sec(0, 1, 1, 0.5f, 1.0f / 6));
    p.meta.sunda_id = 7;
    p.meta.tonga_id = 7;
    return p;
}

Profile identity() {
    Profile p = clamp_only("identity", sec(0, 0, 1));
    p.pos.octaves[127].declared = true;  // one sentinel octave
    p.meta.sunda_id = 1;
    p.meta.tonga_id = 1;
    return p;
}

TEST(Blob, CtrlWordLayout) {
    EXPECT_EQ(pack_ctrl(0, 0), 0x0000b800u);  // the with_ln entry-0 dump of seed 000 §4
    EXPECT_EQ(pack_ctrl(406, 8), (8u << 16) | (15u << 11) | 406u);
    CtrlWord w = unpack_ctrl(0x0008b996u | 0x01000000u);
    EXPECT_EQ(w.bkt_base, 0x196u);
    EXPECT_EQ(w.extract_lsb, 0x17u);
    EXPECT_EQ(w.extract_size, 8u);
    EXPECT_EQ(w.reserved, 1u);
    EXPECT_EQ(pack_ctrl_sentinel(12), 12u);
}

TEST(Blob, BucketRecordIsD0FirstXLast) {
    std::vector<uint8_t> b;
    append_bkt(b, sec_bits(0xb63fffff, 0x3f7fffd0, 0x3f7fffd0, 0x3effffd0, 0x3e2aaa8b));
    // seed 000 §2, exp_and_others_bkt.bin[0], byte for byte.
    const uint8_t want[32] = {0xd0, 0xff, 0x7f, 0x3f, 0xd0, 0xff, 0x7f, 0x3f, 0xd0, 0xff, 0xff, 0x3e, 0x8b, 0xaa, 0x2a, 0x3e,
                              0xff, 0xff, 0x3f, 0xb6, 0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0};
    ASSERT_EQ(b.size(), 32u);
    EXPECT_EQ(std::vector<uint8_t>(want, want + 32), b);
    Section s = read_bkt(b, 0);
    EXPECT_EQ(bits(s.x), 0xb63fffffu);
    EXPECT_EQ(bits(s.d3), 0x3e2aaa8bu);
}

TEST(Packer, LayoutOfASet) {
    PackedSet s = pack_set(Target::Trainium, "tiny", {{"exp_400p", exp_like()}, {"identity_1p", identity()}});
    const SetManifest& m = s.manifest;
    // exp: 2 neg + 5 pos sections + 4 clamps; identity: 4 clamps.
    EXPECT_EQ(m.bkt_entry_cnt, 7 + 4 + 4);
    EXPECT_EQ(m.ctl_entry_cnt, 2 + 3 + 1);
    EXPECT_EQ(s.bkt.size(), 15u * 32);
    EXPECT_EQ(s.ctrl.size(), 6u * 32);
    EXPECT_EQ(m.bkt_bin, "tiny_bkt.bin");
    EXPECT_EQ(m.ctl_bin, "tiny_ctrl.bin");
    ASSERT_EQ(m.func_to_bkt_start_idx.size(), 2u);
    EXPECT_EQ(m.func_to_bkt_start_idx[1], (std::pair<std::string, int64_t>{"identity", 11}));
    EXPECT_EQ(m.func_to_ctl_start_idx[1], (std::pair<std::string, int64_t>{"identity", 5}));
    // ctrl: neg then pos, bases accumulate actual sections.
    EXPECT_EQ(read_ctrl(s.ctrl, 0, 32), pack_ctrl(0, 0));
    EXPECT_EQ(read_ctrl(s.ctrl, 1, 32), pack_ctrl(1, 0));
    EXPECT_EQ(read_ctrl(s.ctrl, 2, 32), pack_ctrl(2, 0));
    EXPECT_EQ(read_ctrl(s.ctrl, 3, 32), pack_ctrl(3, 0));
    EXPECT_EQ(read_ctrl(s.ctrl, 4, 32), pack_ctrl(4, 2));
    EXPECT_EQ(read_ctrl(s.ctrl, 5, 32), pack_ctrl_sentinel(11));  // identity's empty octave
    // bkt: neg sections, pos sections, then [pos_low, neg_low, pos_high, neg_high].
    EXPECT_EQ(bits(read_bkt(s.bkt, 0).x), 0xb63fffffu);
    EXPECT_EQ(bits(read_bkt(s.bkt, 2).x), 0x363fffffu);
    EXPECT_EQ(read_bkt(s.bkt, 7).d3, 1.0f / 6);  // pos_low
    EXPECT_EQ(bits(read_bkt(s.bkt, 9).d0), 0x7f800000u);  // pos_high
    const FuncMeta& e = m.profile_meta_data[0];
    EXPECT_EQ(e.func_name, "exp_400p");
    EXPECT_EQ(e.func_id, 7);
    EXPECT_EQ(e.exp_offset, -19);
    EXPECT_EQ(e.pwl_control_base_neg, 0);
    EXPECT_EQ(e.pwl_control_base_pos, 2);
    EXPECT_EQ(e.pos_small_signal_pwl_control, 7);
    EXPECT_EQ(e.neg_small_signal_pwl_control, 8);
    EXPECT_EQ(e.pos_large_signal_pwl_control, 9);
    EXPECT_EQ(e.neg_large_signal_pwl_control, 10);
    EXPECT_EQ(e.small_pos_signal_exp_threshold, 108);
    EXPECT_EQ(e.large_pos_signal_exp_threshold, 110);
    EXPECT_EQ(e.large_pos_signal_mantissa_threshold, 0x500000);
    EXPECT_EQ(e.fzero_result, 0x3f800000u);
    EXPECT_EQ(e.fnan_result, 0x7fc00000u);
    EXPECT_EQ(m.func_exp_to_bkt_start_idx["exp"]["pos_-17"], 4);
    EXPECT_EQ(m.func_exp_to_ctl_start_idx["exp"]["neg_-18"], 1);
    // The manifest's nine keys and 30 meta fields survive a round trip.
    auto j = manifest_to_json(m);
    EXPECT_EQ(j.size(), 9u);
    EXPECT_EQ(j["profile_meta_data"][0].size(), 30u);
    EXPECT_EQ(manifest_to_json(parse_manifest(j.dump(), "t.json")).dump(), j.dump());
}

TEST(Packer, WithLnUsesTongaIdsAnd16ByteStride) {
    Profile r = clamp_only("reciprocal", sec(0, 0, 1));
    r.pos.octaves[127].declared = true;
    r.meta.sunda_id = 129;
    r.meta.tonga_id = 15;
    PackedSet t = pack_set(Target::Trainium, "s", {{"reciprocal_400p", r}});
    PackedSet w = pack_set(Target::WithLn, "s", {{"reciprocal_400p", r}});
    EXPECT_EQ(t.manifest.profile_meta_data[0].func_id, 129);
    EXPECT_EQ(w.manifest.profile_meta_data[0].func_id, 15);
    EXPECT_EQ(w.ctrl.size(), 16u);
    EXPECT_EQ(read_ctrl(w.ctrl, 0, 16), read_ctrl(t.ctrl, 0, 32));  // same word, other pad
}

std::string pack_error(std::vector<SetMember> members, Target t = Target::Trainium) {
    try {
        pack_set(t, "bad", members);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Packer, Errors) {
    // bkt_base over 11 bits: 2100 sections in front of an octave.
    Profile big = exp_like();
    std::vector<Section> many(1024, sec(0, 1));
    add_octave(big.pos, -16, 10, many);
    add_octave(big.pos, -15, 10, many);
    add_octave(big.pos, -14, 0, {sec(0, 1)});
    EXPECT_NE(pack_error({{"exp_400p", big}}).find("bkt_base 2055 is over the 11-bit field"), std::string::npos);

    Profile wide = exp_like();
    add_octave(wide.pos, -16, 16, {sec(0, 1)});
    EXPECT_NE(pack_error({{"exp_400p", wide}}).find("extract_size 16 is over the CONTROL entry's 4-bit field"), std::string::npos);

    Profile gap = exp_like();
    add_octave(gap.pos, -15, 0, {sec(0, 1)});
    EXPECT_NE(pack_error({{"exp_400p", gap}}).find("declared octaves are not contiguous (exponent -17 then -15)"), std::string::npos);

    // The neg side starts two octaves above the shared exp_offset, at ctrl index 0.
    Profile off = exp_like();
    off.neg = Region{};
    add_octave(off.neg, -17, 0, {sec(0, 1)});
    EXPECT_NE(pack_error({{"exp_400p", off}}).find("neg octaves start at exponent -17, which the shared exp_offset -19 cannot address"), std::string::npos);

    Profile lowm = exp_like();
    lowm.sat_pos_low.mantissa_point = 5;
    EXPECT_NE(pack_error({{"exp_400p", lowm}}).find("sat_point_pos_low.mantissa_point is 5"), std::string::npos);

    Profile noid = exp_like();
    noid.meta.tonga_id.reset();
    EXPECT_NE(pack_error({{"exp_400p", noid}}, Target::WithLn).find("exp_400p: the profile has no tonga_id"), std::string::npos);

    EXPECT_NE(pack_error({{"exp_400p", exp_like()}, {"exp_40p", exp_like()}}).find("function exp is already in the set"), std::string::npos);
    Profile same = identity();
    same.meta.sunda_id = 7;
    EXPECT_NE(pack_error({{"exp_400p", exp_like()}, {"identity_1p", same}}).find("func_id 7 is used twice"), std::string::npos);
}

TEST(Packer, ReadSetChecksSizesAndPointers) {
    TempDir t;
    PackedSet s = pack_set(Target::Trainium, "tiny", {{"exp_400p", exp_like()}, {"identity_1p", identity()}});
    write_set(s, t.path());
    PackedSet r = read_set(t.file("tiny.json"));
    EXPECT_EQ(r.bkt, s.bkt);
    EXPECT_EQ(r.stride, 32u);
    EXPECT_EQ(r.target, Target::Trainium);

    std::string bkt = read_file(t.file("tiny_bkt.bin"));
    t.write("tiny_bkt.bin", bkt.substr(0, bkt.size() - 1));
    try {
        read_set(t.file("tiny.json"));
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("tiny_bkt.bin: 479 bytes, but bkt_entry_cnt 15 x 32 = 480"), std::string::npos) << e.what();
    }
    t.write("tiny_bkt.bin", bkt);
    std::string ctrl = read_file(t.file("tiny_ctrl.bin"));
    t.write("tiny_ctrl.bin", ctrl + "x");
    EXPECT_THROW(read_set(t.file("tiny.json")), Error);
    t.write("tiny_ctrl.bin", ctrl);
    std::string man = read_file(t.file("tiny.json"));
    const std::string from = "\"pos_large_signal_pwl_control\": 9";
    auto pos = man.find(from);
    ASSERT_NE(pos, std::string::npos);
    t.write("tiny.json", man.replace(pos, from.size(), "\"pos_large_signal_pwl_control\": 99"));
    try {
        read_set(t.file("tiny.json"));
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("$.profile_meta_data[0]: clamp pointer 99 is outside the 15 bkt entries"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace neuronsim::test
