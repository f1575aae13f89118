// MakeRandomModel: writes a random-weight model of a supported architecture in both forms the
// loader reads — a Hugging Face directory (<out>/hf/: config.json, model.safetensors,
// generation_config.json, tokenizer files) and a GGUF file (<out>/model-<dtype>.gguf) laid out as
// llama.cpp's convert_hf_to_gguf.py lays out that architecture (q/k rows permuted for
// llama/mistral, rope_freqs.weight for llama3 RoPE scaling, gpt2 tokenizer metadata).
//
// Weights are deterministic in (seed, tensor name): a counter-based PRNG (splitmix64 +
// Box-Muller), so the same options give byte-identical files on every run. Linear weights are
// N(0, 1/fan_in); embedding and (untied) lm_head N(0, 1); norm weights (incl. q/k-norm)
// 1 + N(0, 0.1^2); biases N(0, 0.1^2). The GGUF stores the HF-dtype values (e.g. bf16 values
// quantized to q8_0), and norms/biases as f32, as the converter does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "strata/model_spec.h"
#include "strata/tensor.h"

namespace strata {

enum class ModelPreset {
  kTiny,  // hidden 64, intermediate 192, 4 layers, 4 heads (2 kv), head_dim 16
  kQ06b,  // Qwen3-0.6B's shape: hidden 1024, intermediate 3072, 28 layers, 16/8 heads, hd 128
};
absl::StatusOr<ModelPreset> ParseModelPreset(const std::string& name);    // "tiny", "q06b"
absl::StatusOr<Architecture> ParseArchitecture(const std::string& name);  // "llama", ...

struct MakeModelOptions {
  Architecture arch = Architecture::kQwen3;
  ModelPreset preset = ModelPreset::kTiny;
  uint64_t seed = 0;
  std::string tokenizer_dir;  // optional: tokenizer.json + tokenizer_config.json
  std::string out_dir;
  DType hf_dtype = DType::kF32;     // f32, bf16 or f16
  std::optional<DType> gguf_dtype;  // f32, bf16, f16 or q8_0; default hf_dtype
  bool show_progress = true;
};

// The ModelSpec MakeRandomModel writes for `options` (vocab from the tokenizer when given).
absl::StatusOr<ModelSpec> RandomModelSpec(const MakeModelOptions& options);

// "<out>/hf" and "<out>/model-<dtype>.gguf".
std::string RandomModelHfDir(const MakeModelOptions& options);
std::string RandomModelGgufPath(const MakeModelOptions& options);

absl::Status MakeRandomModel(const MakeModelOptions& options);

}  // namespace strata
