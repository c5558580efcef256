#pragma once
// Shared by the libFuzzer harnesses: a scratch directory per process and the rule every
// harness enforces. Bad input must end in neuronsim::Error (a message naming the file and
// place); any other exception escapes the harness and libFuzzer reports it as a crash, as it
// does a sanitizer finding, a signal or a broken round trip (fuzz_fail).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/common/error.h"

namespace neuronsim::fuzz {

// A directory created once per process (under $TMPDIR), removed at exit.
const std::string& scratch_dir();

// Writes `bytes` to `path`, replacing it; aborts when it cannot (a harness fault, not input).
void write_file(const std::string& path, const std::string& bytes);

// Splits `data` into `parts` pieces at the separator line "\n====\n" (missing pieces are empty).
std::vector<std::string> split_parts(const uint8_t* data, size_t size, size_t parts);

// Reports a broken invariant with `what` and aborts, so libFuzzer saves the input.
[[noreturn]] void fuzz_fail(const std::string& what);

// Runs `f`; an Error is the expected outcome of bad input and is swallowed.
template <typename F>
bool expect_ok_or_error(F&& f) {
    try {
        f();
        return true;
    } catch (const Error&) {
        return false;
    }
}

}  // namespace neuronsim::fuzz
