#pragma once
// The generated catalog, written once per test process into a temporary directory.
#include <string>

namespace neuronsim::test {

const std::string& generated_catalog();  // the directory holding pwp_jsons/, pwp_bin_*/

}  // namespace neuronsim::test
