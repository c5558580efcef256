// Files a set names stay in the set's directory and are regular files; `pwp check` reports a
// broken file against that file and goes on with the others.
#include <sys/stat.h>

#include <cctype>
#include <filesystem>
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/common/error.h"
#include "model/pwp/packer.h"
#include "model/pwp/roster.h"
#include "model/pwp/set_check.h"
#include "tests/support/catalog_fixture.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

using namespace model::pwp;
namespace fs = std::filesystem;

// A private copy of the with_ln sets.
struct WithLn {
    TempDir t;
    std::string dir;
    WithLn() {
        dir = t.path() + "/pwp_bin_with_ln";
        fs::copy(generated_catalog() + "/pwp_bin_with_ln", dir);
    }
    // Replaces the first match of `from`, whose numbers stand for any number (the catalog's
    // sizes change when its tables are refitted; the tests are about the field, not its value).
    void replace(const std::string& file, const std::string& from, const std::string& to) {
        std::string s = read_file(dir + "/" + file);
        std::string pattern;
        for (size_t i = 0; i < from.size();) {
            if (std::isdigit(static_cast<unsigned char>(from[i]))) {
                pattern += "[0-9]+";
                while (i < from.size() && std::isdigit(static_cast<unsigned char>(from[i]))) ++i;
                continue;
            }
            if (std::string("\\^$.|?*+()[]{}").find(from[i]) != std::string::npos) pattern += '\\';
            pattern += from[i++];
        }
        std::smatch m;
        ASSERT_TRUE(std::regex_search(s, m, std::regex(pattern))) << from;
        s.replace(static_cast<size_t>(m.position(0)), static_cast<size_t>(m.length(0)), to);
        t.write("pwp_bin_with_ln/" + file, s);
    }
};

