#include "model/make_model.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "model/gguf_file.h"
#include "model/gguf_loader.h"
#include "model/gguf_vocab.h"
#include "model/gguf_writer.h"
#include "model/hf_loader.h"
#include "model/safetensors_writer.h"
#include "model/weight_builder.h"
#include "model/weight_convert.h"
#include "nlohmann/json.hpp"
#include "spdlog/spdlog.h"
#include "strata/logging.h"
#include "strata/status_macros.h"

namespace strata {
namespace {

namespace fs = std::filesystem;
using OJson = nlohmann::ordered_json;

// ---- Deterministic normal samples: counter-based, so any slice can be made independently.

uint64_t SplitMix64(uint64_t x) {
  uint64_t z = x + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t TensorKey(uint64_t seed, const std::string& name) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
  return SplitMix64(SplitMix64(seed) ^ h);
}

// Fills out[0, n) with mean + std * N(0, 1) for elements [first, first + n) of stream `key`.
// Element 2p is r cos(theta), element 2p + 1 is r sin(theta) of pair p (Box-Muller).
void FillNormalRange(uint64_t key, int64_t first, int64_t n, float mean, float std, float* out) {
  constexpr double kTwoPi = 6.283185307179586;
  for (int64_t e = first; e < first + n;) {
    const uint64_t p = static_cast<uint64_t>(e) >> 1;
    const double u1 = (static_cast<double>(SplitMix64(key + 2 * p) >> 11) + 1.0) * 0x1.0p-53;
    const double u2 = static_cast<double>(SplitMix64(key + 2 * p + 1) >> 11) * 0x1.0p-53;
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double theta = kTwoPi * u2;
    if ((e & 1) == 0) {
      out[e - first] = mean + std * static_cast<float>(r * std::cos(theta));
      if (e + 1 < first + n)
        out[e + 1 - first] = mean + std * static_cast<float>(r * std::sin(theta));
      e += 2;
    } else {
      out[e - first] = mean + std * static_cast<float>(r * std::sin(theta));
      e += 1;
    }
  }
}

void FillNormal(uint64_t key, int64_t first, int64_t n, float mean, float std, float* out) {
  const int threads = n < (1 << 16) ? 1 : std::max(1u, std::thread::hardware_concurrency());
  if (threads == 1) return FillNormalRange(key, first, n, mean, std, out);
  std::vector<std::thread> pool;
  const int64_t per = (n + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const int64_t b = std::min<int64_t>(n, t * per), e = std::min<int64_t>(n, b + per);
    if (b < e) pool.emplace_back(FillNormalRange, key, first + b, e - b, mean, std, out + b);
  }
  for (auto& th : pool) th.join();
}

// ---- The plan: every tensor, its names in both formats and how it is initialized.

struct PlannedTensor {
  TensorRole role;
  int layer;
  std::vector<int64_t> shape;
  float mean = 0, std = 1;
  bool permute = false;  // q/k rows into GGML's RoPE order in the GGUF
};

std::vector<PlannedTensor> Plan(const ModelSpec& s) {
  std::vector<PlannedTensor> plan;
  const int64_t h = s.hidden_size, q = s.QDim(), kv = s.KvDim(), in = s.intermediate_size;
  const bool llama_like = s.arch == Architecture::kLlama || s.arch == Architecture::kMistral;
  auto linear = [&](TensorRole r, int l, int64_t out_dim, int64_t fan_in, bool permute = false) {
    plan.push_back(
        {r, l, {out_dim, fan_in}, 0.0f, 1.0f / std::sqrt(static_cast<float>(fan_in)), permute});
  };
  auto norm = [&](TensorRole r, int l, int64_t n) { plan.push_back({r, l, {n}, 1.0f, 0.1f}); };
  auto bias = [&](TensorRole r, int l, int64_t n, bool permute) {
    plan.push_back({r, l, {n}, 0.0f, 0.1f, permute});
  };
  plan.push_back({TensorRole::kEmbedding, 0, {s.vocab_size, h}, 0.0f, 1.0f});
  for (int l = 0; l < s.num_layers; ++l) {
    norm(TensorRole::kAttnNorm, l, h);
    linear(TensorRole::kWq, l, q, h, llama_like);
    linear(TensorRole::kWk, l, kv, h, llama_like);
    linear(TensorRole::kWv, l, kv, h);
    if (s.attention_bias) {
      bias(TensorRole::kBq, l, q, llama_like);
      bias(TensorRole::kBk, l, kv, llama_like);
      bias(TensorRole::kBv, l, kv, false);
    }
    if (s.qk_norm) {
      norm(TensorRole::kQNorm, l, s.head_dim);
      norm(TensorRole::kKNorm, l, s.head_dim);
    }
    linear(TensorRole::kWo, l, h, q);
    norm(TensorRole::kFfnNorm, l, h);
    linear(TensorRole::kGate, l, in, h);
    linear(TensorRole::kUp, l, in, h);
    linear(TensorRole::kDown, l, h, in);
  }
  norm(TensorRole::kFinalNorm, 0, h);
  plan.push_back({TensorRole::kLmHead, 0, {s.vocab_size, h}, 0.0f, 1.0f});
  return plan;
}

absl::StatusOr<ModelSpec> SpecFor(const MakeModelOptions& o, const HfTokenizerInfo* tok) {
  ModelSpec s;
  s.arch = o.arch;
  const bool qwen = o.arch == Architecture::kQwen2 || o.arch == Architecture::kQwen3;
  switch (o.arch) {
    case Architecture::kLlama:
      s.hf_architecture = "LlamaForCausalLM";
      break;
    case Architecture::kMistral:
      s.hf_architecture = "MistralForCausalLM";
      break;
    case Architecture::kQwen2:
      s.hf_architecture = "Qwen2ForCausalLM";
      break;
    case Architecture::kQwen3:
      s.hf_architecture = "Qwen3ForCausalLM";
      break;
  }
  if (o.preset == ModelPreset::kTiny) {
    s.hidden_size = 64;
    s.intermediate_size = 192;
    s.num_layers = 4;
    s.num_heads = 4;
    s.num_kv_heads = 2;
    s.head_dim = 16;
    s.max_position_embeddings = 4096;
    // Padded to a multiple of 128, as Qwen and Llama 3 pad their embedding tables.
    s.vocab_size = tok != nullptr ? (tok->size + 127) / 128 * 128 : 1024;
  } else {
    s.hidden_size = 1024;
    s.intermediate_size = 3072;
    s.num_layers = 28;
    s.num_heads = 16;
    s.num_kv_heads = 8;
    s.head_dim = 128;
    s.max_position_embeddings = 40960;
    s.vocab_size = 151936;
    if (tok != nullptr && tok->size > s.vocab_size) {
      return absl::InvalidArgumentError(absl::StrCat(tok->dir, ": the tokenizer has ", tok->size,
                                                     " tokens, more than the preset's vocabulary ",
                                                     s.vocab_size));
    }
  }
  s.rms_norm_eps = qwen || o.preset == ModelPreset::kQ06b ? 1e-6f : 1e-5f;
  s.rope_theta = qwen || o.preset == ModelPreset::kQ06b ? 1000000.0f : 500000.0f;
  s.attention_bias = o.arch == Architecture::kQwen2;
  s.qk_norm = o.arch == Architecture::kQwen3;
  s.tie_word_embeddings = false;
  if (o.arch == Architecture::kMistral) {
    s.sliding_window = o.preset == ModelPreset::kTiny ? 32 : 4096;
  }
  if (o.arch == Architecture::kLlama) {
    s.rope_scaling.kind = RopeScaling::Kind::kLlama3;
    s.rope_scaling.factor = 8.0f;
    s.rope_scaling.low_freq_factor = 1.0f;
    s.rope_scaling.high_freq_factor = 4.0f;
    // Small for tiny, so that the scaling changes positions a test can reach.
    s.rope_scaling.original_max_position_embeddings = o.preset == ModelPreset::kTiny ? 64 : 8192;
  }
  if (tok != nullptr) {
    s.bos_token_id = tok->bos_id >= 0 ? tok->bos_id : tok->pad_id;
    s.eos_token_ids = {tok->eos_id >= 0 ? tok->eos_id : 0};
  } else {
    s.bos_token_id = 1;
    s.eos_token_ids = {2};
  }
  return s;
}

// A float as the double with the same shortest decimal form (1e-06, not 9.99999997e-07), so
// config.json reads like a real one and parses back to the same float.
double JsonFloat(float f) { return std::strtod(absl::StrCat(f).c_str(), nullptr); }

std::string TorchDtype(DType d) {
  switch (d) {
    case DType::kBF16:
      return "bfloat16";
    case DType::kF16:
      return "float16";
    default:
      return "float32";
  }
}

OJson HfConfigJson(const ModelSpec& s, DType dtype) {
  OJson j;
  j["architectures"] = {s.hf_architecture};
  j["model_type"] = ArchitectureName(s.arch);
  j["vocab_size"] = s.vocab_size;
  j["hidden_size"] = s.hidden_size;
  j["intermediate_size"] = s.intermediate_size;
  j["num_hidden_layers"] = s.num_layers;
  j["num_attention_heads"] = s.num_heads;
  j["num_key_value_heads"] = s.num_kv_heads;
  j["head_dim"] = s.head_dim;
  j["hidden_act"] = "silu";
  j["max_position_embeddings"] = s.max_position_embeddings;
  j["rms_norm_eps"] = JsonFloat(s.rms_norm_eps);
  j["rope_theta"] = JsonFloat(s.rope_theta);
  if (s.rope_scaling.kind == RopeScaling::Kind::kLlama3) {
    j["rope_scaling"] = {
        {"rope_type", "llama3"},
        {"factor", JsonFloat(s.rope_scaling.factor)},
        {"low_freq_factor", JsonFloat(s.rope_scaling.low_freq_factor)},
        {"high_freq_factor", JsonFloat(s.rope_scaling.high_freq_factor)},
        {"original_max_position_embeddings", s.rope_scaling.original_max_position_embeddings}};
    // Some versions of convert_hf_to_gguf.py read original_max_position_embeddings from the
    // top level of config.json; repeat it there so every converter computes the same factors.
    j["original_max_position_embeddings"] = s.rope_scaling.original_max_position_embeddings;
  } else {
    j["rope_scaling"] = nullptr;
  }
  j["attention_bias"] = s.attention_bias;
  j["attention_dropout"] = 0.0;
  if (s.arch == Architecture::kLlama) j["mlp_bias"] = false;
  if (s.arch == Architecture::kMistral) j["sliding_window"] = s.sliding_window;
  if (s.arch == Architecture::kQwen2 || s.arch == Architecture::kQwen3) {
    j["use_sliding_window"] = false;
    j["sliding_window"] = nullptr;
    j["max_window_layers"] = s.num_layers;
  }
  j["tie_word_embeddings"] = s.tie_word_embeddings;
  j["bos_token_id"] = s.bos_token_id;
  j["eos_token_id"] =
      s.eos_token_ids.size() == 1 ? OJson(s.eos_token_ids[0]) : OJson(s.eos_token_ids);
  j["initializer_range"] = 0.02;
  j["use_cache"] = true;
  j["torch_dtype"] = TorchDtype(dtype);
  j["transformers_version"] = "4.51.0";
  return j;
}

OJson GenerationConfigJson(const ModelSpec& s, const HfTokenizerInfo* tok) {
  OJson j;
  j["bos_token_id"] = s.bos_token_id;
  std::vector<int> eos = s.eos_token_ids;
  if (tok != nullptr && tok->pad_id >= 0 && tok->pad_id != eos[0]) eos.push_back(tok->pad_id);
  j["eos_token_id"] = eos;
  j["do_sample"] = true;
  if (s.arch == Architecture::kQwen2 || s.arch == Architecture::kQwen3) {
    j["temperature"] = 0.6;
    j["top_p"] = 0.95;
    j["top_k"] = 20;
  } else {
    j["temperature"] = 0.6;
    j["top_p"] = 0.9;
  }
  j["transformers_version"] = "4.51.0";
  return j;
}

absl::Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat(path, ": write failed"));
  return absl::OkStatus();
}

