// The host threads of one job (model/common/worker_pool.h) and the progress line
// (model/common/progress_line.h): every index runs exactly once on any thread count, the
// caller included; the line's bar, counts, elapsed time and ETA.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "model/common/progress_line.h"
#include "model/common/worker_pool.h"
#include "tests/support/error_of.h"

namespace neuronsim {
namespace {

TEST(ModelWorkerPool, EveryIndexRunsOnceOnAnyThreadCount) {
    for (unsigned threads : {1u, 2u, 5u}) {
        model::WorkerPool pool(threads);
        EXPECT_EQ(pool.threads(), threads);
        for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{1000}}) {
            std::vector<std::atomic<int>> calls(n);
            pool.run(n, [&](size_t i) { calls[i].fetch_add(1); });
            for (size_t i = 0; i < n; ++i) ASSERT_EQ(calls[i].load(), 1) << threads << " threads, n " << n << ", index " << i;
        }
    }
    EXPECT_GE(model::WorkerPool(0).threads(), 1u) << "0: the host's hardware threads";
}

TEST(ModelWorkerPool, OneThreadRunsInlineAndManyShareTheWork) {
    model::WorkerPool one(1);
    const std::thread::id self = std::this_thread::get_id();
    std::set<std::thread::id> seen;
    one.run(10, [&](size_t) { seen.insert(std::this_thread::get_id()); });
    EXPECT_EQ(seen, std::set<std::thread::id>{self});
    // With 3 threads and jobs that wait for each other, the job finishes only if 3 run at once.
    model::WorkerPool three(3);
    std::atomic<int> arrived{0};
    three.run(3, [&](size_t) {
        arrived.fetch_add(1);
        while (arrived.load() < 3) std::this_thread::yield();
    });
    EXPECT_EQ(arrived.load(), 3);
}

