// OutputChannelImpl: the queue behind one request's OutputChannel. The engine thread pushes
// RequestOutputs; one consumer thread takes them with Next(). A message whose finish reason is
// set closes that completion; once all `num_completions` are closed and drained, Next() returns
// nullopt at once. Thread-safe (absl::Mutex + CondVar).
#pragma once

#include <deque>
#include <optional>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "strata/engine.h"

namespace strata {

class OutputChannelImpl : public OutputChannel {
 public:
  explicit OutputChannelImpl(int num_completions);

  // Queues `output`; wakes the consumer. Pushing after every completion finished is ignored.
  void Push(RequestOutput output);

  std::optional<RequestOutput> Next(absl::Duration timeout) override;
  bool Done() const override;

 private:
  mutable absl::Mutex mu_;
  absl::CondVar cv_;
  std::deque<RequestOutput> queue_ ABSL_GUARDED_BY(mu_);
  int unfinished_ ABSL_GUARDED_BY(mu_);  // completions not yet closed by a finish reason
};

}  // namespace strata
