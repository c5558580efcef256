#include "model/trace/assembler.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>

#include "model/common/error.h"
#include "model/io/read_file.h"
#include "model/io/text_writer.h"
#include "model/io/write_file.h"
#include "model/isa/address.h"
#include "model/isa/opcodes.h"
#include "model/trace/trace_reader.h"

namespace neuronsim::model::trace {

namespace fs = std::filesystem;

static std::string location_text(const isa::Location& l) { return isa::format_location(l); }

AssembleResult assemble_trace(const std::string& trace_path, const std::string& out_dir, const std::string& source_name) {
    io::make_directories(out_dir);
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(out_dir, ec))
        if (e.path().extension() == ".bin" || e.path().extension() == ".lines" || e.path().filename() == "setup.trace") fs::remove(e.path(), ec);
    if (ec) throw Error(out_dir + ": cannot clear the old streams: " + ec.message());
    AssembleResult res;
    // Every output appears complete or not at all (write_file.h): an error on line 500 leaves
    // no streams of lines 1..499 behind.
    struct EngineOut {
        std::unique_ptr<io::AtomicFile> bin, lines;
        uint64_t* count = nullptr;  // in res.instructions
    };
    std::map<std::string, EngineOut> outs;
    const std::string source = source_name.empty() ? trace_path : source_name;
    io::AtomicFile setup(out_dir + "/setup.trace");
    std::ostringstream text;
    auto put = [](io::AtomicFile& f, std::ostringstream& t) {
        const std::string s = t.str();
        f.write(s.data(), s.size());
        t.str("");
    };
    text << "# directives of " << fs::absolute(trace_path).string() << "\n";
    put(setup, text);
    TraceReader reader(trace_path);
    while (auto r = reader.next()) {
        if (r->kind == Record::Kind::Instruction) {
            const std::string& engine = r->instruction.engine;
            auto [it, fresh] = outs.try_emplace(engine);  // one lookup per instruction
            EngineOut& o = it->second;
            if (fresh) {
                o.bin = std::make_unique<io::AtomicFile>(out_dir + "/" + engine + ".bin");
                o.lines = std::make_unique<io::AtomicFile>(out_dir + "/" + engine + ".lines");
                o.count = &res.instructions[engine];
                text << "# source " << source << "\n";
                put(*o.lines, text);
            }
            o.bin->write(r->instruction.bundle.b.data(), isa::kBundleBytes);
            char line[24];
            char* end = io::TextWriter::format_u64(line, r->line);
            *end++ = '\n';
            o.lines->write(line, static_cast<size_t>(end - line));
            ++*o.count;
            continue;
        }
        if (r->kind == Record::Kind::Data) {
            const DataDirective& d = r->data;
            text << ".data " << location_text(d.at) << " partitions=" << d.partitions;
            if (!d.file.empty()) text << " file=" << d.file;
            else {
                text << " u8";
                for (size_t i = 0; i < d.size / d.partitions; ++i) text << " " << unsigned(d.bytes[i]);
            }
        } else if (r->kind == Record::Kind::Reg) {
            text << ".reg " << r->reg.index << " " << r->reg.value;
        } else {
            const DumpDirective& d = r->dump;
            text << ".dump " << location_text(d.at) << " bytes=" << d.bytes << " partitions=" << d.partitions << " file=" << d.file;
        }
        text << "  # from " << r->where() << "\n";
        put(setup, text);
        ++res.directives;
    }
    for (auto& [e, o] : outs) o.bin->commit();
    for (auto& [e, o] : outs) o.lines->commit();
    setup.commit();
    return res;
}

BundleStream::BundleStream(const std::string& path) : path_(path) {
    // A FIFO or device is refused, not waited on; the size is the one of the open file.
    const io::OpenedFile of = io::open_regular_file(path, UINT64_MAX, "bundle stream");
    f_ = ::fdopen(of.fd, "rb");
    if (!f_) {
        ::close(of.fd);
        throw Error(path + ": cannot open: " + std::strerror(errno));
    }
    const uint64_t size = of.size;
    if (size % isa::kBundleBytes)
        throw Error(path + ": byte offset " + std::to_string(size - size % isa::kBundleBytes) + ": " + std::to_string(size % isa::kBundleBytes) +
                    " trailing bytes; a stream is whole 64-byte bundles");
    count_ = size / isa::kBundleBytes;
}

BundleStream::~BundleStream() {
    if (f_) std::fclose(f_);
}

bool BundleStream::next(isa::Bundle& b) {
    const uint64_t at = (index_ + 1) * isa::kBundleBytes;
    size_t n = std::fread(b.b.data(), 1, isa::kBundleBytes, f_);
    if (n == 0 && !std::ferror(f_)) {
        if (index_ + 1 != count_)
            throw Error(path_ + ": ended at byte offset " + std::to_string(at) + ", before the " + std::to_string(count_) +
                        " bundles its size said (the file shrank while it was read)");
        return false;
    }
    if (n != isa::kBundleBytes) throw Error(path_ + ": read error at byte offset " + std::to_string(at));
    ++index_;
    return true;
}

SourceLines::SourceLines(const std::string& bin_path, bool path_is_lines) {
    const fs::path p = path_is_lines ? fs::path(bin_path) : fs::path(bin_path).replace_extension(".lines");
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) return;
    f_ = std::fopen(p.string().c_str(), "r");
    if (!f_) throw Error(p.string() + ": cannot open: " + std::strerror(errno));
    char buf[4096];
    if (std::fgets(buf, sizeof buf, f_) && std::strncmp(buf, "# source ", 9) == 0) {
        source_ = buf + 9;
        while (!source_.empty() && (source_.back() == '\n' || source_.back() == '\r')) source_.pop_back();
    } else {
        throw Error(p.string() + ":1: expected \"# source FILE\"");
    }
}

SourceLines::~SourceLines() {
    if (f_) std::fclose(f_);
}

uint64_t SourceLines::next() {
    if (!f_) return 0;
    // Once per recorded instruction: digits by hand, without per-call locking. A line that is
    // not a line number gives 0 (unknown); so does the end (fewer lines than bundles).
    uint64_t v = 0;
    int c, digits = 0;
    bool ok = true;
    while ((c = getc_unlocked(f_)) != EOF && c != '\n') {
        if (c >= '0' && c <= '9' && digits < 19) v = v * 10 + static_cast<uint64_t>(c - '0'), ++digits;
        else if (c != '\r') ok = false;
    }
    return ok ? v : 0;
}

std::map<std::string, std::string> list_streams(const std::string& dir) {
    std::map<std::string, std::string> out;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw Error(dir + ": not a directory of engine streams");
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (e.path().extension() != ".bin") continue;
        std::string engine = e.path().stem().string();
        if (!isa::engine_class(engine)) throw Error(e.path().string() + ": the file name does not name an engine (act, pool, dma<E>, dma<E>.<Q>)");
        out[engine] = e.path().string();
    }
    if (ec) throw Error(dir + ": cannot list the engine streams: " + ec.message());
    return out;
}

}  // namespace neuronsim::model::trace
