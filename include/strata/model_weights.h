// ModelWeights: every tensor of a dense decoder, loaded from a Hugging Face directory or a GGUF
// file, plus the ModelSpec and generation defaults that came with it.
//
// Large tensors point into read-only memory mappings owned by this object. Small tensors that
// must change form (norm weights and biases to f32; llama/mistral GGUF q/k rows back to HF's
// order) are owned copies. The internal layout is always Hugging Face's: linear weights
// [out, in], RoPE in the neox layout. Immutable after load; safe to share across threads.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "strata/mapped_file.h"
#include "strata/model_spec.h"
#include "strata/tensor.h"

namespace strata {

struct LayerWeights {
  Tensor attn_norm;                 // [hidden] f32
  Tensor wq, wk, wv, wo;            // [q_dim, hidden], [kv_dim, hidden] x2, [hidden, q_dim]
  std::optional<Tensor> bq, bk, bv; // [q_dim], [kv_dim] f32 (Qwen2)
  std::optional<Tensor> q_norm, k_norm;  // [head_dim] f32 (Qwen3)
  Tensor ffn_norm;                  // [hidden] f32
  Tensor w_gate, w_up;              // [intermediate, hidden]
  Tensor w_down;                    // [hidden, intermediate]
};

// Sampling defaults from generation_config.json (HF) or left unset (GGUF).
struct GenerationDefaults {
  std::optional<float> temperature;
  std::optional<float> top_p;
  std::optional<int> top_k;
  std::optional<float> min_p;
  std::optional<float> repetition_penalty;
  std::vector<int> eos_token_ids;
};

struct ModelWeights {
  ModelSpec spec;
  GenerationDefaults generation;
  std::string source_path;  // directory or .gguf file
  std::string format;       // "hf" or "gguf"
  Tensor embedding;         // [vocab, hidden]
  std::vector<LayerWeights> layers;
  Tensor final_norm;        // [hidden] f32
  Tensor lm_head;           // [vocab, hidden] (the embedding when tied)
  // llama3 RoPE scaling only: per-pair divisors of the inverse frequencies, as llama.cpp's
  // rope_freqs.weight: inv_freq[i] = rope_theta^(-2i/head_dim) / rope_freqs[i]. Computed from
  // config.json's rope_scaling for HF, read from the file for GGUF (identical either way), so
  // the forward pass should use this tensor, not spec.rope_scaling's llama3 fields.
  std::optional<Tensor> rope_freqs;  // [head_dim / 2] f32

  std::vector<std::unique_ptr<MappedFile>> files;   // keeps mappings alive
  std::vector<std::vector<uint8_t>> owned_buffers;  // converted tensors

  // Total bytes of weights read per decoded token (all matmul weights + one embedding row).
  size_t WeightBytesPerToken() const;
};

// Loads `path`: a directory holding config.json + *.safetensors, or a .gguf file. Every failure
// (missing/truncated file, missing tensor, shape mismatch, unsupported arch or dtype) is an
// error that names the file and the tensor. Shows progress while mapping and validating.
absl::StatusOr<std::unique_ptr<ModelWeights>> LoadModelWeights(const std::string& path);

}  // namespace strata
