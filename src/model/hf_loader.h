// Loads a Hugging Face model directory: config.json (→ ModelSpec), optional
// generation_config.json, and model.safetensors or the shards named by
// model.safetensors.index.json. Tensors point into the mappings; norms and biases become f32.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "strata/model_weights.h"

namespace strata {

// The HF tensor name of `role` in `layer` (e.g. "model.layers.3.self_attn.q_proj.weight").
std::string HfTensorName(int role, int layer);

absl::StatusOr<std::unique_ptr<ModelWeights>> LoadHfModel(const std::string& dir);

}  // namespace strata
