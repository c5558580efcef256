// neuronsim: the command-line entry point. Thin: global options, then a subcommand.
#include "neuronsim/version.h"
#include <cstdlib>
#include <iostream>

#include <systemc>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "apps/cli.h"
#include "apps/commands.h"
#include "model/common/error.h"
#include "model/common/log.h"
#include "model/cptc/decode.h"
#include "model/io/sha256.h"
#include "model/pwp/fast_eval.h"
#include "platform/tlm/systemc_info.h"

using namespace neuronsim;

namespace {

const char* kDescription =
    "neuronsim: a cycle-approximate, trace-driven simulator of the Activation and GPSIMD\n"
    "engines of an AWS NeuronCore.\n\n"
    "Global options (before the command):\n"
    "  --log-level LEVEL  trace, debug, info, warn (default), error, critical or off\n"
    "  --version          print the version, the SystemC kernel and the host fast paths in use\n"
    "                     (NEURONSIM_SIMD=scalar|avx2|avx512 lowers them)\n"
    "  -h, --help         show this help";

void set_log_level(const std::string& name) {
    static const char* levels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};
    for (const char* l : levels)
        if (name == l) {
            spdlog::set_level(spdlog::level::from_str(name));
            return;
        }
    throw apps::UsageError("--log-level: expected trace, debug, info, warn, error, critical or off, got \"" + name + "\"");
}

}  // namespace

// The commands run inside sc_main, the SystemC entry point, so a platform they elaborate
// sees the kernel initialised the way SystemC expects.
extern "C" int sc_main(int argc, char* argv[]) {
    spdlog::set_default_logger(spdlog::stderr_color_mt("neuronsim"));
    spdlog::set_pattern("neuronsim: %l: %v");
    spdlog::set_level(spdlog::level::warn);
    // The library's messages (model/common/log.h) go to the CLI's logger.
    model::set_log_sink([](model::LogLevel level, const char*, const std::string& message) {
        spdlog::log(level == model::LogLevel::Debug  ? spdlog::level::debug
                    : level == model::LogLevel::Info ? spdlog::level::info
                                                     : spdlog::level::warn,
                    "{}", message);
    });
    return apps::run_cli(std::vector<std::string>(argv + 1, argv + argc));
}

// The CLI after its set-up: global options, a command, errors on stderr with the exit status
// (also what a sweep's warmed worker runs for each point, apps/cmd_sweep.cpp).
int apps::run_cli(std::vector<std::string> args) {
    try {
        // Global options come before the command name.
        while (!args.empty() && args[0].rfind("--", 0) == 0 && args[0] != "--help") {
            if (args[0] == "--version") {
                std::cout << "neuronsim " NEURONSIM_VERSION " (SystemC " << platform::systemc_release() << ")\n"
                          << "host fast paths: ACT " << model::pwp::simd_name(model::pwp::active_simd_level()) << ", CPTC decode "
                          << (model::cptc::decode_fast_simd() ? "avx512" : "scalar") << ", SHA-256 "
                          << (model::io::sha256_active_impl() == model::io::Sha256Impl::ShaNi ? "sha-extensions" : "portable") << "\n";
                return 0;
            }
            if (args[0] == "--log-level" || args[0].rfind("--log-level=", 0) == 0) {
                std::string value;
                if (args[0] == "--log-level") {
                    if (args.size() < 2) throw apps::UsageError("--log-level needs a value");
                    value = args[1];
                    args.erase(args.begin(), args.begin() + 2);
                } else {
                    value = args[0].substr(12);
                    args.erase(args.begin());
                }
                set_log_level(value);
                continue;
            }
            throw apps::UsageError("unknown global option '" + args[0] + "'");
        }
        return apps::dispatch("neuronsim", kDescription,
                              {apps::run_command(), apps::act_command(), apps::pwp_command(), apps::asm_command(), apps::disasm_command(), apps::cptc_command(),
                               apps::config_command(), apps::kernel_command(), apps::advise_command(), apps::demo_command(), apps::sweep_command(),
                               apps::plot_command(), apps::stats_command(), apps::compare_command(), apps::diff_command()},
                              args);
    } catch (const apps::UsageError& e) {
        std::cerr << "neuronsim: " << e.what() << "\n(run with --help for usage)\n";
        return 2;
    } catch (const Error& e) {
        std::cerr << "neuronsim: error: " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "neuronsim: error: " << e.what() << "\n";
        return 1;
    }
}

// Our own main replaces libsystemc's only to keep SystemC's copyright banner off stderr
// (users and scripts read it); it then enters sc_main through SystemC as usual.
int main(int argc, char* argv[]) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", /*overwrite=*/0);
    return sc_core::sc_elab_and_sim(argc, argv);
}
