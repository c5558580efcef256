// `pwp check` on the generated catalog (clean) and on corrupted copies (each violation found,
// named by file and record).
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/pwp/blob.h"
#include "model/pwp/set_check.h"
#include "model/pwp/table_eval.h"
#include "tests/support/catalog_fixture.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

using namespace model::pwp;
namespace fs = std::filesystem;

TEST(SetCheck, GeneratedCatalogIsClean) {
    for (const char* t : {"trainium", "with_ln"}) {
        CheckResult r = check_pwp_dir(generated_catalog() + "/pwp_bin_" + t);
        for (const auto& i : r.issues) ADD_FAILURE() << i.file << " " << i.where << ": " << i.what;
        EXPECT_EQ(r.sets, std::string(t) == "trainium" ? 21u : 14u);
        EXPECT_EQ(r.functions, std::string(t) == "trainium" ? 309u : 100u);  // as the shipped catalog
    }
}

// A private copy of the trainium sets to corrupt.
struct Copy {
    TempDir t;
    std::string dir;
    Copy() {
        dir = t.path() + "/pwp_bin_trainium";
        fs::copy(generated_catalog() + "/pwp_bin_trainium", dir);
    }
    void patch(const std::string& file, size_t offset, uint8_t value) {
        std::string b = read_file(dir + "/" + file);
        b[offset] = static_cast<char>(value);
        t.write("pwp_bin_trainium/" + file, b);
    }
    std::vector<CheckIssue> issues() { return check_pwp_dir(dir).issues; }
};

bool has(const std::vector<CheckIssue>& is, const std::string& file, const std::string& where, const std::string& what) {
    for (const auto& i : is)
        if (i.file == file && i.where.find(where) != std::string::npos && i.what.find(what) != std::string::npos) return true;
    std::string all;
    for (const auto& i : is) all += i.file + " | " + i.where + " | " + i.what + "\n";
    ADD_FAILURE() << "expected " << file << " / " << where << " / " << what << " among:\n" << all;
    return false;
}

TEST(SetCheck, NonZeroBucketPad) {
    Copy c;
    c.patch("exp_and_others_bkt.bin", 5 * 32 + 25, 1);
    auto is = c.issues();
    EXPECT_EQ(is.size(), 1u);
    has(is, "exp_and_others_bkt.bin", "record 5", "bytes 20..31 are not zero");
}

TEST(SetCheck, ReservedBitsAndCtrlPad) {
    Copy c;
    c.patch("exp_and_others_ctrl.bin", 3 * 32 + 3, 0x01);
    c.patch("exp_and_others_ctrl.bin", 4 * 32 + 9, 0x01);
    auto is = c.issues();
    has(is, "exp_and_others_ctrl.bin", "word 3", "reserved bits 24..31 are not zero");
    has(is, "exp_and_others_ctrl.bin", "word 4", "pad bytes 4..31 are not zero");
}

TEST(SetCheck, ExtractLsbAndBases) {
    Copy c;
    std::string b = read_file(c.dir + "/exp_and_others_ctrl.bin");
    std::vector<uint8_t> v(b.begin(), b.end());
    // Words 15 and 16 are octaves of exp_400p's positive block (the generated layout decides
    // which; the checker's reports name the words either way).
    uint32_t w = read_ctrl(v, 16, 32);
    CtrlWord cw = unpack_ctrl(w);
    uint32_t bad_lsb = (w & ~(0x1Fu << 11)) | ((cw.extract_lsb ^ 1u) << 11);
    for (int k = 0; k < 4; ++k) c.patch("exp_and_others_ctrl.bin", 16 * 32 + k, static_cast<uint8_t>(bad_lsb >> (8 * k)));
    uint32_t w2 = read_ctrl(v, 15, 32);
    uint32_t bad_base = (w2 & ~0x7FFu) | ((unpack_ctrl(w2).bkt_base + 1) & 0x7FF);
    for (int k = 0; k < 4; ++k) c.patch("exp_and_others_ctrl.bin", 15 * 32 + k, static_cast<uint8_t>(bad_base >> (8 * k)));
    auto is = c.issues();
    has(is, "exp_and_others_ctrl.bin", "word 16 (exp_400p)", "extract_lsb");
    // A shifted base shows as a full octave with the wrong number of sections before it.
    const uint32_t full = 1u << unpack_ctrl(read_ctrl(v, 14, 32)).extract_size;
    has(is, "exp_and_others_ctrl.bin", "word 14 (exp_400p)", "sections where a full octave holds 2^extract_size = " + std::to_string(full));
}

