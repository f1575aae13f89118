// ModelSpec: the architecture-neutral description of a decoder-only transformer.
//
// Built from a Hugging Face config.json or from GGUF metadata by the architecture adapters in
// src/model/; the generic decoder layer executes any spec. A plain value type.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strata {

enum class Architecture { kLlama, kQwen2, kQwen3, kMistral };

// How RoPE pairs the dimensions of a head: kNeox rotates (i, i + d/2) (HF's rotate_half);
// kNormal rotates (2i, 2i + 1) (GGML's default, used with permuted q/k weights).
enum class RopeLayout { kNeox, kNormal };

struct RopeScaling {
  enum class Kind { kNone, kLinear, kLlama3 } kind = Kind::kNone;
  float factor = 1.0f;
  float low_freq_factor = 1.0f;   // llama3
  float high_freq_factor = 4.0f;  // llama3
  int original_max_position_embeddings = 8192;  // llama3
};

struct ModelSpec {
  Architecture arch = Architecture::kLlama;
  std::string hf_architecture;  // e.g. "Qwen3ForCausalLM"
  int vocab_size = 0;
  int hidden_size = 0;
  int intermediate_size = 0;
  int num_layers = 0;
  int num_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  int max_position_embeddings = 0;
  float rms_norm_eps = 1e-6f;
  float rope_theta = 10000.0f;
  RopeScaling rope_scaling;
  bool attention_bias = false;  // q/k/v projections carry a bias (Qwen2)
  bool qk_norm = false;         // per-head RMSNorm on q and k before RoPE (Qwen3)
  int sliding_window = 0;       // 0 = full attention; else every layer attends to the last W tokens
  bool tie_word_embeddings = false;
  int bos_token_id = -1;
  std::vector<int> eos_token_ids;

  int QDim() const { return num_heads * head_dim; }
  int KvDim() const { return num_kv_heads * head_dim; }
};

const char* ArchitectureName(Architecture arch);  // "llama", "qwen2", ...

}  // namespace strata
