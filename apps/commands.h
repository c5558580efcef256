#pragma once
#include "apps/cli.h"

namespace neuronsim::apps {

Command act_command();
Command demo_command();
Command pwp_command();
// The whole CLI on `args` (argv[1..]): global options, a command, errors reported on stderr;
// returns the exit status. sc_main runs it; so does a sweep's warmed point worker.
int run_cli(std::vector<std::string> args);

Command run_command();
Command asm_command();
Command disasm_command();
Command cptc_command();
Command config_command();
Command kernel_command();
Command advise_command();
Command sweep_command();
Command plot_command();
Command stats_command();
Command compare_command();
Command diff_command();

}  // namespace neuronsim::apps
