#include "model/gguf_vocab.h"

#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "model/hf_config.h"
#include "nlohmann/json.hpp"
#include "strata/status_macros.h"

namespace strata {
namespace {

using Json = nlohmann::json;

// convert_hf_to_gguf.py's does_token_look_special.
bool LooksSpecial(const std::string& t) {
  if (t == "<pad>" || t == "<mask>" || t == "<2mass>" || t == "[@BOS@]") return true;
  if (absl::StartsWith(t, "<|") && absl::EndsWith(t, "|>")) return true;
  if (absl::StartsWith(t, "<\xef\xbd\x9c") && absl::EndsWith(t, "\xef\xbd\x9c>")) return true;
  if (absl::StartsWith(t, "<unused") && absl::EndsWith(t, ">")) return true;
  return false;
}

// tokenizer_config.json's "<typ>_token": a string, {"content": ...} or null.
std::string SpecialContent(const Json& config, const std::string& key) {
  if (!config.contains(key)) return "";
  const Json& v = config[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) {
    return v["content"].get<std::string>();
  }
  return "";
}

}  // namespace

absl::StatusOr<HfTokenizerInfo> ReadHfTokenizer(const std::string& dir) {
  namespace fs = std::filesystem;
  HfTokenizerInfo info;
  info.dir = dir;
  const std::string tok_path = (fs::path(dir) / "tokenizer.json").string();
  const std::string cfg_path = (fs::path(dir) / "tokenizer_config.json").string();
  ASSIGN_OR_RETURN(std::string tok_text, ReadTextFile(tok_path));
  ASSIGN_OR_RETURN(std::string cfg_text, ReadTextFile(cfg_path));
  Json tok = Json::parse(tok_text, nullptr, false);
  Json cfg = Json::parse(cfg_text, nullptr, false);
  if (tok.is_discarded() || !tok.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(tok_path, ": not a JSON object"));
  }
  if (cfg.is_discarded() || !cfg.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(cfg_path, ": not a JSON object"));
  }
  try {
    const Json& model = tok["model"];
    if (!model.is_object() || model.value("type", "") != "BPE" || !model["vocab"].is_object()) {
      return absl::InvalidArgumentError(
          absl::StrCat(tok_path, ": only byte-level BPE tokenizers are supported"));
    }
    std::map<int, std::pair<std::string, const Json*>> by_id;  // id → (token, added entry)
    for (auto it = model["vocab"].begin(); it != model["vocab"].end(); ++it) {
      by_id[it.value().get<int>()] = {it.key(), nullptr};
    }
    if (tok.contains("added_tokens") && tok["added_tokens"].is_array()) {
      for (const Json& a : tok["added_tokens"]) {
        by_id[a["id"].get<int>()] = {a["content"].get<std::string>(), &a};
      }
    }
    if (by_id.empty() || by_id.begin()->first < 0) {
      return absl::InvalidArgumentError(absl::StrCat(tok_path, ": bad vocabulary"));
    }
    info.size = by_id.rbegin()->first + 1;
    info.tokens.assign(info.size, "");
    info.token_types.assign(info.size, kTokenUnused);
    std::map<std::string, int> id_of;
    for (const auto& [id, entry] : by_id) {
      info.tokens[id] = entry.first;
      id_of[entry.first] = id;
      if (entry.second == nullptr) {
        info.token_types[id] = kTokenNormal;
      } else {
        const bool special = entry.second->value("special", false);
        info.token_types[id] =
            special || LooksSpecial(entry.first) ? kTokenControl : kTokenUserDefined;
      }
    }
    for (const Json& m : model["merges"]) {
      if (m.is_string()) {
        info.merges.push_back(m.get<std::string>());
      } else if (m.is_array() && m.size() == 2) {
        info.merges.push_back(absl::StrCat(m[0].get<std::string>(), " ", m[1].get<std::string>()));
      }
    }
    // Pre-tokenizer: llama.cpp identifies it by a hash of the tokenization of a test text;
    // the two families Strata ships differ visibly in how digits are split.
    const std::string pre_json = tok.contains("pre_tokenizer") ? tok["pre_tokenizer"].dump() : "";
    if (cfg.value("tokenizer_class", "") == "Qwen2Tokenizer") {
      info.pre = "qwen2";
    } else if (absl::StrContains(pre_json, "\\\\p{N}{1,3}")) {
      info.pre = "llama-bpe";
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(tok_path, ": unknown pre-tokenizer (supported: Qwen2 and Llama 3 style)"));
    }
    auto lookup = [&](const std::string& key) {
      const std::string content = SpecialContent(cfg, key);
      auto it = id_of.find(content);
      return content.empty() || it == id_of.end() ? -1 : it->second;
    };
    info.bos_id = lookup("bos_token");
    info.eos_id = lookup("eos_token");
    info.pad_id = lookup("pad_token");
    info.unk_id = lookup("unk_token");
    if (cfg.contains("add_bos_token") && cfg["add_bos_token"].is_boolean()) {
      info.add_bos = cfg["add_bos_token"].get<bool>();
    } else if (info.bos_id >= 0) {
      info.add_bos = true;  // Llama 3: the bos is prepended (llama.cpp's llama-bpe default)
    }
    if (cfg.contains("chat_template")) {
      const Json& ct = cfg["chat_template"];
      if (ct.is_string()) {
        info.chat_template = ct.get<std::string>();
      } else if (ct.is_array()) {
        for (const Json& e : ct) {
          if (e.value("name", "") == "default") info.chat_template = e.value("template", "");
        }
      }
    }
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(tok_path, ": ", e.what()));
  }
  return info;
}

void AddGgufTokenizer(const HfTokenizerInfo& tok, int vocab_size, int bos_id, GgufWriter* w) {
  std::vector<std::string> tokens(vocab_size);
  std::vector<int32_t> types(vocab_size, kTokenUnused);
  for (int i = 0; i < vocab_size; ++i) {
    if (i < tok.size && !tok.tokens[i].empty()) {
      tokens[i] = tok.tokens[i];
      types[i] = tok.token_types[i];
    } else {
      tokens[i] = absl::StrCat("[PAD", i, "]");
      types[i] = kTokenUnused;
    }
  }
  w->Set("tokenizer.ggml.model", GgufValue::Str("gpt2"));
  w->Set("tokenizer.ggml.pre", GgufValue::Str(tok.pre));
  w->Set("tokenizer.ggml.tokens", GgufValue::StrArray(tokens));
  w->Set("tokenizer.ggml.token_type", GgufValue::I32Array(types));
  w->Set("tokenizer.ggml.merges", GgufValue::StrArray(tok.merges));
  const int bos = tok.bos_id >= 0 ? tok.bos_id : bos_id;
  if (bos >= 0) w->Set("tokenizer.ggml.bos_token_id", GgufValue::U32(bos));
  if (tok.eos_id >= 0) w->Set("tokenizer.ggml.eos_token_id", GgufValue::U32(tok.eos_id));
  if (tok.unk_id >= 0) w->Set("tokenizer.ggml.unknown_token_id", GgufValue::U32(tok.unk_id));
  if (tok.pad_id >= 0) w->Set("tokenizer.ggml.padding_token_id", GgufValue::U32(tok.pad_id));
  if (tok.add_bos.has_value())
    w->Set("tokenizer.ggml.add_bos_token", GgufValue::Bool(*tok.add_bos));
  if (!tok.chat_template.empty()) {
    w->Set("tokenizer.chat_template", GgufValue::Str(tok.chat_template));
  }
}

}  // namespace strata
