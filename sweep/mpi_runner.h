#pragma once
// A sweep spread over MPI ranks (`mpirun -n K neuronsim sweep SPEC.yaml`): rank 0 is the
// coordinator and the only writer of the database; ranks 1..K-1 are workers that ask rank 0
// for points one at a time (dynamic: a fast worker takes more), run each as a child process
// and send the result back. Only `sweep` initialises MPI, and only when launched by mpirun.
#include <memory>
#include <string>
#include <vector>

#include "sweep/runner.h"

namespace neuronsim::sweep {

// True when this neuronsim was built with MPI (NEURONSIM_HAVE_MPI).
bool built_with_mpi();
// The world size the launcher announces in the environment (OMPI_COMM_WORLD_SIZE,
// PMI_SIZE, PMIX_SIZE...), 0 when not launched by mpirun/srun.
int launcher_world_size();

// MPI_Init on construction (silencing Open MPI's fork warning, as children are started with
// posix_spawn), MPI_Finalize on destruction. Throws when not built with MPI.
class MpiSession {
public:
    MpiSession();
    ~MpiSession();
    int rank() const { return rank_; }
    int size() const { return size_; }
    // Rank 0's `value` on every rank (MPI_Bcast): rank 0 tells the workers whether to go on.
    int broadcast(int value) const;
    [[noreturn]] static void abort(int code);

private:
    int rank_ = 0, size_ = 1;
};

// Rank 0: hands out the points not yet in `db`, records the results. Needs size >= 2.
SweepOutcome run_mpi_coordinator(const MpiSession& mpi, const std::vector<Point>& points, ResultsDb& db, const SweepOptions& o);
// Ranks >= 1: runs what rank 0 hands out, o.jobs at a time.
void run_mpi_worker(const MpiSession& mpi, const std::vector<Point>& points, const SweepOptions& o);

}  // namespace neuronsim::sweep

namespace neuronsim::sweep {

// The MPI session a sweep launched by mpirun needs (nullptr when not launched so, or with one
// rank); throws naming the alternatives when the launcher has several ranks but this build has
// no MPI.
std::unique_ptr<MpiSession> open_mpi_session();

// What a rank's part of an MPI sweep came to: rank 0 has the outcome; a worker only its exit
// status (0 done, 1 when rank 0 could not open the database, which rank 0 reports).
struct MpiSweepResult {
    bool coordinator = false;
    int worker_exit = 0;
    SweepOutcome outcome;
};

// The whole MPI sweep (mpi.size() >= 2): rank 0 opens `db_path` and tells the workers whether
// to go on, then coordinates while they work, each rank in its own work directory (a temporary
// one, or keep_runs/rank-R). Once they wait for each other, a rank that fails alone (a work
// directory it cannot create, a database write that fails) aborts the job rather than leave
// the others waiting; every point recorded so far is committed. Throws on rank 0 when the
// database cannot be opened.
MpiSweepResult run_mpi_sweep(const MpiSession& mpi, const std::vector<Point>& points, const std::string& db_path, SweepOptions o, const std::string& keep_runs);

}  // namespace neuronsim::sweep
