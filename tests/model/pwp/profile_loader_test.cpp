// The profile loader against hand-written JSON in the shipped schema.
#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/pwp/evaluate.h"
#include "model/pwp/profile_loader.h"
#include "model/pwp/profile_writer.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::test {
namespace {

using model::pwp::load_profile;
using model::pwp::parse_profile;

std::string box(uint32_t bits, const char* decorative = "0") {
    return std::string("{\"float\": \"") + decorative + "\", \"int\": " + std::to_string(bits) +
           ", \"hexstring\": \"x\", \"sign\": 0, \"exponent\": 0, \"mantissa\": 0}";
}

std::string xd(uint32_t x, uint32_t d0, uint32_t d1, uint32_t d2, uint32_t d3) {
    return "\"x\": " + box(x) + ", \"d0\": " + box(d0) + ", \"d1\": " + box(d1) + ", \"d2\": " + box(d2) + ", \"d3\": " + box(d3);
}

// A complete 24-key profile; `pos_octaves` and the saturation block can be swapped out.
std::string profile_json(const std::string& pos_octaves = "", const std::string& extra = "") {
    std::string sat =
        "\"saturation_points\": {"
        "\"sat_point_pos_high\": {\"sat_point\": 134, \"mantissa_point\": 3240472, " +
        xd(0, 0x7f800000, 0, 0, 0) +
        "},"
        "\"sat_point_pos_low\": {\"sat_point\": 107, \"mantissa_point\": 8388607, " +
        xd(0, 0x3f800000, 0x3f800000, 0x3f000000, 0x3e2aaaab) +
        "},"
        "\"sat_point_neg_high\": {\"sat_point\": 134, \"mantissa_point\": 0, " +
        xd(0, 0, 0, 0, 0) +
        "},"
        "\"sat_point_neg_low\": {\"sat_point\": 107, \"mantissa_point\": 8388607, " +
        xd(0, 0x3f800000, 0x3f800000, 0x3f000000, 0x3e2aaaab) + "}}";
    return "{\"name\": \"exp\", \"sunda_id\": 7, \"tonga_id\": 7, \"lut_size\": 2, \"max_diff\": " + box(0) +
           ", \"symmetry_en\": false, \"symmetry_invert_sign_opt\": 0, \"symmetry_opt_use_neg_region\": false"
           ", \"symmetry_point\": " +
           box(0) + ", \"zero_result\": " + box(0x3f800000, "1") + ", \"nan_result\": " + box(0x7fc00000) + ", \"pinf_result\": " + box(0x7f800000) +
           ", \"ninf_result\": " + box(0) + ", \"exponent_offset\": 0, \"lower_bound\": " + box(0) + ", \"upper_bound\": " + box(0) +
           ", \"imm_bias\": " + box(0) + ", \"fma_const0\": " + box(0) + ", \"fma_const1\": " + box(0) + ", \"use_multipass\": false, \"pos_exponents\": [" +
           (pos_octaves.empty() ? "{\"exponent\": -19, \"num_sections\": 1, \"extract_size\": 0, \"extract_lsb\": 23, \"pos\": true, "
                                  "\"exponent_sections\": [{" +
                                      xd(0x363fffff, 0x3f800018, 0x3f800018, 0x3f000018, 0x3e2aaacb) + "}]}"
                                : pos_octaves) +
           "], \"neg_exponents\": [{\"exponent\": -19, \"num_sections\": 1, \"extract_size\": 0, \"extract_lsb\": 23, "
           "\"pos\": false, \"exponent_sections\": [{" +
           xd(0xb63fffff, 0x3f7fffd0, 0x3f7fffd0, 0x3effffd0, 0x3e2aaa8b) + "}]}], " + sat + extra + "}";
}

std::string error_of(const std::string& text) {
    try {
        parse_profile(text, "t.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(ProfileLoader, ReadsEveryLiveKeyAsRawBits) {
    Profile p = parse_profile(profile_json(), "t.json");
    EXPECT_EQ(p.name, "exp");
    EXPECT_FALSE(p.symmetry_en);
    EXPECT_EQ(bits(p.zero_result), 0x3f800000u);
    EXPECT_EQ(bits(p.nan_result), 0x7fc00000u);
    EXPECT_EQ(bits(p.pinf_result), 0x7f800000u);
    const auto& o = p.pos.octaves[-19 + 127];
    ASSERT_TRUE(o.declared);
    ASSERT_EQ(o.count, 1u);
    const Section& s = p.pos.sections[o.first];
    EXPECT_EQ(bits(s.x), 0x363fffffu);
    EXPECT_EQ(bits(s.d0), 0x3f800018u);
    EXPECT_EQ(bits(s.d3), 0x3e2aaacbu);
    EXPECT_EQ(bits(p.neg.sections[p.neg.octaves[108].first].x), 0xb63fffffu);
    EXPECT_EQ(p.sat_pos_high.sat_point, 134);
    EXPECT_EQ(p.sat_pos_high.mantissa_point, 3240472);
    EXPECT_EQ(bits(p.sat_pos_high.section.d0), 0x7f800000u);
    EXPECT_EQ(bits(p.sat_neg_low.section.d3), 0x3e2aaaabu);
    EXPECT_EQ(p.meta.sunda_id, 7);
    EXPECT_TRUE(p.warnings.empty());
}

TEST(ProfileLoader, TheFloatStringIsNeverParsed) {
    std::string j = profile_json();
    // zero_result says "1" but also carry a contradicting decorative value elsewhere:
    std::string lie = box(0x40000000, "123.456");  // int says 2.0
    j.replace(j.find("\"symmetry_point\": ") + 18, box(0).size(), lie);
    EXPECT_EQ(parse_profile(j, "t.json").symmetry_point, 2.0f);
}

TEST(ProfileLoader, NegativeInt32SpellingOfAPattern) {
    std::string j = profile_json();
    j.replace(j.find("\"symmetry_point\": ") + 18, box(0).size(), "{\"int\": -1}");
    EXPECT_EQ(bits(parse_profile(j, "t.json").symmetry_point), 0xffffffffu);
}

TEST(ProfileLoader, OctavesAreIndexedByExponentNotArrayOrder) {
    std::string oct = "{\"exponent\": 3, \"extract_size\": 1, \"exponent_sections\": [{" + xd(0, 3, 0, 0, 0) + "}, {" + xd(0, 4, 0, 0, 0) +
                      "}]},"
                      "{\"exponent\": -2, \"extract_size\": 0, \"exponent_sections\": [{" +
                      xd(0, 5, 0, 0, 0) + "}]}";
    Profile p = parse_profile(profile_json(oct), "t.json");
    EXPECT_EQ(p.pos.octaves[130].count, 2u);
    EXPECT_EQ(p.pos.octaves[125].count, 1u);
    EXPECT_EQ(bits(p.pos.sections[p.pos.octaves[125].first].d0), 5u);
    EXPECT_EQ(bits(p.pos.sections[p.pos.octaves[130].first + 1].d0), 4u);
}

TEST(ProfileLoader, InertKeysNeverChangeEvaluation) {
    // num_sections, extract_lsb, pos and lut_size contradicting the data: warnings, same bits.
    std::string oct =
        "{\"exponent\": -19, \"num_sections\": 77, \"extract_size\": 0, \"extract_lsb\": 5, \"pos\": false, "
        "\"exponent_sections\": [{" +
        xd(0x363fffff, 0x3f800018, 0x3f800018, 0x3f000018, 0x3e2aaacb) + "}]}";
    std::string j = profile_json(oct);
    j.replace(j.find("\"lut_size\": 2"), 13, "\"lut_size\": 9");
    Profile odd = parse_profile(j, "t.json");
    Profile ref = parse_profile(profile_json(), "t.json");
    EXPECT_EQ(odd.warnings.size(), 3u);
    for (uint32_t in : {0x36400000u, 0x36600000u, 0xb6600000u, 0x7f000000u, 0x30000000u})
        EXPECT_EQ(bits(model::pwp::evaluate_generic(odd, flt(in))), bits(model::pwp::evaluate_generic(ref, flt(in))));
}

TEST(ProfileLoader, UnknownKeysAreTolerated) { EXPECT_NO_THROW(parse_profile(profile_json("", ", \"something_new\": [1, 2, 3]"), "t.json")); }

TEST(ProfileLoader, MissingLiveKeyNamesFileAndPath) {
    std::string j = profile_json();
    j.replace(j.find("\"zero_result\""), 13, "\"zero_resultX\"");
    std::string m = error_of(j);
    EXPECT_NE(m.find("t.json: $: missing required key \"zero_result\""), std::string::npos) << m;

    j = profile_json();
    j.replace(j.find("\"d2\""), 4, "\"dd\"");
    m = error_of(j);
    EXPECT_NE(m.find("$.pos_exponents[0].exponent_sections[0]: missing required key \"d2\""), std::string::npos) << m;
}

TEST(ProfileLoader, WrongTypesNameThePath) {
    std::string m = error_of(profile_json("{\"exponent\": 1, \"extract_size\": \"3\", \"exponent_sections\": []}"));
    EXPECT_NE(m.find("t.json: $.pos_exponents[0].extract_size: expected an integer in [0, 23], got string \"3\""), std::string::npos) << m;
    m = error_of(profile_json("{\"exponent\": 1, \"extract_size\": 0, \"exponent_sections\": [{\"x\": 1.5}]}"));
    EXPECT_NE(m.find("$.pos_exponents[0].exponent_sections[0].x: expected a float box object"), std::string::npos) << m;
    std::string j = profile_json();
    j.replace(j.find("\"symmetry_en\": false"), 20, "\"symmetry_en\": \"no\"");
    m = error_of(j);
    EXPECT_NE(m.find("$.symmetry_en: expected a boolean"), std::string::npos) << m;
}

TEST(ProfileLoader, OutOfRangeValues) {
    std::string m = error_of(profile_json("{\"exponent\": 129, \"extract_size\": 0, \"exponent_sections\": []}"));
    EXPECT_NE(m.find("$.pos_exponents[0].exponent: expected an integer in [-127, 128], got integer 129"), std::string::npos) << m;
    m = error_of(profile_json("{\"exponent\": 0, \"extract_size\": 24, \"exponent_sections\": []}"));
    EXPECT_NE(m.find("$.pos_exponents[0].extract_size: expected an integer in [0, 23]"), std::string::npos) << m;
    m = error_of(profile_json("{\"exponent\": 0, \"extract_size\": 0, \"exponent_sections\": [{\"x\": {\"int\": 4294967296}, \"d0\": 0}]}"));
    EXPECT_NE(m.find("$.pos_exponents[0].exponent_sections[0].x.int: expected an integer in [-2147483648, 4294967295]"), std::string::npos) << m;
}

TEST(ProfileLoader, MoreSectionsThanTheOctaveAddresses) {
    std::string s = "{" + xd(0, 0, 0, 0, 0) + "}";
    std::string m = error_of(profile_json("{\"exponent\": 0, \"extract_size\": 1, \"exponent_sections\": [" + s + "," + s + "," + s + "]}"));
    EXPECT_NE(m.find("$.pos_exponents[0].exponent_sections: 3 sections stored but extract_size 1 addresses at most 2"), std::string::npos) << m;
}

TEST(ProfileLoader, DuplicateExponent) {
    std::string o = "{\"exponent\": 2, \"extract_size\": 0, \"exponent_sections\": []}";
    std::string m = error_of(profile_json(o + "," + o));
    EXPECT_NE(m.find("$.pos_exponents[1].exponent: exponent 2 is declared twice"), std::string::npos) << m;
}

TEST(ProfileLoader, SatPointIsAPlainIntegerNotABox) {
    std::string j = profile_json();
    j.replace(j.find("\"sat_point\": 134"), 16, "\"sat_point\": " + box(134));
    std::string m = error_of(j);
    EXPECT_NE(m.find("$.saturation_points.sat_point_pos_high.sat_point: expected a plain integer"), std::string::npos) << m;
}

TEST(ProfileLoader, MalformedJsonNamesLineAndColumn) {
    std::string m = error_of("{\n  \"name\": \"exp\",\n  \"zero_result\": {\"int\": 1,,}\n}");
    EXPECT_NE(m.find("t.json:3:"), std::string::npos) << m;
    EXPECT_NE(m.find("malformed JSON"), std::string::npos) << m;
    m = error_of("[1, 2]");
    EXPECT_NE(m.find("t.json: $: expected an object, got array"), std::string::npos) << m;
}

TEST(ProfileLoader, MissingFileNamesThePath) {
    try {
        load_profile("/nonexistent/dir/exp_400p.json");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/exp_400p.json: cannot open"), std::string::npos) << e.what();
    }
}

TEST(ProfileWriter, RoundTripsEveryLiveBit) {
    Profile p = parse_profile(profile_json(), "t.json");
    std::string text = model::pwp::profile_to_text(p);
    Profile q = parse_profile(text, "round.json");
    EXPECT_EQ(text, model::pwp::profile_to_text(q));
    EXPECT_EQ(bits(q.sat_neg_low.section.d3), 0x3e2aaaabu);
    EXPECT_EQ(q.sat_pos_high.mantissa_point, 3240472);
    // The writer's boxes carry the shipped six members, "int" first among the numbers.
    auto j = nlohmann::json::parse(text);
    EXPECT_EQ(j["zero_result"].size(), 6u);
    EXPECT_EQ(j["zero_result"]["int"], 0x3f800000u);
    EXPECT_EQ(j["zero_result"]["hexstring"], "3f800000");
    EXPECT_EQ(j["pos_exponents"][0]["extract_lsb"], 23);
}

}  // namespace
}  // namespace neuronsim::test
