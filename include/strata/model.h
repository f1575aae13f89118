// Model: a loaded decoder and its forward pass on the CPU backend.
//
// One generic decoder layer executes every supported architecture (the ModelSpec switches
// bias, qk-norm and sliding window on). Forward() is batch-invariant: a sequence's logits are
// bitwise identical whatever else shares the batch and however its prompt was chunked.
// Thread-compatible: one caller at a time (the engine thread); it owns a thread pool.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "strata/forward_batch.h"
#include "strata/model_weights.h"
#include "strata/thread_pool.h"

namespace strata {

// Deliberate bugs, used only by tests that prove the llama.cpp oracle can fail.
enum class PlantedBug { kNone, kRopeOff, kSwapKv, kIgnoreNorm, kNoWindow, kPositionOffByOne };
absl::StatusOr<PlantedBug> ParsePlantedBug(const std::string& name);

struct ModelOptions {
  int threads = 0;  // 0 = one per hardware thread
  PlantedBug planted_bug = PlantedBug::kNone;
};

class Model {
 public:
  static absl::StatusOr<std::unique_ptr<Model>> Create(std::unique_ptr<ModelWeights> weights,
                                                       const ModelOptions& options);
  // Loads weights from `path` (HF directory or .gguf) and creates the model.
  static absl::StatusOr<std::unique_ptr<Model>> Load(const std::string& path,
                                                     const ModelOptions& options);
  ~Model();

  const ModelSpec& spec() const { return weights_->spec; }
  const ModelWeights& weights() const { return *weights_; }
  int threads() const { return pool_.num_threads(); }

  // Runs one forward pass: writes each row's K/V into its slot, then writes the logits of
  // batch.logit_rows into `logits` [logit_rows.size(), vocab_size].
  // REQUIRES: every sequence's block table covers its context_len; slots belong to it.
  absl::Status Forward(const ForwardBatch& batch, const KvCacheView& kv, float* logits);

 private:
  Model(std::unique_ptr<ModelWeights> weights, const ModelOptions& options);
  struct Workspace;

  std::unique_ptr<ModelWeights> weights_;
  ModelOptions options_;
  ThreadPool pool_;
  std::vector<float> inv_freq_;  // [head_dim / 2]
  std::unique_ptr<Workspace> workspace_;
};

}  // namespace strata
