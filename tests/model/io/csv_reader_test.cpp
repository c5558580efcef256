// The CSV reader on its own: RFC 4180 quoting (commas, quotes, line breaks inside a field),
// CRLF, and errors that name the file and line.
#include "model/io/csv_reader.h"

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "tests/support/error_of.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::test {
namespace {

TEST(CsvReader, QuotedFieldsAndLineNumbers) {
    TempDir t;
    const std::string p = t.write("a.csv", "a,b,c\r\n1,\"x, y\",\"say \"\"hi\"\"\"\n2,\"two\nlines\",\n3,,0.5\n");
    const model::io::CsvTable c = model::io::read_csv(p);
    ASSERT_EQ(c.rows.size(), 3u);
    EXPECT_EQ(c.rows[0][1], "x, y");
    EXPECT_EQ(c.rows[0][2], "say \"hi\"");
    EXPECT_EQ(c.rows[1][1], "two\nlines");
    EXPECT_EQ(c.rows[1][2], "");
    EXPECT_EQ(c.lines, (std::vector<size_t>{2, 3, 5}));
    EXPECT_EQ(c.number(2, c.column("c")), 0.5);
}

TEST(CsvReader, ErrorsNameTheFileAndLine) {
    TempDir t;
    const std::string p = t.write("b.csv", "a,b\n1,2\n3\n");
    EXPECT_NE(error_of([&] { model::io::read_csv(p); }).find(p + ":3: 1 fields, expected 2"), std::string::npos);
    const std::string q = t.write("c.csv", "a,b\n1,\"open\n");
    EXPECT_NE(error_of([&] { model::io::read_csv(q); }).find(q + ":2: a quoted field is not closed"), std::string::npos);
    const std::string r = t.write("d.csv", "a,b\n1,x\n");
    const model::io::CsvTable c = model::io::read_csv(r);
    EXPECT_NE(error_of([&] { c.number(0, 1); }).find(r + ":2: column b: expected a number, got \"x\""), std::string::npos);
    EXPECT_NE(error_of([&] { c.column("z"); }).find("no column 'z' (its columns: a, b)"), std::string::npos);
}

}  // namespace
}  // namespace neuronsim::test
