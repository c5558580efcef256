#pragma once
// `neuronsim diff A B`: what changed between two runs of a kernel (two run directories): the
// simulated time, each engine's time per mnemonic, each instruction's time and stall, and the
// instructions that moved most. Instructions are matched by engine and index in its stream,
// so A and B are two runs of one trace (another generation or config) or of an edit of it
// that keeps each stream's instruction order; both sources are shown.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace neuronsim::sweep {

struct MnemonicDelta {
    std::string engine, mnemonic;
    uint64_t a_count = 0, b_count = 0;
    double a_ns = 0, b_ns = 0;  // the instructions' exclusive share of the engine's busy time
};

struct InstructionDelta {
    std::string engine, mnemonic, a_source, b_source;
    uint64_t index = 0;
    double a_ns = 0, b_ns = 0;  // issue to completion
    double a_stall_ns = 0, b_stall_ns = 0;
    double a_end_ns = 0, b_end_ns = 0;
    std::string a_stall_cause, b_stall_cause;
    double delta() const { return (b_ns + b_stall_ns) - (a_ns + a_stall_ns); }
};

struct RunDiff {
    std::string a_dir, b_dir, a_generation, b_generation;
    double a_ns = 0, b_ns = 0;  // simulated time
    std::vector<MnemonicDelta> mnemonics;  // every (engine, mnemonic) of either run
    std::vector<InstructionDelta> movers;  // the `top` largest |delta()|, largest first
    std::vector<InstructionDelta> stall_changes;  // matched instructions whose stall cause differs (first `top`)
    size_t stall_changes_total = 0;
    size_t matched = 0, only_a = 0, only_b = 0;
};

// Reads A/stats.json, A/instructions.csv and the same of B; errors name the file and line.
RunDiff diff_runs(const std::string& a_dir, const std::string& b_dir, size_t top);

std::string run_diff_text(const RunDiff& d);
nlohmann::ordered_json run_diff_json(const RunDiff& d);

}  // namespace neuronsim::sweep
