#include "sweep/runner.h"

#include "model/common/error.h"
#include "sweep/interrupt.h"
#include "sweep/point_inputs.h"
#include "sweep/progress.h"

namespace neuronsim::sweep {

bool in_shard(const Point& p, int index, int count) { return p.index % size_t(count) == size_t(index); }

std::vector<Point> shard_points(const std::vector<Point>& points, int index, int count) {
    std::vector<Point> out;
    for (const Point& p : points)
        if (in_shard(p, index, count)) out.push_back(p);
    return out;
}

std::vector<Point> points_to_run(const std::vector<Point>& points, const std::set<std::string>& done_keys) {
    std::set<std::string> seen = done_keys;
    std::vector<Point> out;
    for (const Point& p : points)
        if (seen.insert(p.key()).second) out.push_back(p);
    return out;
}

void parse_shard(const std::string& text, int& index, int& count) {
    const size_t slash = text.find('/');
    auto number = [&](const std::string& s, int& out) {
        if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) return false;
        out = std::stoi(s);
        return true;
    };
    if (slash == std::string::npos || !number(text.substr(0, slash), index) || !number(text.substr(slash + 1), count) || count < 1 || index >= count)
        throw Error("--shard " + text + ": expected I/N with 0 <= I < N, e.g. 0/4 (Slurm: $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)");
}

void count_reruns(const std::vector<Point>& todo, ResultsDb& db, SweepOutcome& out) {
    for (const Point& p : todo) {
        const auto old = db.superseded(p.coord_key(), p.key());
        if (old.empty()) continue;
        if (!out.rerun++) out.rerun_example = p.describe() + ": " + inputs_change(old.front().second, p.inputs);
    }
}

SweepOutcome run_local(const std::vector<Point>& all, ResultsDb& db, const SweepOptions& o) {
    SweepOutcome out;
    out.points = all.size();
    if (!o.run.started_at.empty()) db.add_sweep_run(o.run);
    if (o.retry_failed) db.delete_failed();
    const std::vector<Point> todo = points_to_run(all, db.point_keys());
    out.already = all.size() - todo.size();
    count_reruns(todo, db, out);
    Progress progress(todo.size(), o.progress);
    PointExecutor ex(o.exec);
    size_t next = 0;
    auto record = [&](const PointDone& d) {
        if (d.interrupted) {
            ++out.unrecorded;
            return;
        }
        db.record(d.record);
        ++out.ran;
        if (d.record.status != "ok") ++out.failed;
        progress.update(out.ran, out.failed);
    };
    progress.update(0, 0, true);
    while (true) {
        if (interrupted()) {
            out.interrupted = true;
            for (const PointDone& d : ex.stop_all(5.0)) record(d);
            break;
        }
        while (ex.running() < size_t(o.jobs) && next < todo.size()) ex.start(todo[next++]);
        if (ex.running() == 0) break;
        for (const PointDone& d : ex.poll(100)) record(d);
    }
    out.unrecorded += todo.size() - next;
    progress.update(out.ran, out.failed, true);
    progress.finish();
    return out;
}

}  // namespace neuronsim::sweep
