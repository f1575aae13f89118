#include "strata/thread_pool.h"

#include <atomic>
#include <vector>

#include "gtest/gtest.h"

namespace strata {
namespace {

TEST(ThreadPoolTest, ParallelForCoversEveryIndexOnce) {
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    for (int64_t n : {1, 7, 64, 1000, 4097}) {
      for (int64_t grain : {1, 8, 64}) {
        std::vector<std::atomic<int>> hits(n);
        pool.ParallelFor(n, grain, [&](int, int64_t begin, int64_t end) {
          EXPECT_LT(begin, end);
          for (int64_t i = begin; i < end; ++i) hits[i].fetch_add(1);
        });
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << n << " " << grain << " " << i;
      }
    }
  }
}

TEST(ThreadPoolTest, RangesAreAlignedToTheGrain) {
  ThreadPool pool(2);
  pool.ParallelFor(1000, 64, [&](int, int64_t begin, int64_t) { EXPECT_EQ(begin % 64, 0); });
}

TEST(ThreadPoolTest, RunOnAllCallsEveryThreadIndexOnce) {
  ThreadPool pool(3);
  for (int rep = 0; rep < 1000; ++rep) {
    std::vector<std::atomic<int>> seen(3);
    pool.RunOnAll([&](int t) { seen[t].fetch_add(1); });
    for (int t = 0; t < 3; ++t) ASSERT_EQ(seen[t].load(), 1);
  }
}

TEST(ThreadPoolTest, SurvivesIdleWorkersParking) {
  ThreadPool pool(2);
  std::atomic<int> sum{0};
  for (int rep = 0; rep < 3; ++rep) {
    pool.ParallelFor(2, 1, [&](int, int64_t b, int64_t e) { sum.fetch_add(static_cast<int>(e - b)); });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // workers park on the condvar
  }
  EXPECT_EQ(sum.load(), 6);
}

}  // namespace
}  // namespace strata
