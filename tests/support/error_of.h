#pragma once
// The message of the neuronsim::Error that `f` throws, "" when it throws none.
#include <functional>
#include <string>

#include "model/common/error.h"

namespace neuronsim::test {

inline std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace neuronsim::test
