#include "model/trace/trace_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string_view>

#include "model/common/error.h"
#include "model/common/words.h"
#include "model/fp/bits.h"
#include "model/io/read_file.h"
#include "model/isa/opcodes.h"

namespace neuronsim::model::trace {

using namespace std::string_view_literals;  // word == "lit"sv: sizes compared first, no strlen per line

namespace fs = std::filesystem;

namespace {

uint64_t number(const std::string& what, const std::string& s, uint64_t max) {
    char* end = nullptr;
    errno = 0;
    if (s.empty() || s[0] == '-') throw Error(what + ": expected a number, got \"" + s + "\"");
    unsigned long long v = std::strtoull(s.c_str(), &end, 0);
    if (errno || end != s.c_str() + s.size() || v > max) throw Error(what + ": expected a number in [0, " + std::to_string(max) + "], got \"" + s + "\"");
    return v;
}

isa::Location location(const std::string& s) {
    auto c1 = s.find(':');
    if (c1 == std::string::npos) throw Error("expected a location dram:ADDR, sbuf:P:OFF or psum:P:OFF, got \"" + s + "\"");
    std::string space = s.substr(0, c1);
    isa::Location l;
    if (space == "dram"sv) {
        l.space = isa::MemSpace::Dram;
        l.offset = number("dram address", s.substr(c1 + 1), UINT64_MAX);
        return l;
    }
    auto c2 = s.find(':', c1 + 1);
    if ((space != "sbuf"sv && space != "psum"sv) || c2 == std::string::npos)
        throw Error("expected a location dram:ADDR, sbuf:P:OFF or psum:P:OFF, got \"" + s + "\"");
    l.space = space == "sbuf"sv ? isa::MemSpace::Sbuf : isa::MemSpace::Psum;
    l.partition = static_cast<uint32_t>(number("partition", s.substr(c1 + 1, c2 - c1 - 1), 127));
    l.offset = number("offset", s.substr(c2 + 1), UINT32_MAX);
    return l;
}

// The bytes per partition an SBUF or PSUM location's ADDR4 window holds from its offset (the
// generation's memory may be smaller; the platform checks that). DRAM: no window.
uint64_t window_bytes(const isa::Location& l) {
    if (l.space == isa::MemSpace::Dram) return UINT64_MAX;
    const uint64_t window = uint64_t{1} << (l.space == isa::MemSpace::Sbuf ? isa::kSbufPartitionShift : isa::kPsumPartitionShift);
    return l.offset < window ? window - l.offset : 0;
}

// `per_partition` bytes in each of `partitions` partitions from `at` must fit the window.
void check_window(const char* what, const isa::Location& at, uint32_t partitions, uint64_t per_partition) {
    if (at.space == isa::MemSpace::Dram) return;
    if (at.partition + partitions > 128)
        throw Error(std::string(what) + ": partitions " + std::to_string(at.partition) + ".." + std::to_string(at.partition + partitions - 1) +
                    " run past partition 127");
    if (per_partition > window_bytes(at))
        throw Error(std::string(what) + ": " + std::to_string(per_partition) + " bytes per partition from " + isa::format_location(at) + " run past the " +
                    isa::space_name(at.space) + " partition's " + std::to_string(at.offset + window_bytes(at)) + "-byte window");
}

// The largest .data file= a location takes: what its partitions' windows hold, or for DRAM the
// documented maximum.
uint64_t data_limit(const isa::Location& at, uint32_t partitions) {
    if (at.space == isa::MemSpace::Dram) return io::kMaxDataFileBytes;
    return window_bytes(at) * partitions;
}

// The line without its comment (from '#') and a trailing '\r'.
std::string_view strip_comment(std::string_view s) {
    if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
    return s.substr(0, s.find('#'));
}

}  // namespace

void read_data(const DataDirective& d, uint64_t offset, uint64_t n, const std::function<void(const uint8_t*, size_t)>& sink) {
    if (!d.file.empty()) return io::read_file_range(d.file, d.size, offset, n, ".data file", sink);
    if (offset > d.bytes.size() || n > d.bytes.size() - offset) throw Error(".data: bytes past the directive's values");
    for (uint64_t at = 0; at < n; at += uint64_t{1} << 20)
        sink(d.bytes.data() + offset + at, static_cast<size_t>(std::min<uint64_t>(uint64_t{1} << 20, n - at)));
}

std::optional<Record> parse_trace_line(const std::string& raw, const std::string& file, size_t line, const std::string& base_dir) {
    std::vector<std::string> w = split_words(strip_comment(raw));
    if (w.empty()) return std::nullopt;
    Record r;
    r.file = file;
    r.line = line;
    // The assembler marks each directive with "# from FILE:LINE" of the trace it came from.
    if (auto h = raw.find("# from "); h != std::string::npos) {
        r.origin = raw.substr(h + 7);
        if (!r.origin.empty() && r.origin.back() == '\r') r.origin.pop_back();
    }
    try {
        if (w[0] == ".data"sv) {
            r.kind = Record::Kind::Data;
            if (w.size() < 3) throw Error(".data: expected LOCATION [partitions=N] (file=PATH | f32|u32|u8 VALUE...)");
            r.data.at = location(w[1]);
            size_t i = 2;
            if (w[i].rfind("partitions=", 0) == 0) {
                r.data.partitions = static_cast<uint32_t>(number("partitions", w[i].substr(11), 128));
                if (r.data.partitions == 0) throw Error("partitions: must be at least 1");
                ++i;
            }
            if (i >= w.size()) throw Error(".data: missing the values or file=");
            if (w[i].rfind("file=", 0) == 0) {
                if (i + 1 != w.size()) throw Error(".data: nothing may follow file=");
                fs::path p = w[i].substr(5);
                if (p.is_relative()) p = fs::path(base_dir) / p;
                r.data.file = fs::absolute(p).lexically_normal().string();
                // Checked here (a regular file no bigger than the memory it describes can hold);
                // its bytes are streamed when they are applied (read_data), not held.
                const io::OpenedFile of = io::open_regular_file(r.data.file, data_limit(r.data.at, r.data.partitions),
                                                                ".data file at " + isa::format_location(r.data.at) +
                                                                    (r.data.partitions > 1 ? " x " + std::to_string(r.data.partitions) + " partitions" : ""));
                ::close(of.fd);
                r.data.size = of.size;
                if (r.data.size % r.data.partitions)
                    throw Error(".data: " + r.data.file + " holds " + std::to_string(r.data.size) + " bytes, not a multiple of " +
                                std::to_string(r.data.partitions) + " partitions");
            } else {
                const std::string type = w[i++];
                if (type != "f32"sv && type != "u32"sv && type != "u8"sv) throw Error(".data: expected f32, u32, u8 or file=, got \"" + type + "\"");
                if (i >= w.size()) throw Error(".data: no values after " + type);
                for (; i < w.size(); ++i) {
                    if (type == "f32"sv) {
                        float f;
                        if (!fp::parse_float_operand(w[i], f)) throw Error(".data: \"" + w[i] + "\" is not a float32");
                        uint32_t u = fp::bits_of(f);
                        for (int b = 0; b < 4; ++b) r.data.bytes.push_back(static_cast<uint8_t>(u >> (8 * b)));
                    } else if (type == "u32"sv) {
                        uint32_t u = static_cast<uint32_t>(number("u32", w[i], UINT32_MAX));
                        for (int b = 0; b < 4; ++b) r.data.bytes.push_back(static_cast<uint8_t>(u >> (8 * b)));
                    } else {
                        r.data.bytes.push_back(static_cast<uint8_t>(number("u8", w[i], 255)));
                    }
                }
                // Inline values are replicated into each partition.
                std::vector<uint8_t> one = r.data.bytes;
                for (uint32_t p = 1; p < r.data.partitions; ++p) r.data.bytes.insert(r.data.bytes.end(), one.begin(), one.end());
                r.data.size = r.data.bytes.size();
            }
            if (r.data.at.space == isa::MemSpace::Dram && r.data.partitions != 1) throw Error(".data: partitions= applies to sbuf/psum only");
            check_window(".data", r.data.at, r.data.partitions, r.data.size / r.data.partitions);
            return r;
        }
        if (w[0] == ".dump"sv) {
            r.kind = Record::Kind::Dump;
            if (w.size() < 3) throw Error(".dump: expected LOCATION bytes=N [partitions=N] file=PATH");
            r.dump.at = location(w[1]);
            bool have_bytes = false;
            for (size_t i = 2; i < w.size(); ++i) {
                if (w[i].rfind("bytes=", 0) == 0) {
                    r.dump.bytes = number("bytes", w[i].substr(6), uint64_t{1} << 32);
                    have_bytes = true;
                } else if (w[i].rfind("partitions=", 0) == 0) {
                    r.dump.partitions = static_cast<uint32_t>(number("partitions", w[i].substr(11), 128));
                    if (r.dump.partitions == 0) throw Error("partitions: must be at least 1");
                } else if (w[i].rfind("file=", 0) == 0) {
                    r.dump.file = w[i].substr(5);
                    if (r.dump.file.empty() || fs::path(r.dump.file).is_absolute() || r.dump.file.find("..") != std::string::npos)
                        throw Error(".dump: file= must be a relative path inside the output directory");
                } else {
                    throw Error(".dump: unknown argument \"" + w[i] + "\"");
                }
            }
            if (!have_bytes || r.dump.file.empty()) throw Error(".dump: needs bytes= and file=");
            if (r.dump.at.space == isa::MemSpace::Dram && r.dump.partitions != 1) throw Error(".dump: partitions= applies to sbuf/psum only");
            check_window(".dump", r.dump.at, r.dump.partitions, r.dump.bytes);
            return r;
        }
        if (w[0] == ".reg"sv) {
            r.kind = Record::Kind::Reg;
            if (w.size() != 3) throw Error(".reg: expected INDEX VALUE");
            r.reg.index = static_cast<uint32_t>(number("register", w[1], 255));
            r.reg.value = static_cast<uint32_t>(number("value", w[2], UINT32_MAX));
            return r;
        }
        if (w[0][0] == '.') throw Error("unknown directive \"" + w[0] + "\" (expected .data, .dump or .reg)");
        if (w.size() < 2) throw Error("expected ENGINE MNEMONIC [field=value]...");
        r.kind = Record::Kind::Instruction;
        r.instruction.engine = std::move(w[0]);
        const std::string mnemonic = std::move(w[1]);
        w.erase(w.begin(), w.begin() + 2);  // the fields, without copying them
        r.instruction.bundle = isa::assemble(r.instruction.engine, mnemonic, w);
        return r;
    } catch (const Error& e) {
        throw Error(r.where() + ": " + e.what());
    }
}

TraceReader::TraceReader(const std::string& path)
    // A directory, a FIFO or a device is refused instead of read (or waited on).
    : path_(path), in_(path, UINT64_MAX, "trace", 64 * 1024) {
    dir_ = fs::path(path).parent_path().string();
    if (dir_.empty()) dir_ = ".";
}

bool TraceReader::read_line(std::string& text) {
    // One line, bounded: a trace is read one short line at a time.
    const io::ByteStream::Line end = in_.read_line(text, kMaxTraceLineBytes);
    if (end == io::ByteStream::Line::TooLong)
        throw Error(path_ + ":" + std::to_string(line_ + 1) + ": line longer than " + std::to_string(kMaxTraceLineBytes) + " bytes (is this a trace?)");
    if (end == io::ByteStream::Line::End && text.empty()) return false;
    ++line_;
    if (std::memchr(text.data(), '\0', text.size())) throw Error(path_ + ":" + std::to_string(line_) + ": holds a NUL byte (a trace is text)");
    return true;
}

std::optional<std::string> TraceReader::next_line() {
    std::string text;
    if (!read_line(text)) return std::nullopt;
    return text;
}

std::optional<Record> TraceReader::next() {
    while (read_line(text_))  // one buffer for every line: no allocation per line
        if (auto r = parse_trace_line(text_, path_, line_, dir_)) return r;
    return std::nullopt;
}

}  // namespace neuronsim::model::trace