// Thread t takes its own share [t n / T, (t+1) n / T) first, in order, job after job: the
// worker begins at n / 2 (its index 0 holds the caller until then), and only then does either
// take what the other left.
TEST(ModelWorkerPool, EachThreadBeginsWithItsOwnShareInOrder) {
    model::WorkerPool pool(2);
    const std::thread::id caller = std::this_thread::get_id();
    for (int job = 0; job < 3; ++job) {
        std::atomic<long> worker_first{-1};
        std::vector<size_t> caller_order;  // (only the caller appends)
        std::vector<std::atomic<int>> calls(10);
        pool.run(10, [&](size_t i) {
            if (std::this_thread::get_id() == caller) {
                caller_order.push_back(i);
                // Index 0 waits for the worker to have begun (10 s at most): the caller cannot take
                // the worker's share before the worker has.
                for (int k = 0; i == 0 && worker_first.load() < 0 && k < 10000; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            } else {
                long none = -1;
                worker_first.compare_exchange_strong(none, static_cast<long>(i));
            }
            calls[i].fetch_add(1);
        });
        EXPECT_EQ(worker_first.load(), 5) << "job " << job;
        // The caller's own indices in order (the worker may take some of them, even all, once
        // its own share is done).
        for (size_t k = 1; k < caller_order.size() && caller_order[k] < 5; ++k) EXPECT_GT(caller_order[k], caller_order[k - 1]) << "job " << job;
        for (size_t i = 0; i < 10; ++i) EXPECT_EQ(calls[i].load(), 1) << "job " << job << ", index " << i;
    }
}

// Jobs one right after another, each fn a fresh heap object destroyed as soon as run() returns
// (a worker still watching for a job, or waking late, must never call a finished one: under
// AddressSanitizer a dangling job would be a use after free), and pools destroyed while their
// workers still watch: every index once per job, no call after its run() returned, no hang.
TEST(ModelWorkerPool, BackToBackJobsNeverReachAFinishedOne) {
    struct Job {
        std::atomic<bool> returned{false};
        std::vector<std::atomic<int>> calls;
        explicit Job(size_t n) : calls(n) {}
    };
    const size_t sizes[] = {2, 3, 7, 64, 1000};
    for (unsigned threads : {2u, 3u, 5u}) {
        model::WorkerPool pool(threads);
        std::vector<std::unique_ptr<Job>> jobs;  // kept: a late call is counted, not undefined
        std::atomic<int> late{0};
        for (int k = 0; k < 2000; ++k) {
            jobs.push_back(std::make_unique<Job>(sizes[k % 5]));
            Job* j = jobs.back().get();
            auto fn = std::make_unique<std::function<void(size_t)>>([j, &late](size_t i) {
                if (j->returned.load()) late.fetch_add(1);
                j->calls[i].fetch_add(1);
            });
            pool.run(j->calls.size(), *fn);
            j->returned.store(true);
            fn.reset();
        }
        EXPECT_EQ(late.load(), 0) << threads << " threads";
        for (size_t k = 0; k < jobs.size(); ++k)
            for (size_t i = 0; i < jobs[k]->calls.size(); ++i) ASSERT_EQ(jobs[k]->calls[i].load(), 1) << threads << " threads, job " << k << ", index " << i;
    }
    for (int k = 0; k < 200; ++k) {
        std::atomic<int> calls{0};
        model::WorkerPool pool(3);
        pool.run(64, [&](size_t) { calls.fetch_add(1); });
        EXPECT_EQ(calls.load(), 64);
    }  // (each pool is destroyed while its workers watch for a next job)
}

// Background tasks (the DMA's copies): on a pool of one thread each runs at once on the caller;
// on more, one at a time on the first worker, in the order posted, between the jobs the
// workers share (which stay correct meanwhile); wait_task(k) returns only after task k; a pool
// destroyed with tasks waiting runs them first.
TEST(ModelWorkerPool, BackgroundTasksRunInOrderBesideTheJobs) {
    {
        model::WorkerPool one(1);
        int ran = 0;
        EXPECT_EQ(one.post([&] { ++ran; }), 1u);
        EXPECT_EQ(ran, 1);  // (already)
        EXPECT_EQ(one.tasks_done(), 1u);
    }
    for (unsigned threads : {2u, 3u}) {
        model::WorkerPool pool(threads);
        std::vector<int> order;  // written by the tasks only: one at a time
        std::set<std::thread::id> ran_on;
        std::mutex m;
        const std::thread::id caller = std::this_thread::get_id();
        uint64_t last = 0;
        for (int k = 0; k < 500; ++k) {
            last = pool.post([&, k] {
                order.push_back(k);
                std::lock_guard<std::mutex> l(m);
                ran_on.insert(std::this_thread::get_id());
            });
            EXPECT_EQ(last, static_cast<uint64_t>(k + 1));
            if (k % 7 == 0) {  // a job meanwhile: every index once
                std::vector<std::atomic<int>> calls(64);
                pool.run(calls.size(), [&](size_t i) { calls[i].fetch_add(1); });
                for (auto& c : calls) ASSERT_EQ(c.load(), 1);
            }
            if (k % 50 == 49) {
                pool.wait_task(last);
                ASSERT_GE(pool.tasks_done(), last);
                ASSERT_EQ(order.size(), static_cast<size_t>(k + 1));
            }
        }
        pool.wait_task(last);
        ASSERT_EQ(order.size(), 500u);
        for (int k = 0; k < 500; ++k) ASSERT_EQ(order[k], k) << threads << " threads";
        EXPECT_EQ(ran_on.size(), 1u);  // one worker ...
        EXPECT_EQ(ran_on.count(caller), 0u);  // ... not the caller
    }
    std::atomic<int> ran{0};
    {
        model::WorkerPool pool(2);
        pool.run(8, [](size_t) {});
        for (int k = 0; k < 100; ++k)
            pool.post([&] {
                std::this_thread::sleep_for(std::chrono::microseconds(20));
                ran.fetch_add(1);
            });
    }
    EXPECT_EQ(ran.load(), 100);
}

// The first worker takes a task waiting when a job starts before it joins the job (a copy queued
// then is most often the next instruction's operands): here the worker, freed from task A
// while the caller holds index 0 of a two-index job, makes task B before index 1, its share.
TEST(ModelWorkerPool, AWaitingTaskGoesBeforeJoiningAJob) {
    model::WorkerPool pool(2);
    std::atomic<bool> release{false}, second_done{false};
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);  // (a bound, not a figure)
    pool.post([&] {
        while (!release && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    const uint64_t b = pool.post([] {});
    std::thread releaser([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        release = true;
    });
    bool b_before_index_1 = false;
    std::thread::id index_1_on;
    pool.run(2, [&](size_t i) {
        if (i == 0) {  // the caller's share: held until the worker has made index 1
            while (!second_done && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            return;
        }
        b_before_index_1 = pool.tasks_done() >= b;
        index_1_on = std::this_thread::get_id();
        second_done = true;
    });
    releaser.join();
    EXPECT_NE(index_1_on, std::this_thread::get_id()) << "the worker never took index 1";
    EXPECT_TRUE(b_before_index_1);
}

// A thread count past the cap is refused naming it (100000 threads took the host's process
// table down before: every fork on the machine failed).
TEST(ModelWorkerPool, TooManyThreadsIsAnErrorNotAnExhaustedHost) {
    EXPECT_NE(test::error_of([] { model::WorkerPool p(100000); }).find("100000 host threads: at most 1024"), std::string::npos);
    model::WorkerPool ok(model::WorkerPool::kMaxThreads > 4 ? 4 : 1);
    EXPECT_GE(ok.threads(), 1u);
}

TEST(ProgressLine, BarCountsElapsedAndEta) {
    EXPECT_EQ(ProgressLine::line(5, 10, "points", "1 failed", 3.0), "[###############...............] 5/10 points, 1 failed, 0:03 elapsed, ETA 0:03");
    EXPECT_EQ(ProgressLine::line(0, 10, "points", "", 0.0), "[..............................] 0/10 points, 0:00 elapsed");
    EXPECT_EQ(ProgressLine::line(10, 10, "inputs", "", 4000.0), "[##############################] 10/10 inputs, 1:06:40 elapsed");
    EXPECT_EQ(format_duration(7.4), "0:07");
    EXPECT_EQ(format_duration(723), "12:03");
    EXPECT_EQ(format_duration(3723), "1:02:03");
    EXPECT_EQ(format_duration(-1), "0:00");
    ProgressLine off(10, "points", false);
    EXPECT_FALSE(off.enabled());
    off.update(3);  // (disabled: draws nothing, and must not fail)
    off.finish();
}

}  // namespace
}  // namespace neuronsim
