#include "engine/output_channel.h"

#include <utility>

namespace strata {

OutputChannelImpl::OutputChannelImpl(int num_completions) : unfinished_(num_completions) {}

void OutputChannelImpl::Push(RequestOutput output) {
  absl::MutexLock lock(&mu_);
  if (unfinished_ <= 0) return;
  if (output.finish != FinishReason::kNone) --unfinished_;
  queue_.push_back(std::move(output));
  cv_.SignalAll();
}

std::optional<RequestOutput> OutputChannelImpl::Next(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::MutexLock lock(&mu_);
  while (queue_.empty() && unfinished_ > 0) {
    if (cv_.WaitWithDeadline(&mu_, deadline)) break;  // true: timed out
  }
  if (queue_.empty()) return std::nullopt;
  RequestOutput out = std::move(queue_.front());
  queue_.pop_front();
  return out;
}

bool OutputChannelImpl::Done() const {
  absl::MutexLock lock(&mu_);
  return unfinished_ == 0 && queue_.empty();
}

}  // namespace strata
