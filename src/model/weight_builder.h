// Internal to src/model: assembles ModelWeights from named tensors of one file format.
//
// The format-specific loaders (hf_loader, gguf_loader) say how each tensor is named and where
// it lives; BuildWeights fetches every tensor the spec implies, checks its shape and dtype,
// converts 1-D tensors (norms, biases) to owned f32 copies and, for llama-arch GGUF files,
// un-permutes q/k rows back to Hugging Face's order. Thread-compatible.
#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "strata/model_weights.h"

namespace strata {

enum class TensorRole {
  kEmbedding,
  kFinalNorm,
  kLmHead,
  kAttnNorm,
  kWq,
  kWk,
  kWv,
  kWo,
  kBq,
  kBk,
  kBv,
  kQNorm,
  kKNorm,
  kFfnNorm,
  kGate,
  kUp,
  kDown,
};

struct TensorSource {
  // The tensor's name in the file (`layer` is ignored for global tensors).
  std::function<std::string(TensorRole role, int layer)> name;
  // True when the file holds tensor `name`.
  std::function<bool(const std::string& name)> has;
  // A view of tensor `name`; errors name the file and the tensor.
  std::function<absl::StatusOr<Tensor>(const std::string& name)> get;
  // The file that holds (or should hold) tensor `name`, for error messages.
  std::function<std::string(const std::string& name)> file_of;
  // q/k weight and bias rows are in GGML's RoPE order (llama.cpp's converter, arch llama).
  bool qk_permuted = false;
};

// Fills w->embedding, layers, final_norm, lm_head from `src` according to w->spec.
// Missing lm_head means tied embeddings (w->spec.tie_word_embeddings is set accordingly).
absl::Status BuildWeights(const TensorSource& src, ModelWeights* w);

// Copies `t` (any supported dtype) into a new owned f32 buffer of `w` and returns its view.
Tensor OwnedF32(const Tensor& t, ModelWeights* w);

}  // namespace strata
