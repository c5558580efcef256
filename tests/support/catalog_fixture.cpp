#include "tests/support/catalog_fixture.h"

#include <memory>

#include "model/pwp/catalog_writer.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::test {

const std::string& generated_catalog() {
    static std::unique_ptr<TempDir> dir;
    static std::string path;
    if (!dir) {
        dir = std::make_unique<TempDir>();
        path = dir->path() + "/catalog";
        model::pwp::write_catalog(path);
    }
    return path;
}

}  // namespace neuronsim::test
