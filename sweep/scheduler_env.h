#pragma once
// The shard of a sweep that a batch scheduler's array task runs (`sweep --shard auto`), and the
// Slurm scripts that run a study as an array job and merge its shards (`sweep --emit-sbatch`).
#include <string>

namespace neuronsim::sweep {

// This task's shard from the environment: Slurm (SLURM_ARRAY_TASK_ID, _MIN, _COUNT, _STEP) or
// Grid Engine (SGE_TASK_ID, _FIRST, _LAST, _STEPSIZE): shard (ID - first) / step of count.
// An Error naming the variables when none is set or they do not make a shard.
void shard_from_environment(int& index, int& count, std::string& scheduler);

struct SbatchRequest {
    std::string spec;  // as the scripts name it (absolute, so they run from anywhere)
    std::string dir;  // where the scripts and the databases go
    std::string exe;  // the neuronsim executable
    int shards = 1;
    int cpus_per_task = 1;
    std::string extra_args;  // further sweep arguments, shell-quoted (--numerics none ...)
};

// Writes DIR/sweep.sbatch (the array job: one shard per task, into DIR/shards/), DIR/merge.sbatch
// (joins them into DIR/<spec name>.db) and DIR/submit.sh (submits the array, then the merge
// with afterok on it). Returns the submit script's path.
std::string write_sbatch_scripts(const SbatchRequest& r);

}  // namespace neuronsim::sweep
