#include "model/decoder_layer.h"

#include <cmath>

namespace strata {

void LayerScratch::Reserve(const ModelSpec& spec, int tokens) {
  const size_t t = static_cast<size_t>(tokens);
  if (normed.size() >= t * spec.hidden_size) return;
  normed.resize(t * spec.hidden_size);
  q.resize(t * spec.QDim());
  k.resize(t * spec.KvDim());
  v.resize(t * spec.KvDim());
  attn.resize(t * spec.QDim());
  proj.resize(t * spec.hidden_size);
  gate.resize(t * spec.intermediate_size);
  up.resize(t * spec.intermediate_size);
  key_positions.resize(t);
  unit_norm.assign(spec.hidden_size, 1.0f);
}

namespace {

const float* OptionalData(const std::optional<Tensor>& t) {
  return t.has_value() ? static_cast<const float*>(t->data) : nullptr;
}

void Attention(ThreadPool& pool, const ModelSpec& spec, const LayerWeights& w, int layer,
               const LayerInputs& in, LayerScratch& s) {
  const ForwardBatch& batch = *in.batch;
  const int tokens = batch.num_tokens();
  const int hd = spec.head_dim;
  cpu::MatMul(pool, s.normed.data(), tokens, w.wq, OptionalData(w.bq), s.q.data());
  cpu::MatMul(pool, s.normed.data(), tokens, w.wk, OptionalData(w.bk), s.k.data());
  cpu::MatMul(pool, s.normed.data(), tokens, w.wv, OptionalData(w.bv), s.v.data());
  if (spec.qk_norm) {
    cpu::RmsNorm(s.q.data(), static_cast<const float*>(w.q_norm->data), tokens * spec.num_heads, hd,
                 spec.rms_norm_eps, s.q.data());
    cpu::RmsNorm(s.k.data(), static_cast<const float*>(w.k_norm->data), tokens * spec.num_kv_heads,
                 hd, spec.rms_norm_eps, s.k.data());
  }
  if (in.planted_bug != PlantedBug::kRopeOff) {
    const int32_t* key_positions = batch.positions.data();
    if (in.planted_bug == PlantedBug::kPositionOffByOne) {
      for (int t = 0; t < tokens; ++t) s.key_positions[t] = batch.positions[t] + 1;
      key_positions = s.key_positions.data();
    }
    cpu::Rope(s.q.data(), tokens, spec.num_heads, hd, spec.QDim(), batch.positions.data(),
              in.inv_freq, RopeLayout::kNeox);
    cpu::Rope(s.k.data(), tokens, spec.num_kv_heads, hd, spec.KvDim(), key_positions, in.inv_freq,
              RopeLayout::kNeox);
  }
  cpu::PagedKvLayer cache{in.kv->k[layer], in.kv->v[layer], in.kv->dtype};
  if (in.planted_bug == PlantedBug::kSwapKv) std::swap(cache.k, cache.v);
  cpu::WriteKv(s.k.data(), s.v.data(), spec.KvDim(), tokens, batch.slots.data(), spec.num_kv_heads,
               hd, in.kv->block_size, cache);
  if (in.planted_bug == PlantedBug::kSwapKv) std::swap(cache.k, cache.v);

  s.seqs.clear();
  for (const BatchSequence& seq : batch.sequences) {
    s.seqs.push_back({seq.query_start, seq.query_len, seq.context_len, seq.block_table});
  }
  const int window = in.planted_bug == PlantedBug::kNoWindow ? 0 : spec.sliding_window;
  cpu::PagedAttention(pool, s.q.data(), spec.QDim(), s.seqs.data(), static_cast<int>(s.seqs.size()),
                      spec.num_heads, spec.num_kv_heads, hd, in.kv->block_size, window,
                      1.0f / std::sqrt(static_cast<float>(hd)), cache, s.attn.data());
  cpu::MatMul(pool, s.attn.data(), tokens, w.wo, nullptr, s.proj.data());
}

}  // namespace

void RunDecoderLayer(ThreadPool& pool, const ModelSpec& spec, const LayerWeights& w, int layer,
                     const LayerInputs& in, const float* next_norm, float* x, LayerScratch& s) {
  const int tokens = in.batch->num_tokens();
  Attention(pool, spec, w, layer, in, s);
  cpu::AddRmsNorm(x, s.proj.data(), static_cast<const float*>(w.ffn_norm.data), tokens,
                  spec.hidden_size, spec.rms_norm_eps, s.normed.data());
  cpu::MatMul(pool, s.normed.data(), tokens, w.w_gate, nullptr, s.gate.data());
  cpu::MatMul(pool, s.normed.data(), tokens, w.w_up, nullptr, s.up.data());
  cpu::SiluMul(s.gate.data(), s.up.data(), tokens, spec.intermediate_size, s.gate.data());
  cpu::MatMul(pool, s.gate.data(), tokens, w.w_down, nullptr, s.proj.data());
  cpu::AddRmsNorm(x, s.proj.data(), next_norm, tokens, spec.hidden_size, spec.rms_norm_eps,
                  s.normed.data());
}

}  // namespace strata
