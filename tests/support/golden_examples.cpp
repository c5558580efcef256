#include "tests/support/golden_examples.h"

#include <fstream>
#include <sstream>

#include "config/features.h"

namespace neuronsim::test {

std::vector<Example> golden_examples() {
    std::vector<Example> out;
    std::ifstream f(std::string(NEURONSIM_SOURCE_DIR) + "/tests/golden/examples.txt");
    std::string line;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream in(line);
        std::string trace, gens, extra, w;
        in >> trace >> gens;
        while (in >> w) extra += " " + w;
        for (const std::string& gen : select_generations(gens)) out.push_back({trace, gen, extra});
    }
    return out;
}

}  // namespace neuronsim::test
