// Loads a GGUF model file (llama.cpp's layout) for the architectures llama (also Mistral),
// qwen2 and qwen3: metadata → ModelSpec, tensors → ModelWeights in Hugging Face's layout
// (llama q/k rows un-permuted, norms and biases as f32, rope_freqs.weight kept as llama3 RoPE
// factors).
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "model/gguf_file.h"
#include "strata/model_weights.h"

namespace strata {

// The GGUF tensor name of TensorRole `role` in `layer` (e.g. "blk.3.attn_q.weight").
std::string GgufTensorName(int role, int layer);

// Builds the ModelSpec from `g`'s metadata (and the presence of optional tensors).
absl::StatusOr<ModelSpec> GgufSpec(const GgufFile& g);

absl::StatusOr<std::unique_ptr<ModelWeights>> LoadGgufModel(const std::string& path);

}  // namespace strata
