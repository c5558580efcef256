#include "sweep/work_dir.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "model/common/error.h"

namespace neuronsim::sweep {

WorkDir::WorkDir(const std::string& keep) {
    if (!keep.empty()) {
        path_ = keep;
        return;
    }
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/neuronsim-sweep-XXXXXX";
    if (!::mkdtemp(templ.data())) throw Error("cannot create a work directory " + templ + ": " + std::strerror(errno));
    path_ = templ;
    temporary_ = true;
}

WorkDir::~WorkDir() {
    std::error_code ec;
    if (temporary_) std::filesystem::remove_all(path_, ec);
}

}  // namespace neuronsim::sweep
