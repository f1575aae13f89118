#include "model/gguf_loader.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "model/hf_config.h"
#include "model/weight_builder.h"
#include "strata/status_macros.h"

namespace strata {
namespace {

// Reads an optional integer key into `out` (unchanged when absent).
absl::Status OptInt(const GgufFile& g, const std::string& key, int* out) {
  if (g.Find(key) == nullptr) return absl::OkStatus();
  ASSIGN_OR_RETURN(int64_t v, g.GetInt(key));
  if (v < 0 || v > INT32_MAX) {
    return absl::InvalidArgumentError(
        absl::StrCat(g.path(), ": metadata key '", key, "' has an out-of-range value ", v));
  }
  *out = static_cast<int>(v);
  return absl::OkStatus();
}

absl::Status ReqInt(const GgufFile& g, const std::string& key, int* out) {
  if (g.Find(key) == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(g.path(), ": missing metadata key '", key, "'"));
  }
  return OptInt(g, key, out);
}

absl::Status OptFloat(const GgufFile& g, const std::string& key, float* out) {
  if (g.Find(key) == nullptr) return absl::OkStatus();
  ASSIGN_OR_RETURN(double v, g.GetFloat(key));
  *out = static_cast<float>(v);
  return absl::OkStatus();
}

}  // namespace

std::string GgufTensorName(int role_int, int layer) {
  const auto role = static_cast<TensorRole>(role_int);
  const std::string l = absl::StrCat("blk.", layer, ".");
  switch (role) {
    case TensorRole::kEmbedding:
      return "token_embd.weight";
    case TensorRole::kFinalNorm:
      return "output_norm.weight";
    case TensorRole::kLmHead:
      return "output.weight";
    case TensorRole::kAttnNorm:
      return l + "attn_norm.weight";
    case TensorRole::kWq:
      return l + "attn_q.weight";
    case TensorRole::kWk:
      return l + "attn_k.weight";
    case TensorRole::kWv:
      return l + "attn_v.weight";
    case TensorRole::kWo:
      return l + "attn_output.weight";
    case TensorRole::kBq:
      return l + "attn_q.bias";
    case TensorRole::kBk:
      return l + "attn_k.bias";
    case TensorRole::kBv:
      return l + "attn_v.bias";
    case TensorRole::kQNorm:
      return l + "attn_q_norm.weight";
    case TensorRole::kKNorm:
      return l + "attn_k_norm.weight";
    case TensorRole::kFfnNorm:
      return l + "ffn_norm.weight";
    case TensorRole::kGate:
      return l + "ffn_gate.weight";
    case TensorRole::kUp:
      return l + "ffn_up.weight";
    case TensorRole::kDown:
      return l + "ffn_down.weight";
  }
  return "";
}

