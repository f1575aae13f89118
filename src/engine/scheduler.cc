#include "engine/scheduler.h"

#include <algorithm>
#include <tuple>

namespace strata {

bool Scheduler::WaitingOrder::operator()(const Sequence* a, const Sequence* b) const {
  return std::tie(a->priority, a->arrival, a->index, a->kv_id) <
         std::tie(b->priority, b->arrival, b->index, b->kv_id);
}

Scheduler::Scheduler(const SchedulerConfig& config, KvCacheManager* kv)
    : config_(config), kv_(kv) {}

void Scheduler::AddWaiting(Sequence* seq) {
  seq->status = SequenceStatus::kWaiting;
  seq->num_computed_tokens = 0;
  waiting_.insert(seq);
}

void Scheduler::Preempt(Sequence* seq) {
  kv_->Free(seq->kv_id);
  seq->num_computed_tokens = 0;
  seq->status = SequenceStatus::kPreempted;
  waiting_.insert(seq);
  ++num_preemptions_;
}

void Scheduler::Remove(Sequence* seq) {
  auto it = std::find(running_.begin(), running_.end(), seq);
  if (it != running_.end()) {
    running_.erase(it);
    kv_->Free(seq->kv_id);
    return;
  }
  waiting_.erase(seq);
}

SchedulerOutput Scheduler::Schedule() {
  SchedulerOutput out;
  int budget = config_.max_num_batched_tokens;

  // 1. Running sequences: decodes and unfinished prompt chunks, oldest admission first.
  size_t i = 0;
  while (i < running_.size() && budget > 0) {
    Sequence* seq = running_[i];
    const int num_new = std::min(seq->num_tokens() - seq->num_computed_tokens, budget);
    if (num_new <= 0) {  // nothing to compute (cannot happen while outputs are appended)
      ++i;
      continue;
    }
    kv_->RemoveSkippedBlocks(seq->kv_id, seq->num_computed_tokens);
    bool allocated = false;
    while (!(allocated = kv_->AllocateSlots(seq->kv_id, num_new))) {
      Sequence* victim = running_.back();  // the most recently admitted
      running_.pop_back();
      Preempt(victim);
      out.preempted.push_back(victim);
      if (victim == seq) break;
    }
    if (!allocated) break;
    out.scheduled.push_back({seq, num_new});
    out.num_tokens += num_new;
    budget -= num_new;
    ++i;
  }

  // 2. Waiting sequences by (priority, arrival), unless this step had to preempt.
  if (out.preempted.empty()) {
    while (!waiting_.empty() && budget > 0 &&
           static_cast<int>(running_.size()) < config_.max_num_seqs) {
      Sequence* seq = *waiting_.begin();
      PrefixMatch match = kv_->FindCachedPrefix(seq->tokens, *seq->cache_salt);
      const int computed = match.num_cached_tokens;
      int num_new = seq->num_tokens() - computed;
      const bool recompute = seq->num_output_tokens() > 0;
      if (!config_.enable_chunked_prefill && !recompute && num_new > budget) break;
      num_new = std::min(num_new, budget);
      if (!kv_->AllocateSlots(seq->kv_id, num_new, &match)) break;
      waiting_.erase(waiting_.begin());
      seq->num_computed_tokens = computed;
      if (seq->num_cached_tokens < 0) {
        seq->num_cached_tokens = std::min(computed, seq->num_prompt_tokens);
      }
      seq->status = SequenceStatus::kRunning;
      running_.push_back(seq);
      out.scheduled.push_back({seq, num_new});
      out.num_tokens += num_new;
      budget -= num_new;
    }
  }
  return out;
}

}  // namespace strata
