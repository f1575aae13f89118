// BpeModel: the byte-pair-encoding model of HF `tokenizers` (models/bpe): vocabulary, ranked
// merges, byte fallback (`<0xAB>` tokens), unknown-token fusing and `ignore_merges`.
//
// Merging follows HF's Word::merge_all exactly: repeatedly apply the lowest-rank merge among
// adjacent symbols, leftmost first on ties. Immutable and thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"

namespace strata::tokenizer {

struct BpeOptions {
  bool byte_fallback = false;
  bool fuse_unk = false;
  bool ignore_merges = false;
  std::optional<std::string> unk_token;
  std::string continuing_subword_prefix;
  std::string end_of_word_suffix;
};

class BpeModel {
 public:
  // `vocab`: (token, id) pairs. `merges`: (left, right) token strings in rank order.
  static absl::StatusOr<std::unique_ptr<BpeModel>> Create(
      std::vector<std::pair<std::string, int32_t>> vocab,
      const std::vector<std::pair<std::string, std::string>>& merges, BpeOptions options);

  // Tokenizes one pre-tokenized piece and appends its ids. With `byte_level`, each byte of
  // `word` stands for its GPT-2 byte-to-unicode character.
  void Tokenize(std::string_view word, bool byte_level, std::vector<int32_t>* ids) const;

  std::optional<int32_t> TokenToId(std::string_view token) const;
  // Empty string for ids without a token.
  const std::string& IdToToken(int32_t id) const;
  int32_t size() const { return static_cast<int32_t>(id_to_token_.size()); }

 private:
  struct Symbol {
    int32_t id;
    int32_t prev;
    int32_t next;
    bool removed;
  };
  BpeModel() = default;
  void MergeAll(std::vector<Symbol>* symbols) const;
  void TokenizeChars(std::string_view word, std::vector<Symbol>* symbols) const;

  absl::flat_hash_map<std::string, int32_t> vocab_;
  std::vector<std::string> id_to_token_;
  // (left id << 32 | right id) → (rank, merged id)
  absl::flat_hash_map<uint64_t, std::pair<int32_t, int32_t>> merges_;
  BpeOptions options_;
  std::optional<int32_t> unk_id_;
  std::array<int32_t, 256> byte_char_ids_;      // id of the byte-level char of each byte, or -1
  std::array<int32_t, 256> byte_fallback_ids_;  // id of "<0xAB>", or -1
  bool plain_affixes_ = true;                   // no subword prefix / word suffix
};

}  // namespace strata::tokenizer
