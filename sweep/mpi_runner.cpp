// The MPI distribution of a sweep. Messages (all small; rank 0 answers every request):
//   worker -> 0  kRequest  (no data)      a slot is free: send me a point
//   0 -> worker  kPoint    int64          the index of a point to run, or -1: no more
//   0 -> worker  kStop     (no data)      the sweep was interrupted: stop your points
//   worker -> 0  kResult   JSON text      a finished point (record_json.h)
//   worker -> 0  kDone     (no data)      nothing running, nothing more to ask for
// Both sides poll (MPI_Iprobe, then a 2 ms sleep) instead of blocking in MPI_Recv, which in
// Open MPI spins a core: the coordinator stays idle while the workers simulate.
#include "sweep/mpi_runner.h"

#include <cstdlib>
#include <ctime>

#include "model/common/error.h"
#include "sweep/interrupt.h"
#include "sweep/progress.h"
#include "sweep/record_json.h"

#ifdef NEURONSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace neuronsim::sweep {

#ifndef NEURONSIM_HAVE_MPI

MpiSession::MpiSession() {
    throw Error(
        "launched under mpirun, but this neuronsim was built without MPI (configure with Open MPI's libopenmpi-dev installed, "
        "-DNEURONSIM_WITH_MPI=ON); run the sweep without mpirun, or with --shard I/N per job");
}
MpiSession::~MpiSession() = default;
void MpiSession::abort(int code) { std::exit(code); }
int MpiSession::broadcast(int value) const { return value; }
SweepOutcome run_mpi_coordinator(const MpiSession&, const std::vector<Point>&, ResultsDb&, const SweepOptions&) { return {}; }
void run_mpi_worker(const MpiSession&, const std::vector<Point>&, const SweepOptions&) {}

#else

namespace {

enum Tag { kRequest = 1, kPoint = 2, kStop = 3, kResult = 4, kDone = 5 };

void pause_briefly() {
    timespec t{0, 2 * 1000 * 1000};
    nanosleep(&t, nullptr);
}

std::string receive_text(const MPI_Status& st) {
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    std::string s(size_t(n), '\0');
    MPI_Recv(s.data(), n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return s;
}

void send_empty(int dest, int tag) { MPI_Send(nullptr, 0, MPI_CHAR, dest, tag, MPI_COMM_WORLD); }

}  // namespace

MpiSession::MpiSession() {
    // Children are started with posix_spawn, never a bare fork; Open MPI's fork warning
    // (for fork() with registered memory) does not apply. A user's own setting wins.
    setenv("OMPI_MCA_mpi_warn_on_fork", "0", 0);
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

void MpiSession::abort(int code) {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
}

int MpiSession::broadcast(int value) const {
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return value;
}

SweepOutcome run_mpi_coordinator(const MpiSession& mpi, const std::vector<Point>& all, ResultsDb& db, const SweepOptions& o) {
    SweepOutcome out;
    out.points = all.size();
    if (!o.run.started_at.empty()) db.add_sweep_run(o.run);
    if (o.retry_failed) db.delete_failed();
    const std::vector<Point> todo = points_to_run(all, db.point_keys());
    out.already = all.size() - todo.size();
    count_reruns(todo, db, out);
    Progress progress(todo.size(), o.progress);
    progress.update(0, 0, true);
    size_t next = 0;
    int workers_done = 0;
    bool stop_sent = false;
    while (workers_done < mpi.size() - 1) {
        if (interrupted() && !stop_sent) {
            out.interrupted = true;
            for (int w = 1; w < mpi.size(); ++w) send_empty(w, kStop);
            stop_sent = true;
        }
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag) {
            pause_briefly();
            continue;
        }
        if (st.MPI_TAG == kRequest) {
            MPI_Recv(nullptr, 0, MPI_CHAR, st.MPI_SOURCE, kRequest, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            int64_t index = -1;
            if (!stop_sent && next < todo.size()) index = int64_t(todo[next++].index);
            MPI_Send(&index, 1, MPI_INT64_T, st.MPI_SOURCE, kPoint, MPI_COMM_WORLD);
        } else if (st.MPI_TAG == kResult) {
            bool was_interrupted = false;
            size_t index = 0;
            const PointRecord r = record_from_json(receive_text(st), was_interrupted, index);
            if (was_interrupted) {
                ++out.unrecorded;
                continue;
            }
            db.record(r);
            ++out.ran;
            if (r.status != "ok") ++out.failed;
            progress.update(out.ran, out.failed);
        } else if (st.MPI_TAG == kDone) {
            MPI_Recv(nullptr, 0, MPI_CHAR, st.MPI_SOURCE, kDone, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            ++workers_done;
        } else {
            receive_text(st);  // not ours: drop
        }
    }
    out.unrecorded += todo.size() - next;
    progress.update(out.ran, out.failed, true);
    progress.finish();
    return out;
}

void run_mpi_worker(const MpiSession&, const std::vector<Point>& points, const SweepOptions& o) {
    PointExecutor ex(o.exec);
    bool no_more = false, stop = false;
    auto send_result = [&](const PointDone& d) {
        const std::string msg = record_to_json(d.record, d.interrupted, d.index);
        MPI_Send(msg.data(), int(msg.size()), MPI_CHAR, 0, kResult, MPI_COMM_WORLD);
    };
    auto check_stop = [&] {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(0, kStop, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            MPI_Recv(nullptr, 0, MPI_CHAR, 0, kStop, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            stop = true;
        }
    };
    while (true) {
        check_stop();
        if (stop || interrupted()) {
            stop = true;
            for (const PointDone& d : ex.stop_all(5.0)) send_result(d);
        }
        while (!stop && !no_more && ex.running() < size_t(o.jobs)) {
            send_empty(0, kRequest);
            // The answer is a kPoint; a kStop may come first.
            while (true) {
                int flag = 0;
                MPI_Status st;
                MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
                if (!flag) {
                    pause_briefly();
                    continue;
                }
                if (st.MPI_TAG == kStop) {
                    MPI_Recv(nullptr, 0, MPI_CHAR, 0, kStop, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    stop = true;
                    continue;
                }
                int64_t index = -1;
                MPI_Recv(&index, 1, MPI_INT64_T, 0, kPoint, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (index < 0 || size_t(index) >= points.size()) no_more = true;
                else if (!stop) ex.start(points[size_t(index)]);
                break;
            }
        }
        if ((stop || no_more) && ex.running() == 0) break;
        for (const PointDone& d : ex.poll(50)) send_result(d);
    }
    send_empty(0, kDone);
}

#endif

}  // namespace neuronsim::sweep
