#include "model/common/worker_pool.h"

#include <system_error>

#include "model/common/error.h"

namespace neuronsim::model {

unsigned WorkerPool::hardware_threads() {
    const unsigned n = std::thread::hardware_concurrency();
    return n ? n : 1;
}

WorkerPool::WorkerPool(unsigned threads) {
    if (threads == 0) threads = hardware_threads();
    if (threads > kMaxThreads)
        throw Error(std::to_string(threads) + " host threads: at most " + std::to_string(kMaxThreads) + " (0 means the " + std::to_string(hardware_threads()) +
                    " hardware threads)");
    try {
        for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { loop(); });
    } catch (const std::system_error& e) {
        // The host refused a thread: the ones started stop again, and the caller hears why.
        const size_t started = workers_.size();
        {
            std::lock_guard<std::mutex> l(m_);
            stop_ = true;
        }
        start_.notify_all();
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
    for (auto& t : workers_) t.join();
}

// Takes indices one at a time: partitions can differ in cost (fallbacks, errors), so a static
// split would leave a thread idle.
void WorkerPool::work() {
    for (;;) {
        size_t i;
        {
            std::lock_guard<std::mutex> l(m_);
            if (next_ >= n_) return;
            i = next_++;
        }
        (*job_)(i);
        std::lock_guard<std::mutex> l(m_);
        if (++finished_ == n_) done_.notify_all();
    }
}

void WorkerPool::loop() {
    unsigned long seen = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> l(m_);
            start_.wait(l, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            ++busy_;
        }
        work();
        std::lock_guard<std::mutex> l(m_);
        if (--busy_ == 0) done_.notify_all();
    }
}

void WorkerPool::run(size_t n, const std::function<void(size_t)>& fn) {
    if (n == 0) return;
    if (workers_.empty() || n == 1) {
        for (size_t i = 0; i < n; ++i) fn(i);
        return;
    }
    {
        std::lock_guard<std::mutex> l(m_);
        job_ = &fn;
        n_ = n;
        next_ = 0;
        finished_ = 0;
        ++generation_;
    }
    start_.notify_all();
    work();
    std::unique_lock<std::mutex> l(m_);
    // Every index done, and no worker still inside work() holding a reference to this job.
    done_.wait(l, [&] { return finished_ == n_ && busy_ == 0; });
    job_ = nullptr;
}

}  // namespace neuronsim::model
