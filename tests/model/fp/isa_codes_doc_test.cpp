// docs/isa-codes.md is installed with the package and referred to by traces/README.md: its
// dtype table must name every code the model knows, with the generations that have it.
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "model/fp/bits.h"
#include "model/fp/dtype.h"

namespace neuronsim::test {
namespace {

TEST(ISACodes, TheDtypeTableListsEveryCodeTheModelKnows) {
    std::ifstream f(std::string(NEURONSIM_SOURCE_DIR) + "/docs/isa-codes.md");
    ASSERT_TRUE(f) << "docs/isa-codes.md";
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string doc = ss.str();
    int rows = 0;
    for (unsigned c = 0; c < 256; ++c) {
        const bool v2 = model::fp::dtype_exists(static_cast<uint8_t>(c), 2), v4 = model::fp::dtype_exists(static_cast<uint8_t>(c), 4),
                   v5 = model::fp::dtype_exists(static_cast<uint8_t>(c), 5);
        if (!v5) {
            EXPECT_EQ(doc.find("| `" + model::fp::hex2(c) + "` |"), std::string::npos) << "the table lists unknown code " << c;
            continue;
        }
        const std::string gens = v2 ? "all" : v4 ? "MARIANA, MARIANA_PLUS, MAVERICK" : "MAVERICK";
        const bool in = model::fp::act_input_dtype(static_cast<uint8_t>(c)), out = model::fp::act_output_dtype(static_cast<uint8_t>(c));
        const std::string act = in ? "in, out" : out ? "out" : "-";
        const std::string row = "| `" + model::fp::hex2(c) + "` | " + model::fp::dtype_name(static_cast<uint8_t>(c)) + " | " + gens + " | " + act + " |";
        EXPECT_NE(doc.find(row), std::string::npos) << "docs/isa-codes.md lacks the row " << row;
        ++rows;
    }
    EXPECT_EQ(rows, 30);  // 16 + FP4 + six MAVERICK codes + CPTC1..7
}

}  // namespace
}  // namespace neuronsim::test
