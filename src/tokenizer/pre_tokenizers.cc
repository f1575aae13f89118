#include "tokenizer/pre_tokenizers.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tokenizer/regex.h"
#include "tokenizer/unicode.h"

namespace strata::tokenizer {
namespace {

// GPT-2's pre-tokenization regex, used by ByteLevel when use_regex is set.
constexpr char kGpt2Regex[] =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

enum class Behavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

absl::StatusOr<Behavior> ParseBehavior(const std::string& s) {
  if (s == "Removed") return Behavior::kRemoved;
  if (s == "Isolated") return Behavior::kIsolated;
  if (s == "MergedWithPrevious") return Behavior::kMergedWithPrevious;
  if (s == "MergedWithNext") return Behavior::kMergedWithNext;
  if (s == "Contiguous") return Behavior::kContiguous;
  return absl::InvalidArgumentError(absl::StrCat("unknown split behavior '", s, "'"));
}

struct Span {
  size_t begin, end;
  bool is_match;
};

// Turns the match list of `text` into the full partition (gaps are non-matches), as HF's
// Pattern::find_matches does.
void Partition(size_t size, const std::vector<std::pair<size_t, size_t>>& matches,
               std::vector<Span>* spans) {
  spans->clear();
  if (size == 0) {
    spans->push_back({0, 0, false});
    return;
  }
  size_t prev = 0;
  for (auto [b, e] : matches) {
    if (prev != b) spans->push_back({prev, b, false});
    spans->push_back({b, e, true});
    prev = e;
  }
  if (prev != size) spans->push_back({prev, size, false});
}

// HF NormalizedString::split: applies `behavior` (and `invert`) to the partition and appends the
// non-empty pieces.
void ApplyBehavior(const Piece& in, std::vector<Span>& spans, Behavior behavior, bool invert,
                   std::vector<Piece>* out) {
  if (invert) {
    for (Span& s : spans) s.is_match = !s.is_match;
  }
  std::vector<Span> result;
  switch (behavior) {
    case Behavior::kIsolated:
      result = std::move(spans);
      break;
    case Behavior::kRemoved:
      for (const Span& s : spans) {
        if (!s.is_match) result.push_back(s);
      }
      break;
    case Behavior::kMergedWithPrevious: {
      bool previous_match = false;
      for (const Span& s : spans) {
        if (s.is_match && !previous_match && !result.empty()) {
          result.back().end = s.end;
        } else {
          result.push_back(s);
        }
        previous_match = s.is_match;
      }
      break;
    }
    case Behavior::kMergedWithNext: {
      bool previous_match = false;
      for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        if (it->is_match && !previous_match && !result.empty()) {
          result.back().begin = it->begin;
        } else {
          result.push_back(*it);
        }
        previous_match = it->is_match;
      }
      std::reverse(result.begin(), result.end());
      break;
    }
    case Behavior::kContiguous: {
      bool previous_match = false;
      for (const Span& s : spans) {
        if (s.is_match == previous_match && !result.empty()) {
          result.back().end = s.end;
        } else {
          result.push_back(s);
        }
        previous_match = s.is_match;
      }
      break;
    }
  }
  for (const Span& s : result) {
    if (s.end <= s.begin) continue;
    out->push_back({in.text.substr(s.begin, s.end - s.begin), in.at_start && s.begin == 0});
  }
}

// Each character satisfying `pred` is its own match (HF's `impl Pattern for Fn(char) -> bool`).
void CharMatches(const std::string& text, const std::function<bool(char32_t)>& pred,
                 std::vector<std::pair<size_t, size_t>>* matches) {
  for (size_t i = 0; i < text.size();) {
    char32_t cp;
    size_t len = DecodeUtf8(text, i, &cp);
    if (pred(cp)) matches->emplace_back(i, i + len);
    i += len;
  }
}

void StringMatches(const std::string& text, const std::string& pattern,
                   std::vector<std::pair<size_t, size_t>>* matches) {
  if (pattern.empty()) return;
  for (size_t pos = text.find(pattern); pos != std::string::npos;
       pos = text.find(pattern, pos + pattern.size())) {
    matches->emplace_back(pos, pos + pattern.size());
  }
}

// A pre-tokenizer that splits each piece independently.
class PieceWise : public PreTokenizer {
 public:
  void PreTokenize(std::vector<Piece>* pieces) const override {
    std::vector<Piece> out;
    out.reserve(pieces->size() * 2);
    for (const Piece& p : *pieces) SplitPiece(p, &out);
    *pieces = std::move(out);
  }
  virtual void SplitPiece(const Piece& in, std::vector<Piece>* out) const = 0;
};

class SplitPreTokenizer : public PieceWise {
 public:
  SplitPreTokenizer(std::unique_ptr<Regex> regex, std::string literal, Behavior behavior,
                    bool invert)
      : regex_(std::move(regex)),
        literal_(std::move(literal)),
        behavior_(behavior),
        invert_(invert) {}
  void SplitPiece(const Piece& in, std::vector<Piece>* out) const override {
    std::vector<std::pair<size_t, size_t>> matches;
    if (regex_ != nullptr) {
      regex_->FindAll(in.text, &matches);
    } else {
      StringMatches(in.text, literal_, &matches);
    }
    std::vector<Span> spans;
    Partition(in.text.size(), matches, &spans);
    ApplyBehavior(in, spans, behavior_, invert_, out);
  }