std::string DisplayName(const ModelSpec& s, ModelPreset preset) {
  std::string arch = ArchitectureName(s.arch);
  arch[0] = absl::ascii_toupper(arch[0]);
  return absl::StrCat("Strata Random ", arch, preset == ModelPreset::kTiny ? " Tiny" : " 0.6B");
}

void AddGgufHparams(const ModelSpec& s, ModelPreset preset, DType gguf_dtype, GgufWriter* w) {
  const bool llama_like = s.arch == Architecture::kLlama || s.arch == Architecture::kMistral;
  const std::string arch = llama_like ? "llama" : ArchitectureName(s.arch);
  const std::string p = arch + ".";
  w->Set("general.architecture", GgufValue::Str(arch));
  w->Set("general.type", GgufValue::Str("model"));
  w->Set("general.name", GgufValue::Str(DisplayName(s, preset)));
  w->Set(p + "block_count", GgufValue::U32(s.num_layers));
  w->Set(p + "context_length", GgufValue::U32(s.max_position_embeddings));
  w->Set(p + "embedding_length", GgufValue::U32(s.hidden_size));
  w->Set(p + "feed_forward_length", GgufValue::U32(s.intermediate_size));
  w->Set(p + "attention.head_count", GgufValue::U32(s.num_heads));
  w->Set(p + "attention.head_count_kv", GgufValue::U32(s.num_kv_heads));
  w->Set(p + "rope.freq_base", GgufValue::F32(s.rope_theta));
  w->Set(p + "attention.layer_norm_rms_epsilon", GgufValue::F32(s.rms_norm_eps));
  w->Set(p + "attention.key_length", GgufValue::U32(s.head_dim));
  w->Set(p + "attention.value_length", GgufValue::U32(s.head_dim));
  w->Set("general.file_type", GgufValue::U32(GgufFileType(gguf_dtype)));
  if (llama_like) {
    w->Set(p + "vocab_size", GgufValue::U32(s.vocab_size));
    w->Set(p + "rope.dimension_count", GgufValue::U32(s.head_dim));
  }
  if (s.rope_scaling.kind == RopeScaling::Kind::kLinear) {
    w->Set(p + "rope.scaling.type", GgufValue::Str("linear"));
    w->Set(p + "rope.scaling.factor", GgufValue::F32(s.rope_scaling.factor));
  }
  if (s.sliding_window > 0) {
    // Not written by llama.cpp's converter for arch llama (llama.cpp ignores it there); Strata
    // reads it so the GGUF carries the same spec as the HF directory.
    w->Set(p + "attention.sliding_window", GgufValue::U32(s.sliding_window));
  }
  w->Set("general.quantization_version", GgufValue::U32(2));
}

}  // namespace

