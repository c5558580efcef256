#include "sweep/work_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/common/error.h"
#include "model/io/write_file.h"

namespace neuronsim::sweep {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPrefix = "neuronsim-sweep-";
constexpr const char* kOwner = "owner";  // "PID START": the process and its start time (clock ticks since boot)

// A process's start time (/proc/PID/stat, field 22), "" when there is no such process: with the
// pid it names one process for good (a pid may be reused, the pair is not).
std::string start_time(const std::string& pid) {
    std::ifstream in("/proc/" + pid + "/stat");
    std::string stat;
    if (!std::getline(in, stat)) return "";
    const size_t paren = stat.rfind(')');  // (the command name may hold spaces)
    if (paren == std::string::npos) return "";
    std::istringstream rest(stat.substr(paren + 2));
    std::string field;
    for (int i = 3; i <= 22 && rest >> field; ++i) {
    }
    return field;
}

// Removes the temporary directories of this user's sweeps whose process has ended without
// removing its own (SIGKILL, a crash, a power cut). A directory without an owner file (being
// created, or not ours) stays.
void remove_leftovers(const std::string& base) {
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(base, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind(kPrefix, 0) != 0 || !e.is_directory(ec) || e.is_symlink(ec)) continue;
        struct stat st {};
        if (::lstat(e.path().c_str(), &st) != 0 || st.st_uid != ::getuid()) continue;
        std::ifstream in(e.path() / kOwner);
        std::string pid, start;
        if (!(in >> pid >> start)) continue;
        if (start_time(pid) == start) continue;  // its sweep still runs
        fs::remove_all(e.path(), ec);
    }
}

}  // namespace

WorkDir::WorkDir(const std::string& keep) {
    if (!keep.empty()) {
        path_ = keep;
        return;
    }
    const char* tmp = std::getenv("TMPDIR");
    const std::string base = tmp && *tmp ? tmp : "/tmp";
    remove_leftovers(base);
    std::string templ = base + "/" + kPrefix + "XXXXXX";
    if (!::mkdtemp(templ.data())) throw Error("cannot create a work directory " + templ + ": " + std::strerror(errno));
    path_ = templ;
    temporary_ = true;
    const std::string self = std::to_string(::getpid());
    model::io::write_file_atomic(path_ + "/" + kOwner, self + " " + start_time(self) + "\n");
}

WorkDir::~WorkDir() {
    std::error_code ec;
    if (temporary_) std::filesystem::remove_all(path_, ec);
}

}  // namespace neuronsim::sweep