 private:
  std::unique_ptr<Regex> regex_;
  std::string literal_;
  Behavior behavior_;
  bool invert_;
};

class CharSplitPreTokenizer : public PieceWise {
 public:
  CharSplitPreTokenizer(std::function<bool(char32_t)> pred, Behavior behavior)
      : pred_(std::move(pred)), behavior_(behavior) {}
  void SplitPiece(const Piece& in, std::vector<Piece>* out) const override {
    std::vector<std::pair<size_t, size_t>> matches;
    CharMatches(in.text, pred_, &matches);
    std::vector<Span> spans;
    Partition(in.text.size(), matches, &spans);
    ApplyBehavior(in, spans, behavior_, false, out);
  }

 private:
  std::function<bool(char32_t)> pred_;
  Behavior behavior_;
};

class ByteLevelPreTokenizer : public PieceWise {
 public:
  ByteLevelPreTokenizer(bool add_prefix_space, std::unique_ptr<Regex> regex)
      : add_prefix_space_(add_prefix_space), regex_(std::move(regex)) {}
  void SplitPiece(const Piece& in, std::vector<Piece>* out) const override {
    Piece p = in;
    if (add_prefix_space_ && (p.text.empty() || p.text[0] != ' ')) p.text.insert(0, " ");
    if (regex_ == nullptr) {
      if (!p.text.empty()) out->push_back(std::move(p));
      return;
    }
    std::vector<std::pair<size_t, size_t>> matches;
    regex_->FindAll(p.text, &matches);
    std::vector<Span> spans;
    Partition(p.text.size(), matches, &spans);
    ApplyBehavior(p, spans, Behavior::kIsolated, false, out);
  }
  bool byte_level() const override { return true; }

 private:
  bool add_prefix_space_;
  std::unique_ptr<Regex> regex_;
};

enum class PrependScheme { kAlways, kFirst, kNever };

class MetaspacePreTokenizer : public PieceWise {
 public:
  MetaspacePreTokenizer(std::string replacement, PrependScheme scheme, bool split)
      : replacement_(std::move(replacement)), scheme_(scheme), split_(split) {}
  void SplitPiece(const Piece& in, std::vector<Piece>* out) const override {
    Piece p;
    p.at_start = in.at_start;
    p.text.reserve(in.text.size() + replacement_.size());
    for (char c : in.text) {
      if (c == ' ') {
        p.text += replacement_;
      } else {
        p.text.push_back(c);
      }
    }
    bool starts = p.text.compare(0, replacement_.size(), replacement_) == 0;
    if (!starts && (scheme_ == PrependScheme::kAlways ||
                    (scheme_ == PrependScheme::kFirst && in.at_start))) {
      p.text.insert(0, replacement_);
    }
    if (!split_) {
      if (!p.text.empty()) out->push_back(std::move(p));
      return;
    }
    std::vector<std::pair<size_t, size_t>> matches;
    StringMatches(p.text, replacement_, &matches);
    std::vector<Span> spans;
    Partition(p.text.size(), matches, &spans);
    ApplyBehavior(p, spans, Behavior::kMergedWithNext, false, out);
  }

 private:
  std::string replacement_;
  PrependScheme scheme_;
  bool split_;
};

class SequencePreTokenizer : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> list)
      : list_(std::move(list)) {}
  void PreTokenize(std::vector<Piece>* pieces) const override {
    for (const auto& p : list_) p->PreTokenize(pieces);
  }
  bool byte_level() const override { return !list_.empty() && list_.back()->byte_level(); }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> list_;
};

