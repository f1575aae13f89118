// Normalizers: the text rewrites HF `tokenizers` applies before pre-tokenization (NFC/NFKC/NFD/
// NFKD, Prepend, Replace, Lowercase, Strip, StripAccents, Sequence).
//
// Offsets are not tracked: Strata needs ids, not alignments. Immutable and thread-safe.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "tokenizer/json_util.h"

namespace strata::tokenizer {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void Normalize(std::string* text) const = 0;
};

// Builds a normalizer from its tokenizer.json object. Unknown or unsupported types are errors.
absl::StatusOr<std::unique_ptr<Normalizer>> ParseNormalizer(const Json& j);

// The pieces GGUF / SentencePiece loaders assemble directly.
std::unique_ptr<Normalizer> MakePrependNormalizer(std::string prepend);
std::unique_ptr<Normalizer> MakeReplaceNormalizer(std::string pattern, std::string content);
std::unique_ptr<Normalizer> MakeSequenceNormalizer(
    std::vector<std::unique_ptr<Normalizer>> normalizers);

}  // namespace strata::tokenizer
