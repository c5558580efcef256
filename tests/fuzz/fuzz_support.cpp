#include "tests/fuzz/fuzz_support.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace neuronsim::fuzz {

namespace {

struct Scratch {
    std::string path;
    Scratch() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "neuronsim-fuzz-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) {
            std::perror("mkdtemp");
            std::abort();
        }
        path = tmpl;
    }
    ~Scratch() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

}  // namespace

const std::string& scratch_dir() {
    static Scratch s;
    return s.path;
}

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f.flush()) {
        std::fprintf(stderr, "fuzz harness: cannot write %s\n", path.c_str());
        std::abort();
    }
}

std::vector<std::string> split_parts(const uint8_t* data, size_t size, size_t parts) {
    const std::string all(reinterpret_cast<const char*>(data), size);
    static const std::string sep = "\n====\n";
    std::vector<std::string> out;
    size_t pos = 0;
    while (out.size() + 1 < parts) {
        const size_t at = all.find(sep, pos);
        if (at == std::string::npos) break;
        out.push_back(all.substr(pos, at - pos));
        pos = at + sep.size();
    }
    out.push_back(pos <= all.size() ? all.substr(pos) : "");
    out.resize(parts);
    return out;
}

void fuzz_fail(const std::string& what) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

}  // namespace neuronsim::fuzz
