// Engine: the step loop (drain → schedule → execute → update → publish), request admission
// and the engine thread. Policy lives in scheduler.cc, request state in request.cc.
#include "strata/engine.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <random>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "engine/output_channel.h"
#include "engine/request.h"
#include "engine/scheduler.h"
#include "sampling/sampler.h"

namespace strata {
namespace {

// OpenAI caps n at 128; more siblings would only multiply one request's cost.
constexpr int kMaxCompletions = 128;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

const char* FinishReasonName(FinishReason reason) {
  switch (reason) {
    case FinishReason::kNone:
      return "none";
    case FinishReason::kStop:
      return "stop";
    case FinishReason::kLength:
      return "length";
    case FinishReason::kAbort:
      return "abort";
    case FinishReason::kError:
      return "error";
  }
  return "unknown";
}

class Engine::Impl {
 public:
  Impl(std::unique_ptr<Model> model, const EngineConfig& config, int max_model_len,
       std::unique_ptr<KvCacheManager> kv)
      : model_(std::move(model)),
        config_(config),
        max_model_len_(max_model_len),
        kv_(std::move(kv)),
        scheduler_(SchedulerConfig{config.max_num_seqs, config.max_num_batched_tokens,
                                   config.enable_chunked_prefill},
                   kv_.get()),
        seed_rng_(std::random_device{}()) {
    stats_.total_blocks = kv_->num_blocks();
    stats_.free_blocks = kv_->num_free_blocks();
  }

  ~Impl() { Stop(); }

  absl::StatusOr<std::shared_ptr<OutputChannel>> Submit(EngineRequest request);
  void Abort(const std::string& id) {
    absl::MutexLock lock(&mu_);
    pending_aborts_.push_back(id);
    wake_.Signal();
  }
  void Start();
  void Stop();
  bool Step();
  EngineStats Stats() const {
    absl::MutexLock lock(&mu_);
    EngineStats stats = stats_;
    stats.waiting += static_cast<int>(pending_.size());
    return stats;
  }

  const Model& model() const { return *model_; }
  int max_model_len() const { return max_model_len_; }
  bool started() const {
    absl::MutexLock lock(&mu_);
    return started_;
  }

 private:
  struct Pending {
    EngineRequest request;
    std::shared_ptr<OutputChannelImpl> channel;
    uint64_t drawn_seed = 0;
  };
  using Outbox = std::vector<std::pair<OutputChannelImpl*, RequestOutput>>;

  absl::Status Validate(const EngineRequest& request) const;
  void Loop();
  bool Drain(Outbox& outbox);
  void Execute(const SchedulerOutput& sched, Outbox& outbox);
  void FinishSequence(Sequence* seq, FinishReason reason, Outbox& outbox,
                      const absl::Status& error = absl::OkStatus());
  void FinishRequest(Request* request, FinishReason reason, Outbox& outbox,
                     const absl::Status& error = absl::OkStatus());
  void ReleaseSiblings(Request* request);
  void CollectFinished();
  void CheckStep(const SchedulerOutput& sched);
  void Publish(Outbox& outbox);
  void AbortAll();

  // Immutable after construction.
  std::unique_ptr<Model> model_;
  const EngineConfig config_;
  const int max_model_len_;

  // Engine thread only (or the Step() caller).
  std::unique_ptr<KvCacheManager> kv_;
  Scheduler scheduler_;
  absl::flat_hash_map<std::string, std::unique_ptr<Request>> requests_;
  std::vector<std::string> done_ids_;  // finished this step; leave live_ids_ at Publish
  std::vector<float> logits_;
  uint64_t next_arrival_ = 0;
  RequestId next_kv_id_ = 1;
  int64_t preemptions_ = 0;
  int64_t prompt_tokens_ = 0;
  int64_t generation_tokens_ = 0;
  int64_t steps_ = 0;
  std::string invariant_error_;

