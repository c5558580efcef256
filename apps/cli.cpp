#include "apps/cli.h"

#include <iostream>

#include "model/fp/bits.h"

namespace neuronsim::apps {

int dispatch(const std::string& prog, const std::string& description, const std::vector<Command>& commands, const std::vector<std::string>& args) {
    auto usage = [&](std::ostream& os) {
        os << "Usage: " << prog << " <command> [options]\n\n" << description << "\n\nCommands:\n";
        for (const Command& c : commands) os << "  " << c.name << std::string(c.name.size() < 10 ? 10 - c.name.size() : 1, ' ') << c.summary << "\n";
        os << "\nRun '" << prog << " <command> --help' for the options of a command.\n";
    };
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        usage(std::cout);
        return 0;
    }
    for (const Command& c : commands)
        if (c.name == args[0]) return c.run(prog + " " + c.name, std::vector<std::string>(args.begin() + 1, args.end()));
    throw UsageError("unknown command '" + args[0] + "' for '" + prog + "'");
}

bool parse_options(const std::string& prog, const std::string& description, const po::options_description& opts, const std::vector<std::string>& args,
                   po::variables_map& vm, const po::positional_options_description* positional, const std::string& synopsis) {
    po::options_description help;
    help.add_options()("help,h", "show this help");
    po::options_description all("Options");
    all.add(opts).add(help);
    try {
        po::command_line_parser parser(args);
        parser.options(all);
        // (without a description boost would drop stray arguments silently: refuse them)
        const po::positional_options_description none;
        parser.positional(positional ? *positional : none);
        po::store(parser.run(), vm);
        if (vm.count("help")) {
            std::cout << "Usage: " << prog << " " << synopsis << "\n\n" << description << "\n\n" << all << "\n";
            return true;
        }
        po::notify(vm);
    } catch (const po::error& e) {
        throw UsageError(prog + ": " + e.what());
    }
    return false;
}

float float_operand(const po::variables_map& vm, const char* name, float fallback) {
    if (!vm.count(name)) return fallback;
    const std::string text = vm[name].as<std::string>();
    float f;
    if (!model::fp::parse_float_operand(text, f))
        throw UsageError(std::string("--") + name + ": expected a float32 as a decimal (0.5) or bit pattern (0x3f000000), got \"" + text + "\"");
    return f;
}

}  // namespace neuronsim::apps
