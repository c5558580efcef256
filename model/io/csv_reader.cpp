#include "model/io/csv_reader.h"

#include <cstdlib>

#include "model/common/error.h"
#include "model/io/read_file.h"

namespace neuronsim::model::io {

size_t CsvTable::column(const std::string& name) const {
    for (size_t i = 0; i < header.size(); ++i)
        if (header[i] == name) return i;
    std::string cols;
    for (const std::string& h : header) cols += (cols.empty() ? "" : ", ") + h;
    throw Error(path + ": no column '" + name + "' (its columns: " + cols + ")");
}

double CsvTable::number(size_t r, size_t c) const {
    const std::string& f = rows.at(r).at(c);
    char* end = nullptr;
    const double v = std::strtod(f.c_str(), &end);
    if (f.empty() || end != f.c_str() + f.size())
        throw Error(path + ":" + std::to_string(lines.at(r)) + ": column " + header.at(c) + ": expected a number, got \"" + f + "\"");
    return v;
}

CsvTable read_csv(const std::string& path) {
    const std::string text = read_file_checked(path, kMaxCsvFileBytes, "CSV file");
    CsvTable t;
    t.path = path;
    std::vector<std::string> row;
    std::string field;
    size_t line = 1, row_line = 1;
    bool quoted = false, any = false;
    auto end_row = [&] {
        row.push_back(std::move(field));
        field.clear();
        if (t.header.empty()) {
            t.header = std::move(row);
        } else {
            if (row.size() != t.header.size())
                throw Error(path + ":" + std::to_string(row_line) + ": " + std::to_string(row.size()) + " fields, expected " + std::to_string(t.header.size()) +
                            " (as the header)");
            t.rows.push_back(std::move(row));
            t.lines.push_back(row_line);
        }
        row.clear();
        any = false;
    };
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                if (c == '\n') ++line;
                field += c;
            }
            continue;
        }
        if (c == '"' && field.empty()) {
            quoted = any = true;
        } else if (c == ',') {
            row.push_back(std::move(field));
            field.clear();
            any = true;
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            if (any || !field.empty() || !row.empty()) end_row();
            row_line = ++line;
        } else {
            field += c;
            any = true;
        }
    }
    if (quoted) throw Error(path + ":" + std::to_string(row_line) + ": a quoted field is not closed");
    if (any || !field.empty() || !row.empty()) end_row();
    if (t.header.empty()) throw Error(path + ": empty (expected a header row)");
    return t;
}

}  // namespace neuronsim::model::io