  // Shared with client threads.
  mutable absl::Mutex mu_;
  absl::CondVar wake_;
  std::deque<Pending> pending_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> pending_aborts_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<std::string> live_ids_ ABSL_GUARDED_BY(mu_);
  int waiting_requests_ ABSL_GUARDED_BY(mu_) = 0;  // admitted-but-waiting, as of the last step
  EngineStats stats_ ABSL_GUARDED_BY(mu_);
  std::mt19937_64 seed_rng_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

absl::Status Engine::Impl::Validate(const EngineRequest& request) const {
  const int vocab = model_->spec().vocab_size;
  if (request.id.empty()) return absl::InvalidArgumentError("request id is empty");
  if (request.prompt.empty()) return absl::InvalidArgumentError("prompt is empty");
  for (size_t i = 0; i < request.prompt.size(); ++i) {
    const int32_t id = request.prompt[i];
    if (id < 0 || id >= vocab) {
      return absl::InvalidArgumentError(absl::StrCat("prompt token ", i, " is ", id,
                                                     ", outside the vocabulary [0, ", vocab, ")"));
    }
  }
  absl::Status params = ValidateSamplingParams(request.params, vocab);
  if (!params.ok()) return params;
  if (request.params.n > kMaxCompletions) {
    return absl::InvalidArgumentError(
        absl::StrCat("n is ", request.params.n, "; at most ", kMaxCompletions, " are allowed"));
  }
  const int64_t prompt_len = static_cast<int64_t>(request.prompt.size());
  const int64_t total = prompt_len + request.params.max_tokens;
  if (total > max_model_len_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "prompt (", prompt_len, " tokens) + max_tokens (", request.params.max_tokens, ") = ", total,
        " tokens exceeds the maximum model length of ", max_model_len_, " tokens"));
  }
  // The last generated token never enters the cache.
  const int64_t blocks = CeilDiv(total - 1, kv_->block_size());
  if (blocks > kv_->num_blocks()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the request needs ", blocks, " KV cache blocks (", total - 1,
        " tokens) but the cache has ", kv_->num_blocks(), " blocks; it can never fit"));
  }
  if (!config_.enable_chunked_prefill && prompt_len > config_.max_num_batched_tokens) {
    return absl::InvalidArgumentError(
        absl::StrCat("prompt (", prompt_len, " tokens) exceeds max_num_batched_tokens (",
                     config_.max_num_batched_tokens, ") and chunked prefill is disabled"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<OutputChannel>> Engine::Impl::Submit(EngineRequest request) {
  absl::Status valid = Validate(request);
  if (!valid.ok()) return valid;
  const int n = request.params.n;
  auto channel = std::make_shared<OutputChannelImpl>(n);
  absl::MutexLock lock(&mu_);
  if (stopping_ || stopped_) return absl::FailedPreconditionError("engine is stopped");
  if (live_ids_.contains(request.id)) {
    return absl::AlreadyExistsError(absl::StrCat("request id '", request.id, "' is in use"));
  }
  if (waiting_requests_ + static_cast<int>(pending_.size()) >= config_.max_waiting_requests) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "server overloaded: ", config_.max_waiting_requests, " requests are already waiting"));
  }
  live_ids_.insert(request.id);
  pending_.push_back(Pending{std::move(request), channel, seed_rng_()});
  wake_.Signal();
  return std::shared_ptr<OutputChannel>(channel);
}

void Engine::Impl::Start() {
  absl::MutexLock lock(&mu_);
  if (started_ || stopped_) return;
  started_ = true;
  thread_ = std::thread([this] { Loop(); });
}

void Engine::Impl::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return;
    stopping_ = true;
    wake_.Signal();
  }
  if (thread_.joinable()) thread_.join();
  AbortAll();
  absl::MutexLock lock(&mu_);
  stopped_ = true;
}

void Engine::Impl::Loop() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
    }
    if (Step()) continue;
    absl::MutexLock lock(&mu_);
    // Idle: sleep until a submit/abort/stop; with work held back, poll.
    const bool idle = requests_.empty();
    while (!stopping_ && pending_.empty() && pending_aborts_.empty()) {
      if (wake_.WaitWithTimeout(&mu_, absl::Milliseconds(idle ? 100 : 1)) && !idle) break;
    }
  }
}

