#include "model/trace/assembler.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "model/common/error.h"
#include "model/isa/address.h"
#include "model/isa/opcodes.h"
#include "model/io/read_file.h"
#include "model/trace/trace_reader.h"

namespace neuronsim::model::trace {

namespace fs = std::filesystem;

static std::string location_text(const isa::Location& l) { return isa::format_location(l); }

AssembleResult assemble_trace(const std::string& trace_path, const std::string& out_dir, const std::string& source_name) {
    fs::create_directories(out_dir);
    for (const auto& e : fs::directory_iterator(out_dir))
        if (e.path().extension() == ".bin" || e.path().extension() == ".lines" || e.path().filename() == "setup.trace") fs::remove(e.path());
    AssembleResult res;
    std::map<std::string, std::unique_ptr<std::ofstream>> outs, lines;
    const std::string source = source_name.empty() ? trace_path : source_name;
    std::ofstream setup(out_dir + "/setup.trace");
    if (!setup) throw Error(out_dir + "/setup.trace: cannot create: " + std::strerror(errno));
    setup << "# directives of " << fs::absolute(trace_path).string() << "\n";
    TraceReader reader(trace_path);
    while (auto r = reader.next()) {
        if (r->kind == Record::Kind::Instruction) {
            auto& o = outs[r->instruction.engine];
            if (!o) {
                o = std::make_unique<std::ofstream>(out_dir + "/" + r->instruction.engine + ".bin", std::ios::binary);
                if (!*o) throw Error(out_dir + "/" + r->instruction.engine + ".bin: cannot create");
                auto& l = lines[r->instruction.engine];
                l = std::make_unique<std::ofstream>(out_dir + "/" + r->instruction.engine + ".lines");
                if (!*l) throw Error(out_dir + "/" + r->instruction.engine + ".lines: cannot create");
                *l << "# source " << source << "\n";
            }
            o->write(reinterpret_cast<const char*>(r->instruction.bundle.b.data()), isa::kBundleBytes);
            *lines[r->instruction.engine] << r->line << "\n";
            ++res.instructions[r->instruction.engine];
        } else if (r->kind == Record::Kind::Data) {
            const DataDirective& d = r->data;
            setup << ".data " << location_text(d.at) << " partitions=" << d.partitions;
            if (!d.file.empty()) setup << " file=" << d.file;
            else {
                setup << " u8";
                for (size_t i = 0; i < d.bytes.size() / d.partitions; ++i) setup << " " << unsigned(d.bytes[i]);
            }
            setup << "  # from " << r->where() << "\n";
            ++res.directives;
        } else if (r->kind == Record::Kind::Reg) {
            setup << ".reg " << r->reg.index << " " << r->reg.value << "  # from " << r->where() << "\n";
            ++res.directives;
        } else {
            const DumpDirective& d = r->dump;
            setup << ".dump " << location_text(d.at) << " bytes=" << d.bytes << " partitions=" << d.partitions << " file=" << d.file
                  << "  # from " << r->where() << "\n";
            ++res.directives;
        }
    }
    for (auto& [e, o] : outs)
        if (!o->flush()) throw Error(out_dir + "/" + e + ".bin: write error");
    for (auto& [e, o] : lines)
        if (!o->flush()) throw Error(out_dir + "/" + e + ".lines: write error");
    if (!setup.flush()) throw Error(out_dir + "/setup.trace: write error");
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

SourceLines::SourceLines(const std::string& bin_path) {
    const fs::path p = fs::path(bin_path).replace_extension(".lines");
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
    char buf[32];
    if (!std::fgets(buf, sizeof buf, f_)) return 0;  // fewer lines than bundles: unknown from here on
    return std::strtoull(buf, nullptr, 10);
}

std::map<std::string, std::string> list_streams(const std::string& dir) {
    std::map<std::string, std::string> out;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw Error(dir + ": not a directory of engine streams");
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().extension() != ".bin") continue;
        std::string engine = e.path().stem().string();
        if (!isa::engine_class(engine))
            throw Error(e.path().string() + ": the file name does not name an engine (act, pool, dma<E>, dma<E>.<Q>)");
        out[engine] = e.path().string();
    }
    return out;
}

}  // namespace neuronsim::model::trace
