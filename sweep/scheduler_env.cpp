#include "sweep/scheduler_env.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>

#include "model/common/error.h"
#include "model/io/write_file.h"

namespace neuronsim::sweep {

namespace {

const char* env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

long number(const char* name, const char* text) {
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (!*text || *end || v < 0 || v > 100000000) throw Error(std::string("--shard auto: ") + name + "=" + text + " is not a task number");
    return v;
}

}  // namespace

void shard_from_environment(int& index, int& count, std::string& scheduler) {
    long id = 0, first = 0, step = 1, n = 0;
    if (const char* s = env("SLURM_ARRAY_TASK_ID")) {
        scheduler = "Slurm";
        id = number("SLURM_ARRAY_TASK_ID", s);
        const char* c = env("SLURM_ARRAY_TASK_COUNT");
        if (!c) throw Error("--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not (an array job sets both)");
        n = number("SLURM_ARRAY_TASK_COUNT", c);
        if (const char* m = env("SLURM_ARRAY_TASK_MIN")) first = number("SLURM_ARRAY_TASK_MIN", m);
        if (const char* st = env("SLURM_ARRAY_TASK_STEP")) step = number("SLURM_ARRAY_TASK_STEP", st);
    } else if (const char* s = env("SGE_TASK_ID")) {
        scheduler = "Grid Engine";
        if (std::string(s) == "undefined") throw Error("--shard auto: SGE_TASK_ID is \"undefined\": the job is not an array job (qsub -t 1-N)");
        id = number("SGE_TASK_ID", s);
        const char* f = env("SGE_TASK_FIRST");
        const char* l = env("SGE_TASK_LAST");
        if (!f || !l) throw Error("--shard auto: SGE_TASK_ID is set but SGE_TASK_FIRST or SGE_TASK_LAST is not");
        first = number("SGE_TASK_FIRST", f);
        if (const char* st = env("SGE_TASK_STEPSIZE")) step = number("SGE_TASK_STEPSIZE", st);
        if (step < 1) throw Error("--shard auto: SGE_TASK_STEPSIZE must be at least 1");
        n = (number("SGE_TASK_LAST", l) - first) / step + 1;
    } else {
        throw Error(
            "--shard auto: no array task in the environment (looked for Slurm's SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT, "
            "and Grid Engine's SGE_TASK_ID, SGE_TASK_FIRST and SGE_TASK_LAST); give --shard I/N instead");
    }
    if (step < 1 || id < first || (id - first) % step != 0 || (id - first) / step >= n || n < 1)
        throw Error("--shard auto: " + scheduler + " task " + std::to_string(id) + " is not one of " + std::to_string(n) + " tasks from " +
                    std::to_string(first) + " in steps of " + std::to_string(step));
    index = static_cast<int>((id - first) / step);
    count = static_cast<int>(n);
}

std::string write_sbatch_scripts(const SbatchRequest& r) {
    namespace fs = std::filesystem;
    model::io::make_directories(r.dir + "/shards");
    const std::string name = fs::path(r.spec).stem().string();
    const std::string q = "'";  // (the paths are single-quoted in the scripts)
    auto quoted = [&](const std::string& s) {
        std::string o = q;
        for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
        return o + q;
    };
    const std::string shards = r.dir + "/shards";
    const std::string cpus = std::to_string(r.cpus_per_task);
    // Exit 3 (some point failed; recorded) is a finished shard: it must not fail the task, or
    // afterok would never start the merge.
    const std::string sweep = "#!/bin/bash\n# neuronsim sweep of " + r.spec + " as a Slurm array job: task I of " + std::to_string(r.shards) +
                              " runs shard I into shards/.\n#SBATCH --job-name=neuronsim-" + name + "\n#SBATCH --array=0-" + std::to_string(r.shards - 1) +
                              "\n#SBATCH --cpus-per-task=" + cpus + "\n#SBATCH --output=" + shards + "/slurm-%A_%a.out\nset -euo pipefail\ncd " +
                              quoted(shards) + "\n" + quoted(r.exe) + " sweep " + quoted(r.spec) + " --shard auto -j \"${SLURM_CPUS_PER_TASK:-" + cpus +
                              "}\" --no-progress" + r.extra_args + " || [ $? -eq 3 ]\n";
    const std::string merge = "#!/bin/bash\n# joins the shards of the array job into " + name + ".db.\n#SBATCH --job-name=neuronsim-" + name +
                              "-merge\n#SBATCH --output=" + r.dir + "/slurm-merge-%j.out\nset -euo pipefail\ncd " + quoted(r.dir) + "\nrm -f " +
                              quoted(name + ".db") + "\n" + quoted(r.exe) + " sweep merge " + quoted(name + ".db") + " shards/" + name + ".shard-*-of-" +
                              std::to_string(r.shards) + ".db\n";
    const std::string submit = "#!/bin/bash\n# submits the array job, then the merge once every task succeeded.\nset -euo pipefail\ncd " + quoted(r.dir) +
                               "\njob=$(sbatch --parsable sweep.sbatch)\nsbatch --dependency=afterok:\"${job%%;*}\" merge.sbatch\n";
    model::io::write_file_atomic(r.dir + "/sweep.sbatch", sweep);
    model::io::write_file_atomic(r.dir + "/merge.sbatch", merge);
    model::io::write_file_atomic(r.dir + "/submit.sh", submit);
    for (const char* f : {"/sweep.sbatch", "/merge.sbatch", "/submit.sh"}) ::chmod((r.dir + f).c_str(), 0755);
    return r.dir + "/submit.sh";
}

}  // namespace neuronsim::sweep
