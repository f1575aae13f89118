// The encode/decode pipeline of strata::Tokenizer, in HF `tokenizers` order.
#include "strata/tokenizer.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "tokenizer/tokenizer_impl.h"
#include "tokenizer/unicode.h"

namespace strata {

using tokenizer::Piece;
using tokenizer::Segment;

void TokenizerImpl::EncodeText(const std::string& text, bool at_start,
                               std::vector<int32_t>* ids) const {
  std::vector<Piece> pieces;
  pieces.push_back({text, at_start});
  if (pre_tokenizer != nullptr) pre_tokenizer->PreTokenize(&pieces);
  for (const Piece& p : pieces) model->Tokenize(p.text, byte_level, ids);
}

std::vector<int32_t> TokenizerImpl::Encode(std::string_view input,
                                           const EncodeOptions& options) const {
  // HF takes Rust strings, which are valid UTF-8; invalid input is repaired the same way a JS or
  // Python caller's conversion would (U+FFFD).
  std::string repaired;
  if (!tokenizer::IsValidUtf8(input)) {
    repaired = tokenizer::Utf8Lossy(input);
    input = repaired;
  }
  std::vector<int32_t> ids;
  ids.reserve(input.size() / 3 + 4);
  // 1. Added tokens that match the raw text.
  std::vector<Segment> outer;
  added.Split(input, /*normalized_set=*/false, options.parse_special, &outer);
  std::vector<Segment> inner;
  for (const Segment& seg : outer) {
    if (seg.id >= 0) {
      ids.push_back(seg.id);
      continue;
    }
    // 2. Normalize the rest, then cut out added tokens that match normalized text.
    std::string text(input.substr(seg.begin, seg.end - seg.begin));
    if (normalizer != nullptr) normalizer->Normalize(&text);
    inner.clear();
    added.Split(text, /*normalized_set=*/true, options.parse_special, &inner);
    for (const Segment& s : inner) {
      if (s.id >= 0) {
        ids.push_back(s.id);
      } else {
        // 3. Pre-tokenize and run the model.
        EncodeText(text.substr(s.begin, s.end - s.begin), seg.begin == 0 && s.begin == 0, &ids);
      }
    }
  }
  if (options.add_special_tokens && post_processor != nullptr) post_processor->Process(&ids);
  return ids;
}

std::string TokenizerImpl::TokenToPiece(int32_t id) const {
  if (const auto* t = added.FindById(id)) return t->content;
  return model->IdToToken(id);
}

std::optional<int32_t> TokenizerImpl::PieceToId(std::string_view piece) const {
  if (auto id = added.FindByContent(piece)) return id;
  return model->TokenToId(piece);
}

std::string TokenizerImpl::Decode(const std::vector<int32_t>& ids,
                                  bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int32_t id : ids) {
    if (const auto* t = added.FindById(id)) {
      if (skip_special_tokens && t->special) continue;
      tokens.push_back(t->content);
      continue;
    }
    const std::string& token = model->IdToToken(id);
    if (token.empty()) continue;
    tokens.push_back(token);
  }
  if (decoder == nullptr) {
    std::string out;
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (i > 0) out += ' ';
      out += tokens[i];
    }
    return out;
  }
  decoder->DecodeChain(&tokens);
  std::string out;
  for (const std::string& t : tokens) out += t;
  return out;
}

// ---------------------------------------------------------------------------------------------

namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path, bool required) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (required) return absl::NotFoundError(absl::StrCat("cannot open ", path));
    return std::string();
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

Tokenizer::Tokenizer(std::unique_ptr<TokenizerImpl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;

absl::StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::FromDirectory(const std::string& dir) {
  auto json = ReadFile(dir + "/tokenizer.json", true);
  if (!json.ok()) return json.status();
  auto config = ReadFile(dir + "/tokenizer_config.json", false);
  if (!config.ok()) return config.status();
  auto special_map = ReadFile(dir + "/special_tokens_map.json", false);
  if (!special_map.ok()) return special_map.status();
  auto impl = LoadTokenizerJson(*json, *config, *special_map);
  if (!impl.ok()) {
    return absl::Status(impl.status().code(),
                        absl::StrCat(dir, "/tokenizer.json: ", impl.status().message()));
  }
  return std::unique_ptr<Tokenizer>(new Tokenizer(std::move(*impl)));
}

absl::StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::FromJson(const std::string& tokenizer_json,
                                                               const std::string& config_json) {
  auto impl = LoadTokenizerJson(tokenizer_json, config_json, "");
  if (!impl.ok()) return impl.status();
  return std::unique_ptr<Tokenizer>(new Tokenizer(std::move(*impl)));
}

absl::StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::FromGgufVocab(const GgufVocab& vocab) {
  auto impl = LoadGgufVocab(vocab);
  if (!impl.ok()) return impl.status();
  return std::unique_ptr<Tokenizer>(new Tokenizer(std::move(*impl)));
}

std::vector<int32_t> Tokenizer::Encode(std::string_view text, const EncodeOptions& options) const {
  return impl_->Encode(text, options);
}
std::string Tokenizer::Decode(const std::vector<int32_t>& ids, bool skip_special_tokens) const {
  return impl_->Decode(ids, skip_special_tokens);
}
std::string Tokenizer::TokenToPiece(int32_t id) const { return impl_->TokenToPiece(id); }
std::optional<int32_t> Tokenizer::PieceToId(std::string_view piece) const {
  return impl_->PieceToId(piece);
}
bool Tokenizer::IsSpecial(int32_t id) const {
  const auto* t = impl_->added.FindById(id);
  return t != nullptr && t->special;
}
int32_t Tokenizer::vocab_size() const { return impl_->vocab_size; }
int32_t Tokenizer::bos_id() const { return impl_->bos_id; }
int32_t Tokenizer::eos_id() const { return impl_->eos_id; }
int32_t Tokenizer::pad_id() const { return impl_->pad_id; }
int32_t Tokenizer::unk_id() const { return impl_->unk_id; }
bool Tokenizer::add_bos_token() const { return impl_->add_bos_token; }
bool Tokenizer::add_eos_token() const { return impl_->add_eos_token; }
const std::string& Tokenizer::chat_template() const { return impl_->chat_template; }

}  // namespace strata
