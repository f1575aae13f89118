#include "model/hf_config.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace strata {
namespace {

using Json = nlohmann::json;

struct Adapter {
  const char* hf_name;
  Architecture arch;
};
constexpr Adapter kAdapters[] = {
    {"LlamaForCausalLM", Architecture::kLlama},
    {"MistralForCausalLM", Architecture::kMistral},
    {"Qwen2ForCausalLM", Architecture::kQwen2},
    {"Qwen3ForCausalLM", Architecture::kQwen3},
};

// Reads an optional field, checking its type; a JSON null counts as absent.
class Fields {
 public:
  Fields(const Json& j, const std::string& path) : j_(j), path_(path) {}
  bool Has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }
  absl::Status Int(const char* key, int* out, bool required = false) const {
    if (!Has(key)) return Missing(key, required);
    const Json& v = j_[key];
    if (!v.is_number_integer() || v.get<int64_t>() < INT32_MIN || v.get<int64_t>() > INT32_MAX) {
      return absl::InvalidArgumentError(absl::StrCat(path_, ": '", key, "' must be an integer"));
    }
    *out = v.get<int>();
    return absl::OkStatus();
  }
  absl::Status Float(const char* key, float* out) const {
    if (!Has(key)) return absl::OkStatus();
    const Json& v = j_[key];
    if (!v.is_number()) {
      return absl::InvalidArgumentError(absl::StrCat(path_, ": '", key, "' must be a number"));
    }
    *out = v.get<float>();
    return absl::OkStatus();
  }
  absl::Status Bool(const char* key, bool* out) const {
    if (!Has(key)) return absl::OkStatus();
    if (!j_[key].is_boolean()) {
      return absl::InvalidArgumentError(absl::StrCat(path_, ": '", key, "' must be a boolean"));
    }
    *out = j_[key].get<bool>();
    return absl::OkStatus();
  }
  // An int or a list of ints (eos_token_id).
  absl::Status IntList(const char* key, std::vector<int>* out) const {
    if (!Has(key)) return absl::OkStatus();
    const Json& v = j_[key];
    out->clear();
    if (v.is_number_integer()) {
      out->push_back(v.get<int>());
      return absl::OkStatus();
    }
    if (v.is_array()) {
      for (const Json& e : v) {
        if (!e.is_number_integer()) break;
        out->push_back(e.get<int>());
      }
      if (out->size() == v.size()) return absl::OkStatus();
    }
    return absl::InvalidArgumentError(
        absl::StrCat(path_, ": '", key, "' must be an integer or a list of integers"));
  }

 private:
  absl::Status Missing(const char* key, bool required) const {
    if (!required) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(path_, ": missing required field '", key, "'"));
  }
  const Json& j_;
  const std::string& path_;
};

#define STRATA_RETURN_IF_ERROR(expr) \
  do {                               \
    absl::Status _s = (expr);        \
    if (!_s.ok()) return _s;         \
  } while (0)

absl::Status ParseRopeScaling(const Json& j, const std::string& path, RopeScaling* rs) {
  if (!j.contains("rope_scaling") || j["rope_scaling"].is_null()) return absl::OkStatus();
  const Json& r = j["rope_scaling"];
  if (!r.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": 'rope_scaling' must be an object"));
  }
  std::string type;
  if (r.contains("rope_type") && r["rope_type"].is_string()) {
    type = r["rope_type"].get<std::string>();
  } else if (r.contains("type") && r["type"].is_string()) {
    type = r["type"].get<std::string>();
  }
  Fields f(r, path);
  if (type == "default" || type.empty()) return absl::OkStatus();
  if (type == "linear") {
    rs->kind = RopeScaling::Kind::kLinear;
    STRATA_RETURN_IF_ERROR(f.Float("factor", &rs->factor));
    return absl::OkStatus();
  }
  if (type == "llama3") {
    rs->kind = RopeScaling::Kind::kLlama3;
    rs->factor = 8.0f;
    STRATA_RETURN_IF_ERROR(f.Float("factor", &rs->factor));
    STRATA_RETURN_IF_ERROR(f.Float("low_freq_factor", &rs->low_freq_factor));
    STRATA_RETURN_IF_ERROR(f.Float("high_freq_factor", &rs->high_freq_factor));
    STRATA_RETURN_IF_ERROR(
        f.Int("original_max_position_embeddings", &rs->original_max_position_embeddings));
    if (rs->high_freq_factor <= rs->low_freq_factor) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": llama3 rope_scaling needs high_freq_factor > low_freq_factor"));
    }
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(path, ": unsupported rope_scaling type '", type,
                                                 "' (supported: linear, llama3)"));
}

}  // namespace

