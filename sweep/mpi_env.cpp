#include <cstdlib>
#include <string>

#include "sweep/mpi_runner.h"

namespace neuronsim::sweep {

bool built_with_mpi() {
#ifdef NEURONSIM_HAVE_MPI
    return true;
#else
    return false;
#endif
}

int launcher_world_size() {
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS"}) {
        const char* v = std::getenv(var);
        if (v && *v) {
            char* end = nullptr;
            const long n = std::strtol(v, &end, 10);
            if (end && *end == '\0' && n > 0 && n < 1000000) return int(n);
        }
    }
    return 0;
}

}  // namespace neuronsim::sweep
