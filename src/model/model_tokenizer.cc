#include "model/model_tokenizer.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "model/gguf_file.h"
#include "spdlog/spdlog.h"
#include "strata/mapped_file.h"
#include "strata/status_macros.h"

namespace strata {
namespace {

// An array-valued key: NotFound when absent (`required`) or null when optional and absent;
// InvalidArgument when it is not an array of `want` (integers: any integer type).
absl::StatusOr<const GgufValue*> FindArray(const GgufFile& g, const std::string& key, bool integers,
                                           GgufType want, bool required) {
  const GgufValue* v = g.Find(key);
  if (v == nullptr) {
    if (!required) return nullptr;
    return absl::InvalidArgumentError(
        absl::StrCat(g.path(), ": missing tokenizer metadata key '", key, "'"));
  }
  bool ok = v->type == GgufType::kArray;
  if (ok) {
    if (integers) {
      GgufValue probe;
      probe.type = v->array_type;
      ok = probe.IsInteger() && v->array_type != GgufType::kBool;
    } else {
      ok = v->array_type == want ||
           (want == GgufType::kFloat32 && v->array_type == GgufType::kFloat64);
    }
  }
  if (!ok) {
    std::string got(GgufTypeName(v->type));
    if (v->type == GgufType::kArray) got += " of " + std::string(GgufTypeName(v->array_type));
    return absl::InvalidArgumentError(
        absl::StrCat(g.path(), ": metadata key '", key, "' is ", got, ", expected an array of ",
                     integers ? "integers" : std::string(GgufTypeName(want))));
  }
  return v;
}

// Optional integer / bool keys keep `*out` when absent; a present key of the wrong type is an
// error (GgufFile's accessors name the file and key). Like llama.cpp, a special-token id outside
// the vocabulary is ignored with a warning (some published GGUFs carry such ids).
absl::Status ReadOptionalId(const GgufFile& g, const std::string& key, size_t vocab_size,
                            int32_t* out) {
  if (g.Find(key) == nullptr) return absl::OkStatus();
  ASSIGN_OR_RETURN(int64_t v, g.GetInt(key));
  if (v < 0 || static_cast<uint64_t>(v) >= vocab_size) {
    spdlog::warn("{}: metadata key '{}' = {} is outside the {}-token vocabulary; ignored", g.path(),
                 key, v, vocab_size);
    return absl::OkStatus();
  }
  *out = static_cast<int32_t>(v);
  return absl::OkStatus();
}

absl::Status ReadOptionalBool(const GgufFile& g, const std::string& key, bool* out) {
  if (g.Find(key) == nullptr) return absl::OkStatus();
  ASSIGN_OR_RETURN(*out, g.GetBool(key));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<GgufVocab> ReadGgufVocab(const GgufFile& g) {
  GgufVocab v;
  if (g.Find("tokenizer.ggml.model") == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(g.path(), ": this GGUF has no tokenizer (no 'tokenizer.ggml.model' key)"));
  }
  ASSIGN_OR_RETURN(v.model, g.GetString("tokenizer.ggml.model"));
  if (v.model == "none" || v.model == "no_vocab") {
    return absl::FailedPreconditionError(absl::StrCat(
        g.path(), ": this GGUF has no tokenizer ('tokenizer.ggml.model' is '", v.model, "')"));
  }
  if (g.Find("tokenizer.ggml.pre") != nullptr) {
    ASSIGN_OR_RETURN(v.pre, g.GetString("tokenizer.ggml.pre"));
  } else {
    v.pre = "default";  // llama.cpp's name when the key is absent
  }

  ASSIGN_OR_RETURN(const GgufValue* tokens,
                   FindArray(g, "tokenizer.ggml.tokens", false, GgufType::kString, true));
  v.tokens.reserve(tokens->array.size());
  for (const GgufValue& t : tokens->array) v.tokens.push_back(t.s);
  const size_t n = v.tokens.size();
  auto check_length = [&](const std::string& key, size_t got) -> absl::Status {
    if (got == n) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(g.path(), ": metadata key '", key, "' has ", got,
                                                   " entries, tokenizer.ggml.tokens has ", n));
  };
  ASSIGN_OR_RETURN(const GgufValue* scores,
                   FindArray(g, "tokenizer.ggml.scores", false, GgufType::kFloat32, false));
  if (scores != nullptr) {
    RETURN_IF_ERROR(check_length("tokenizer.ggml.scores", scores->array.size()));
    v.scores.reserve(n);
    for (const GgufValue& s : scores->array) v.scores.push_back(static_cast<float>(s.f));
  }
  ASSIGN_OR_RETURN(const GgufValue* types,
                   FindArray(g, "tokenizer.ggml.token_type", true, GgufType::kInt32, false));
  if (types != nullptr) {
    RETURN_IF_ERROR(check_length("tokenizer.ggml.token_type", types->array.size()));
    v.token_types.reserve(n);
    for (const GgufValue& t : types->array) v.token_types.push_back(static_cast<int32_t>(t.i));
  }
  ASSIGN_OR_RETURN(const GgufValue* merges,
                   FindArray(g, "tokenizer.ggml.merges", false, GgufType::kString,
                             /*required=*/v.model == "gpt2"));
  if (merges != nullptr) {
    v.merges.reserve(merges->array.size());
    for (const GgufValue& m : merges->array) v.merges.push_back(m.s);
  }

