#pragma once
// `neuronsim pwp check`: validates a pwp_bin_* directory (ours or the vendor's) against every
// cross-check of seed 000 §8, reporting each violation with its file and record index.
#include <string>
#include <vector>

namespace neuronsim::model::pwp {

struct CheckIssue {
    std::string file;  // the file the violation is in
    std::string where;  // record index, JSON path or function
    std::string what;
};

struct CheckResult {
    std::vector<CheckIssue> issues;
    size_t sets = 0, functions = 0, bkt_records = 0, ctrl_words = 0;
};

CheckResult check_pwp_dir(const std::string& dir);

}  // namespace neuronsim::model::pwp
