#pragma once
// Assembles a text trace into per-engine binary bundle streams, the form `neuronsim run`
// executes and other tools can produce: DIR/<engine>.bin (64-byte bundles in program order)
// and DIR/setup.trace (the .data/.dump directives, file paths made absolute). Streams record
// by record: memory does not grow with the trace.
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

AssembleResult assemble_trace(const std::string& trace_path, const std::string& out_dir);

// Reads one engine's stream sequentially; errors name the file and byte offset.
class BundleStream {
public:
    explicit BundleStream(const std::string& path);
    bool next(isa::Bundle& b);   // false at the end
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

// The engine streams of a directory: engine name -> path, from the *.bin file names.
std::map<std::string, std::string> list_streams(const std::string& dir);

}  // namespace neuronsim::model::trace
