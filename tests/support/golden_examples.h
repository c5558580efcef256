#pragma once
// tests/golden/examples.txt: the example traces the golden tests pin, per generation.
#include <string>
#include <vector>

namespace neuronsim::test {

struct Example {
    std::string trace, gen, extra;  // extra: further `neuronsim run` arguments, each after a space
};

// "trace gen,gen,... [extra run arguments]" per line; '#' lines are comments.
std::vector<Example> golden_examples();

}  // namespace neuronsim::test
