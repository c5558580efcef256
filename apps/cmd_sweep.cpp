// `neuronsim sweep`, `sweep export`, `sweep merge`: what-if studies (docs/what-if.md). Thin:
// the work is in sweep/; this file parses options, checks the spec's keys against the
// generations' presets and reports.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

#include "apps/commands.h"
#include "model/common/error.h"
#include "model/io/json_path.h"
#include "model/io/sha256.h"
#include "neuronsim/act_sets.h"
#include "neuronsim/version.h"
#include "platform/act/act_set_region.h"
#include "platform/config.h"
#include "platform/host/simulate.h"
#include "sweep/host_info.h"
#include "sweep/interrupt.h"
#include "sweep/mpi_runner.h"
#include "sweep/plot.h"
#include "sweep/point_inputs.h"
#include "sweep/runner.h"
#include "sweep/scheduler_env.h"
#include "sweep/sensitivity.h"
#include "sweep/spec.h"
#include "sweep/study_plots.h"
#include "sweep/work_dir.h"

namespace neuronsim::apps {

namespace {

namespace fs = std::filesystem;
using namespace sweep;

// Every generation must exist, the overlays must apply to each, and every fixed or axis value
// must be accepted on top of them (each value alone), before anything runs; errors name the
// spec and the YAML path, then the layer (overlay file and line, or -p) at fault.
void check_spec_against_presets(const Spec& s) {
    for (size_t i = 0; i < s.generations.size(); ++i) {
        try {
            platform::builtin_config_text(s.generations[i]);
        } catch (const std::exception& e) {
            throw Error(s.source + ": generations[" + std::to_string(i) + "]: " + e.what());
        }
        if (!s.overlay_paths.empty()) {
            try {
                platform::compose_config(s.generations[i], s.overlay_paths);
            } catch (const std::exception& e) {
                throw Error(s.source + ": overlays: on " + s.generations[i] + ": " + e.what());
            }
        }
    }
    auto check = [&](const std::string& where, const std::string& key, const std::string& value) {
        for (const std::string& g : s.generations) {
            try {
                platform::compose_config(g, s.overlay_paths, {key + "=" + value});
            } catch (const std::exception& e) {
                throw Error(s.source + ": " + where + ": " + key + "=" + value + " on " + g + ": " + e.what());
            }
        }
    };
    for (const Param& p : s.params) check("params." + p.key, p.key, p.value);
    for (const Axis& a : s.axes)
        for (const AxisColumn& c : a.columns) {
            if (!c.baseline.empty()) check(c.where + ".baseline", c.key, c.baseline);
            for (const std::string& g : s.generations) {  // (a factors column's values differ by generation)
                const std::vector<std::string>& v = c.values_for(g);
                for (size_t i = 0; i < v.size(); ++i) {
                    const std::string where = c.where + (c.factors.empty() ? ".values[" : ".factors[") + std::to_string(i) + "]";
                    try {
                        platform::compose_config(g, s.overlay_paths, {c.key + "=" + v[i]});
                    } catch (const std::exception& e) {
                        throw Error(s.source + ": " + where + ": " + c.key + "=" + v[i] + " on " + g + ": " + e.what());
                    }
                }
            }
        }
}

// What every point would load again, loaded once before the workers fork from this process: the
// built-in function sets' DRAM region of each generation (with the overlays and fixed params).
// A point whose parameters change the tables still builds its own; nothing here changes results.
void warm_for_points(const Spec& s) {
    std::vector<std::string> overrides;
    for (const Param& p : s.params) overrides.push_back(p.key + "=" + p.value);
    for (const std::string& g : s.generations) {
        try {
            const Config cfg = platform::compose_config(g, s.overlay_paths, overrides);
            (void)platform::shared_act_set_region(cfg, "", cfg.memory.dram_bytes);
        } catch (const std::exception&) {
            // (the points report it themselves)
        }
    }
}

std::string default_db(const std::string& spec, int shard_index, int shard_count) {
    std::string stem = fs::path(spec).stem().string();
    if (shard_count > 1) stem += ".shard-" + std::to_string(shard_index) + "-of-" + std::to_string(shard_count);
    return stem + ".db";
}

// An argument as a POSIX shell reads it back: plain when it is safe, else single-quoted.
std::string shell_quote(const std::string& a) {
    if (!a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == std::string::npos) return a;
    std::string q = "'";
    for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// What the database's sweeps table keeps of this run: the command line, the spec's text and
// hash, the build and the host.
SweepRun sweep_run_record(const std::string& spec_path, const std::vector<std::string>& args) {
    SweepRun r;
    r.started_at = utc_now();
    r.command_line = "neuronsim sweep";
    for (const std::string& a : args) r.command_line += " " + shell_quote(a);
    r.spec_path = spec_path;
    r.spec_text = model::io::read_text_file(spec_path, 16u << 20, "the sweep spec");
    r.spec_sha256 = model::io::sha256_hex(r.spec_text);
    r.build_id = build_id();
    r.neuronsim_version = NEURONSIM_VERSION;
    r.host = host_name();
    return r;
}

int report(const SweepOutcome& o, const std::string& db_path, const std::vector<Point>& points, bool quiet) {
    ResultsDb db(db_path, false);
    size_t failed = 0;
    std::set<std::string> keys;
    for (const Point& p : points) keys.insert(p.key());
    {
        auto st = db.db().prepare("SELECT point_key FROM points WHERE status != 'ok'");
        while (st.step()) failed += keys.count(st.text(0));
    }
    if (!quiet) {
        std::printf("sweep: %zu points: %zu run now (%zu failed), %zu already in %s", o.points, o.ran, o.failed, o.already, db_path.c_str());
        if (o.unrecorded) std::printf(", %zu not run (interrupted; run the same command again to resume)", o.unrecorded);
        std::printf("\n");
        if (o.rerun)
            std::printf("sweep: %zu point(s) ran again because their inputs changed (the rerun_reason column says what), e.g. %s\n", o.rerun,
                        o.rerun_example.c_str());
        if (failed)
            std::printf("sweep: %zu point(s) of this spec failed; their errors are in the error column (neuronsim sweep export %s --csv FILE)\n", failed,
                        db_path.c_str());
    }
    if (o.interrupted) return 130;
    return failed ? 3 : 0;
}

int draw_study_plots(const Spec& spec, const std::string& db) {
    for (const PlotRequest& r : study_plots(spec, db)) {
        const std::string note = draw_plot(r);
        std::printf("sweep: plot %s\n", r.out.c_str());
        if (!note.empty()) std::fprintf(stderr, "neuronsim sweep: %s: %s\n", r.out.c_str(), note.c_str());
    }
    if (spec.combine == "oat") {  // and the study's tornado (DBNAME-sensitivity.svg)
        const std::string out = (fs::path(db).parent_path() / fs::path(db).stem()).string() + "-sensitivity.svg";
        SensitivityRequest r;
        r.db = db;
        draw_tornado(sensitivity(r), r.metrics.front(), out);
        std::printf("sweep: plot %s\n", out.c_str());
    }
    return 0;
}

int run_sweep(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("spec", po::value<std::string>()->required(), "the sweep specification (YAML; docs/what-if.md); also positional")(
        "db,o", po::value<std::string>(),
        "results database (SQLite), created or resumed (default: SPEC's name with .db, in the current directory; with --shard I/N: NAME.shard-I-of-N.db)")(
        "jobs,j", po::value<int>(), "points run at once on this machine (default: the number of cores; under mpirun: per worker rank, default 1)")(
        "dry-run", po::bool_switch(), "print the points (index, key, description) and exit; nothing runs, no database is written")(
        "shard", po::value<std::string>(),
        "I/N: run only the I-th (0-based) of N disjoint slices of the points (point index mod N == I); join the databases with `sweep merge`. auto: I and N "
        "from a Slurm array task (SLURM_ARRAY_TASK_ID, _MIN, _COUNT, _STEP) or a Grid Engine one (SGE_TASK_ID, _FIRST, _LAST, _STEPSIZE)")(
        "numerics", po::value<std::string>(),
        "full or none: passed to every `neuronsim run` as --numerics (overrides the spec's numerics:); none: timing-only runs, the same times and stats, faster")(
        "retry-failed", po::bool_switch(),
        "delete the failed points from the database first and run them again (by default a resumed sweep skips every point already recorded, failed or not)")(
        "timeout", po::value<double>(),
        "seconds a point may run before it is killed and recorded as failed (0: no limit; overrides the spec's timeout_seconds:; default 600 s + 120 s per MiB of the point's trace)")(
        "keep-runs", po::value<std::string>(), "keep each point's run output in DIR/<point key>/ (default: a temporary directory, removed)")(
        "plot", po::bool_switch(), "after the sweep, draw the spec's plots: (or one default plot per trace and axis) with gnuplot")(
        "no-progress", po::bool_switch(), "no progress bar (it is drawn only when stderr is a terminal)")(
        "emit-sbatch", po::value<std::string>(),
        "DIR: write a Slurm array job for the study instead of running it: DIR/sweep.sbatch (task I runs --shard I/N into DIR/shards/), "
        "DIR/merge.sbatch (joins them into DIR/NAME.db) and DIR/submit.sh (submits both, the merge after every task succeeded); needs --shards")(
        "shards", po::value<int>(), "with --emit-sbatch: the array job's tasks (shards); -j gives each task's CPUs")(
        "spawn", po::bool_switch(),
        "start every point as a new `neuronsim run` process (as MPI workers do) instead of in a warm worker (the default locally: forks of this "
        "warmed process that run up to 100 points each, one after another, in a fresh simulation; no exec, the built-in sets loaded once); the "
        "results are the same");
    po::positional_options_description pos;
    pos.add("spec", 1);
    po::variables_map vm;
    if (parse_options(prog,
                      "Runs a what-if study: every point of SPEC (traces x generations x axes over config keys) as\n"
                      "a `neuronsim run` in its own simulation, N at a time (in N warm worker processes that run\n"
                      "points one after another; --spawn: a process per point), into one SQLite database (one\n"
                      "transaction per point). Points already in the database are not run again, so an interrupted sweep resumes\n"
                      "with the same command. A failing point records its error and the sweep goes on.\n"
                      "Under `mpirun -n K` rank 0 hands points to K-1 worker ranks and alone writes the database.\n\n"
                      "Also: `neuronsim sweep export DB --csv FILE`, `neuronsim sweep merge OUT.db IN.db...`,\n"
                      "`neuronsim sweep sensitivity DB [--tornado FILE.svg]` (a combine: oat study's report).\n"
                      "Exit status: 0 every point ok, 3 some point failed (recorded), 130 interrupted, 1 error, 2 usage.",
                      opts, args, vm, &pos, "SPEC.yaml [-o DB] [-j N] [--dry-run] [--shard I/N] [--numerics MODE] [--plot]"))
        return 0;
    int shard_index = 0, shard_count = 1;
    if (vm.count("shard") && vm["shard"].as<std::string>() == "auto") {
        std::string scheduler;
        shard_from_environment(shard_index, shard_count, scheduler);  // (an Error naming the variables: exit 1)
    } else if (vm.count("shard")) {
        try {
            parse_shard(vm["shard"].as<std::string>(), shard_index, shard_count);
        } catch (const Error& e) {
            throw UsageError(prog + ": " + e.what());
        }
    }
    if (vm.count("emit-sbatch")) {
        if (vm.count("shard")) throw UsageError(prog + ": --emit-sbatch writes the scripts that run every shard: leave out --shard");
        const int shards = vm.count("shards") ? vm["shards"].as<int>() : 0;
        if (shards < 1 || shards > 100000) throw UsageError(prog + ": --emit-sbatch needs --shards N (1..100000): the array job's tasks");
        SbatchRequest req;
        req.spec = fs::absolute(vm["spec"].as<std::string>()).lexically_normal().string();
        req.dir = fs::absolute(vm["emit-sbatch"].as<std::string>()).lexically_normal().string();
        req.exe = self_executable();
        req.shards = shards;
        req.cpus_per_task = vm.count("jobs") ? vm["jobs"].as<int>() : 1;
        if (vm.count("numerics")) req.extra_args += " --numerics " + shell_quote(vm["numerics"].as<std::string>());
        if (vm.count("timeout")) req.extra_args += " --timeout " + shell_quote(std::to_string(vm["timeout"].as<double>()));
        (void)load_spec(req.spec);  // (a bad spec fails here, not in a thousand tasks)
        const std::string submit = write_sbatch_scripts(req);
        std::printf("wrote %s/sweep.sbatch (%d array tasks), %s/merge.sbatch and %s: run it on the cluster's login node\n", req.dir.c_str(), shards,
                    req.dir.c_str(), submit.c_str());
        return 0;
    }
    if (vm.count("numerics") && vm["numerics"].as<std::string>() != "full" && vm["numerics"].as<std::string>() != "none")
        throw UsageError(prog + ": --numerics: expected full or none, got \"" + vm["numerics"].as<std::string>() + "\"");
    std::unique_ptr<MpiSession> mpi = vm["dry-run"].as<bool>() ? nullptr : open_mpi_session();
    const bool coordinator = !mpi || mpi->rank() == 0;
    const std::string spec_path = vm["spec"].as<std::string>();
    Spec spec;
    std::vector<Point> points;
    const bool dry_run = vm["dry-run"].as<bool>();
    try {
        spec = load_spec(spec_path);
        check_spec_against_presets(spec);
        if (vm.count("numerics")) spec.numerics = vm["numerics"].as<std::string>();
        if (!dry_run)
            for_each_point(spec, [&](const Point& p) {
                if (in_shard(p, shard_index, shard_count)) points.push_back(p);
            });
    } catch (const std::exception&) {
        if (!coordinator) return 1;  // every rank reads the same spec; rank 0 reports
        throw;
    }
    if (dry_run) {  // streamed: a million points print without being held
        size_t n = 0;
        for_each_point(spec, [&](const Point& p) {
            if (!in_shard(p, shard_index, shard_count)) return;
            std::printf("%zu %s %s\n", p.index, p.key().c_str(), p.describe().c_str());
            ++n;
        });
        std::printf("%zu points%s\n", n, shard_count > 1 ? (" (shard " + std::to_string(shard_index) + "/" + std::to_string(shard_count) + ")").c_str() : "");
        if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw Error("--dry-run: writing the points to stdout failed");
        return 0;
    }
    SweepOptions o;
    int jobs = vm.count("jobs") ? vm["jobs"].as<int>() : mpi ? 1 : int(std::max(1u, std::thread::hardware_concurrency()));
    if (jobs < 1 || jobs > 4096) throw UsageError(prog + ": --jobs: expected 1..4096, got " + std::to_string(jobs));
    o.jobs = jobs;
    o.progress = coordinator && !vm["no-progress"].as<bool>() && isatty(STDERR_FILENO);
    o.retry_failed = vm["retry-failed"].as<bool>();
    o.exec.exe = self_executable();
    o.exec.numerics = spec.numerics;
    o.exec.stats = spec.stats;
    o.exec.keep_outputs = vm.count("keep-runs") > 0;
    o.exec.timeout_seconds = spec.timeout_seconds;
    if (vm.count("timeout")) {
        const double t = vm["timeout"].as<double>();
        if (!(t >= 0) || t > 1e7) throw UsageError(prog + ": --timeout: expected seconds in [0, 1e7] (0: no limit)");
        o.exec.timeout_seconds = t;
    }
    const std::string db_path = vm.count("db") ? vm["db"].as<std::string>() : default_db(spec_path, shard_index, shard_count);
    o.run = sweep_run_record(spec_path, args);
    install_interrupt_handlers();

    const std::string keep_runs = vm.count("keep-runs") ? vm["keep-runs"].as<std::string>() : "";
    if (mpi && mpi->size() > 1) {
        const MpiSweepResult r = run_mpi_sweep(*mpi, points, db_path, o, keep_runs);
        if (!r.coordinator) return r.worker_exit;
        const int rc = report(r.outcome, db_path, points, false);
        if (vm["plot"].as<bool>() && !r.outcome.interrupted) draw_study_plots(spec, db_path);
        return rc;
    }

    WorkDir work(keep_runs);
    o.exec.work_dir = work.path();
    if (!vm["spawn"].as<bool>()) {  // warm workers: forks of this process, warmed first
        warm_for_points(spec);
        o.exec.in_process = [](const std::vector<std::string>& run_args) {
            platform::fresh_simulation_context();  // (the worker's previous point ran in the last one)
            return run_cli(run_args);
        };
    }
    SweepOutcome out;
    {
        ResultsDb db(db_path, true);
        out = run_local(points, db, o);
    }
    const int rc = report(out, db_path, points, false);
    if (vm["plot"].as<bool>() && !out.interrupted) draw_study_plots(spec, db_path);
    return rc;
}

int run_export(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("db", po::value<std::string>()->required(), "the sweep database (also positional)")(
        "csv", po::value<std::string>()->required(), "the CSV file to write (atomically: complete or not at all)");
    po::positional_options_description pos;
    pos.add("db", 1);
    po::variables_map vm;
    if (parse_options(prog,
                      "Writes a sweep database as one CSV table, a row per point: point_key, point_index, trace,\n"
                      "generation, overlays, repeat, status, exit_code, error, wall_seconds, cpu_seconds,\nneuronsim_version, "
                      "numerics, host, then param:KEY for every parameter and stat:KEY for every stat.",
                      opts, args, vm, &pos, "DB --csv FILE"))
        return 0;
    const size_t rows = export_csv(vm["db"].as<std::string>(), vm["csv"].as<std::string>());
    std::printf("%s: %zu points\n", vm["csv"].as<std::string>().c_str(), rows);
    return 0;
}

int run_sensitivity(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("db", po::value<std::string>()->required(), "the sweep database of a combine: oat study (also positional)")(
        "metric,m", po::value<std::vector<std::string>>()->composing(), "a stat to report (repeatable; default core.simulated_ps)")(
        "where", po::value<std::vector<std::string>>()->composing(), "KEY=VALUE: only points where KEY has VALUE (repeatable), e.g. generation=mariana")(
        "tsv", po::bool_switch(), "a tab-separated table (a row per knob value, full precision) instead of the aligned text")(
        "tornado", po::value<std::string>(),
        "also draw a tornado plot of the first metric into FILE.svg or FILE.png (gnuplot), a panel per trace and generation")(
        "script", po::value<std::string>(), "with --tornado: also write its gnuplot script to FILE");
    po::positional_options_description pos;
    pos.add("db", 1);
    po::variables_map vm;
    if (parse_options(prog,
                      "Reports a one-at-a-time study (combine: oat): for each trace and generation, the metric at the\n"
                      "baseline point and, for each knob and value, the metric and its relative change from the\n"
                      "baseline, the knobs with the largest change first. Repeats are averaged; failed points are\n"
                      "counted and left out.",
                      opts, args, vm, &pos, "DB [--metric STAT]... [--where KEY=VALUE]... [--tsv] [--tornado FILE.svg]"))
        return 0;
    SensitivityRequest r;
    r.db = vm["db"].as<std::string>();
    if (vm.count("metric")) r.metrics = vm["metric"].as<std::vector<std::string>>();
    if (vm.count("where")) r.where = vm["where"].as<std::vector<std::string>>();
    const std::vector<SensitivityGroup> groups = sensitivity(r);
    const std::string text = vm["tsv"].as<bool>() ? sensitivity_tsv(groups) : sensitivity_text(groups);
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) throw Error("writing the report to stdout failed");
    if (vm.count("tornado")) {
        const std::string out = vm["tornado"].as<std::string>();
        draw_tornado(groups, r.metrics.front(), out, vm.count("script") ? vm["script"].as<std::string>() : "");
        std::fprintf(stderr, "neuronsim sweep sensitivity: tornado plot %s\n", out.c_str());
    }
    return 0;
}

int run_merge(const std::string& prog, const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("files", po::value<std::vector<std::string>>()->multitoken(), "OUT.db then the input databases (positional)");
    po::positional_options_description pos;
    pos.add("files", -1);
    po::variables_map vm;
    if (parse_options(prog,
                      "Joins sweep databases (e.g. the shards of `sweep --shard I/N`) into a new database OUT.db.\n"
                      "A point in several inputs with the same results is kept once; with different results the\n"
                      "merge is refused, naming the points and files, and nothing is written.",
                      opts, args, vm, &pos, "OUT.db IN1.db IN2.db ..."))
        return 0;
    std::vector<std::string> files = vm.count("files") ? vm["files"].as<std::vector<std::string>>() : std::vector<std::string>{};
    if (files.size() < 2) throw UsageError(prog + ": expected OUT.db and at least one input database");
    const std::string out = files.front();
    files.erase(files.begin());
    const size_t n = merge_databases(out, files);
    std::printf("%s: %zu points from %zu databases\n", out.c_str(), n, files.size());
    return 0;
}

}  // namespace

Command sweep_command() {
    return {"sweep", "run a what-if study (SPEC.yaml) into an SQLite database; `sweep export`, `sweep merge`, `sweep sensitivity`",
            [](const std::string& prog, const std::vector<std::string>& args) {
                if (!args.empty() && args[0] == "export") return run_export(prog + " export", {args.begin() + 1, args.end()});
                if (!args.empty() && args[0] == "merge") return run_merge(prog + " merge", {args.begin() + 1, args.end()});
                if (!args.empty() && args[0] == "sensitivity") return run_sensitivity(prog + " sensitivity", {args.begin() + 1, args.end()});
                return run_sweep(prog, args);
            }};
}

}  // namespace neuronsim::apps
