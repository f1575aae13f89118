#include "tokenizer/normalizers.h"

#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tokenizer/regex.h"
#include "tokenizer/unicode.h"
#include "utf8proc.h"

namespace strata::tokenizer {
namespace {

bool IsAscii(const std::string& s) {
  for (char c : s) {
    if (static_cast<uint8_t>(c) >= 0x80) return false;
  }
  return true;
}

class UnicodeNormalizer : public Normalizer {
 public:
  explicit UnicodeNormalizer(int options) : options_(options) {}
  void Normalize(std::string* text) const override {
    if (IsAscii(*text)) return;  // every normal form leaves ASCII unchanged
    utf8proc_uint8_t* out = nullptr;
    utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text->data()),
                                      static_cast<utf8proc_ssize_t>(text->size()), &out,
                                      static_cast<utf8proc_option_t>(options_));
    if (n >= 0) text->assign(reinterpret_cast<char*>(out), static_cast<size_t>(n));
    std::free(out);
  }

 private:
  int options_;
};

class PrependNormalizer : public Normalizer {
 public:
  explicit PrependNormalizer(std::string prepend) : prepend_(std::move(prepend)) {}
  void Normalize(std::string* text) const override {
    if (!text->empty()) text->insert(0, prepend_);
  }

 private:
  std::string prepend_;
};

class ReplaceNormalizer : public Normalizer {
 public:
  ReplaceNormalizer(std::string pattern, std::unique_ptr<Regex> regex, std::string content)
      : pattern_(std::move(pattern)), regex_(std::move(regex)), content_(std::move(content)) {}
  void Normalize(std::string* text) const override {
    std::string out;
    size_t last = 0;
    if (regex_ != nullptr) {
      std::vector<std::pair<size_t, size_t>> matches;
      regex_->FindAll(*text, &matches);
      if (matches.empty()) return;
      for (auto [b, e] : matches) {
        out.append(*text, last, b - last);
        out.append(content_);
        last = e;
      }
    } else {
      if (pattern_.empty()) return;
      size_t pos = text->find(pattern_);
      if (pos == std::string::npos) return;
      for (; pos != std::string::npos; pos = text->find(pattern_, last)) {
        out.append(*text, last, pos - last);
        out.append(content_);
        last = pos + pattern_.size();
      }
    }
    out.append(*text, last, std::string::npos);
    *text = std::move(out);
  }

 private:
  std::string pattern_;
  std::unique_ptr<Regex> regex_;
  std::string content_;
};

class LowercaseNormalizer : public Normalizer {
 public:
  void Normalize(std::string* text) const override {
    std::string out;
    out.reserve(text->size());
    for (size_t i = 0; i < text->size();) {
      char32_t cp;
      i += DecodeUtf8(*text, i, &cp);
      AppendUtf8(static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp))),
                 &out);
    }
    *text = std::move(out);
  }
};

class StripNormalizer : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  void Normalize(std::string* text) const override {
    size_t begin = 0, end = text->size();
    if (left_) {
      while (begin < end) {
        char32_t cp;
        size_t len = DecodeUtf8(*text, begin, &cp);
        if (!IsWhitespace(cp)) break;
        begin += len;
      }
    }
    if (right_) {
      while (end > begin) {
        size_t start = end - 1;
        while (start > begin && (static_cast<uint8_t>((*text)[start]) & 0xC0) == 0x80) --start;
        char32_t cp;
        DecodeUtf8(*text, start, &cp);
        if (!IsWhitespace(cp)) break;
        end = start;
      }
    }
    *text = text->substr(begin, end - begin);
  }

 private:
  bool left_, right_;
};

class StripAccentsNormalizer : public Normalizer {
 public:
  void Normalize(std::string* text) const override {
    std::string out;
    for (size_t i = 0; i < text->size();) {
      char32_t cp;
      size_t len = DecodeUtf8(*text, i, &cp);
      if (!IsMark(cp)) out.append(*text, i, len);
      i += len;
    }
    *text = std::move(out);
  }
};

class SequenceNormalizer : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> normalizers)
      : normalizers_(std::move(normalizers)) {}
  void Normalize(std::string* text) const override {
    for (const auto& n : normalizers_) n->Normalize(text);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> normalizers_;
};

}  // namespace

std::unique_ptr<Normalizer> MakePrependNormalizer(std::string prepend) {
  return std::make_unique<PrependNormalizer>(std::move(prepend));
}

std::unique_ptr<Normalizer> MakeReplaceNormalizer(std::string pattern, std::string content) {
  return std::make_unique<ReplaceNormalizer>(std::move(pattern), nullptr, std::move(content));
}

std::unique_ptr<Normalizer> MakeSequenceNormalizer(
    std::vector<std::unique_ptr<Normalizer>> normalizers) {
  return std::make_unique<SequenceNormalizer>(std::move(normalizers));
}

absl::StatusOr<std::unique_ptr<Normalizer>> ParseNormalizer(const Json& j) {
  std::string type = StrField(j, "type");
  if (type == "NFC") return std::make_unique<UnicodeNormalizer>(UTF8PROC_STABLE | UTF8PROC_COMPOSE);
  if (type == "NFD") {
    return std::make_unique<UnicodeNormalizer>(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE);
  }
  if (type == "NFKC") {
    return std::make_unique<UnicodeNormalizer>(UTF8PROC_STABLE | UTF8PROC_COMPOSE |
                                               UTF8PROC_COMPAT);
  }
  if (type == "NFKD") {
    return std::make_unique<UnicodeNormalizer>(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE |
                                               UTF8PROC_COMPAT);
  }
  if (type == "Prepend") return MakePrependNormalizer(StrField(j, "prepend"));
  if (type == "Replace") {
    const Json* pattern = Field(j, "pattern");
    std::string content = StrField(j, "content");
    if (pattern != nullptr && pattern->contains("String")) {
      return MakeReplaceNormalizer(StrField(*pattern, "String"), content);
    }
    if (pattern != nullptr && pattern->contains("Regex")) {
      auto regex = Regex::Compile(StrField(*pattern, "Regex"));
      if (!regex.ok()) return regex.status();
      return std::make_unique<ReplaceNormalizer>("", std::move(*regex), content);
    }
    return absl::InvalidArgumentError("Replace normalizer without a pattern");
  }
  if (type == "Lowercase") return std::make_unique<LowercaseNormalizer>();
  if (type == "Strip") {
    return std::make_unique<StripNormalizer>(BoolField(j, "strip_left", true),
                                             BoolField(j, "strip_right", true));
  }
  if (type == "StripAccents") return std::make_unique<StripAccentsNormalizer>();
  if (type == "Sequence") {
    std::vector<std::unique_ptr<Normalizer>> list;
    const Json* items = Field(j, "normalizers");
    if (items != nullptr && items->is_array()) {
      for (const Json& item : *items) {
        auto n = ParseNormalizer(item);
        if (!n.ok()) return n.status();
        list.push_back(std::move(*n));
      }
    }
    return MakeSequenceNormalizer(std::move(list));
  }
  return absl::UnimplementedError(
      absl::StrCat("tokenizer.json: normalizer '", type, "' is not supported yet"));
}

}  // namespace strata::tokenizer
