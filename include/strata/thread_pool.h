// ThreadPool: a persistent pool of worker threads for data-parallel CPU kernels.
//
// ParallelFor splits [0, n) into one contiguous range per thread and blocks until all ranges
// are done; the calling thread takes part. Workers spin briefly before sleeping because a
// futex wake per op costs more than a small op on few cores. One caller at a time: the pool is
// owned by one engine thread (thread-compatible, not thread-safe).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace strata {

class ThreadPool {
 public:
  // num_threads <= 0 means one per hardware thread.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }

  // Calls fn(thread_index, begin, end) on every thread; the ranges partition [0, n) into
  // contiguous chunks aligned to `grain` (except the last). Returns when all calls returned.
  void ParallelFor(int64_t n, int64_t grain,
                   const std::function<void(int thread_index, int64_t begin, int64_t end)>& fn);

  // Calls fn(thread_index) once on every thread.
  void RunOnAll(const std::function<void(int thread_index)>& fn);

 private:
  void WorkerLoop(int index);

  int num_threads_;
  std::vector<std::thread> workers_;
  const std::function<void(int)>* task_ = nullptr;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace strata
