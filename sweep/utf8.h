#pragma once
// UTF-8 checks: every text of a sweep ends up in JSON (point identities, MPI messages, the
// database's JSON columns), which holds only well-formed UTF-8.
#include <string>

namespace neuronsim::sweep {

// Well-formed UTF-8: no stray continuation bytes, overlong forms, surrogates or code points
// past U+10FFFF.
bool valid_utf8(const std::string& text);
// `text` with every byte that is not part of a well-formed sequence replaced by U+FFFD (for
// text the sweep only reports, such as a run's error message).
std::string make_valid_utf8(const std::string& text);

}  // namespace neuronsim::sweep