bool Engine::Impl::Drain(Outbox& outbox) {
  std::deque<Pending> pending;
  std::vector<std::string> aborts;
  {
    absl::MutexLock lock(&mu_);
    pending.swap(pending_);
    aborts.swap(pending_aborts_);
  }
  for (Pending& p : pending) {
    const std::string id = p.request.id;
    auto request =
        MakeRequest(std::move(p.request), next_arrival_++, p.drawn_seed, next_kv_id_,
                    model_->spec().eos_token_ids, /*with_samplers=*/true, std::move(p.channel));
    next_kv_id_ += request->sequences.size();
    scheduler_.AddWaiting(request->sequences[0].get());
    // Without prefix caching siblings gain nothing from waiting for sequence 0.
    if (!config_.kv.enable_prefix_caching) ReleaseSiblings(request.get());
    requests_[id] = std::move(request);
  }
  for (const std::string& id : aborts) {
    auto it = requests_.find(id);
    if (it == requests_.end()) continue;
    FinishRequest(it->second.get(), FinishReason::kAbort, outbox);
  }
  return !pending.empty() || !aborts.empty();
}

void Engine::Impl::ReleaseSiblings(Request* request) {
  if (request->siblings_released) return;
  request->siblings_released = true;
  for (size_t i = 1; i < request->sequences.size(); ++i) {
    Sequence* seq = request->sequences[i].get();
    if (!seq->finished()) scheduler_.AddWaiting(seq);
  }
}

void Engine::Impl::FinishSequence(Sequence* seq, FinishReason reason, Outbox& outbox,
                                  const absl::Status& error) {
  if (seq->finished()) return;
  scheduler_.Remove(seq);
  seq->status = SequenceStatus::kFinished;
  seq->finish = reason;
  Request* request = seq->request;
  if (--request->num_unfinished == 0) done_ids_.push_back(request->id);
  RequestOutput out;
  out.index = seq->index;
  out.finish = reason;
  out.usage = SequenceUsage(*seq);
  out.error = error;
  outbox.emplace_back(request->channel.get(), std::move(out));
}

void Engine::Impl::FinishRequest(Request* request, FinishReason reason, Outbox& outbox,
                                 const absl::Status& error) {
  for (auto& seq : request->sequences) FinishSequence(seq.get(), reason, outbox, error);
}

void Engine::Impl::Execute(const SchedulerOutput& sched, Outbox& outbox) {
  const int vocab = model_->spec().vocab_size;
  ForwardBatch batch;
  batch.tokens.reserve(sched.num_tokens);
  batch.positions.reserve(sched.num_tokens);
  batch.slots.reserve(sched.num_tokens);
  std::vector<Sequence*> sampled;
  for (const ScheduledSequence& s : sched.scheduled) {
    Sequence* seq = s.seq;
    const int start = seq->num_computed_tokens;
    BatchSequence bs;
    bs.query_start = batch.num_tokens();
    bs.query_len = s.num_new_tokens;
    bs.context_len = start + s.num_new_tokens;
    bs.block_table = kv_->BlockTable(seq->kv_id).data();
    for (int pos = start; pos < start + s.num_new_tokens; ++pos) {
      batch.tokens.push_back(seq->tokens[pos]);
      batch.positions.push_back(pos);
      batch.slots.push_back(kv_->Slot(seq->kv_id, pos));
      if (pos < seq->num_prompt_tokens) ++prompt_tokens_;
    }
    if (bs.context_len == seq->num_tokens()) {  // all known tokens computed: sample the next
      batch.logit_rows.push_back(batch.num_tokens() - 1);
      sampled.push_back(seq);
    }
    batch.sequences.push_back(bs);
  }
  logits_.resize(batch.logit_rows.size() * static_cast<size_t>(vocab));
  absl::Status status = model_->Forward(batch, kv_->view(), logits_.data());
  if (!status.ok()) {
    for (const ScheduledSequence& s : sched.scheduled) {
      FinishRequest(s.seq->request, FinishReason::kError, outbox, status);
    }
    return;
  }
  for (const ScheduledSequence& s : sched.scheduled) {
    Sequence* seq = s.seq;
    seq->num_computed_tokens += s.num_new_tokens;
    kv_->CacheFullBlocks(seq->kv_id, seq->tokens, seq->num_computed_tokens, *seq->cache_salt);
  }
  for (size_t row = 0; row < sampled.size(); ++row) {
    Sequence* seq = sampled[row];
    Request* request = seq->request;
    const SamplingParams& params = request->params;
    SequenceSampler::Result result =
        seq->sampler->Sample(logits_.data() + row * static_cast<size_t>(vocab), vocab);
    ++generation_tokens_;
    RequestOutput out;
    out.index = seq->index;
    if (result.is_stop) {
      out.finish = FinishReason::kStop;
      out.stop_token = result.token;
    } else {
      seq->tokens.push_back(result.token);
      out.token_ids.push_back(result.token);
      if (params.logprobs >= 0) out.logprobs.push_back(std::move(result.logprob));
      if (seq->sampler->num_generated() >= params.max_tokens ||
          seq->num_tokens() >= max_model_len_) {
        out.finish = FinishReason::kLength;
      }
    }
    // Sequence 0 has cached the prompt's full blocks: its siblings may now reuse them.
    if (seq->index == 0) ReleaseSiblings(request);
    if (out.finish != FinishReason::kNone) {
      scheduler_.Remove(seq);
      seq->status = SequenceStatus::kFinished;
      seq->finish = out.finish;
      out.usage = SequenceUsage(*seq);
      if (--request->num_unfinished == 0) done_ids_.push_back(request->id);
    }
    outbox.emplace_back(request->channel.get(), std::move(out));
  }
}

