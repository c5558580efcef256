// Warm workers (sweep/worker_pool.h): jobs one after another in a worker, each with its own
// stderr and exit status; a worker replaced after its quota; a job whose worker dies after
// earlier jobs runs again alone, and that attempt is its result; a signalled job is not rerun.
#include "sweep/worker_pool.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace neuronsim::sweep {
namespace {

// The jobs: "ok N" exits N; "say TEXT" writes TEXT to stderr and exits 0; "crash" dies of
// SIGKILL (not SIGSEGV, which a sanitizer turns into an abort); "crash-unless-first" dies unless it is its worker's first job (what an earlier job's
// leftovers could do); "sleep" sleeps 60 s; "pid" writes the worker's pid to stderr.
int jobs_run_in_this_worker = 0;
int run_job(const std::vector<std::string>& a) {
    ++jobs_run_in_this_worker;
    if (a[0] == "ok") return std::stoi(a.at(1));
    if (a[0] == "say") return std::fputs(a.at(1).c_str(), stderr) < 0 ? 1 : 0;
    if (a[0] == "crash") std::raise(SIGKILL);
    if (a[0] == "crash-unless-first" && jobs_run_in_this_worker > 1) std::raise(SIGKILL);
    if (a[0] == "sleep") ::sleep(60);
    if (a[0] == "pid") std::fprintf(stderr, "%d", int(::getpid()));
    return 0;
}

std::map<int, ChildExit> run_all(WorkerPool& pool, const std::vector<std::vector<std::string>>& jobs, std::vector<int>* ids = nullptr) {
    std::map<int, ChildExit> ended;
    for (const auto& j : jobs) {
        const int id = pool.submit(j);
        if (ids) ids->push_back(id);
        for (ChildExit& e : pool.wait(0)) ended[e.pid] = e;
    }
    while (pool.running())
        for (ChildExit& e : pool.wait(10000)) ended[e.pid] = e;
    return ended;
}

TEST(WorkerPool, JobsRunOneAfterAnotherWithTheirOwnStatusAndStderr) {
    WorkerPool pool(run_job, 4);
    std::vector<int> ids;
    std::vector<std::vector<std::string>> jobs;
    for (int i = 0; i < 10; ++i)
        jobs.push_back(i % 2 ? std::vector<std::string>{"say", "job " + std::to_string(i)} : std::vector<std::string>{"ok", std::to_string(i)});
    std::map<int, ChildExit> ended;
    for (const auto& j : jobs) {  // one at a time: every job goes to the same worker until its quota
        ids.push_back(pool.submit(j));
        while (pool.running())
            for (ChildExit& e : pool.wait(10000)) ended[e.pid] = e;
    }
    ASSERT_EQ(ended.size(), 10u);
    for (int i = 0; i < 10; ++i) {
        const ChildExit& e = ended.at(ids[size_t(i)]);
        EXPECT_EQ(e.signal, 0);
        EXPECT_EQ(e.exit_code, i % 2 ? 0 : i) << i;
        EXPECT_EQ(e.stderr_text, i % 2 ? "job " + std::to_string(i) : "") << i;
        EXPECT_GE(e.wall_seconds, 0.0);
    }
    EXPECT_EQ(pool.workers_started(), 3u) << "4 jobs per worker: 10 jobs take 3 workers";
}

TEST(WorkerPool, WorkersAreReusedAndReplacedAfterTheirQuota) {
    WorkerPool pool(run_job, 3);
    std::vector<int> ids;
    std::map<int, ChildExit> ended;
    for (int i = 0; i < 7; ++i) {
        ids.push_back(pool.submit({"pid"}));
        while (pool.running())
            for (ChildExit& e : pool.wait(10000)) ended[e.pid] = e;
    }
    std::vector<std::string> pids;
    for (int id : ids) pids.push_back(ended.at(id).stderr_text);
    EXPECT_EQ(pids[0], pids[1]);
    EXPECT_EQ(pids[1], pids[2]);
    EXPECT_NE(pids[2], pids[3]);
    EXPECT_EQ(pids[3], pids[5]);
    EXPECT_NE(pids[5], pids[6]);
    EXPECT_EQ(std::set<std::string>(pids.begin(), pids.end()).size(), 3u);
}

TEST(WorkerPool, AJobWhoseWorkerDiesAfterEarlierJobsRunsAgainAlone) {
    WorkerPool pool(run_job, 10);
    std::vector<int> ids;
    // In one worker, "crash-unless-first" dies after "ok 0": it runs again in a new worker, where it
    // is the first job, and succeeds. "crash" dies wherever it runs: its second attempt's signal is
    // its result.
    std::map<int, ChildExit> ended;
    for (const std::vector<std::string>& j : {std::vector<std::string>{"ok", "0"}, {"crash-unless-first"}, {"ok", "5"}, {"crash"}}) {
        ids.push_back(pool.submit(j));
        while (pool.running())
            for (ChildExit& e : pool.wait(10000)) ended[e.pid] = e;
    }
    ASSERT_EQ(ended.size(), 4u);
    EXPECT_EQ(ended.at(ids[0]).exit_code, 0);
    EXPECT_EQ(ended.at(ids[1]).signal, 0) << "blamed for what an earlier job left";
    EXPECT_EQ(ended.at(ids[1]).exit_code, 0);
    EXPECT_EQ(ended.at(ids[2]).exit_code, 5);
    EXPECT_EQ(ended.at(ids[3]).signal, SIGKILL);
    EXPECT_EQ(pool.workers_started(), 3u) << "the first worker, the retry's, and the crash's retry";
}

TEST(WorkerPool, ASignalledJobEndsWithItsSignalAndIsNotRunAgain) {
    WorkerPool pool(run_job, 10);
    std::map<int, ChildExit> ended = run_all(pool, {{"ok", "0"}});
    const int sleeper = pool.submit({"sleep"});
    EXPECT_TRUE(pool.wait(50).empty());
    pool.signal(sleeper, SIGKILL);
    while (pool.running())
        for (ChildExit& e : pool.wait(10000)) ended[e.pid] = e;
    ASSERT_TRUE(ended.count(sleeper));
    EXPECT_EQ(ended.at(sleeper).signal, SIGKILL);
    EXPECT_LT(ended.at(sleeper).wall_seconds, 30.0);
    EXPECT_EQ(pool.workers_started(), 1u);
    // The pool goes on with a new worker.
    const std::map<int, ChildExit> after = run_all(pool, {{"ok", "3"}});
    EXPECT_EQ(after.begin()->second.exit_code, 3);
}

TEST(WorkerPool, JobsInParallelEachEndOnce) {
    WorkerPool pool(run_job, 5);
    std::vector<int> ids;
    std::map<int, ChildExit> ended;
    for (int i = 0; i < 20; ++i) {
        while (pool.running() >= 3)
            for (ChildExit& e : pool.wait(10000)) ASSERT_TRUE(ended.emplace(e.pid, e).second) << "ended twice";
        ids.push_back(pool.submit({"ok", std::to_string(i)}));
    }
    while (pool.running())
        for (ChildExit& e : pool.wait(10000)) ASSERT_TRUE(ended.emplace(e.pid, e).second) << "ended twice";
    ASSERT_EQ(ended.size(), 20u);
    for (int i = 0; i < 20; ++i) EXPECT_EQ(ended.at(ids[size_t(i)]).exit_code, i);
}

}  // namespace
}  // namespace neuronsim::sweep
