#pragma once
#include "apps/cli.h"

namespace neuronsim::apps {

Command act_command();
Command demo_command();
Command pwp_command();
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

}  // namespace neuronsim::apps
