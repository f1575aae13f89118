#include "tokenizer/added_vocabulary.h"

#include <algorithm>

#include "tokenizer/normalizers.h"
#include "tokenizer/unicode.h"

namespace strata::tokenizer {
namespace {

// Last / first character of `s` (s non-empty, valid UTF-8).
char32_t LastChar(std::string_view s) {
  size_t i = s.size() - 1;
  while (i > 0 && (static_cast<uint8_t>(s[i]) & 0xC0) == 0x80) --i;
  char32_t cp;
  DecodeUtf8(s, i, &cp);
  return cp;
}

char32_t FirstChar(std::string_view s) {
  char32_t cp;
  DecodeUtf8(s, 0, &cp);
  return cp;
}

bool IsWordChar(char32_t c) { return IsAlphanumeric(c) || c == '_'; }

}  // namespace

void AddedVocabulary::Trie::Insert(std::string_view pattern, int32_t token) {
  if (pattern.empty()) return;
  if (nodes.empty()) nodes.emplace_back();
  first_byte[static_cast<uint8_t>(pattern[0])] = true;
  int32_t node = 0;
  for (char ch : pattern) {
    uint8_t c = static_cast<uint8_t>(ch);
    auto& children = nodes[node].children;
    auto it = std::lower_bound(children.begin(), children.end(), std::make_pair(c, INT32_MIN));
    if (it != children.end() && it->first == c) {
      node = it->second;
    } else {
      int32_t next = static_cast<int32_t>(nodes.size());
      children.insert(it, {c, next});
      nodes.emplace_back();
      node = next;
    }
  }
  // Aho-Corasick keeps the first pattern added for duplicate contents.
  if (nodes[node].token < 0) nodes[node].token = token;
}

size_t AddedVocabulary::Trie::LongestAt(std::string_view text, size_t pos,
                                        int32_t* token) const {
  size_t best = 0;
  int32_t node = 0;
  for (size_t i = pos; i < text.size(); ++i) {
    uint8_t c = static_cast<uint8_t>(text[i]);
    const auto& children = nodes[node].children;
    auto it = std::lower_bound(children.begin(), children.end(), std::make_pair(c, INT32_MIN));
    if (it == children.end() || it->first != c) break;
    node = it->second;
    if (nodes[node].token >= 0) {
      best = i + 1 - pos;
      *token = nodes[node].token;
    }
  }
  return best;
}

void AddedVocabulary::Build(std::vector<AddedToken> tokens, const Normalizer* normalizer) {
  tokens_ = std::move(tokens);
  for (int32_t i = 0; i < static_cast<int32_t>(tokens_.size()); ++i) {
    const AddedToken& t = tokens_[i];
    by_id_[t.id] = i;
    by_content_.emplace(t.content, t.id);
    if (t.normalized) {
      std::string content = t.content;
      if (normalizer != nullptr) normalizer->Normalize(&content);
      tries_[1].Insert(content, i);
    } else {
      tries_[0].Insert(t.content, i);
    }
  }
}

const AddedToken* AddedVocabulary::FindById(int32_t id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &tokens_[it->second];
}

std::optional<int32_t> AddedVocabulary::FindByContent(std::string_view content) const {
  auto it = by_content_.find(absl::string_view(content.data(), content.size()));
  if (it == by_content_.end()) return std::nullopt;
  return it->second;
}

void AddedVocabulary::Split(std::string_view text, bool normalized_set, bool parse_special,
                            std::vector<Segment>* out) const {
  const Trie& trie = tries_[normalized_set ? 1 : 0];
  size_t start_offset = 0;
  if (!trie.nodes.empty()) {
    size_t pos = 0;
    while (pos < text.size()) {
      if (!trie.first_byte[static_cast<uint8_t>(text[pos])]) {
        ++pos;
        continue;
      }
      int32_t index = -1;
      size_t len = trie.LongestAt(text, pos, &index);
      if (len == 0) {
        ++pos;
        continue;
      }
      size_t start = pos, stop = pos + len;
      pos = stop;  // matches never overlap, even the ones discarded below
      const AddedToken& t = tokens_[index];
      if (!parse_special && t.special) continue;
      if (t.single_word) {
        bool start_space = start == 0 || !IsWordChar(LastChar(text.substr(0, start)));
        bool stop_space = stop == text.size() || !IsWordChar(FirstChar(text.substr(stop)));
        if (!start_space || !stop_space) continue;
      }
      if (t.lstrip) {
        size_t new_start = start;
        while (new_start > 0) {
          size_t i = new_start - 1;
          while (i > 0 && (static_cast<uint8_t>(text[i]) & 0xC0) == 0x80) --i;
          char32_t cp;
          DecodeUtf8(text, i, &cp);
          if (!IsWhitespace(cp)) break;
          new_start = i;
        }
        start = std::max(new_start, start_offset);
      }
      if (t.rstrip) {
        while (stop < text.size()) {
          char32_t cp;
          size_t l = DecodeUtf8(text, stop, &cp);
          if (!IsWhitespace(cp)) break;
          stop += l;
        }
      }
      if (start_offset < start) out->push_back({start_offset, start, -1});
      out->push_back({start, stop, t.id});
      start_offset = stop;
    }
  }
  if (start_offset < text.size()) out->push_back({start_offset, text.size(), -1});
}

}  // namespace strata::tokenizer