absl::StatusOr<std::unique_ptr<PreTokenizer>> ParseSequence(const Json& items) {
  std::vector<std::unique_ptr<PreTokenizer>> list;
  if (items.is_array()) {
    for (const Json& item : items) {
      auto p = ParsePreTokenizer(item);
      if (!p.ok()) return p.status();
      list.push_back(std::move(*p));
    }
  }
  for (size_t i = 0; i + 1 < list.size(); ++i) {
    if (list[i]->byte_level()) {
      // Strata feeds ByteLevel's character mapping straight into the model; anything after it
      // would see raw bytes instead of mapped characters.
      return absl::UnimplementedError(
          "tokenizer.json: a pre-tokenizer after ByteLevel is not supported yet");
    }
  }
  return std::unique_ptr<PreTokenizer>(new SequencePreTokenizer(std::move(list)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<PreTokenizer>> ParsePreTokenizer(const Json& j) {
  std::string type = StrField(j, "type");
  if (type == "Sequence") {
    const Json* items = Field(j, "pretokenizers");
    return ParseSequence(items != nullptr ? *items : Json::array());
  }
  if (type == "Split") {
    auto behavior = ParseBehavior(StrField(j, "behavior", "Isolated"));
    if (!behavior.ok()) return behavior.status();
    bool invert = BoolField(j, "invert", false);
    const Json* pattern = Field(j, "pattern");
    if (pattern != nullptr && pattern->contains("Regex")) {
      auto regex = Regex::Compile(StrField(*pattern, "Regex"));
      if (!regex.ok()) return regex.status();
      return std::unique_ptr<PreTokenizer>(
          new SplitPreTokenizer(std::move(*regex), "", *behavior, invert));
    }
    if (pattern != nullptr && pattern->contains("String")) {
      return std::unique_ptr<PreTokenizer>(
          new SplitPreTokenizer(nullptr, StrField(*pattern, "String"), *behavior, invert));
    }
    return absl::InvalidArgumentError("Split pre-tokenizer without a pattern");
  }
  if (type == "ByteLevel") {
    std::unique_ptr<Regex> regex;
    if (BoolField(j, "use_regex", true)) {
      auto r = Regex::Compile(kGpt2Regex);
      if (!r.ok()) return r.status();
      regex = std::move(*r);
    }
    return std::unique_ptr<PreTokenizer>(
        new ByteLevelPreTokenizer(BoolField(j, "add_prefix_space", true), std::move(regex)));
  }
  if (type == "Metaspace") {
    std::string replacement = StrField(j, "replacement", "\xE2\x96\x81");
    PrependScheme scheme = PrependScheme::kAlways;
    std::string s = StrField(j, "prepend_scheme");
    if (s == "first") {
      scheme = PrependScheme::kFirst;
    } else if (s == "never") {
      scheme = PrependScheme::kNever;
    } else if (s.empty() && !BoolField(j, "add_prefix_space", true)) {
      scheme = PrependScheme::kNever;
    }
    return std::unique_ptr<PreTokenizer>(
        new MetaspacePreTokenizer(replacement, scheme, BoolField(j, "split", true)));
  }
  if (type == "Digits") {
    bool individual = BoolField(j, "individual_digits", false);
    return std::unique_ptr<PreTokenizer>(new CharSplitPreTokenizer(
        IsNumeric, individual ? Behavior::kIsolated : Behavior::kContiguous));
  }
  if (type == "Punctuation") {
    auto behavior = ParseBehavior(StrField(j, "behavior", "Isolated"));
    if (!behavior.ok()) return behavior.status();
    return std::unique_ptr<PreTokenizer>(new CharSplitPreTokenizer(IsPunctuation, *behavior));
  }
  if (type == "WhitespaceSplit") {
    return std::unique_ptr<PreTokenizer>(
        new CharSplitPreTokenizer(IsWhitespace, Behavior::kRemoved));
  }
  if (type == "CharDelimiterSplit") {
    std::string d = StrField(j, "delimiter");
    char32_t delim = 0;
    if (!d.empty()) DecodeUtf8(d, 0, &delim);
    return std::unique_ptr<PreTokenizer>(new CharSplitPreTokenizer(
        [delim](char32_t c) { return c == delim; }, Behavior::kRemoved));
  }
  if (type == "Whitespace") {
    // HF: split(Invert(\w+|[^\w\s]+), Removed), i.e. keep the matches.
    auto r = Regex::Compile(R"(\w+|[^\w\s]+)");
    if (!r.ok()) return r.status();
    return std::unique_ptr<PreTokenizer>(
        new SplitPreTokenizer(std::move(*r), "", Behavior::kRemoved, true));
  }
  return absl::UnimplementedError(
      absl::StrCat("tokenizer.json: pre-tokenizer '", type, "' is not supported yet"));
}

absl::StatusOr<std::unique_ptr<PreTokenizer>> MakeByteLevelRegexPreTokenizer(
    const std::vector<std::string>& regexes) {
  std::vector<std::unique_ptr<PreTokenizer>> list;
  for (const std::string& pattern : regexes) {
    auto r = Regex::Compile(pattern);
    if (!r.ok()) return r.status();
    list.push_back(std::unique_ptr<PreTokenizer>(
        new SplitPreTokenizer(std::move(*r), "", Behavior::kIsolated, false)));
  }
  list.push_back(std::unique_ptr<PreTokenizer>(new ByteLevelPreTokenizer(false, nullptr)));
  return std::unique_ptr<PreTokenizer>(new SequencePreTokenizer(std::move(list)));
}

}  // namespace strata::tokenizer
