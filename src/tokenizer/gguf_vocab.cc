// Builds a TokenizerImpl from a GGUF vocabulary (`tokenizer.ggml.*`), mirroring how Hugging Face
// converts the same vocabularies: "gpt2" is byte-level BPE with the pre-tokenizer regexes llama.cpp
// associates with `tokenizer.ggml.pre`; "llama" is SentencePiece BPE whose merges are derived from
// the token scores the way transformers' SentencePieceExtractor does.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "tokenizer/tokenizer_impl.h"
#include "tokenizer/unicode.h"

namespace strata {
namespace {

constexpr char kGpt2Regex[] =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr char kLlama3Regex[] =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr char kQwen2Regex[] =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr char kGpt4oRegex[] =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr char kDeepSeekV3Digits[] = R"(\p{N}{1,3})";
constexpr char kDeepSeekV3Cjk[] = "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+";
constexpr char kDeepSeekV3Main[] =
    R"([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

std::vector<std::string> RegexesFor(const std::string& pre) {
  if (pre == "llama3" || pre == "llama-bpe" || pre == "llama-v3" || pre == "smaug-bpe") {
    return {kLlama3Regex};
  }
  if (pre == "qwen2" || pre == "qwen35") return {kQwen2Regex};
  if (pre == "gpt-4o" || pre == "gpt-oss") return {kGpt4oRegex};
  if (pre == "deepseek-v3") return {kDeepSeekV3Digits, kDeepSeekV3Cjk, kDeepSeekV3Main};
  return {kGpt2Regex};
}

constexpr int kTypeNormal = 1, kTypeUnknown = 2, kTypeControl = 3, kTypeUserDefined = 4,
              kTypeByte = 6;

}  // namespace

absl::StatusOr<std::unique_ptr<TokenizerImpl>> LoadGgufVocab(const GgufVocab& v) {
  const size_t n = v.tokens.size();
  if (n == 0) return absl::InvalidArgumentError("GGUF vocabulary is empty");
  if (!v.token_types.empty() && v.token_types.size() != n) {
    return absl::InvalidArgumentError("GGUF token_type has the wrong length");
  }
  if (!v.scores.empty() && v.scores.size() != n) {
    return absl::InvalidArgumentError("GGUF scores have the wrong length");
  }
  auto type_of = [&](size_t i) { return v.token_types.empty() ? kTypeNormal : v.token_types[i]; };
  auto impl = std::make_unique<TokenizerImpl>();
  std::vector<std::pair<std::string, int32_t>> vocab;
  vocab.reserve(n);
  for (size_t i = 0; i < n; ++i) vocab.emplace_back(v.tokens[i], static_cast<int32_t>(i));

  std::vector<std::pair<std::string, std::string>> merges;
  tokenizer::BpeOptions options;
  if (v.model == "gpt2") {
    for (const std::string& m : v.merges) {
      size_t space = m.find(' ', 1);
      if (space == std::string::npos) return absl::InvalidArgumentError("bad GGUF merge " + m);
      merges.emplace_back(m.substr(0, space), m.substr(space + 1));
    }
    options.ignore_merges = v.pre == "llama3" || v.pre == "llama-bpe" || v.pre == "llama-v3" ||
                            v.pre == "gpt-4o" || v.pre == "gpt-oss";
    auto pre = tokenizer::MakeByteLevelRegexPreTokenizer(RegexesFor(v.pre));
    if (!pre.ok()) return pre.status();
    impl->pre_tokenizer = std::move(*pre);
    impl->byte_level = true;
    impl->decoder = tokenizer::MakeByteLevelDecoder();
  } else if (v.model == "llama") {
    // SentencePiece: merges ranked by the merged piece's score (highest first).
    absl::flat_hash_map<std::string, int32_t> ids;
    for (size_t i = 0; i < n; ++i) ids.emplace(v.tokens[i], static_cast<int32_t>(i));
    struct Candidate {
      float score;
      int32_t left, right;
    };
    std::vector<Candidate> candidates;
    for (size_t i = 0; i < n; ++i) {
      int type = type_of(i);
      if (type != kTypeNormal && type != kTypeUserDefined) continue;
      const std::string& piece = v.tokens[i];
      std::vector<Candidate> local;
      for (size_t k = 1; k < piece.size(); ++k) {
        if ((static_cast<uint8_t>(piece[k]) & 0xC0) == 0x80) continue;
        auto l = ids.find(piece.substr(0, k)), r = ids.find(piece.substr(k));
        if (l != ids.end() && r != ids.end()) {
          local.push_back({v.scores.empty() ? 0.0f : v.scores[i], l->second, r->second});
        }
      }
      std::sort(local.begin(), local.end(), [](const Candidate& a, const Candidate& b) {
        return std::tie(a.left, a.right) < std::tie(b.left, b.right);
      });
      candidates.insert(candidates.end(), local.begin(), local.end());
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
    merges.reserve(candidates.size());
    for (const Candidate& c : candidates) merges.emplace_back(v.tokens[c.left], v.tokens[c.right]);
    options.byte_fallback = true;
    options.fuse_unk = true;
    if (v.unk_id >= 0 && static_cast<size_t>(v.unk_id) < n) options.unk_token = v.tokens[v.unk_id];
    std::vector<std::unique_ptr<tokenizer::Normalizer>> norm;
    if (v.add_space_prefix) norm.push_back(tokenizer::MakePrependNormalizer("\xE2\x96\x81"));
    norm.push_back(tokenizer::MakeReplaceNormalizer(" ", "\xE2\x96\x81"));
    impl->normalizer = tokenizer::MakeSequenceNormalizer(std::move(norm));
    impl->decoder = tokenizer::MakeSentencePieceDecoder(v.add_space_prefix);
  } else {
    return absl::UnimplementedError(
        absl::StrCat("GGUF tokenizer model '", v.model, "' is not supported yet"));
  }
  auto bpe = tokenizer::BpeModel::Create(std::move(vocab), merges, std::move(options));
  if (!bpe.ok()) return bpe.status();
  impl->model = std::move(*bpe);

  std::vector<tokenizer::AddedToken> added;
  for (size_t i = 0; i < n; ++i) {
    int type = type_of(i);
    if (type != kTypeControl && type != kTypeUserDefined && type != kTypeUnknown) continue;
    tokenizer::AddedToken t;
    t.content = v.tokens[i];
    t.id = static_cast<int32_t>(i);
    t.special = type != kTypeUserDefined;
    added.push_back(std::move(t));
  }
  impl->added.Build(std::move(added), impl->normalizer.get());
  impl->vocab_size = static_cast<int32_t>(n);
  impl->bos_id = v.bos_id;
  impl->eos_id = v.eos_id;
  impl->pad_id = v.pad_id;
  impl->unk_id = v.unk_id;
  impl->add_bos_token = v.add_bos;
  impl->add_eos_token = v.add_eos;
  impl->chat_template = v.chat_template;
  impl->post_processor =
      tokenizer::MakeBosEosProcessor(v.add_bos ? v.bos_id : -1, v.add_eos ? v.eos_id : -1);
  (void)kTypeByte;
  return impl;
}

}  // namespace strata
