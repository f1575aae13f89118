#include "strata/detokenizer.h"

#include <algorithm>

namespace strata {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
// Ids of context the window keeps before the first unread id (vLLM uses 5).
constexpr size_t kWindow = 5;

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix.data(), suffix.size()) == 0;
}

}  // namespace

IncrementalDetokenizer::IncrementalDetokenizer(const Tokenizer& tokenizer,
                                               bool skip_special_tokens,
                                               const std::vector<int32_t>& prompt_ids)
    : tokenizer_(tokenizer), skip_special_tokens_(skip_special_tokens), ids_(prompt_ids) {
  read_offset_ = ids_.size();
  prefix_offset_ = ids_.size() > kWindow ? ids_.size() - kWindow : 0;
}

std::string IncrementalDetokenizer::DecodeRange(size_t begin, size_t end) const {
  std::vector<int32_t> window(ids_.begin() + begin, ids_.begin() + end);
  return tokenizer_.Decode(window, skip_special_tokens_);
}

std::string IncrementalDetokenizer::Step(int32_t id) {
  ids_.push_back(id);
  std::string prefix_text = DecodeRange(prefix_offset_, read_offset_);
  std::string new_text = DecodeRange(prefix_offset_, ids_.size());
  if (new_text.size() <= prefix_text.size() || EndsWith(new_text, kReplacement)) return "";
  if (new_text.compare(0, prefix_text.size(), prefix_text) != 0) {
    // The window's earlier text changed (cannot happen with the supported decoders); keep
    // waiting rather than re-emit.
    return "";
  }
  prefix_offset_ = read_offset_;
  read_offset_ = ids_.size();
  return new_text.substr(prefix_text.size());
}

std::string IncrementalDetokenizer::Flush() {
  if (read_offset_ >= ids_.size()) return "";
  std::string prefix_text = DecodeRange(prefix_offset_, read_offset_);
  std::string new_text = DecodeRange(prefix_offset_, ids_.size());
  prefix_offset_ = read_offset_;
  read_offset_ = ids_.size();
  if (new_text.size() <= prefix_text.size()) return "";
  return new_text.substr(prefix_text.size());
}

}  // namespace strata
