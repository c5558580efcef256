// docs/stats-schema.md lists every key of stats.json: the stats of every golden run (and of a
// run with an overlay) may hold no key the page does not list, and every key the page lists
// appears in one of them unless the page marks it optional.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

const std::string kSrc = NEURONSIM_SOURCE_DIR;

// Keys that name things become their placeholder, as the page writes them.
const std::map<std::string, std::string> kNamed = {{"engines", "<E>"},          {"queues", "<stream>"},
                                                   {"by_mnemonic", "<mnemonic>"}, {"stalls", "<cause>"},
                                                   {"final_nonzero_values", "<semaphore>"}, {"cptc_by_kernel", "<kernel>"}};

void flatten(const nlohmann::json& j, const std::string& path, const std::string& parent, std::set<std::string>& out) {
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            const auto named = kNamed.find(parent);
            const std::string seg = named != kNamed.end() ? named->second : it.key();
            flatten(it.value(), path.empty() ? seg : path + "." + seg, it.key(), out);
        }
    } else if (j.is_array()) {
        for (const auto& v : j) flatten(v, path + "[<n>]", "", out);
    } else {
        out.insert(path);
    }
}

struct Documented {
    std::set<std::string> all, optional;
};

Documented documented() {
    Documented d;
    std::istringstream in(read_file(kSrc + "/docs/stats-schema.md"));
    const std::regex row(R"(^\| `([^`]+)` \|)");
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (!std::regex_search(line, m, row)) continue;
        std::vector<std::string> keys = {m[1]};
        if (keys[0].rfind("<engine>.", 0) == 0) {
            const std::string rest = keys[0].substr(8);
            keys = {"core.act" + rest, "core.pool" + rest, "core.queues.<stream>" + rest};
        }
        for (const auto& k : keys) {
            d.all.insert(k);
            if (line.find("*optional") != std::string::npos) d.optional.insert(k);
        }
    }
    return d;
}

TEST(StatsSchema, TheDocumentListsExactlyTheKeys) {
    std::set<std::string> seen;
    int files = 0;
    for (const auto& dir : std::filesystem::recursive_directory_iterator(kSrc + "/tests/golden"))
        if (dir.path().filename() == "stats.json") {
            flatten(nlohmann::json::parse(read_file(dir.path().string())), "", "", seen);
            ++files;
        }
    ASSERT_GE(files, 30);
    TempDir t;
    const std::string overlay = t.write("o.yaml", "act: {clock_ghz: 1.0}\n");
    CliResult r = run_cli("run --config " + overlay + " --numerics none --no-progress --out " + t.file("o"));
    ASSERT_EQ(r.status, 0) << r.err;
    flatten(nlohmann::json::parse(read_file(t.file("o/stats.json"))), "", "", seen);

    const Documented doc = documented();
    ASSERT_GT(doc.all.size(), 60u);
    for (const auto& k : seen) EXPECT_TRUE(doc.all.count(k)) << k << " is in stats.json but not in docs/stats-schema.md";
    for (const auto& k : doc.all)
        if (!doc.optional.count(k)) EXPECT_TRUE(seen.count(k)) << k << " is documented but no run produced it (mark it optional or remove it)";
}

}  // namespace
}  // namespace neuronsim::test
