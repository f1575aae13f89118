// Pre-tokenizers: split normalized text into the pieces the model tokenizes independently (Split
// with a regex or string, ByteLevel, Metaspace, Digits, Punctuation, Whitespace, WhitespaceSplit,
// CharDelimiterSplit, Sequence), following HF `tokenizers`' split behaviours exactly.
//
// Immutable and thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/json_util.h"

namespace strata::tokenizer {

struct Piece {
  std::string text;
  // The piece starts at offset 0 of the original input (Metaspace's prepend_scheme "first").
  bool at_start = false;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Replaces every piece of `pieces` by its sub-pieces; empty pieces are dropped.
  virtual void PreTokenize(std::vector<Piece>* pieces) const = 0;
  // True for ByteLevel (or a Sequence ending in one): the model then sees bytes mapped through
  // GPT-2's byte-to-unicode table.
  virtual bool byte_level() const { return false; }
};

absl::StatusOr<std::unique_ptr<PreTokenizer>> ParsePreTokenizer(const Json& j);

// For GGUF vocabularies: Split(regex, Isolated) followed by ByteLevel without prefix space.
absl::StatusOr<std::unique_ptr<PreTokenizer>> MakeByteLevelRegexPreTokenizer(
    const std::vector<std::string>& regexes);

}  // namespace strata::tokenizer
