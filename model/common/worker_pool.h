#pragma once
// A fixed set of host threads that run the independent parts of one job (the partitions of an
// Activate) and return when all are done. The calling thread works too, so a pool of one
// thread runs everything inline. Plain C++: no SystemC, and the jobs must not call SystemC.
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace neuronsim::model {

class WorkerPool {
public:
    // `threads`: threads working on a job, the caller included; 0 means the host's hardware
    // threads. More than kMaxThreads, or a thread the host refuses, is an Error.
    explicit WorkerPool(unsigned threads);
    static constexpr unsigned kMaxThreads = 1024;
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }

    // Calls fn(i) once for every i < n, spread over the threads; returns when every call has
    // returned. fn must not throw (catch inside and report after run returns).
    void run(size_t n, const std::function<void(size_t)>& fn);

    static unsigned hardware_threads();

private:
    void work();  // one thread's share of the current job
    void loop();  // a worker thread

    std::vector<std::thread> workers_;
    std::mutex m_;
    std::condition_variable start_, done_;
    const std::function<void(size_t)>* job_ = nullptr;
    size_t n_ = 0, next_ = 0, finished_ = 0;
    unsigned long generation_ = 0;
    unsigned busy_ = 0;
    bool stop_ = false;
};

}  // namespace neuronsim::model