void Engine::Impl::CheckStep(const SchedulerOutput& sched) {
  if (!invariant_error_.empty()) return;
  std::string error;
  absl::Status kv = kv_->CheckInvariants();
  if (!kv.ok()) error = absl::StrCat("kv: ", kv.ToString());
  if (sched.num_tokens > config_.max_num_batched_tokens) {
    error = absl::StrCat("step schedules ", sched.num_tokens, " tokens, budget ",
                         config_.max_num_batched_tokens);
  }
  if (static_cast<int>(sched.scheduled.size()) > config_.max_num_seqs ||
      scheduler_.num_running() > config_.max_num_seqs) {
    error = absl::StrCat("step runs ", scheduler_.num_running(), " sequences, cap ",
                         config_.max_num_seqs);
  }
  int sum = 0;
  for (const ScheduledSequence& s : sched.scheduled) {
    sum += s.num_new_tokens;
    if (s.num_new_tokens <= 0 ||
        s.seq->num_computed_tokens + s.num_new_tokens > s.seq->num_tokens()) {
      error = absl::StrCat("sequence ", s.seq->request->id, "/", s.seq->index, " scheduled ",
                           s.num_new_tokens, " tokens at ", s.seq->num_computed_tokens, " of ",
                           s.seq->num_tokens());
    }
    if (!config_.enable_chunked_prefill && s.seq->num_output_tokens() == 0 &&
        s.seq->num_computed_tokens + s.num_new_tokens < s.seq->num_prompt_tokens) {
      error = absl::StrCat("prompt of ", s.seq->request->id, " chunked without chunked prefill");
    }
  }
  if (sum != sched.num_tokens) error = "scheduled token count mismatch";
  if (!error.empty()) invariant_error_ = error;
}

void Engine::Impl::CollectFinished() {
  for (const std::string& id : done_ids_) requests_.erase(id);
}

void Engine::Impl::Publish(Outbox& outbox) {
  int waiting = 0;
  for (const auto& [id, request] : requests_) {
    for (const auto& seq : request->sequences) {
      if (seq->status == SequenceStatus::kWaiting || seq->status == SequenceStatus::kPreempted) {
        ++waiting;
        break;
      }
    }
  }
  {
    absl::MutexLock lock(&mu_);
    for (const std::string& id : done_ids_) live_ids_.erase(id);
    waiting_requests_ = waiting;
    stats_.running = scheduler_.num_running();
    stats_.waiting = scheduler_.num_waiting();
    stats_.kv_usage = kv_->Usage();
    stats_.prefix_cache = kv_->stats();
    stats_.preemptions = scheduler_.num_preemptions();
    stats_.prompt_tokens = prompt_tokens_;
    stats_.generation_tokens = generation_tokens_;
    stats_.steps = steps_;
    stats_.free_blocks = kv_->num_free_blocks();
    stats_.total_blocks = kv_->num_blocks();
    stats_.invariant_error = invariant_error_;
  }
  CollectFinished();
  done_ids_.clear();
  // Outputs go out after the id left live_ids_, so a client that saw its request finish may
  // reuse the id at once.
  for (auto& [channel, out] : outbox) channel->Push(std::move(out));
  outbox.clear();
}

