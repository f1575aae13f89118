// The generic decoder layer: attention (GQA/MHA, optional q/k/v bias, qk-norm, sliding window)
// followed by a SiLU-gated MLP, on flat batches. Architecture quirks are switches in ModelSpec;
// nothing here knows a model family by name. Not thread-safe (uses the caller's scratch).
#pragma once

#include <vector>

#include "backend/cpu/ops.h"
#include "strata/forward_batch.h"
#include "strata/model.h"
#include "strata/model_weights.h"

namespace strata {

// Scratch buffers reused across layers and passes; grown to the largest batch seen.
struct LayerScratch {
  std::vector<float> normed;           // [tokens, hidden]
  std::vector<float> q;                // [tokens, q_dim]
  std::vector<float> k;                // [tokens, kv_dim]
  std::vector<float> v;                // [tokens, kv_dim]
  std::vector<float> attn;             // [tokens, q_dim]
  std::vector<float> proj;             // [tokens, hidden]
  std::vector<float> gate;             // [tokens, intermediate]
  std::vector<float> up;               // [tokens, intermediate]
  std::vector<int32_t> key_positions;  // [tokens] RoPE positions for k (planted bug only)
  std::vector<cpu::AttentionSeq> seqs;
  std::vector<float> unit_norm;  // [hidden] ones (planted bug only)

  void Reserve(const ModelSpec& spec, int tokens);
};

struct LayerInputs {
  const ForwardBatch* batch;
  const KvCacheView* kv;
  const float* inv_freq;  // [head_dim / 2]
  PlantedBug planted_bug;
};

// Runs one layer. On entry `normed` holds RmsNorm(x) with this layer's attn_norm; on exit x has
// the layer's residual updates and `normed` holds RmsNorm(x) with `next_norm` (the next layer's
// attn_norm, or the final norm).
void RunDecoderLayer(ThreadPool& pool, const ModelSpec& spec, const LayerWeights& w, int layer,
                     const LayerInputs& in, const float* next_norm, float* x,
                     LayerScratch& scratch);

}  // namespace strata
