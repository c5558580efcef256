#include "sweep/point_executor.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "model/io/json_path.h"
#include "model/io/write_file.h"
#include "neuronsim/version.h"
#include "sweep/utf8.h"

namespace neuronsim::sweep {

namespace fs = std::filesystem;

namespace {

// Every occurrence of `from` in `text` replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    if (from.empty()) return text;
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
    return text;
}

// The end of a child's stderr: the error message of `neuronsim run` is its last line(s). The
// point's output directory (a temporary one, or --keep-runs') is written "<point dir>", so the
// same failure has the same text in every study.
std::string error_text(std::string text, const std::string& point_dir) {
    text = replace_all(std::move(text), point_dir, "<point dir>");
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    // The run's own prefix says nothing here: the point's row is the context.
    for (const char* prefix : {"neuronsim: error: ", "neuronsim: "})
        if (text.rfind(prefix, 0) == 0 && text.find('\n') == std::string::npos) {
            text = text.substr(std::strlen(prefix));
            break;
        }
    constexpr size_t kMax = 4000;
    if (text.size() > kMax) text = "..." + text.substr(text.size() - kMax);
    return make_valid_utf8(text);  // a message may quote bytes of a trace
}

}  // namespace

double default_point_timeout(const Point& p) {
    std::error_code ec;
    const uintmax_t bytes = fs::file_size(p.trace_path, ec);
    return 600.0 + 120.0 * (ec ? 0.0 : double(bytes) / double(1 << 20));
}

// Points per warm worker before it is replaced: each point leaves its SystemC context behind
// (about 160 KiB, measured), so a worker ends holding some 16 MiB more than it started with,
// while the fork it cost is shared by 100 points [A].
constexpr size_t kPointsPerWorker = 100;

PointExecutor::PointExecutor(ExecutorOptions o) : o_(std::move(o)), kernels_(o_.work_dir + "/kernels") {
    model::io::make_directories(o_.work_dir);
    if (o_.in_process) workers_ = std::make_unique<WorkerPool>(o_.in_process, kPointsPerWorker);
}

PointExecutor::~PointExecutor() = default;

PointDone PointExecutor::failed_to_start(const Point& p, const std::string& why) const {
    PointDone d;
    d.index = p.index;
    d.record = record_for(p);
    d.record.status = "failed";
    d.record.exit_code = 1;
    d.record.error = replace_all(make_valid_utf8(why), o_.work_dir, "<work dir>");
    d.record.neuronsim_version = NEURONSIM_VERSION;
    d.record.numerics = o_.numerics;
    d.record.host = host_name();
    d.record.finished_at = utc_now();
    return d;
}

void PointExecutor::start(const Point& given) {
    Point p = given;
    if (!p.kernel.empty()) {
        try {
            p.trace_path = kernels_.trace_for(p);
        } catch (const std::exception& e) {
            ended_.push_back(failed_to_start(p, e.what()));
            return;
        }
    }
    const std::string dir = o_.work_dir + "/" + p.key();
    std::error_code ec;
    fs::remove_all(dir, ec);  // a point's earlier, unrecorded attempt
    model::io::make_directories(dir);
    const std::vector<std::string> args = run_arguments(p, dir + "/out", o_.numerics);
    const int pid = workers_ ? workers_->submit(args) : pool_.start(o_.exe, args);
    Running r;
    r.point = p;
    r.timeout = o_.timeout_seconds < 0 ? default_point_timeout(p) : o_.timeout_seconds;
    r.deadline = r.timeout > 0 ? now_seconds() + r.timeout : 0;
    running_[pid] = r;
}

void PointExecutor::kill_overdue() {
    const double now = now_seconds();
    for (auto& [pid, r] : running_)
        if (r.deadline > 0 && now >= r.deadline && !r.timed_out) {
            r.timed_out = true;
            if (workers_) workers_->signal(pid, SIGKILL);
            else ::kill(pid, SIGKILL);
        }
}

