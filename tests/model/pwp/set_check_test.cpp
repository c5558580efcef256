// `pwp check` on the generated catalog (clean) and on corrupted copies (each violation found,
// named by file and record).
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/pwp/blob.h"
#include "model/pwp/set_check.h"
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
    uint32_t w = read_ctrl(v, 30, 32);
    CtrlWord cw = unpack_ctrl(w);
    uint32_t bad_lsb = (w & ~(0x1Fu << 11)) | ((cw.extract_lsb ^ 1u) << 11);
    for (int k = 0; k < 4; ++k) c.patch("exp_and_others_ctrl.bin", 30 * 32 + k, static_cast<uint8_t>(bad_lsb >> (8 * k)));
    uint32_t w2 = read_ctrl(v, 10, 32);
    uint32_t bad_base = (w2 & ~0x7FFu) | ((unpack_ctrl(w2).bkt_base + 1) & 0x7FF);
    for (int k = 0; k < 4; ++k) c.patch("exp_and_others_ctrl.bin", 10 * 32 + k, static_cast<uint8_t>(bad_base >> (8 * k)));
    auto is = c.issues();
    has(is, "exp_and_others_ctrl.bin", "word 30 (exp_400p)", "extract_lsb");
    // A shifted base shows as a full octave with the wrong number of sections before it.
    has(is, "exp_and_others_ctrl.bin", "word 9 (exp_400p)", "sections where a full octave holds 2^extract_size = 1");
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
    replace("\"neg_small_signal_pwl_control\": " + std::to_string(meta["neg_small_signal_pwl_control"].get<int>()),
            "\"neg_small_signal_pwl_control\": 3");
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
    has(is, "mish_and_others.json", "set mish_and_others", "mish_and_others_bkt.bin: cannot open");
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
