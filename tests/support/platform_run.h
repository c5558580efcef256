#pragma once
// Runs a text trace on an in-process Platform (fresh SystemC context per test) and reads what
// it wrote: dumps, instructions.csv fields. Shared by the engine tests.
#include <atomic>
#include <string>
#include <vector>

#include "platform/host/trace_host.h"
#include "tests/support/profile_builder.h"
#include "tests/support/systemc_fixture.h"

namespace neuronsim::test {

class PlatformRunTest : public SystemCTest {
protected:
    TempDir t;
    std::vector<std::string> overrides;  // "dotted.key=value"
    std::string gen = "mariana";
    bool exact = false;  // --act-numerics exact
    bool timing_only = false;  // --numerics none
    bool reference_kernel = false;  // DeviceOptions::act_reference_kernel and dve_reference_kernel
    const std::atomic<int>* stop = nullptr;  // DeviceOptions::cancel: the run is sliced when set
    DeviceOptions::DmaCopies dma_copies = DeviceOptions::DmaCopies::Auto;  // (the host's: Background)

    platform::RunReport run(const std::string& trace_text);
    platform::RunReport run_file(const std::string& trace_path);  // relative .data files resolve there
    std::string error_of(const std::string& trace_text);  // the run's Error message, or "(no error)"
    std::string out(const std::string& file);  // a file the run wrote
    // Field `field` (0-based) of the instructions.csv row of `engine`'s instruction `index`.
    double csv_field(const std::string& engine, int index, int field);
    // Its time from start to end, in its engine's cycles and in ns.
    double cycles_of(const std::string& engine, int index) { return csv_field(engine, index, 7) - csv_field(engine, index, 6); }
    double ns_of(const std::string& engine, int index) { return csv_field(engine, index, 5) - csv_field(engine, index, 4); }
};

std::vector<float> floats(const std::string& bytes);  // little-endian binary32
std::vector<uint16_t> halves(const std::string& bytes);  // little-endian 16-bit
std::string f32_bytes(const std::vector<float>& v);  // the other way
std::string bf16_bytes(const std::vector<float>& v);  // each rounded to bf16 (nearest even)
// Trace lines (each ending in "\n") chained on semaphore 0: each waits for the one before to
// retire, so it meets an idle engine and its start-to-end time is its whole latency.
std::string chained(const std::vector<std::string>& instrs);

// A bad instruction and a part of the error it must raise (the engines' parameterised tests).
struct BadCase {
    const char* trace;
    const char* message;
};

}  // namespace neuronsim::test
