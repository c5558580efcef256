#pragma once
// Reads a CSV file (RFC 4180: a quoted field may hold commas, quotes as "", and line breaks)
// with a header row, as instructions.csv is written. Errors name the file and line.
#include <cstdint>
#include <string>
#include <vector>

namespace neuronsim::model::io {

struct CsvTable {
    std::string path;
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;  // each as wide as the header
    std::vector<size_t> lines;  // the line each row starts on (1-based)

    // The column named `name`; an error naming the file and the columns it has when absent.
    size_t column(const std::string& name) const;
    // Row `r`'s field `c` as a number; an error naming the file, line and column otherwise.
    double number(size_t r, size_t c) const;
};

// Read whole: an instructions.csv of a 4 M-instruction run is about 500 MB.
inline constexpr uint64_t kMaxCsvFileBytes = uint64_t{2} << 30;

CsvTable read_csv(const std::string& path);

}  // namespace neuronsim::model::io
