#pragma once
// Where a sweep's points write their run outputs: a directory the user keeps (--keep-runs DIR),
// or a fresh temporary one (mkdtemp under $TMPDIR or /tmp) removed with everything in it
// when the sweep ends. A temporary one names its process (an `owner` file): a sweep that was
// killed cannot remove its own, so the next sweep removes those whose process has ended.
#include <string>

namespace neuronsim::sweep {

class WorkDir {
public:
    explicit WorkDir(const std::string& keep);  // "" for a temporary directory
    ~WorkDir();
    WorkDir(const WorkDir&) = delete;
    WorkDir& operator=(const WorkDir&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
    bool temporary_ = false;
};

}  // namespace neuronsim::sweep
