// AddedVocabulary: the added and special tokens of a tokenizer and the way HF `tokenizers` cuts
// them out of the input before normalization (non-normalized tokens) and after it (normalized
// tokens): leftmost-longest, non-overlapping matching with the single_word, lstrip and rstrip
// rules of HF's AddedVocabulary::find_matches.
//
// Immutable after Build; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace strata::tokenizer {

class Normalizer;

struct AddedToken {
  std::string content;
  int32_t id = -1;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = false;
  bool special = false;
};

// A run of input: an added token (`id` >= 0) or text still to be tokenized (`id` == -1).
struct Segment {
  size_t begin;
  size_t end;
  int32_t id;
};

class AddedVocabulary {
 public:
  // `normalizer` (may be null) normalizes the content of `normalized` tokens for matching.
  void Build(std::vector<AddedToken> tokens, const Normalizer* normalizer);

  // Splits `text` with the non-normalized (`normalized_set` false) or normalized token set.
  // With `parse_special` false, special tokens are not recognised (HF encode_special_tokens).
  void Split(std::string_view text, bool normalized_set, bool parse_special,
             std::vector<Segment>* out) const;

  const std::vector<AddedToken>& tokens() const { return tokens_; }
  const AddedToken* FindById(int32_t id) const;
  std::optional<int32_t> FindByContent(std::string_view content) const;
  bool empty() const { return tokens_.empty(); }

 private:
  struct TrieNode {
    std::vector<std::pair<uint8_t, int32_t>> children;  // sorted by byte
    int32_t token = -1;                                 // index into tokens_
  };
  struct Trie {
    std::vector<TrieNode> nodes;
    bool first_byte[256] = {};
    void Insert(std::string_view pattern, int32_t token);
    // Longest pattern starting at text[pos]: returns its length and token index, or 0.
    size_t LongestAt(std::string_view text, size_t pos, int32_t* token) const;
  };

  std::vector<AddedToken> tokens_;
  absl::flat_hash_map<int32_t, int32_t> by_id_;         // id → index
  absl::flat_hash_map<std::string, int32_t> by_content_;  // content → id
  Trie tries_[2];                                        // [normalized]
};

}  // namespace strata::tokenizer
