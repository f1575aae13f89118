// Loads a Hugging Face tokenizer.json (+ tokenizer_config.json, special_tokens_map.json) into a
// TokenizerImpl. nlohmann::json is parsed without exceptions; the few typed accessors that could
// still throw run inside one try block, so no exception leaves this file.
#include "absl/strings/str_cat.h"
#include "tokenizer/json_util.h"
#include "tokenizer/tokenizer_impl.h"

namespace strata {

using tokenizer::Json;
using tokenizer::StrField;
using tokenizer::BoolField;
using tokenizer::Field;

namespace {

absl::StatusOr<std::unique_ptr<tokenizer::BpeModel>> ParseBpe(const Json& m) {
  if (m.contains("dropout") && !m["dropout"].is_null()) {
    return absl::UnimplementedError("tokenizer.json: BPE dropout is not supported");
  }
  std::vector<std::pair<std::string, int32_t>> vocab;
  const Json* v = Field(m, "vocab");
  if (v == nullptr || !v->is_object()) return absl::InvalidArgumentError("BPE model has no vocab");
  vocab.reserve(v->size());
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (!it.value().is_number_integer()) return absl::InvalidArgumentError("bad vocab id");
    vocab.emplace_back(it.key(), it.value().get<int32_t>());
  }
  std::vector<std::pair<std::string, std::string>> merges;
  const Json* mj = Field(m, "merges");
  if (mj != nullptr && mj->is_array()) {
    merges.reserve(mj->size());
    for (const Json& item : *mj) {
      if (item.is_string()) {
        const std::string& s = item.get_ref<const std::string&>();
        size_t space = s.find(' ');
        if (space == std::string::npos) {
          return absl::InvalidArgumentError(absl::StrCat("bad BPE merge '", s, "'"));
        }
        merges.emplace_back(s.substr(0, space), s.substr(space + 1));
      } else if (item.is_array() && item.size() == 2 && item[0].is_string() &&
                 item[1].is_string()) {
        merges.emplace_back(item[0].get<std::string>(), item[1].get<std::string>());
      } else {
        return absl::InvalidArgumentError("bad BPE merge entry");
      }
    }
  }
  tokenizer::BpeOptions options;
  options.byte_fallback = BoolField(m, "byte_fallback", false);
  options.fuse_unk = BoolField(m, "fuse_unk", false);
  options.ignore_merges = BoolField(m, "ignore_merges", false);
  if (const Json* unk = Field(m, "unk_token"); unk != nullptr && unk->is_string()) {
    options.unk_token = unk->get<std::string>();
  }
  options.continuing_subword_prefix = StrField(m, "continuing_subword_prefix");
  options.end_of_word_suffix = StrField(m, "end_of_word_suffix");
  return tokenizer::BpeModel::Create(std::move(vocab), merges, std::move(options));
}

// A config token entry: "<s>" or {"content": "<s>", ...}.
std::string TokenString(const Json& config, const char* key) {
  const Json* f = Field(config, key);
  if (f == nullptr) return "";
  if (f->is_string()) return f->get<std::string>();
  if (f->is_object()) return StrField(*f, "content");
  return "";
}

absl::StatusOr<std::unique_ptr<TokenizerImpl>> Load(const std::string& tokenizer_json,
                                                    const std::string& config_json,
                                                    const std::string& special_map_json) {
  Json j = Json::parse(tokenizer_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError("tokenizer.json is not a JSON object");
  }
  auto impl = std::make_unique<TokenizerImpl>();
  const Json* model = Field(j, "model");
  if (model == nullptr) return absl::InvalidArgumentError("tokenizer.json has no model");
  std::string type = StrField(*model, "type", "BPE");
  if (type != "BPE") {
    return absl::UnimplementedError(
        absl::StrCat("tokenizer.json: model type '", type, "' is not supported yet"));
  }
  auto bpe = ParseBpe(*model);
  if (!bpe.ok()) return bpe.status();
  impl->model = std::move(*bpe);

  if (const Json* n = Field(j, "normalizer")) {
    auto normalizer = tokenizer::ParseNormalizer(*n);
    if (!normalizer.ok()) return normalizer.status();
    impl->normalizer = std::move(*normalizer);
  }
  if (const Json* p = Field(j, "pre_tokenizer")) {
    auto pre = tokenizer::ParsePreTokenizer(*p);
    if (!pre.ok()) return pre.status();
    impl->pre_tokenizer = std::move(*pre);
    impl->byte_level = impl->pre_tokenizer->byte_level();
  }
  if (const Json* p = Field(j, "post_processor")) {
    auto post = tokenizer::ParsePostProcessor(*p);
    if (!post.ok()) return post.status();
    impl->post_processor = std::move(*post);
  }
  if (const Json* d = Field(j, "decoder")) {
    auto decoder = tokenizer::ParseDecoder(*d);
    if (!decoder.ok()) return decoder.status();
    impl->decoder = std::move(*decoder);
  }

  std::vector<tokenizer::AddedToken> added;
  int32_t max_id = impl->model->size() - 1;
  if (const Json* list = Field(j, "added_tokens"); list != nullptr && list->is_array()) {
    for (const Json& a : *list) {
      tokenizer::AddedToken t;
      t.content = StrField(a, "content");
      t.id = static_cast<int32_t>(tokenizer::IntField(a, "id", -1));
      t.single_word = BoolField(a, "single_word", false);
      t.lstrip = BoolField(a, "lstrip", false);
      t.rstrip = BoolField(a, "rstrip", false);
      t.normalized = BoolField(a, "normalized", true);
      t.special = BoolField(a, "special", false);
      if (t.id < 0 || t.content.empty()) continue;
      max_id = std::max(max_id, t.id);
      added.push_back(std::move(t));
    }
  }
  impl->added.Build(std::move(added), impl->normalizer.get());
  impl->vocab_size = max_id + 1;

  // tokenizer_config.json, then special_tokens_map.json for what the config lacks.
  Json config = config_json.empty() ? Json::object()
                                    : Json::parse(config_json, nullptr, false);
  if (config.is_discarded()) return absl::InvalidArgumentError("bad tokenizer_config.json");
  Json special_map = special_map_json.empty() ? Json::object()
                                              : Json::parse(special_map_json, nullptr, false);
  if (special_map.is_discarded()) special_map = Json::object();
  auto id_of = [&](const char* key) -> int32_t {
    std::string s = TokenString(config, key);
    if (s.empty()) s = TokenString(special_map, key);
    if (s.empty()) return -1;
    auto id = impl->PieceToId(s);
    return id.has_value() ? *id : -1;
  };
  impl->bos_id = id_of("bos_token");
  impl->eos_id = id_of("eos_token");
  impl->pad_id = id_of("pad_token");
  impl->unk_id = id_of("unk_token");
  if (impl->unk_id < 0) {
    if (auto unk = StrField(*model, "unk_token"); !unk.empty()) {
      if (auto id = impl->PieceToId(unk)) impl->unk_id = *id;
    }
  }
  impl->add_bos_token = BoolField(config, "add_bos_token", false);
  impl->add_eos_token = BoolField(config, "add_eos_token", false);
  if (const Json* t = Field(config, "chat_template")) {
    if (t->is_string()) {
      impl->chat_template = t->get<std::string>();
    } else if (t->is_array()) {
      for (const Json& entry : *t) {
        if (StrField(entry, "name") == "default") impl->chat_template = StrField(entry, "template");
      }
    }
  }
  return impl;
}

}  // namespace

absl::StatusOr<std::unique_ptr<TokenizerImpl>> LoadTokenizerJson(
    const std::string& tokenizer_json, const std::string& config_json,
    const std::string& special_tokens_map_json) {
  try {
    return Load(tokenizer_json, config_json, special_tokens_map_json);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("malformed tokenizer files: ", e.what()));
  }
}

}  // namespace strata
