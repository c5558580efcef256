#pragma once
// `neuronsim advise`: reads a trace's ACT stream (LoadActFuncSet and the activations), reports
// the table loads that are redundant and the functions that forced each switch, and suggests
// an order and set choice with fewer loads: within each run of movable instructions
// (act_dependencies.h says which may change places), a greedy list schedule that keeps the
// resident set while any ready instruction can use it, and otherwise loads the roster set
// that lets the most instructions run before the next switch (the compiler's set cover of
// hardware-facts §C.1, looking ahead over the dependence graph). The rewritten trace differs
// from the original only in the ACT lines.
#include <cstdint>
#include <string>
#include <vector>

namespace neuronsim::model::workloads {

struct LoadNote {
    size_t line = 0;  // 0: a load the suggestion inserts
    int set = -1;
    std::string set_name, from;  // from: the resident set before it ("(none)")
    bool redundant = false;  // the set was already resident
    bool unused = false;  // no activation ran before the next load
    std::vector<std::string> forced_by;  // functions that needed it (not in the previous set)
};

struct AdvisedStep {  // one line of the suggested ACT stream
    bool load = false;
    int set = -1;  // load
    size_t line = 0;  // an original instruction's line
    std::string function;  // its function ("" for read_accumulator, ...)
    bool moved = false;  // it changed place relative to another activation
    std::string text;  // the trace line
};

struct Advice {
    std::string trace;
    std::vector<LoadNote> loads;  // the original's loads, in order
    size_t redundant = 0, unused = 0;
    std::vector<std::string> problems;  // e.g. an activation whose function is not resident
    std::vector<AdvisedStep> suggested;  // the whole suggested ACT stream
    size_t suggested_loads = 0;
    std::vector<LoadNote> suggested_switches;
    // What no order of this stream can fix but a compiler would: table switches forced only by
    // functions another engine computes without a table (reciprocal on VectorE, ...).
    std::vector<std::string> hints;
    size_t fixed = 0;  // ACT instructions that could not move, and why (first few)
    std::vector<std::string> fixed_reasons;
    bool improves() const { return suggested_loads < loads.size(); }
};

// Reads and analyses `trace_path`. Errors name the file and line.
Advice advise(const std::string& trace_path);
// The rewritten trace: the original's lines with its ACT instructions replaced, in their
// slots, by the suggested stream; relative .data paths are made absolute so the trace can be
// written anywhere.
std::string rewritten_trace(const std::string& trace_path, const Advice& a);

}  // namespace neuronsim::model::workloads