bool Engine::Impl::Step() {
  Outbox outbox;
  bool worked = Drain(outbox);
  SchedulerOutput sched = scheduler_.Schedule();
  if (config_.check_invariants) CheckStep(sched);
  if (!sched.scheduled.empty()) {
    ++steps_;
    Execute(sched, outbox);
    worked = true;
  }
  Publish(outbox);
  return worked;
}

void Engine::Impl::AbortAll() {
  Outbox outbox;
  std::deque<Pending> pending;
  {
    absl::MutexLock lock(&mu_);
    pending.swap(pending_);
    pending_aborts_.clear();
  }
  for (Pending& p : pending) {
    for (int i = 0; i < p.request.params.n; ++i) {
      RequestOutput out;
      out.index = i;
      out.finish = FinishReason::kAbort;
      out.usage.prompt_tokens = static_cast<int>(p.request.prompt.size());
      p.channel->Push(std::move(out));
    }
    absl::MutexLock lock(&mu_);
    live_ids_.erase(p.request.id);
  }
  for (auto& [id, request] : requests_) {
    FinishRequest(request.get(), FinishReason::kAbort, outbox);
  }
  Publish(outbox);
}

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

absl::StatusOr<std::unique_ptr<Engine>> Engine::Create(std::unique_ptr<Model> model,
                                                       const EngineConfig& config) {
  if (model == nullptr) return absl::InvalidArgumentError("model is null");
  const ModelSpec& spec = model->spec();
  if (config.max_num_seqs < 1) return absl::InvalidArgumentError("max_num_seqs must be >= 1");
  if (config.max_num_batched_tokens < 1) {
    return absl::InvalidArgumentError("max_num_batched_tokens must be >= 1");
  }
  if (config.max_waiting_requests < 1) {
    return absl::InvalidArgumentError("max_waiting_requests must be >= 1");
  }
  int max_model_len = config.max_model_len;
  if (max_model_len == 0) max_model_len = spec.max_position_embeddings;
  if (max_model_len < 1 || max_model_len > spec.max_position_embeddings) {
    return absl::InvalidArgumentError(absl::StrCat("max_model_len ", config.max_model_len,
                                                   " is outside [1, ", spec.max_position_embeddings,
                                                   "] (the model's max_position_embeddings)"));
  }
  KvCacheManagerConfig kv_config = config.kv;
  if (kv_config.block_size < 1) return absl::InvalidArgumentError("kv block_size must be >= 1");
  if (kv_config.num_blocks == 0) {
    const int64_t per_block =
        KvCacheManager::BytesPerBlock(spec, kv_config.block_size, kv_config.kv_dtype);
    const int64_t blocks = per_block > 0 ? config.kv_memory_bytes / per_block : 0;
    if (blocks < 1) {
      return absl::InvalidArgumentError(absl::StrCat("kv_memory_bytes ", config.kv_memory_bytes,
                                                     " is less than one KV block (", per_block,
                                                     " bytes)"));
    }
    kv_config.num_blocks = static_cast<int>(std::min<int64_t>(blocks, 1 << 30));
  }
  auto kv = KvCacheManager::Create(spec, kv_config);
  if (!kv.ok()) return kv.status();
  EngineConfig resolved = config;
  resolved.kv = kv_config;
  resolved.max_model_len = max_model_len;
  auto impl = std::make_unique<Impl>(std::move(model), resolved, max_model_len, std::move(*kv));
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

absl::StatusOr<std::shared_ptr<OutputChannel>> Engine::Submit(EngineRequest request) {
  return impl_->Submit(std::move(request));
}
void Engine::Abort(const std::string& id) { impl_->Abort(id); }
void Engine::Start() { impl_->Start(); }
void Engine::Stop() { impl_->Stop(); }
bool Engine::Step() {
  if (impl_->started()) return false;  // REQUIRES: not started
  return impl_->Step();
}
EngineStats Engine::Stats() const { return impl_->Stats(); }
const Model& Engine::model() const { return impl_->model(); }
int Engine::max_model_len() const { return impl_->max_model_len(); }

}  // namespace strata