std::vector<PointDone> PointExecutor::poll(int timeout_ms) {
    std::vector<PointDone> out;
    out.swap(ended_);
    if (!out.empty()) timeout_ms = 0;
    kill_overdue();
    for (const ChildExit& e : workers_ ? workers_->wait(timeout_ms) : pool_.wait(timeout_ms)) out.push_back(finish(e));
    kill_overdue();
    return out;
}

PointDone PointExecutor::finish(const ChildExit& e) {
    const Running run = running_.at(e.pid);
    const Point& p = run.point;
    running_.erase(e.pid);
    PointDone d;
    d.index = p.index;
    d.record = record_for(p);
    PointRecord& r = d.record;
    r.wall_seconds = e.wall_seconds;
    r.cpu_seconds = e.cpu_seconds;
    r.neuronsim_version = NEURONSIM_VERSION;
    r.numerics = o_.numerics;
    r.host = host_name();
    r.finished_at = utc_now();
    const std::string dir = o_.work_dir + "/" + p.key();
    // Stopped rather than failed: by Ctrl-C or a termination signal (a terminal's, mpirun's, a
    // batch system's; the run exits 130 or dies of it), or killed while the sweep stops points.
    const bool by_interrupt =
        e.signal == SIGINT || e.signal == SIGTERM || e.signal == SIGHUP || e.exit_code == 130 || e.exit_code == 143 || (stopping_ && e.signal == SIGKILL);
    if (run.timed_out) {
        r.status = "failed";
        r.exit_code = 124;  // (as timeout(1) says it)
        char t[64];
        std::snprintf(t, sizeof t, "%.0f", run.timeout);
        r.error = std::string("timed out: still running after ") + t + " s (" +
                  (o_.timeout_seconds < 0 ? "the default for this point: 600 s + 120 s per MiB of trace" : "timeout_seconds / --timeout") +
                  "), killed; the point is recorded as failed, `sweep --retry-failed --timeout S` runs it again";
    } else if (by_interrupt) {
        d.interrupted = true;
    } else if (e.signal != 0) {
        r.status = "failed";
        r.exit_code = 128 + e.signal;
        r.error = std::string("killed by signal ") + std::to_string(e.signal) + " (" + strsignal(e.signal) + ")";
        const std::string err = error_text(e.stderr_text, dir);
        if (!err.empty()) r.error += ": " + err;
    } else if (e.exit_code != 0) {
        r.status = "failed";
        r.exit_code = e.exit_code;
        r.error = error_text(e.stderr_text, dir);
        if (r.error.empty()) r.error = "exit status " + std::to_string(e.exit_code) + " and no message";
    } else {
        try {
            const std::string stats_path = dir + "/out/stats.json";
            for (FlatStat& f :
                 flatten(model::io::parse_json_text(model::io::read_text_file(stats_path, model::io::kMaxJsonFileBytes, "stats.json"), stats_path)))
                if (keeps_stat(o_.stats, f.key)) r.stats.push_back(std::move(f));
            r.status = "ok";
        } catch (const std::exception& ex) {
            r.status = "failed";
            r.exit_code = 0;
            r.error = replace_all(std::string("the run succeeded but its stats cannot be read: ") + ex.what(), dir, "<point dir>");
        }
    }
    if (!o_.keep_outputs || d.interrupted) {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    return d;
}

std::vector<PointDone> PointExecutor::stop_all(double grace_seconds) {
    stopping_ = true;
    std::vector<PointDone> out;
    out.swap(ended_);
    auto signal_all = [&](int sig) { workers_ ? workers_->signal_all(sig) : pool_.signal_all(sig); };
    auto in_flight = [&] { return workers_ ? workers_->running() : pool_.running(); };
    auto wait = [&](int ms) { return workers_ ? workers_->wait(ms) : pool_.wait(ms); };
    signal_all(SIGINT);
    const double deadline = now_seconds() + grace_seconds;
    while (in_flight() > 0 && now_seconds() < deadline)
        for (const ChildExit& e : wait(50)) out.push_back(finish(e));
    signal_all(SIGKILL);
    while (in_flight() > 0)
        for (const ChildExit& e : wait(50)) out.push_back(finish(e));
    return out;
}

}  // namespace neuronsim::sweep