absl::StatusOr<ModelPreset> ParseModelPreset(const std::string& name) {
  if (name == "tiny") return ModelPreset::kTiny;
  if (name == "q06b") return ModelPreset::kQ06b;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown preset '", name, "' (expected tiny or q06b)"));
}

absl::StatusOr<Architecture> ParseArchitecture(const std::string& name) {
  const std::string n = absl::AsciiStrToLower(name);
  if (n == "llama") return Architecture::kLlama;
  if (n == "qwen2") return Architecture::kQwen2;
  if (n == "qwen3") return Architecture::kQwen3;
  if (n == "mistral") return Architecture::kMistral;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown architecture '", name, "' (expected llama, qwen2, qwen3 or mistral)"));
}

absl::StatusOr<ModelSpec> RandomModelSpec(const MakeModelOptions& options) {
  if (options.tokenizer_dir.empty()) return SpecFor(options, nullptr);
  ASSIGN_OR_RETURN(HfTokenizerInfo tok, ReadHfTokenizer(options.tokenizer_dir));
  return SpecFor(options, &tok);
}

std::string RandomModelHfDir(const MakeModelOptions& options) {
  return (fs::path(options.out_dir) / "hf").string();
}

std::string RandomModelGgufPath(const MakeModelOptions& options) {
  const DType d = options.gguf_dtype.value_or(options.hf_dtype);
  return (fs::path(options.out_dir) / absl::StrCat("model-", std::string(DTypeName(d)), ".gguf"))
      .string();
}

