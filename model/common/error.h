#pragma once
// The one error type of neuronsim. Every failure caused by input (a file, an operand, a table
// lookup) is reported as an Error whose message names the place: file, line, JSON path, byte
// offset or instruction index, and what was expected. Nothing in the model aborts or asserts.
#include <stdexcept>
#include <string>

namespace neuronsim {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace neuronsim
