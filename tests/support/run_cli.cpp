#include "tests/support/run_cli.h"

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "tests/support/profile_builder.h"

namespace neuronsim::test {

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

CliResult run_cli(const std::string& args) { return run_cli_in("", args); }

CliResult run_cli_in(const std::string& dir, const std::string& args) {
    TempDir t;
    std::string cmd =
        (dir.empty() ? "" : "cd '" + dir + "' && ") + std::string(NEURONSIM_EXE) + " " + args + " >" + t.file("out") + " 2>" + t.file("err") + " </dev/null";
    int rc = std::system(cmd.c_str());
    CliResult r;
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.out = read_file(t.file("out"));
    r.err = read_file(t.file("err"));
    return r;
}

}  // namespace neuronsim::test