std::vector<std::string> SupportedHfArchitectures() {
  std::vector<std::string> out;
  for (const Adapter& a : kAdapters) out.push_back(a.hf_name);
  return out;
}

absl::StatusOr<ModelSpec> ParseHfConfig(const std::string& json_text, const std::string& path) {
  Json j = Json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a JSON object"));
  }
  try {
    ModelSpec spec;
    std::string hf_arch;
    if (j.contains("architectures") && j["architectures"].is_array() &&
        !j["architectures"].empty() && j["architectures"][0].is_string()) {
      hf_arch = j["architectures"][0].get<std::string>();
    }
    const Adapter* adapter = nullptr;
    for (const Adapter& a : kAdapters) {
      if (hf_arch == a.hf_name) adapter = &a;
    }
    if (adapter == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": unsupported architecture '", hf_arch.empty() ? "(none)" : hf_arch,
                       "' (supported: ", absl::StrJoin(SupportedHfArchitectures(), ", "), ")"));
    }
    spec.arch = adapter->arch;
    spec.hf_architecture = hf_arch;
    Fields f(j, path);
    STRATA_RETURN_IF_ERROR(f.Int("vocab_size", &spec.vocab_size, true));
    STRATA_RETURN_IF_ERROR(f.Int("hidden_size", &spec.hidden_size, true));
    STRATA_RETURN_IF_ERROR(f.Int("intermediate_size", &spec.intermediate_size, true));
    STRATA_RETURN_IF_ERROR(f.Int("num_hidden_layers", &spec.num_layers, true));
    STRATA_RETURN_IF_ERROR(f.Int("num_attention_heads", &spec.num_heads, true));
    spec.num_kv_heads = spec.num_heads;
    STRATA_RETURN_IF_ERROR(f.Int("num_key_value_heads", &spec.num_kv_heads));
    spec.head_dim = spec.num_heads > 0 ? spec.hidden_size / spec.num_heads : 0;
    STRATA_RETURN_IF_ERROR(f.Int("head_dim", &spec.head_dim));
    spec.max_position_embeddings = 4096;
    STRATA_RETURN_IF_ERROR(f.Int("max_position_embeddings", &spec.max_position_embeddings));
    spec.rms_norm_eps = 1e-6f;
    STRATA_RETURN_IF_ERROR(f.Float("rms_norm_eps", &spec.rms_norm_eps));
    spec.rope_theta = 10000.0f;
    STRATA_RETURN_IF_ERROR(f.Float("rope_theta", &spec.rope_theta));
    STRATA_RETURN_IF_ERROR(ParseRopeScaling(j, path, &spec.rope_scaling));
    STRATA_RETURN_IF_ERROR(f.Bool("tie_word_embeddings", &spec.tie_word_embeddings));
    STRATA_RETURN_IF_ERROR(f.Int("bos_token_id", &spec.bos_token_id));
    STRATA_RETURN_IF_ERROR(f.IntList("eos_token_id", &spec.eos_token_ids));
    bool mlp_bias = false;
    STRATA_RETURN_IF_ERROR(f.Bool("mlp_bias", &mlp_bias));
    if (mlp_bias) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": mlp_bias=true is not supported"));
    }
    if (j.contains("hidden_act") && j["hidden_act"] != "silu") {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": hidden_act ", j["hidden_act"].dump(), " is not supported (silu)"));
    }
    switch (spec.arch) {
      case Architecture::kLlama:
        STRATA_RETURN_IF_ERROR(f.Bool("attention_bias", &spec.attention_bias));
        break;
      case Architecture::kMistral:
        STRATA_RETURN_IF_ERROR(f.Bool("attention_bias", &spec.attention_bias));
        STRATA_RETURN_IF_ERROR(f.Int("sliding_window", &spec.sliding_window));
        break;
      case Architecture::kQwen2:
      case Architecture::kQwen3: {
        // Qwen2 always has q/k/v biases; Qwen3 has none by default, but qk-norm.
        spec.attention_bias = spec.arch == Architecture::kQwen2;
        if (spec.arch == Architecture::kQwen3) {
          STRATA_RETURN_IF_ERROR(f.Bool("attention_bias", &spec.attention_bias));
          spec.qk_norm = true;
        }
        bool use_sliding_window = false;
        STRATA_RETURN_IF_ERROR(f.Bool("use_sliding_window", &use_sliding_window));
        if (use_sliding_window) {
          // HF applies the window only to layers >= max_window_layers; ModelSpec has one window.
          return absl::InvalidArgumentError(
              absl::StrCat(path, ": use_sliding_window=true is not supported for ", hf_arch));
        }
        break;
      }
    }
    STRATA_RETURN_IF_ERROR(ValidateSpec(spec, path));
    return spec;
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", e.what()));
  }
}