TEST(SetCheck, ManifestCountsPointersAndThresholds) {
    Copy c;
    std::string m = read_file(c.dir + "/exp_and_others.json");
    auto replace = [&](const std::string& from, const std::string& to) {
        auto p = m.find(from);
        ASSERT_NE(p, std::string::npos) << from;
        m.replace(p, from.size(), to);
    };
    nlohmann::json j = nlohmann::json::parse(m);
    const auto& meta = j["profile_meta_data"][0];
    replace("\"neg_small_signal_pwl_control\": " + std::to_string(meta["neg_small_signal_pwl_control"].get<int>()), "\"neg_small_signal_pwl_control\": 3");
    replace("\"large_pos_signal_mantissa_threshold\": " + std::to_string(meta["large_pos_signal_mantissa_threshold"].get<int>()),
            "\"large_pos_signal_mantissa_threshold\": 1");
    c.t.write("pwp_bin_trainium/exp_and_others.json", m);
    auto is = c.issues();
    has(is, "exp_and_others.json", "neg_small_signal_pwl_control", "is 3, the function's clamp slot is bkt");
    has(is, "exp_and_others.json", "large_pos_signal_mantissa_threshold", "1 needs 1 sections in top octave");
}

TEST(SetCheck, SizesAndStride) {
    Copy c;
    std::string b = read_file(c.dir + "/small_bkt.bin");
    c.t.write("pwp_bin_trainium/small_bkt.bin", b + std::string(32, '\0'));
    std::string ct = read_file(c.dir + "/tanh_and_derivative_ctrl.bin");
    std::string half;
    for (size_t i = 0; i < ct.size(); i += 32) half += ct.substr(i, 16);
    c.t.write("pwp_bin_trainium/tanh_and_derivative_ctrl.bin", half);
    auto is = c.issues();
    has(is, "small_bkt.bin", "file size", "bkt_entry_cnt 52 x 32 = 1664");
    has(is, "tanh_and_derivative_ctrl.bin", "file size", "stride 16 B differs from 32 B");
}

TEST(SetCheck, MissingFilesAndRosterMismatch) {
    Copy c;
    fs::remove(c.dir + "/version.json");
    fs::remove(c.dir + "/mish_and_others_bkt.bin");
    std::string a = read_file(c.dir + "/act_info.json");
    auto p = a.find("\"softplus\": 40");
    a.replace(p, 14, "\"softplus\": 4");
    c.t.write("pwp_bin_trainium/act_info.json", a);
    auto is = c.issues();
    has(is, "version.json", "-", "missing");
    has(is, "mish_and_others_bkt.bin", "set mish_and_others", "mish_and_others_bkt.bin: cannot open");  // the missing file is named
    has(is, "softplus_and_others.json", "$.profile_meta_data", "differ from act_info.json's [softplus_4p");
}

