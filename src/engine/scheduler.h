// Scheduler: picks each step's batch — which sequences run and how many of their tokens — under
// a token budget (max_num_batched_tokens) and a sequence cap (max_num_seqs), as vLLM v1's
// scheduler does. Pure policy over Sequence state and the KvCacheManager; it never runs the
// model, so tests drive it with hand-made sequences.
//
// Each step: (1) running sequences in admission order — a decode token, or the next chunk of an
// unfinished prompt — and when KvCacheManager::AllocateSlots fails, the most recently admitted
// running sequence is preempted (blocks freed, num_computed_tokens reset to 0, back to waiting;
// it recomputes prompt + output later) until the allocation fits or the sequence preempted
// itself; (2) only if nothing was preempted this step, waiting sequences by (priority, arrival)
// with a prefix-cache lookup, while budget, sequence cap and blocks allow. With chunked prefill
// a prompt takes what budget is left; without it a new prompt must fit whole (a preempted
// sequence's recompute may still be chunked). Thread-compatible (engine thread).
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "engine/request.h"
#include "strata/kv_cache_manager.h"

namespace strata {

struct SchedulerConfig {
  int max_num_seqs = 256;
  int max_num_batched_tokens = 2048;
  bool enable_chunked_prefill = true;
};

struct ScheduledSequence {
  Sequence* seq = nullptr;
  int num_new_tokens = 0;  // tokens computed this step, from seq->num_computed_tokens on
};

struct SchedulerOutput {
  std::vector<ScheduledSequence> scheduled;  // running first (admission order), then admitted
  std::vector<Sequence*> preempted;          // this step, in preemption order
  int num_tokens = 0;                        // sum of num_new_tokens
};

class Scheduler {
 public:
  // REQUIRES: `kv` outlives the scheduler.
  Scheduler(const SchedulerConfig& config, KvCacheManager* kv);

  // Queues a sequence for admission. REQUIRES: status kWaiting, no KV blocks.
  void AddWaiting(Sequence* seq);

  // Picks this step's batch and allocates its KV slots. The caller runs it, then advances each
  // scheduled sequence's num_computed_tokens by num_new_tokens.
  SchedulerOutput Schedule();

  // Drops `seq` from running or waiting and frees its blocks; no-op for sequences it does not
  // hold. Does not change seq->status.
  void Remove(Sequence* seq);

  int num_running() const { return static_cast<int>(running_.size()); }
  int num_waiting() const { return static_cast<int>(waiting_.size()); }
  int64_t num_preemptions() const { return num_preemptions_; }
  const std::vector<Sequence*>& running() const { return running_; }
  const SchedulerConfig& config() const { return config_; }

 private:
  struct WaitingOrder {
    bool operator()(const Sequence* a, const Sequence* b) const;
  };
  void Preempt(Sequence* seq);

  SchedulerConfig config_;
  KvCacheManager* kv_;
  std::vector<Sequence*> running_;             // admission order; the back is the newest
  std::set<Sequence*, WaitingOrder> waiting_;  // (priority, arrival, index)
  int64_t num_preemptions_ = 0;
};

}  // namespace strata
