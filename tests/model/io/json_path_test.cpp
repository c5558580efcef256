// JSON parsing errors name the file and the place: syntax errors and out-of-range numbers
// with line, column, byte offset and JSON path; duplicate keys; nesting depth. No nlohmann
// exception escapes, through every loader built on parse_json_text.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/common/error.h"
#include "model/io/json_path.h"
#include "model/pwp/func_map.h"
#include "model/pwp/manifest.h"
#include "model/pwp/profile_loader.h"
#include "model/pwp/profile_writer.h"
#include "model/pwp/roster.h"
#include "tests/support/asan.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

using model::io::parse_json_text;

std::string error_of(const std::string& text) {
    try {
        parse_json_text(text, "f.json");
    } catch (const Error& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("ESCAPED: ") + e.what();
    }
    return "(no error)";
}

TEST(JsonParse, ANumberOutOfRangeNamesFileLineByteAndPath) {
    const std::string m = error_of("{\n  \"a\": [1, 2,\n    1e999]\n}");
    EXPECT_EQ(m, "f.json:3:5: number 1e999 is out of range for a double (byte offset 20, at $.a[2])");
    EXPECT_NE(error_of("-1e400").find("f.json:1:1: number -1e400 is out of range"), std::string::npos);
}

TEST(JsonParse, SyntaxErrorsKeepLineColumnAndGainThePath) {
    const std::string m = error_of("{\"x\": {\"y\": [true, nul]}}");
    EXPECT_NE(m.find("f.json:1:23: malformed JSON (byte offset 22, at $.x.y[1]): parse error"), std::string::npos) << m;
    EXPECT_NE(error_of("").find("f.json:1:1: malformed JSON"), std::string::npos);
}

TEST(JsonParse, DuplicateKeysAreErrors) {
    EXPECT_EQ(error_of("{\"a\": {\"b\": 1, \"c\": 2, \"b\": 3}}"), "f.json: $.a.b: duplicate key \"b\" (a JSON object names each key once)");
    // The same key in different objects is fine.
    EXPECT_EQ(parse_json_text("[{\"a\": 1}, {\"a\": 2}]", "f.json")[1]["a"], 2);
}

TEST(JsonParse, NestingIsBounded) {
    std::string deep(model::io::kMaxJsonDepth + 1, '[');
    deep += std::string(model::io::kMaxJsonDepth + 1, ']');
    EXPECT_NE(error_of(deep).find("JSON nested deeper than 256 levels"), std::string::npos);
    std::string ok(model::io::kMaxJsonDepth, '[');
    ok += std::string(model::io::kMaxJsonDepth, ']');
    EXPECT_EQ(error_of(ok), "(no error)");
}

TEST(JsonParse, KeepsMemberOrderAndValues) {
    auto j = parse_json_text("{\"z\": 1, \"a\": [2.5, \"s\", null, false, -3, 18446744073709551615]}", "f.json");
    EXPECT_EQ(j.begin().key(), "z");
    EXPECT_EQ(j["a"][0], 2.5);
    EXPECT_EQ(j["a"][5].get<uint64_t>(), UINT64_MAX);
    EXPECT_EQ(j.dump(), "{\"z\":1,\"a\":[2.5,\"s\",null,false,-3,18446744073709551615]}");
}

// Every loader reports 1e999 as an Error naming the file (it used to escape as
// nlohmann out_of_range.406).
TEST(JsonParse, LoadersReportOutOfRangeNumbers) {
    auto msg = [](auto&& f) -> std::string {
        try {
            f();
        } catch (const Error& e) {
            return e.what();
        }
        return "(no error)";
    };
    EXPECT_NE(msg([] { model::pwp::parse_profile("{\"name\": 1e999}", "p.json"); }).find("p.json:1:10: number 1e999"), std::string::npos);
    EXPECT_NE(msg([] { model::pwp::parse_manifest("{\"bkt_entry_cnt\": 1e999}", "m.json"); }).find("m.json:1:19: number 1e999"), std::string::npos);
    EXPECT_NE(msg([] { model::pwp::parse_act_info("{\"act_func_sets\": [1e999]}", "a.json"); }).find("a.json:1:20: number 1e999"), std::string::npos);
    EXPECT_NE(msg([] { model::pwp::parse_func_map("{\"x\": 1e999}", "fm.json"); }).find("fm.json:1:7: number 1e999"), std::string::npos);
}

// An inert plain-number field beyond float's range is an error at its path, not an undefined
// double -> float conversion.
TEST(JsonParse, ProfileNumbersBeyondFloatRange) {
    TempDir t;
    model::pwp::write_profile(clamp_only("x", sec(0, 1)), t.file("p.json"));
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(read_file(t.file("p.json")));
    j["max_diff"] = 1e300;
    try {
        model::pwp::parse_profile(j.dump(), "p.json");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("p.json: $.max_diff: expected a number in float32's range, got non-integer number 1e+300"), std::string::npos)
            << e.what();
    }
    j["max_diff"] = 0.25;
    EXPECT_EQ(model::pwp::parse_profile(j.dump(), "p.json").meta.max_diff, 0x3e800000u);
}

}  // namespace
}  // namespace neuronsim::test

namespace neuronsim::test {
namespace {

TEST(JsonParse, LongValuesAreQuotedShortInErrors) {
    auto j = model::io::parse_json_text("{\"name\": \"" + std::string(100000, 'a') + "\"}", "f.json");
    try {
        model::io::JsonNode(j, "f.json").at("name").as_int(0, 1);
        FAIL();
    } catch (const Error& e) {
        EXPECT_LT(std::string(e.what()).size(), 200u) << e.what();
        EXPECT_NE(std::string(e.what()).find("f.json: $.name: expected an integer in [0, 1], got string \"aaaa"), std::string::npos);
    }
}

}  // namespace
}  // namespace neuronsim::test

namespace neuronsim::test {
namespace {

// Running out of memory while parsing is an error naming the source, not std::bad_alloc.
TEST(JsonParse, OutOfMemoryNamesTheSource) {
    if (NEURONSIM_ASAN) GTEST_SKIP() << "ASan reserves terabytes of address space";
    std::string text = "[";
    for (int i = 0; i < 10000000; ++i) text += "1,";
    text += "1]";
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        rlimit lim{uint64_t{192} << 20, uint64_t{192} << 20};
        setrlimit(RLIMIT_AS, &lim);
        try {
            parse_json_text(text, "huge.json");
        } catch (const Error& e) {
            _exit(std::string(e.what()).find("huge.json: out of memory while parsing its 20000003 bytes of JSON") != std::string::npos ? 0 : 3);
        } catch (const std::bad_alloc&) {
            _exit(4);
        }
        _exit(5);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace neuronsim::test
