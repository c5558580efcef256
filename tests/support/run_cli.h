#pragma once
// Runs the neuronsim executable the way a user or script does, capturing exit status,
// stdout and stderr.
#include <string>

namespace neuronsim::test {

struct CliResult {
    int status;
    std::string out, err;
};

// `args` is appended to the executable path and run through /bin/sh.
CliResult run_cli(const std::string& args);
// The same, with `dir` as the working directory.
CliResult run_cli_in(const std::string& dir, const std::string& args);

std::string read_file(const std::string& path);

}  // namespace neuronsim::test