absl::Status MakeRandomModel(const MakeModelOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  const DType hf_dtype = o.hf_dtype;
  const DType gguf_dtype = o.gguf_dtype.value_or(hf_dtype);
  if (hf_dtype != DType::kF32 && hf_dtype != DType::kBF16 && hf_dtype != DType::kF16) {
    return absl::InvalidArgumentError(
        absl::StrCat("HF dtype must be f32, bf16 or f16, not ", std::string(DTypeName(hf_dtype))));
  }
  if (gguf_dtype == DType::kI32) {
    return absl::InvalidArgumentError("GGUF dtype must be f32, bf16, f16 or q8_0");
  }
  if (o.out_dir.empty()) return absl::InvalidArgumentError("no output directory given");
  std::optional<HfTokenizerInfo> tok;
  if (!o.tokenizer_dir.empty()) {
    ASSIGN_OR_RETURN(tok, ReadHfTokenizer(o.tokenizer_dir));
  }
  const HfTokenizerInfo* tokp = tok.has_value() ? &*tok : nullptr;
  ASSIGN_OR_RETURN(ModelSpec spec, SpecFor(o, tokp));

  const std::string hf_dir = RandomModelHfDir(o);
  const std::string gguf_path = RandomModelGgufPath(o);
  std::error_code ec;
  fs::create_directories(hf_dir, ec);
  if (ec) return absl::InternalError(absl::StrCat(hf_dir, ": ", ec.message()));

  RETURN_IF_ERROR(WriteText((fs::path(hf_dir) / "config.json").string(),
                            HfConfigJson(spec, hf_dtype).dump(2) + "\n"));
  RETURN_IF_ERROR(WriteText((fs::path(hf_dir) / "generation_config.json").string(),
                            GenerationConfigJson(spec, tokp).dump(2) + "\n"));
  if (tokp != nullptr) {
    for (const char* f : {"tokenizer.json", "tokenizer_config.json"}) {
      fs::copy_file(fs::path(o.tokenizer_dir) / f, fs::path(hf_dir) / f,
                    fs::copy_options::overwrite_existing, ec);
      if (ec) return absl::InternalError(absl::StrCat(o.tokenizer_dir, "/", f, ": ", ec.message()));
    }
  }

  // Declare every tensor in both files, in the same order.
  const std::vector<PlannedTensor> plan = Plan(spec);
  SafetensorsWriter st;
  st.SetMetadata("format", "pt");
  GgufWriter gg;
  AddGgufHparams(spec, o.preset, gguf_dtype, &gg);
  if (tokp != nullptr) {
    AddGgufTokenizer(*tokp, spec.vocab_size, spec.bos_token_id, &gg);
  } else {
    gg.Set("tokenizer.ggml.model", GgufValue::Str("none"));
    gg.Set("tokenizer.ggml.bos_token_id", GgufValue::U32(spec.bos_token_id));
    gg.Set("tokenizer.ggml.eos_token_id", GgufValue::U32(spec.eos_token_ids[0]));
  }
  std::vector<float> rope_factors;
  if (spec.rope_scaling.kind == RopeScaling::Kind::kLlama3) {
    rope_factors = Llama3RopeFactors(spec);
    gg.AddTensor("rope_freqs.weight", GgmlType::kF32, {static_cast<int64_t>(rope_factors.size())});
  }
  std::vector<GgmlType> gguf_types;
  uint64_t total_elements = 0;
  for (const PlannedTensor& t : plan) {
    st.AddTensor(HfTensorName(static_cast<int>(t.role), t.layer), hf_dtype, t.shape);
    GgmlType type = GgmlType::kF32;
    if (t.shape.size() > 1) {
      ASSIGN_OR_RETURN(type, GgmlTypeFromDType(gguf_dtype));
      // The converter falls back to f16 where q8_0 blocks do not fit a row.
      if (type == GgmlType::kQ8_0 && t.shape.back() % kQ8BlockSize != 0) type = GgmlType::kF16;
    }
    gguf_types.push_back(type);
    gg.AddTensor(GgufTensorName(static_cast<int>(t.role), t.layer), type, t.shape);
    total_elements += t.shape.size() > 1 ? t.shape[0] * t.shape[1] : t.shape[0];
  }
  RETURN_IF_ERROR(st.Open((fs::path(hf_dir) / "model.safetensors").string()));
  RETURN_IF_ERROR(gg.Open(gguf_path));
  if (!rope_factors.empty()) {
    RETURN_IF_ERROR(gg.AppendData(rope_factors.data(), rope_factors.size() * sizeof(float)));
  }

  // Stream: generate a slice of rows once, write it to both files.
  std::unique_ptr<Progress> progress;
  if (o.show_progress) {
    progress = std::make_unique<Progress>(absl::StrCat("Writing ", o.out_dir), total_elements);
  }
  std::vector<float> values, permuted;
  std::vector<uint8_t> hf_bytes, gguf_bytes;
  for (size_t k = 0; k < plan.size(); ++k) {
    const PlannedTensor& t = plan[k];
    const std::string hf_name = HfTensorName(static_cast<int>(t.role), t.layer);
    const uint64_t key = TensorKey(o.seed, hf_name);
    const int64_t rows = t.shape[0];
    const int64_t row_len = t.shape.size() > 1 ? t.shape[1] : 1;
    int64_t chunk_rows = std::max<int64_t>(1, (int64_t{1} << 20) / row_len);
    if (t.permute) chunk_rows = std::max<int64_t>(1, chunk_rows / spec.head_dim) * spec.head_dim;
    const DType gguf_t = gguf_types[k] == GgmlType::kF32    ? DType::kF32
                         : gguf_types[k] == GgmlType::kF16  ? DType::kF16
                         : gguf_types[k] == GgmlType::kBF16 ? DType::kBF16
                                                            : DType::kQ8_0;
    for (int64_t r0 = 0; r0 < rows; r0 += chunk_rows) {
      const int64_t nr = std::min(chunk_rows, rows - r0);
      const int64_t n = nr * row_len;
      values.resize(n);
      FillNormal(key, r0 * row_len, n, t.mean, t.std, values.data());
      hf_bytes.resize(DTypeBytes(hf_dtype, n));
      FromF32(values.data(), n, hf_dtype, hf_bytes.data());
      RETURN_IF_ERROR(st.AppendData(hf_bytes.data(), hf_bytes.size()));
      if (hf_dtype != DType::kF32) {
        // The GGUF gets exactly the values the HF file holds.
        Tensor view;
        view.dtype = hf_dtype;
        view.shape = {n};
        view.data = hf_bytes.data();
        values = ToF32(view);
      }
      const float* src = values.data();
      if (t.permute) {
        permuted.resize(n);
        PermuteRowsHfToGguf(values.data(), nr, row_len * sizeof(float), spec.head_dim,
                            permuted.data());
        src = permuted.data();
      }
      gguf_bytes.resize(DTypeBytes(gguf_t, n));
      FromF32(src, n, gguf_t, gguf_bytes.data());
      RETURN_IF_ERROR(gg.AppendData(gguf_bytes.data(), gguf_bytes.size()));
      if (progress) progress->Advance(n);
    }
  }
  RETURN_IF_ERROR(st.Close());
  RETURN_IF_ERROR(gg.Close());
  if (progress) progress->Finish();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  spdlog::info("wrote random {} model ({} parameters) to {} and {} in {:.1f}s",
               ArchitectureName(spec.arch), total_elements, hf_dir, gguf_path, seconds);
  return absl::OkStatus();
}

}  // namespace strata