  // llama.cpp's defaults where a key is absent (llama_vocab::impl::load): SentencePiece models
  // have <unk>=0, <s>=1, </s>=2 and add BOS; BPE adds BOS for the Llama 3 pre-tokenizer.
  if (v.model == "llama") {
    v.unk_id = 0;
    v.bos_id = 1;
    v.eos_id = 2;
    v.add_bos = true;
  } else if (v.model == "gpt2") {
    v.add_bos = v.pre == "llama3" || v.pre == "llama-v3" || v.pre == "llama-bpe";
  }
  for (int32_t* id : {&v.bos_id, &v.eos_id, &v.unk_id}) {
    if (*id >= static_cast<int64_t>(n)) *id = -1;  // a default that does not fit
  }
  RETURN_IF_ERROR(ReadOptionalId(g, "tokenizer.ggml.bos_token_id", n, &v.bos_id));
  RETURN_IF_ERROR(ReadOptionalId(g, "tokenizer.ggml.eos_token_id", n, &v.eos_id));
  RETURN_IF_ERROR(ReadOptionalId(g, "tokenizer.ggml.unknown_token_id", n, &v.unk_id));
  RETURN_IF_ERROR(ReadOptionalId(g, "tokenizer.ggml.padding_token_id", n, &v.pad_id));
  RETURN_IF_ERROR(ReadOptionalBool(g, "tokenizer.ggml.add_bos_token", &v.add_bos));
  RETURN_IF_ERROR(ReadOptionalBool(g, "tokenizer.ggml.add_eos_token", &v.add_eos));
  RETURN_IF_ERROR(ReadOptionalBool(g, "tokenizer.ggml.add_space_prefix", &v.add_space_prefix));
  if (g.Find("tokenizer.chat_template") != nullptr) {
    ASSIGN_OR_RETURN(v.chat_template, g.GetString("tokenizer.chat_template"));
  }
  return v;
}

absl::StatusOr<std::unique_ptr<Tokenizer>> LoadModelTokenizer(const std::string& model_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(model_path, ec)) return Tokenizer::FromDirectory(model_path);
  if (!fs::exists(model_path, ec)) {
    return absl::NotFoundError(absl::StrCat(model_path, ": no such file or directory"));
  }
  ASSIGN_OR_RETURN(auto mapped, MappedFile::Open(model_path));
  ASSIGN_OR_RETURN(auto gguf, GgufFile::Parse(*mapped));
  ASSIGN_OR_RETURN(GgufVocab vocab, ReadGgufVocab(*gguf));
  auto tokenizer = Tokenizer::FromGgufVocab(vocab);
  if (!tokenizer.ok()) {
    return absl::Status(tokenizer.status().code(),
                        absl::StrCat(model_path, ": tokenizer: ", tokenizer.status().message()));
  }
  return tokenizer;
}

}  // namespace strata