TEST(SetCheckCli, ExitStatusAndReport) {
    CliResult ok = run_cli("pwp check " + generated_catalog() + "/pwp_bin_with_ln");
    EXPECT_EQ(ok.status, 0) << ok.out << ok.err;
    EXPECT_NE(ok.out.find("14 sets, 100 functions"), std::string::npos) << ok.out;
    Copy c;
    c.patch("exp_and_others_bkt.bin", 7 * 32 + 31, 9);
    CliResult bad = run_cli("pwp check " + c.dir);
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.out.find("exp_and_others_bkt.bin: record 7: bytes 20..31 are not zero"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace neuronsim::test

namespace neuronsim::test {
namespace {

// A set written by hand in the vendor's layout, not by our packer: one odd function with two
// pos octaves (the second truncated by the high threshold) and a resident, 16-byte stride.
struct HandSet {
    TempDir t;
    std::string dir;
    HandSet() {
        dir = t.path() + "/pwp_bin_with_ln";
        std::filesystem::create_directories(dir);
        std::vector<uint8_t> bkt, ctrl;
        auto rec = [&](float x, float d0, float d1) { append_bkt(bkt, sec(x, d0, d1)); };
        // f: octave 0 [1,2): 2 buckets; octave 1 [2,4): extract_size 1, 1 of 2 stored (clamp at 3.0).
        rec(1.25f, 10, 0);
        rec(1.75f, 11, 0);
        rec(2.5f, 12, 0);
        rec(0, 1, 0);
        rec(0, 1, 0);
        rec(0, 99, 0);
        rec(0, 99, 0);  // pos_low neg_low pos_high neg_high
        rec(0, 0, 1);
        rec(0, 0, 1);
        rec(0, 0, 1);
        rec(0, 0, 1);  // identity
        for (uint32_t w : {pack_ctrl(0, 1), pack_ctrl(2, 1), pack_ctrl_sentinel(7)}) append_ctrl(ctrl, w, 16);
        t.write("pwp_bin_with_ln/hand_bkt.bin", std::string(bkt.begin(), bkt.end()));
        t.write("pwp_bin_with_ln/hand_ctrl.bin", std::string(ctrl.begin(), ctrl.end()));
        auto meta = [](const std::string& name, int id, int sym, int e_off, int base, int sat, int small, int large, int mant) {
            return "{\"func_name\": \"" + name + "\", \"func_id\": " + std::to_string(id) +
                   ", \"fzero_result\": 0, \"fpinf_result\": 1065353216, \"fninf_result\": 3212836864, \"fnan_result\": 2143289344"
                   ", \"symmetry_opt_en\": " +
                   std::to_string(sym) + ", \"sym_invert_sign_point\": " + std::to_string(sym) +
                   ", \"symmetry_opt_use_neg_region\": 0, \"symmetry_point\": 0, \"imm_bias\": 0, \"exp_offset\": " + std::to_string(e_off) +
                   ", \"fma_const_0\": 0, \"fma_const_1\": 0, \"fma_indirection_src_sel\": 0"
                   ", \"pwl_control_base_pos\": " +
                   std::to_string(base) + ", \"pwl_control_base_neg\": " + std::to_string(base) + ", \"pos_small_signal_pwl_control\": " + std::to_string(sat) +
                   ", \"neg_small_signal_pwl_control\": " + std::to_string(sat + 1) + ", \"pos_large_signal_pwl_control\": " + std::to_string(sat + 2) +
                   ", \"neg_large_signal_pwl_control\": " + std::to_string(sat + 3) + ", \"small_pos_signal_exp_threshold\": " + std::to_string(small) +
                   ", \"small_neg_signal_exp_threshold\": " + std::to_string(small) + ", \"large_pos_signal_exp_threshold\": " + std::to_string(large) +
                   ", \"large_neg_signal_exp_threshold\": " + std::to_string(large) + ", \"large_pos_signal_mantissa_threshold\": " + std::to_string(mant) +
                   ", \"large_neg_signal_mantissa_threshold\": " + std::to_string(mant) + ", \"lower_bound\": 0, \"upper_bound\": 0, \"use_multipass\": false}";
        };
        t.write("pwp_bin_with_ln/hand.json",
                "{\"bkt_bin\": \"hand_bkt.bin\", \"bkt_entry_cnt\": 11, \"ctl_bin\": \"hand_ctrl.bin\", \"ctl_entry_cnt\": 3,"
                " \"func_to_bkt_start_idx\": {\"odd\": 0, \"identity\": 7}, \"func_to_ctl_start_idx\": {\"odd\": 0, \"identity\": 2},"
                " \"func_exp_to_bkt_start_idx\": {}, \"func_exp_to_ctl_start_idx\": {}, \"profile_meta_data\": [" +
                    meta("odd_4p", 40, 1, 0, 0, 3, 127, 128, 0x400000) + ", " + meta("identity_1p", 1, 0, 0, 2, 7, 0, 0, 0) + "]}");
        t.write(
            "pwp_bin_with_ln/act_info.json",
            "{\"act_func_sets\": [{\"name\": \"hand\", \"bkt_bin\": \"hand_bkt.bin\", \"ctrl_bin\": \"hand_ctrl.bin\","
            " \"profile_json\": \"hand.json\", \"act\": {\"odd\": 4, \"identity\": 1}}], \"pwp_file_keys\": [\"bkt_bin\", \"ctrl_bin\", \"profile_json\"]}");
        t.write("pwp_bin_with_ln/version.json", "{\"KaenaPWP\": {\"brazil_version\": \"\", \"git_sha\": \"\"}}");
    }
};

TEST(VendorLayout, HandMadeSetChecksCleanAndEvaluates) {
    HandSet h;
    CheckResult r = check_pwp_dir(h.dir);
    for (const auto& i : r.issues) ADD_FAILURE() << i.file << " " << i.where << ": " << i.what;
    EXPECT_EQ(r.functions, 2u);

    PackedSet s = read_set(h.dir + "/hand.json");
    EXPECT_EQ(s.stride, 16u);
    TableEvaluator te(s);
    const FuncMeta& f = te.lookup("odd");
    EXPECT_EQ(te.evaluate(f, 1.1f), 10.0f);  // octave 0, bucket 0
    EXPECT_EQ(te.evaluate(f, 1.9f), 11.0f);  // bucket 1
    EXPECT_EQ(te.evaluate(f, 2.9f), 12.0f);  // octave 1, bucket 0 (1 of 2 stored)
    EXPECT_EQ(te.evaluate(f, 3.0f), 99.0f);  // the high clamp at mantissa 0x400000
    EXPECT_EQ(te.evaluate(f, -1.9f), -11.0f);  // odd
    EXPECT_EQ(te.evaluate(f, 0.5f), 1.0f);  // low clamp
    EXPECT_EQ(te.evaluate(f, 0.0f), 0.0f);
    EXPECT_EQ(te.evaluate(f, INFINITY), 1.0f);
    EXPECT_EQ(te.evaluate(te.lookup("1"), -7.5f), -7.5f);
}

}  // namespace
}  // namespace neuronsim::test
