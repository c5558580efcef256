#include "model/common/worker_pool.h"

#include <chrono>
#include <system_error>

#include "model/common/error.h"

namespace neuronsim::model {

namespace {
// Watches for ready() for up to kSpinMicroseconds (the caller then sleeps on its condition
// variable, which checks again under the lock): whether it was seen.
template <typename Ready>
bool spin_until(Ready ready) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(WorkerPool::kSpinMicroseconds);
    for (unsigned i = 1;; ++i) {
        if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();  // (a hyperthread sibling keeps the core's resources meanwhile)
#endif
        if (i % 64 == 0 && std::chrono::steady_clock::now() >= until) return false;
    }
}
}  // namespace

unsigned WorkerPool::hardware_threads() {
    const unsigned n = std::thread::hardware_concurrency();
    return n ? n : 1;
}

WorkerPool::WorkerPool(unsigned threads) {
    if (threads == 0) threads = hardware_threads();
    if (threads > kMaxThreads)
        throw Error(std::to_string(threads) + " host threads: at most " + std::to_string(kMaxThreads) + " (0 means the " + std::to_string(hardware_threads()) +
                    " hardware threads)");
    shares_ = std::make_unique<Share[]>(threads);
    try {
        for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this, i] { loop(i); });
    } catch (const std::system_error& e) {
        // The host refused a thread: the ones started stop again, and the caller hears why.
        const size_t started = workers_.size();
        {
            std::lock_guard<std::mutex> l(m_);
            stop_ = true;
        }
        start_.notify_all();
        tasker_start_.notify_one();
        for (auto& t : workers_) t.join();
        workers_.clear();
        throw Error("cannot start host thread " + std::to_string(started + 2) + " of " + std::to_string(threads) + ": " + e.what());
    }
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard<std::mutex> l(m_);
        stop_ = true;
    }
    start_.notify_all();
    tasker_start_.notify_one();
    for (auto& t : workers_) t.join();
}

// Its own share first, in order, then the rest of each other thread's (from the front, as its
// owner takes them: each index is taken once). What it finished is counted once, at the end.
void WorkerPool::work(unsigned self, const std::function<void(size_t)>& fn) {
    const unsigned t = threads();
    size_t done = 0;
    for (unsigned k = 0; k < t; ++k) {
        Share& s = shares_[(self + k) % t];
        for (;;) {
            const size_t i = s.next.fetch_add(1, std::memory_order_relaxed);
            if (i >= s.end) break;
            fn(i);
            ++done;
        }
    }
    if (done && finished_.fetch_add(done, std::memory_order_acq_rel) + done == n_) {
        std::lock_guard<std::mutex> l(m_);
        done_.notify_all();
    }
}

void WorkerPool::loop(unsigned self) {
    unsigned long seen = 0;
    uint64_t taken = 0;  // background tasks taken (the first worker's)
    const bool tasker = self == 1;
    auto task_waiting = [&] { return tasker && tasks_posted_.load(std::memory_order_relaxed) != taken; };
    for (;;) {
        const std::function<void(size_t)>* job = nullptr;
        spin_until([&] { return stop_.load(std::memory_order_relaxed) || generation_.load(std::memory_order_relaxed) != seen || task_waiting(); });
        std::function<void()> task;
        {
            std::unique_lock<std::mutex> l(m_);
            // (the first worker sleeps apart: a posted task wakes it alone)
            (tasker ? tasker_start_ : start_).wait(l, [&] { return stop_ || generation_ != seen || task_waiting(); });
            // A task first (run even when stopping: its copy is owed), or the end; else the job.
            if (task_waiting() || generation_ == seen || stop_) {
                if (!task_waiting()) return;
                task = std::move(tasks_.front());
                tasks_.pop_front();
                ++taken;
            } else {
                seen = generation_;
                job = job_;
                if (!job) continue;  // (woken after its job was done and gone)
                ++busy_;
            }
        }
        if (task) {
            task();
            std::lock_guard<std::mutex> l(m_);
            tasks_done_.fetch_add(1, std::memory_order_acq_rel);
            task_done_.notify_all();
            continue;
        }
        work(self, *job);
        std::lock_guard<std::mutex> l(m_);
        if (--busy_ == 0) done_.notify_all();
    }
}

uint64_t WorkerPool::post(std::function<void()> task) {
    if (workers_.empty()) {
        task();
        return tasks_done_.fetch_add(1, std::memory_order_acq_rel) + 1;
    }
    uint64_t k;
    {
        std::lock_guard<std::mutex> l(m_);
        tasks_.push_back(std::move(task));
        k = tasks_posted_.fetch_add(1, std::memory_order_relaxed) + 1;
    }
    tasker_start_.notify_one();
    return k;
}

void WorkerPool::wait_task(uint64_t k) {
    auto landed = [&] { return tasks_done_.load(std::memory_order_acquire) >= k; };
    if (landed() || spin_until(landed)) return;
    std::unique_lock<std::mutex> l(m_);
    task_done_.wait(l, landed);
}

void WorkerPool::run(size_t n, const std::function<void(size_t)>& fn) {
    if (n == 0) return;
    if (workers_.empty() || n == 1) {
        for (size_t i = 0; i < n; ++i) fn(i);
        return;
    }
    const unsigned t = threads();
    {
        std::unique_lock<std::mutex> l(m_);
        done_.wait(l, [&] { return busy_ == 0; });  // (no worker is left from the last job)
        job_ = &fn;
        n_ = n;
        finished_.store(0, std::memory_order_relaxed);
        for (unsigned k = 0; k < t; ++k) {
            shares_[k].next.store(n * k / t, std::memory_order_relaxed);
            shares_[k].end = n * (k + 1) / t;
        }
        ++generation_;
    }
    start_.notify_all();
    tasker_start_.notify_one();
    try {
        work(0, fn);
    } catch (...) {
        // (fn broke its promise) No index is taken any more, and no worker is left inside fn
        // once run() has gone.
        for (unsigned k = 0; k < t; ++k) shares_[k].next.store(shares_[k].end, std::memory_order_relaxed);
        std::unique_lock<std::mutex> l(m_);
        done_.wait(l, [&] { return busy_ == 0; });
        job_ = nullptr;
        throw;
    }
    // Every index done, and no worker still inside work() holding a reference to this job.
    auto over = [&] { return finished_.load(std::memory_order_acquire) == n_ && busy_.load(std::memory_order_acquire) == 0; };
    spin_until(over);
    std::unique_lock<std::mutex> l(m_);
    done_.wait(l, over);
    job_ = nullptr;
}

}  // namespace neuronsim::model
