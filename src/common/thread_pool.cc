#include "strata/thread_pool.h"

#include <immintrin.h>

#include <algorithm>

namespace strata {
namespace {
// A waiter spins briefly (a futex wake costs more than a small op), then yields its core, which
// matters when the machine is oversubscribed and the thread it waits for needs that core, and
// finally a worker parks on the condition variable.
constexpr int kSpinIterations = 1 << 11;
constexpr int kYieldIterations = 1 << 12;

// Spins, then yields, until `done()`; returns false if it gave up (only when `give_up`).
template <typename Done>
bool WaitFor(Done done, bool give_up) {
  for (int i = 0; i < kSpinIterations; ++i) {
    if (done()) return true;
    _mm_pause();
  }
  for (int i = 0; give_up ? i < kYieldIterations : true; ++i) {
    if (done()) return true;
    std::this_thread::yield();
  }
  return done();
}
}  // namespace

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads <= 0) num_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  num_threads_ = num_threads;
  for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true);
    generation_.fetch_add(1);
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::WorkerLoop(int index) {
  uint64_t seen = 0;
  while (true) {
    if (!WaitFor([&] { return generation_.load(std::memory_order_acquire) != seen; },
                 /*give_up=*/true)) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return generation_.load() != seen; });
    }
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load()) return;
    (*task_)(index);
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void ThreadPool::RunOnAll(const std::function<void(int)>& fn) {
  if (num_threads_ == 1) {
    fn(0);
    return;
  }
  task_ = &fn;
  pending_.store(num_threads_ - 1, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(mu_);
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
  cv_.notify_all();
  fn(0);
  WaitFor([&] { return pending_.load(std::memory_order_acquire) == 0; }, /*give_up=*/false);
  task_ = nullptr;
}

void ThreadPool::ParallelFor(int64_t n, int64_t grain,
                             const std::function<void(int, int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int64_t chunks = (n + grain - 1) / grain;
  const int threads = static_cast<int>(std::min<int64_t>(num_threads_, chunks));
  if (threads <= 1) {
    fn(0, 0, n);
    return;
  }
  RunOnAll([&](int t) {
    if (t >= threads) return;
    const int64_t begin = std::min(n, (chunks * t / threads) * grain);
    const int64_t end = std::min(n, (chunks * (t + 1) / threads) * grain);
    if (begin < end) fn(t, begin, end);
  });
}

}  // namespace strata
