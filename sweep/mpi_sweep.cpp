// An MPI sweep from launch to outcome, on top of the coordinator and worker of mpi_runner.cpp.
#include <cstdio>
#include <memory>

#include "model/common/error.h"
#include "sweep/mpi_runner.h"
#include "sweep/work_dir.h"

namespace neuronsim::sweep {

std::unique_ptr<MpiSession> open_mpi_session() {
    const int world = launcher_world_size();
    if (world <= 1) return nullptr;
    if (!built_with_mpi())
        throw Error("launched under mpirun with " + std::to_string(world) +
                    " ranks, but this neuronsim was built without MPI; run the sweep without mpirun (-j N), or one "
                    "--shard I/N per job and `sweep merge`");
    return std::make_unique<MpiSession>();
}

MpiSweepResult run_mpi_sweep(const MpiSession& mpi, const std::vector<Point>& points, const std::string& db_path, SweepOptions o,
                             const std::string& keep_runs) {
    MpiSweepResult r;
    r.coordinator = mpi.rank() == 0;
    std::unique_ptr<ResultsDb> db;
    std::string error;
    if (r.coordinator) {
        try {
            db = std::make_unique<ResultsDb>(db_path, true);
        } catch (const std::exception& e) {
            error = e.what();
        }
    }
    if (!mpi.broadcast(error.empty() ? 1 : 0)) {
        if (r.coordinator) throw Error(error);
        r.worker_exit = 1;
        return r;
    }
    try {
        // Ranks may share a machine and a --keep-runs DIR: each has its own directory.
        WorkDir work(keep_runs.empty() ? "" : keep_runs + "/rank-" + std::to_string(mpi.rank()));
        o.exec.work_dir = work.path();
        if (!r.coordinator) {
            run_mpi_worker(mpi, points, o);
            return r;
        }
        r.outcome = run_mpi_coordinator(mpi, points, *db, o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "neuronsim: error: MPI rank %d: %s\n", mpi.rank(), e.what());
        std::fflush(stderr);
        MpiSession::abort(1);
    }
    return r;
}

}  // namespace neuronsim::sweep