absl::Status ValidateSpec(const ModelSpec& spec, const std::string& path) {
  auto bad = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
  };
  if (spec.vocab_size <= 0 || spec.hidden_size <= 0 || spec.intermediate_size <= 0 ||
      spec.num_layers <= 0 || spec.num_heads <= 0 || spec.num_kv_heads <= 0 || spec.head_dim <= 0) {
    return bad(absl::StrCat("model sizes must be positive (vocab ", spec.vocab_size, ", hidden ",
                            spec.hidden_size, ", intermediate ", spec.intermediate_size,
                            ", layers ", spec.num_layers, ", heads ", spec.num_heads, ", kv heads ",
                            spec.num_kv_heads, ", head_dim ", spec.head_dim, ")"));
  }
  if (spec.num_heads % spec.num_kv_heads != 0) {
    return bad(absl::StrCat("num_attention_heads ", spec.num_heads,
                            " is not a multiple of num_key_value_heads ", spec.num_kv_heads));
  }
  if (spec.head_dim % 2 != 0) return bad(absl::StrCat("head_dim ", spec.head_dim, " is odd"));
  if (spec.sliding_window < 0) return bad("sliding_window is negative");
  if (spec.num_layers > 100000 || spec.hidden_size > (1 << 20) ||
      spec.intermediate_size > (1 << 22) || spec.vocab_size > (1 << 24) ||
      static_cast<int64_t>(spec.num_heads) * spec.head_dim > (1 << 20)) {
    return bad("model sizes are implausibly large");
  }
  return absl::OkStatus();
}

absl::StatusOr<GenerationDefaults> ParseGenerationConfig(const std::string& json_text,
                                                         const std::string& path,
                                                         const ModelSpec& spec) {
  GenerationDefaults g;
  g.eos_token_ids = spec.eos_token_ids;
  Json j = Json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a JSON object"));
  }
  Fields f(j, path);
  float v;
  int k;
  auto opt_float = [&](const char* key, std::optional<float>* out) -> absl::Status {
    if (!f.Has(key)) return absl::OkStatus();
    STRATA_RETURN_IF_ERROR(f.Float(key, &v));
    *out = v;
    return absl::OkStatus();
  };
  STRATA_RETURN_IF_ERROR(opt_float("temperature", &g.temperature));
  STRATA_RETURN_IF_ERROR(opt_float("top_p", &g.top_p));
  STRATA_RETURN_IF_ERROR(opt_float("min_p", &g.min_p));
  STRATA_RETURN_IF_ERROR(opt_float("repetition_penalty", &g.repetition_penalty));
  if (f.Has("top_k")) {
    STRATA_RETURN_IF_ERROR(f.Int("top_k", &k));
    g.top_k = k;
  }
  STRATA_RETURN_IF_ERROR(f.IntList("eos_token_id", &g.eos_token_ids));
  return g;
}

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace strata
