#pragma once
// The text trace format (traces/README.md has the grammar and examples). A reader streams the
// file one record at a time, so memory does not grow with trace length; every error names the
// file and line.
//
//   # comment                                   (also after a record)
//   ENGINE MNEMONIC [field=value]... [wait=..] [update=..]
//   .data LOCATION [partitions=N] (file=PATH | f32|u32|u8 VALUE...)
//   .dump LOCATION bytes=N [partitions=N] file=PATH
//   .reg INDEX VALUE
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/io/read_file.h"
#include "model/isa/address.h"
#include "model/isa/bundle.h"

namespace neuronsim::model::trace {

struct Instruction {
    std::string engine;
    isa::Bundle bundle;
};

struct DataDirective {
    isa::Location at;
    uint32_t partitions = 1;
    std::vector<uint8_t> bytes;  // inline values (a file's bytes are not read here: read_data)
    std::string file;  // the file they come from ("" for inline), absolute
    uint64_t size = 0;  // bytes over all partitions: inline, or the file's size when checked
};

// Bytes [offset, offset + n) of a .data directive's values, in chunks of at most 1 MiB: inline,
// or streamed from its file (which must not have changed size since the trace was read).
void read_data(const DataDirective& d, uint64_t offset, uint64_t n, const std::function<void(const uint8_t*, size_t)>& sink);

struct DumpDirective {
    isa::Location at;
    uint64_t bytes = 0;
    uint32_t partitions = 1;
    std::string file;  // relative to the run's output directory
};

// .reg INDEX VALUE: an engine register (REG_PTR_IMMEDIATE operands read it) set before the run.
struct RegDirective {
    uint32_t index = 0;
    uint32_t value = 0;
};

struct Record {
    enum class Kind { Instruction, Data, Dump, Reg } kind;
    RegDirective reg;
    Instruction instruction;
    DataDirective data;
    DumpDirective dump;
    std::string file;
    size_t line = 0;
    std::string origin;  // "FILE:LINE" of the original trace, for directives assembled elsewhere
    std::string where() const { return origin.empty() ? file + ":" + std::to_string(line) : origin; }
};

// The longest trace line read (a real one is < 300 bytes).
inline constexpr size_t kMaxTraceLineBytes = 64 * 1024;

// Streams a trace file. Not a regular file (a FIFO, /dev/zero): refused at construction.
class TraceReader {
public:
    explicit TraceReader(const std::string& path);
    // The next record, or nullopt at the end. Throws Error("FILE:LINE: ...") on bad input.
    std::optional<Record> next();
    // The next line as written (without its newline), blank and comment lines included, for
    // tools that rewrite a trace; nullopt at the end. line() is its number.
    std::optional<std::string> next_line();
    size_t line() const { return line_; }
    const std::string& path() const { return path_; }
    const std::string& dir() const { return dir_; }

private:
    bool read_line(std::string& text);  // false at the end
    std::string path_, dir_;
    io::ByteStream in_;
    size_t line_ = 0;
    std::string text_;  // next()'s line buffer
};

// Parses one line (without its newline); nullopt for blank and comment lines.
std::optional<Record> parse_trace_line(const std::string& text, const std::string& file, size_t line, const std::string& base_dir);

}  // namespace neuronsim::model::trace
