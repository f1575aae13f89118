#include "model/hf_loader.h"

#include <filesystem>
#include <map>

#include "absl/strings/str_cat.h"
#include "model/hf_config.h"
#include "model/safetensors_file.h"
#include "model/weight_builder.h"
#include "model/weight_convert.h"
#include "nlohmann/json.hpp"
#include "strata/status_macros.h"

namespace strata {

std::string HfTensorName(int role_int, int layer) {
  const auto role = static_cast<TensorRole>(role_int);
  const std::string l = absl::StrCat("model.layers.", layer, ".");
  switch (role) {
    case TensorRole::kEmbedding:
      return "model.embed_tokens.weight";
    case TensorRole::kFinalNorm:
      return "model.norm.weight";
    case TensorRole::kLmHead:
      return "lm_head.weight";
    case TensorRole::kAttnNorm:
      return l + "input_layernorm.weight";
    case TensorRole::kWq:
      return l + "self_attn.q_proj.weight";
    case TensorRole::kWk:
      return l + "self_attn.k_proj.weight";
    case TensorRole::kWv:
      return l + "self_attn.v_proj.weight";
    case TensorRole::kWo:
      return l + "self_attn.o_proj.weight";
    case TensorRole::kBq:
      return l + "self_attn.q_proj.bias";
    case TensorRole::kBk:
      return l + "self_attn.k_proj.bias";
    case TensorRole::kBv:
      return l + "self_attn.v_proj.bias";
    case TensorRole::kQNorm:
      return l + "self_attn.q_norm.weight";
    case TensorRole::kKNorm:
      return l + "self_attn.k_norm.weight";
    case TensorRole::kFfnNorm:
      return l + "post_attention_layernorm.weight";
    case TensorRole::kGate:
      return l + "mlp.gate_proj.weight";
    case TensorRole::kUp:
      return l + "mlp.up_proj.weight";
    case TensorRole::kDown:
      return l + "mlp.down_proj.weight";
  }
  return "";
}

absl::StatusOr<std::unique_ptr<ModelWeights>> LoadHfModel(const std::string& dir) {
  namespace fs = std::filesystem;
  auto w = std::make_unique<ModelWeights>();
  w->source_path = dir;
  w->format = "hf";
  const std::string config_path = (fs::path(dir) / "config.json").string();
  ASSIGN_OR_RETURN(std::string config_text, ReadTextFile(config_path));
  ASSIGN_OR_RETURN(w->spec, ParseHfConfig(config_text, config_path));
  w->generation.eos_token_ids = w->spec.eos_token_ids;
  const std::string gen_path = (fs::path(dir) / "generation_config.json").string();
  if (fs::exists(gen_path)) {
    ASSIGN_OR_RETURN(std::string gen_text, ReadTextFile(gen_path));
    ASSIGN_OR_RETURN(w->generation, ParseGenerationConfig(gen_text, gen_path, w->spec));
  }

  // Which file holds each tensor.
  const std::string index_path = (fs::path(dir) / "model.safetensors.index.json").string();
  const std::string single_path = (fs::path(dir) / "model.safetensors").string();
  std::map<std::string, std::string> weight_map;  // tensor → file path (sharded only)
  std::vector<std::string> files;
  const bool sharded = fs::exists(index_path);
  if (sharded) {
    ASSIGN_OR_RETURN(std::string index_text, ReadTextFile(index_path));
    nlohmann::json index = nlohmann::json::parse(index_text, nullptr, false);
    if (index.is_discarded() || !index.is_object() || !index.contains("weight_map") ||
        !index["weight_map"].is_object()) {
      return absl::InvalidArgumentError(absl::StrCat(index_path, ": no weight_map object"));
    }
    for (auto it = index["weight_map"].begin(); it != index["weight_map"].end(); ++it) {
      if (!it.value().is_string()) {
        return absl::InvalidArgumentError(
            absl::StrCat(index_path, ": weight_map entry '", it.key(), "' is not a file name"));
      }
      const std::string file = it.value().get<std::string>();
      if (file.find('/') != std::string::npos) {
        return absl::InvalidArgumentError(
            absl::StrCat(index_path, ": weight_map file '", file, "' is not in the directory"));
      }
      const std::string p = (fs::path(dir) / file).string();
      weight_map[it.key()] = p;
      if (std::find(files.begin(), files.end(), p) == files.end()) files.push_back(p);
    }
  } else if (fs::exists(single_path)) {
    files.push_back(single_path);
  } else {
    return absl::NotFoundError(absl::StrCat(
        dir, ": no model.safetensors or model.safetensors.index.json in the directory"));
  }
  std::map<std::string, std::unique_ptr<SafetensorsFile>> parsed;
  for (const std::string& p : files) {
    ASSIGN_OR_RETURN(auto mapped, MappedFile::Open(p));
    ASSIGN_OR_RETURN(auto st, SafetensorsFile::Parse(*mapped));
    parsed[p] = std::move(st);
    w->files.push_back(std::move(mapped));
  }

  TensorSource src;
  src.name = [](TensorRole role, int layer) { return HfTensorName(static_cast<int>(role), layer); };
  src.file_of = [&](const std::string& name) -> std::string {
    if (!sharded) return single_path;
    auto it = weight_map.find(name);
    return it == weight_map.end() ? index_path : it->second;
  };
  src.has = [&](const std::string& name) {
    const std::string f = src.file_of(name);
    auto it = parsed.find(f);
    return it != parsed.end() && it->second->Find(name) != nullptr;
  };
  src.get = [&](const std::string& name) -> absl::StatusOr<Tensor> {
    const std::string f = src.file_of(name);
    auto it = parsed.find(f);
    if (it == parsed.end()) {
      return absl::NotFoundError(
          absl::StrCat(f, ": tensor '", name, "' is missing (not in weight_map)"));
    }
    return it->second->Get(name);
  };
  RETURN_IF_ERROR(BuildWeights(src, w.get()));

  if (w->spec.rope_scaling.kind == RopeScaling::Kind::kLlama3) {
    const std::vector<float> factors = Llama3RopeFactors(w->spec);
    Tensor t;
    t.dtype = DType::kF32;
    t.shape = {static_cast<int64_t>(factors.size())};
    t.data = factors.data();
    w->rope_freqs = OwnedF32(t, w.get());
  }
  return w;
}

}  // namespace strata