std::string read_set_error(const std::string& manifest) {
    try {
        read_set(manifest);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(SetPaths, BlobNamesThatLeaveTheSetDirectoryAreRefused) {
    WithLn c;
    const std::string m = c.dir + "/exp_and_others.json";
    c.replace("exp_and_others.json", "\"bkt_bin\": \"exp_and_others_bkt.bin\"", "\"bkt_bin\": \"../../exp_and_others_bkt.bin\"");
    std::string e = read_set_error(m);
    EXPECT_NE(e.find(m + ": $.bkt_bin: expected a file in the set's directory (a relative path without '..'), got string \"../../exp_and_others_bkt.bin\""),
              std::string::npos)
        << e;
    c.replace("exp_and_others.json", "\"../../exp_and_others_bkt.bin\"", "\"/dev/zero\"");
    e = read_set_error(m);
    EXPECT_NE(e.find("$.bkt_bin: expected a file in the set's directory"), std::string::npos) << e;
    c.replace("exp_and_others.json", "\"/dev/zero\"", "\"\"");
    EXPECT_NE(read_set_error(m).find("$.bkt_bin: expected a file in the set's directory"), std::string::npos);
}

TEST(SetPaths, BlobsThatAreSpecialFilesAreRefused) {
    WithLn c;
    fs::remove(c.dir + "/exp_and_others_ctrl.bin");
    ASSERT_EQ(mkfifo((c.dir + "/exp_and_others_ctrl.bin").c_str(), 0600), 0);
    const std::string e = read_set_error(c.dir + "/exp_and_others.json");
    EXPECT_NE(e.find("exp_and_others_ctrl.bin: is a FIFO (named pipe), not a regular file; refusing to read this ctrl blob"), std::string::npos) << e;
    fs::remove(c.dir + "/exp_and_others_ctrl.bin");
    fs::create_symlink("/dev/zero", c.dir + "/exp_and_others_ctrl.bin");
    EXPECT_NE(read_set_error(c.dir + "/exp_and_others.json").find("is a character device"), std::string::npos);
}

TEST(SetPaths, ActInfoSetNamesMustBeFileStems) {
    try {
        parse_act_info("{\"act_func_sets\": [{\"name\": \"../../etc/x\", \"act\": {}}]}", "act_info.json");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("act_info.json: $.act_func_sets[0].name: expected a set name (a file stem, without '/')"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(parse_act_info("{\"act_func_sets\": [{\"name\": \"a/b\", \"act\": {}}]}", "a.json"), Error);
    EXPECT_EQ(parse_act_info("{\"act_func_sets\": [{\"name\": \"exp_and_others\", \"act\": {}}]}", "a.json").size(), 1u);
}

bool has(const CheckResult& r, const std::string& file, const std::string& what) {
    for (const auto& i : r.issues)
        if (i.file == file && i.what.find(what) != std::string::npos) return true;
    std::string all;
    for (const auto& i : r.issues) all += i.file + " | " + i.where + " | " + i.what + "\n";
    ADD_FAILURE() << "expected " << file << " / " << what << " among:\n" << all;
    return false;
}

TEST(SetPaths, CheckReportsABrokenManifestAndGoesOn) {
    WithLn c;
    c.replace("exp_and_others.json", "\"bkt_entry_cnt\": 844", "\"bkt_entry_cnt\": 1e999");
    CheckResult r = check_pwp_dir(c.dir);
    has(r, "exp_and_others.json", "exp_and_others.json:3:20: number 1e999 is out of range for a double (byte offset 60, at $.bkt_entry_cnt)");
    EXPECT_EQ(r.sets, 13u);  // the other 13 sets are checked
    EXPECT_EQ(r.issues.size(), 1u);
}

TEST(SetPaths, CheckWithoutARosterStillChecksEverySet) {
    WithLn c;
    c.replace("act_info.json", "\"exp\": 400", "\"exp\": 1e999");
    std::string b = read_file(c.dir + "/erf_and_others_bkt.bin");
    b[3 * 32 + 30] = 1;  // a pad byte
    c.t.write("pwp_bin_with_ln/erf_and_others_bkt.bin", b);
    CheckResult r = check_pwp_dir(c.dir);
    has(r, "act_info.json", "number 1e999 is out of range");
    has(r, "erf_and_others_bkt.bin", "bytes 20..31 are not zero");
    EXPECT_EQ(r.sets, 14u);
    EXPECT_EQ(r.issues.size(), 2u);
    CliResult cli = run_cli("pwp check " + c.dir);
    EXPECT_EQ(cli.status, 1);
    EXPECT_NE(cli.out.find("act_info.json: $: " + c.dir + "/act_info.json:"), std::string::npos) << cli.out;
    EXPECT_NE(cli.out.find("erf_and_others_bkt.bin: record 3: bytes 20..31 are not zero"), std::string::npos) << cli.out;
    EXPECT_NE(cli.out.find("14 sets, 100 functions"), std::string::npos) << cli.out;
}

TEST(SetPaths, CheckDoesNotReadPastTheTablesForBadStartIndices) {
    WithLn c;
    // Two functions starting past the ctrl table: their words are not read, they are reported.
    // The numbers come from the catalog's own manifest (they change when its tables do).
    nlohmann::json m = nlohmann::json::parse(read_file(c.dir + "/exp_and_others.json"));
    const std::string bkt = std::to_string(m["func_to_bkt_start_idx"]["tanh"].get<long>());
    const std::string records = std::to_string(m["bkt_entry_cnt"].get<long>()), words = std::to_string(m["ctl_entry_cnt"].get<long>());
    m["func_to_ctl_start_idx"]["tanh"] = 5000;
    m["func_to_ctl_start_idx"]["identity"] = 6000;
    c.t.write("pwp_bin_with_ln/exp_and_others.json", m.dump(2));
    CheckResult r = check_pwp_dir(c.dir);
    has(r, "exp_and_others.json", "starts at bkt " + bkt + " / ctrl 5000, past the " + records + " bkt records / " + words + " ctrl words");
}

}  // namespace
}  // namespace neuronsim::test
