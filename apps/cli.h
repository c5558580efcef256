#pragma once
// Shared plumbing of the neuronsim CLI: subcommand tables, usage errors, option parsing.
#include <functional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace neuronsim::apps {

namespace po = boost::program_options;

// A wrong command line: printed with a hint to --help, exit status 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Command {
    std::string name;
    std::string summary;
    std::function<int(const std::string& prog, const std::vector<std::string>& args)> run;
};

// Runs the command named by args[0] from `commands`; prints the list for --help or no command.
int dispatch(const std::string& prog, const std::string& description, const std::vector<Command>& commands, const std::vector<std::string>& args);

// Parses args against `opts` (and positional arguments, if given); true when --help was asked
// for (usage already printed). `synopsis` follows the program name in the usage line.
bool parse_options(const std::string& prog, const std::string& description, const po::options_description& opts, const std::vector<std::string>& args,
                   po::variables_map& vm, const po::positional_options_description* positional = nullptr, const std::string& synopsis = "[options]");

// A float32 operand given as a decimal ("0.5") or a bit pattern ("0x3f000000").
float float_operand(const po::variables_map& vm, const char* name, float fallback);

}  // namespace neuronsim::apps
