// Hugging Face config.json / generation_config.json → ModelSpec / GenerationDefaults.
//
// One small adapter per architecture (LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM,
// Qwen3ForCausalLM) maps names, defaults and quirks. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "strata/model_spec.h"
#include "strata/model_weights.h"

namespace strata {

// The `architectures` values Strata loads, for error messages.
std::vector<std::string> SupportedHfArchitectures();

// Parses config.json text; `path` names the file in errors.
absl::StatusOr<ModelSpec> ParseHfConfig(const std::string& json_text, const std::string& path);

// Parses generation_config.json text; eos ids fall back to `spec.eos_token_ids` when absent.
absl::StatusOr<GenerationDefaults> ParseGenerationConfig(const std::string& json_text,
                                                         const std::string& path,
                                                         const ModelSpec& spec);

// Checks that a spec is internally consistent (positive sizes, heads divide, even head_dim).
absl::Status ValidateSpec(const ModelSpec& spec, const std::string& path);

absl::StatusOr<std::string> ReadTextFile(const std::string& path);

}  // namespace strata
