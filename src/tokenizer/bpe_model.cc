#include "tokenizer/bpe_model.h"

#include <queue>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tokenizer/unicode.h"

namespace strata::tokenizer {
namespace {

uint64_t PairKey(int32_t a, int32_t b) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}

absl::string_view AbslView(std::string_view s) { return absl::string_view(s.data(), s.size()); }

struct MergeEntry {
  int32_t rank;
  int32_t pos;
  int32_t new_id;
  // std::priority_queue is a max-heap: "greater" means lower rank, then lower position.
  bool operator<(const MergeEntry& o) const {
    if (rank != o.rank) return rank > o.rank;
    return pos > o.pos;
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<BpeModel>> BpeModel::Create(
    std::vector<std::pair<std::string, int32_t>> vocab,
    const std::vector<std::pair<std::string, std::string>>& merges, BpeOptions options) {
  std::unique_ptr<BpeModel> m(new BpeModel());
  int32_t max_id = -1;
  for (const auto& [token, id] : vocab) max_id = std::max(max_id, id);
  m->id_to_token_.resize(static_cast<size_t>(max_id + 1));
  m->vocab_.reserve(vocab.size());
  for (auto& [token, id] : vocab) {
    if (id < 0) return absl::InvalidArgumentError("BPE vocab: negative id");
    m->id_to_token_[id] = token;
    m->vocab_[std::move(token)] = id;
  }
  m->merges_.reserve(merges.size());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& [a, b] = merges[rank];
    auto ia = m->vocab_.find(a), ib = m->vocab_.find(b);
    if (ia == m->vocab_.end() || ib == m->vocab_.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("BPE merge '", a, " ", b, "': a part is not in the vocabulary"));
    }
    std::string joined = a;
    if (!options.continuing_subword_prefix.empty() &&
        b.rfind(options.continuing_subword_prefix, 0) == 0) {
      joined += b.substr(options.continuing_subword_prefix.size());
    } else {
      joined += b;
    }
    auto ij = m->vocab_.find(joined);
    if (ij == m->vocab_.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("BPE merge '", a, " ", b, "': the merged token is not in the vocabulary"));
    }
    // A repeated pair keeps its last rank, as HF's HashMap collect does.
    m->merges_[PairKey(ia->second, ib->second)] = {static_cast<int32_t>(rank), ij->second};
  }
  if (options.unk_token.has_value()) {
    auto it = m->vocab_.find(*options.unk_token);
    if (it != m->vocab_.end()) m->unk_id_ = it->second;
  }
  for (int b = 0; b < 256; ++b) {
    auto it = m->vocab_.find(ByteToUnicode(static_cast<uint8_t>(b)));
    m->byte_char_ids_[b] = it == m->vocab_.end() ? -1 : it->second;
    auto jt = m->vocab_.find(absl::StrFormat("<0x%02X>", b));
    m->byte_fallback_ids_[b] = jt == m->vocab_.end() ? -1 : jt->second;
  }
  m->plain_affixes_ =
      options.continuing_subword_prefix.empty() && options.end_of_word_suffix.empty();
  m->options_ = std::move(options);
  return m;
}

std::optional<int32_t> BpeModel::TokenToId(std::string_view token) const {
  auto it = vocab_.find(AbslView(token));
  if (it == vocab_.end()) return std::nullopt;
  return it->second;
}

const std::string& BpeModel::IdToToken(int32_t id) const {
  static const std::string* empty = new std::string();
  if (id < 0 || id >= static_cast<int32_t>(id_to_token_.size())) return *empty;
  return id_to_token_[id];
}

