#pragma once
// A fixed set of host threads that run the independent parts of one job (the partitions of an
// Activate) and return when all are done. The calling thread works too, so a pool of one
// thread runs everything inline. Plain C++: no SystemC, and the jobs must not call SystemC.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
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
    // Thread t (the caller is 0) first takes the indices of its own share, [t n / T, (t+1) n / T),
    // in order, from a counter of its own; then it helps with what the others have left. Besides
    // starting and ending the job (the lock, the counts), the threads share no cache line until
    // one has finished its own share: on the virtual machine of bench/README.md §14, where such
    // a line takes some 100 ns to move between the cores, taking every index from one counter
    // under a mutex made two threads slower than one on 128 partitions of a few microseconds.
    void run(size_t n, const std::function<void(size_t)>& fn);

    // Background tasks (the DMA's copies, DeviceOptions::dma_copies): run one at a time, in the
    // order posted, by the first worker, which takes a waiting task before it joins a job (the
    // caller works on the job meanwhile; a copy queued now is most often the next instruction's
    // operands, which the caller would otherwise make or wait for: bench/README.md §21), or at
    // once on the caller when the pool has no worker. Returns the task's number: 1, 2, ...
    // A task must not throw, nor call SystemC. The destructor runs the tasks still waiting.
    uint64_t post(std::function<void()> task);
    // The tasks run so far: task k has returned once tasks_done() >= k.
    uint64_t tasks_done() const { return tasks_done_.load(std::memory_order_acquire); }
    // Returns once task k (and so every task before it) has returned.
    void wait_task(uint64_t k);

    static unsigned hardware_threads();
    // How long a worker that has finished a job watches for the next one before it sleeps, and
    // the caller for the workers' end of a job: a kernel's instructions come microseconds apart,
    // and on the virtual machine of bench/README.md section 17 waking a sleeping thread costs
    // about as much (layernorm 65536x2048 on two threads: 0.84-0.90 s with the watch, 0.96-1.01
    // s without). A watching thread pauses between its checks (x86).
    static constexpr unsigned kSpinMicroseconds = 50;

private:
    void work(unsigned self, const std::function<void(size_t)>& fn);  // one thread's part of the job
    void loop(unsigned self);  // a worker thread

    struct alignas(64) Share {
        std::atomic<size_t> next{0};  // the next index to take (past `end`: none left)
        size_t end = 0;
    };
    std::vector<std::thread> workers_;
    std::unique_ptr<Share[]> shares_;  // one a thread, the caller's first
    std::mutex m_;
    std::condition_variable start_, done_;
    std::condition_variable tasker_start_;  // the first worker's: a job or a background task
    const std::function<void(size_t)>* job_ = nullptr;
    size_t n_ = 0;
    std::atomic<size_t> finished_{0};
    // Written under m_; atomic so that a thread may watch them before it sleeps (kSpinMicroseconds).
    std::atomic<unsigned long> generation_{0};
    std::atomic<unsigned> busy_{0};  // workers inside work()
    std::atomic<bool> stop_{false};
    std::deque<std::function<void()>> tasks_;  // posted, not yet taken (under m_)
    std::atomic<uint64_t> tasks_posted_{0}, tasks_done_{0};
    std::condition_variable task_done_;
};

}  // namespace neuronsim::model
