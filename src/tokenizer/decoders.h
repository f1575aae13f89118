// Decoders: turn token strings back into text the way HF `tokenizers` does (ByteLevel,
// Metaspace, ByteFallback, Fuse, Strip, Replace, Sequence). Each decoder maps a list of token
// strings to a new list (HF's decode_chain); the caller joins the final list.
//
// Immutable and thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/json_util.h"

namespace strata::tokenizer {

class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void DecodeChain(std::vector<std::string>* tokens) const = 0;
};

absl::StatusOr<std::unique_ptr<Decoder>> ParseDecoder(const Json& j);

std::unique_ptr<Decoder> MakeByteLevelDecoder();
// SentencePiece: "▁" → " ", byte fallback, fuse, and strip one leading space when `strip_first`.
std::unique_ptr<Decoder> MakeSentencePieceDecoder(bool strip_first);

}  // namespace strata::tokenizer