// HF BPE::merge_word: one symbol per character (looked up with the subword prefix / word
// suffix), byte fallback for characters outside the vocabulary, else the unknown token (fused
// with a preceding unknown when fuse_unk).
void BpeModel::TokenizeChars(std::string_view word, std::vector<Symbol>* symbols) const {
  bool prev_unk = false;
  std::string key;
  for (size_t i = 0; i < word.size();) {
    size_t len = 1;
    uint8_t c = static_cast<uint8_t>(word[i]);
    if (c >= 0xF0) {
      len = 4;
    } else if (c >= 0xE0) {
      len = 3;
    } else if (c >= 0xC0) {
      len = 2;
    }
    len = std::min(len, word.size() - i);
    std::string_view ch = word.substr(i, len);
    std::optional<int32_t> id;
    if (plain_affixes_) {
      id = TokenToId(ch);
    } else {
      key.clear();
      if (i > 0) key += options_.continuing_subword_prefix;
      key.append(ch);
      if (i + len == word.size()) key += options_.end_of_word_suffix;
      id = TokenToId(key);
    }
    i += len;
    if (id.has_value()) {
      symbols->push_back({*id, 0, 0, false});
      prev_unk = false;
      continue;
    }
    if (options_.byte_fallback) {
      bool all = true;
      for (char b : ch) all = all && byte_fallback_ids_[static_cast<uint8_t>(b)] >= 0;
      if (all) {
        for (char b : ch) symbols->push_back({byte_fallback_ids_[static_cast<uint8_t>(b)], 0, 0,
                                              false});
        prev_unk = false;
        continue;
      }
    }
    if (unk_id_.has_value()) {
      if (!(options_.fuse_unk && prev_unk)) symbols->push_back({*unk_id_, 0, 0, false});
      prev_unk = true;
    }
  }
}

void BpeModel::MergeAll(std::vector<Symbol>* symbols_ptr) const {
  std::vector<Symbol>& s = *symbols_ptr;
  const int32_t n = static_cast<int32_t>(s.size());
  for (int32_t i = 0; i < n; ++i) {
    s[i].prev = i - 1;
    s[i].next = i + 1 < n ? i + 1 : -1;
  }
  if (n < 2) return;
  std::vector<MergeEntry> heap_storage;
  heap_storage.reserve(n);
  std::priority_queue<MergeEntry> queue(std::less<MergeEntry>(), std::move(heap_storage));
  for (int32_t i = 0; i + 1 < n; ++i) {
    auto it = merges_.find(PairKey(s[i].id, s[i + 1].id));
    if (it != merges_.end()) queue.push({it->second.first, i, it->second.second});
  }
  while (!queue.empty()) {
    MergeEntry top = queue.top();
    queue.pop();
    Symbol& cur = s[top.pos];
    if (cur.removed || cur.next == -1) continue;
    Symbol& right = s[cur.next];
    auto it = merges_.find(PairKey(cur.id, right.id));
    if (it == merges_.end() || it->second.second != top.new_id) continue;
    cur.id = top.new_id;
    right.removed = true;
    cur.next = right.next;
    if (right.next != -1) s[right.next].prev = top.pos;
    if (cur.prev != -1) {
      auto jt = merges_.find(PairKey(s[cur.prev].id, cur.id));
      if (jt != merges_.end()) queue.push({jt->second.first, cur.prev, jt->second.second});
    }
    if (cur.next != -1) {
      auto jt = merges_.find(PairKey(cur.id, s[cur.next].id));
      if (jt != merges_.end()) queue.push({jt->second.first, top.pos, jt->second.second});
    }
  }
}

void BpeModel::Tokenize(std::string_view word, bool byte_level, std::vector<int32_t>* ids) const {
  if (word.empty()) return;
  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  if (byte_level) {
    if (options_.ignore_merges || !plain_affixes_) {
      std::string mapped;
      mapped.reserve(word.size() * 2);
      for (char c : word) mapped += ByteToUnicode(static_cast<uint8_t>(c));
      if (options_.ignore_merges) {
        if (auto id = TokenToId(mapped)) {
          ids->push_back(*id);
          return;
        }
      }
      if (!plain_affixes_) {
        TokenizeChars(mapped, &symbols);
      }
    }
    if (plain_affixes_) {
      bool prev_unk = false;
      for (char c : word) {
        int32_t id = byte_char_ids_[static_cast<uint8_t>(c)];
        if (id >= 0) {
          symbols.push_back({id, 0, 0, false});
          prev_unk = false;
        } else if (unk_id_.has_value()) {
          if (!(options_.fuse_unk && prev_unk)) symbols.push_back({*unk_id_, 0, 0, false});
          prev_unk = true;
        }
      }
    }
  } else {
    if (options_.ignore_merges) {
      if (auto id = TokenToId(word)) {
        ids->push_back(*id);
        return;
      }
    }
    TokenizeChars(word, &symbols);
  }
  MergeAll(&symbols);
  for (const Symbol& sym : symbols) {
    if (!sym.removed) ids->push_back(sym.id);
  }
}

}  // namespace strata::tokenizer
