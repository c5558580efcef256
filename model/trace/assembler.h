#pragma once
// Assembles a text trace into per-engine binary bundle streams, the form `neuronsim run`
// executes and other tools can produce: DIR/<engine>.bin (64-byte bundles in program order),
// DIR/<engine>.lines (where each bundle came from: a "# source FILE" line, then one trace line
// number per bundle; optional for other producers) and DIR/setup.trace (the .data/.dump
// directives, file paths made absolute). Streams record by record: memory does not grow with
// the trace.
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "model/isa/bundle.h"

namespace neuronsim::model::trace {

struct AssembleResult {
    std::map<std::string, uint64_t> instructions;  // per engine
    uint64_t directives = 0;
};

// `source_name`: how the .lines files name the trace (default: trace_path as given).
AssembleResult assemble_trace(const std::string& trace_path, const std::string& out_dir, const std::string& source_name = "");

// Reads one engine's stream sequentially; errors name the file and byte offset.
class BundleStream {
public:
    explicit BundleStream(const std::string& path);
    bool next(isa::Bundle& b);  // false at the end
    uint64_t index() const { return index_; }  // of the bundle last returned
    const std::string& path() const { return path_; }
    uint64_t count() const { return count_; }

private:
    std::string path_;
    std::FILE* f_ = nullptr;
    uint64_t index_ = UINT64_MAX, count_ = 0;

public:
    ~BundleStream();
    BundleStream(const BundleStream&) = delete;
    BundleStream& operator=(const BundleStream&) = delete;
};

// Reads DIR/<engine>.lines beside a stream, one bundle at a time; empty when there is none.
class SourceLines {
public:
    SourceLines() = default;
    // `path_is_lines`: the .lines file itself, else the .bin stream beside it.
    explicit SourceLines(const std::string& bin_path, bool path_is_lines = false);
    ~SourceLines();
    SourceLines(const SourceLines&) = delete;
    SourceLines& operator=(const SourceLines&) = delete;
    // The line of the next bundle (0 when unknown); the file is source().
    uint64_t next();
    const std::string& source() const { return source_; }

private:
    std::FILE* f_ = nullptr;
    std::string source_;
};

// The engine streams of a directory: engine name -> path, from the *.bin file names.
std::map<std::string, std::string> list_streams(const std::string& dir);

}  // namespace neuronsim::model::trace