absl::StatusOr<ModelSpec> GgufSpec(const GgufFile& g) {
  const std::string& path = g.path();
  if (g.Find("general.architecture") == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": missing metadata key 'general.architecture'"));
  }
  ASSIGN_OR_RETURN(std::string arch, g.GetString("general.architecture"));
  ModelSpec spec;
  if (arch == "llama") {
    spec.arch = Architecture::kLlama;
    spec.hf_architecture = "LlamaForCausalLM";
  } else if (arch == "qwen2") {
    spec.arch = Architecture::kQwen2;
    spec.hf_architecture = "Qwen2ForCausalLM";
  } else if (arch == "qwen3") {
    spec.arch = Architecture::kQwen3;
    spec.hf_architecture = "Qwen3ForCausalLM";
    spec.qk_norm = true;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(path, ": unsupported architecture '", arch,
                                                   "' (supported: llama, qwen2, qwen3)"));
  }
  const std::string p = arch + ".";
  RETURN_IF_ERROR(ReqInt(g, p + "block_count", &spec.num_layers));
  RETURN_IF_ERROR(ReqInt(g, p + "embedding_length", &spec.hidden_size));
  RETURN_IF_ERROR(ReqInt(g, p + "feed_forward_length", &spec.intermediate_size));
  RETURN_IF_ERROR(ReqInt(g, p + "attention.head_count", &spec.num_heads));
  spec.num_kv_heads = spec.num_heads;
  const std::string kv_key = p + "attention.head_count_kv";
  if (const GgufValue* v = g.Find(kv_key); v != nullptr && v->type == GgufType::kArray) {
    // Per-layer counts: Strata needs them all equal.
    for (const GgufValue& e : v->array) {
      if (!e.IsInteger() || e.i != v->array.front().i) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": per-layer '", kv_key, "' values differ (unsupported)"));
      }
    }
    if (!v->array.empty()) spec.num_kv_heads = static_cast<int>(v->array.front().i);
  } else {
    RETURN_IF_ERROR(OptInt(g, kv_key, &spec.num_kv_heads));
  }
  spec.head_dim = spec.num_heads > 0 ? spec.hidden_size / spec.num_heads : 0;
  RETURN_IF_ERROR(OptInt(g, p + "attention.key_length", &spec.head_dim));
  int value_length = spec.head_dim, rope_dims = spec.head_dim;
  RETURN_IF_ERROR(OptInt(g, p + "attention.value_length", &value_length));
  RETURN_IF_ERROR(OptInt(g, p + "rope.dimension_count", &rope_dims));
  if (value_length != spec.head_dim || rope_dims != spec.head_dim) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": key_length ", spec.head_dim, ", value_length ", value_length,
                     " and rope.dimension_count ", rope_dims, " differ (unsupported)"));
  }
  spec.max_position_embeddings = 4096;
  RETURN_IF_ERROR(OptInt(g, p + "context_length", &spec.max_position_embeddings));
  if (g.Find(p + "attention.layer_norm_rms_epsilon") == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": missing metadata key '", p, "attention.layer_norm_rms_epsilon'"));
  }
  RETURN_IF_ERROR(OptFloat(g, p + "attention.layer_norm_rms_epsilon", &spec.rms_norm_eps));
  spec.rope_theta = 10000.0f;
  RETURN_IF_ERROR(OptFloat(g, p + "rope.freq_base", &spec.rope_theta));
  RETURN_IF_ERROR(OptInt(g, p + "attention.sliding_window", &spec.sliding_window));
  if (spec.arch == Architecture::kLlama && spec.sliding_window > 0) {
    // llama.cpp's converter writes Mistral as arch "llama"; the window is what sets it apart.
    spec.arch = Architecture::kMistral;
    spec.hf_architecture = "MistralForCausalLM";
  }
  if (g.Find(p + "rope.scaling.type") != nullptr) {
    ASSIGN_OR_RETURN(std::string type, g.GetString(p + "rope.scaling.type"));
    if (type == "linear") {
      spec.rope_scaling.kind = RopeScaling::Kind::kLinear;
      RETURN_IF_ERROR(OptFloat(g, p + "rope.scaling.factor", &spec.rope_scaling.factor));
    } else if (type != "none") {
      return absl::InvalidArgumentError(absl::StrCat(path, ": unsupported rope scaling type '",
                                                     type, "' (supported: none, linear)"));
    }
  }
  // Vocabulary: the explicit size, else the token list, else the embedding's rows.
  if (g.Find(p + "vocab_size") != nullptr) {
    RETURN_IF_ERROR(OptInt(g, p + "vocab_size", &spec.vocab_size));
  } else if (const GgufValue* t = g.Find("tokenizer.ggml.tokens");
             t != nullptr && t->type == GgufType::kArray) {
    spec.vocab_size = static_cast<int>(t->array.size());
  } else if (const auto* e = g.FindTensor("token_embd.weight"); e != nullptr && !e->shape.empty()) {
    spec.vocab_size = static_cast<int>(std::min<int64_t>(e->shape[0], INT32_MAX));
  }
  spec.attention_bias = g.FindTensor("blk.0.attn_q.bias") != nullptr;
  spec.tie_word_embeddings = g.FindTensor("output.weight") == nullptr;
  if (g.Find("tokenizer.ggml.bos_token_id") != nullptr) {
    RETURN_IF_ERROR(OptInt(g, "tokenizer.ggml.bos_token_id", &spec.bos_token_id));
  }
  if (g.Find("tokenizer.ggml.eos_token_id") != nullptr) {
    int eos = -1;
    RETURN_IF_ERROR(OptInt(g, "tokenizer.ggml.eos_token_id", &eos));
    spec.eos_token_ids = {eos};
  }
  RETURN_IF_ERROR(ValidateSpec(spec, path));
  return spec;
}

absl::StatusOr<std::unique_ptr<ModelWeights>> LoadGgufModel(const std::string& path) {
  auto w = std::make_unique<ModelWeights>();
  w->source_path = path;
  w->format = "gguf";
  ASSIGN_OR_RETURN(auto mapped, MappedFile::Open(path));
  ASSIGN_OR_RETURN(auto g, GgufFile::Parse(*mapped));
  w->files.push_back(std::move(mapped));
  ASSIGN_OR_RETURN(w->spec, GgufSpec(*g));
  w->generation.eos_token_ids = w->spec.eos_token_ids;

  TensorSource src;
  src.name = [](TensorRole role, int layer) {
    return GgufTensorName(static_cast<int>(role), layer);
  };
  src.file_of = [&](const std::string&) { return path; };
  src.has = [&](const std::string& name) { return g->FindTensor(name) != nullptr; };
  src.get = [&](const std::string& name) { return g->GetTensor(name); };
  // convert_hf_to_gguf.py permutes q/k for arch llama (LlamaModel.permute); not for qwen2/3.
  src.qk_permuted = w->spec.arch == Architecture::kLlama || w->spec.arch == Architecture::kMistral;
  RETURN_IF_ERROR(BuildWeights(src, w.get()));

  if (g->FindTensor("rope_freqs.weight") != nullptr) {
    ASSIGN_OR_RETURN(Tensor t, g->GetTensor("rope_freqs.weight"));
    if (t.shape != std::vector<int64_t>{w->spec.head_dim / 2}) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": tensor 'rope_freqs.weight' has shape ", t.ShapeString(),
                       ", expected [", w->spec.head_dim / 2, "] from the model config"));
    }
    w->rope_freqs = OwnedF32(t, w.get());
    const float* f = static_cast<const float*>(w->rope_freqs->data);
    RopeScaling& rs = w->spec.rope_scaling;
    rs.kind = RopeScaling::Kind::kLlama3;
    rs.factor = *std::max_element(f, f + w->spec.head_dim / 2);
  }
  return w;
}

}  // namespace strata
