#include "tokenizer/decoders.h"

#include "absl/strings/str_cat.h"
#include "tokenizer/unicode.h"

namespace strata::tokenizer {
namespace {

constexpr char kReplacementChar[] = "\xEF\xBF\xBD";

class ByteLevelDecoder : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>* tokens) const override {
    std::string bytes;
    for (const std::string& t : *tokens) {
      size_t mark = bytes.size();
      bool ok = true;
      for (size_t i = 0; i < t.size();) {
        char32_t cp;
        i += DecodeUtf8(t, i, &cp);
        int b = UnicodeToByte(cp);
        if (b < 0) {
          ok = false;
          break;
        }
        bytes.push_back(static_cast<char>(b));
      }
      if (!ok) {
        bytes.resize(mark);
        bytes += t;
      }
    }
    tokens->assign(1, Utf8Lossy(bytes));
  }
};

// "<0xAB>" → 0xAB, else -1.
int ParseByteToken(const std::string& t) {
  if (t.size() != 6 || t[0] != '<' || t[1] != '0' || t[2] != 'x' || t[5] != '>') return -1;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  int hi = hex(t[3]), lo = hex(t[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

class ByteFallbackDecoder : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>* tokens) const override {
    std::vector<std::string> out;
    std::string bytes;
    size_t count = 0;
    auto flush = [&] {
      if (count == 0) return;
      if (IsValidUtf8(bytes)) {
        out.push_back(bytes);
      } else {
        for (size_t i = 0; i < count; ++i) out.push_back(kReplacementChar);
      }
      bytes.clear();
      count = 0;
    };
    for (std::string& t : *tokens) {
      int b = ParseByteToken(t);
      if (b >= 0) {
        bytes.push_back(static_cast<char>(b));
        ++count;
      } else {
        flush();
        out.push_back(std::move(t));
      }
    }
    flush();
    *tokens = std::move(out);
  }
};

class FuseDecoder : public Decoder {
 public:
  void DecodeChain(std::vector<std::string>* tokens) const override {
    std::string all;
    for (const std::string& t : *tokens) all += t;
    tokens->assign(1, std::move(all));
  }
};

class ReplaceDecoder : public Decoder {
 public:
  ReplaceDecoder(std::string pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void DecodeChain(std::vector<std::string>* tokens) const override {
    if (pattern_.empty()) return;
    for (std::string& t : *tokens) {
      size_t pos = t.find(pattern_);
      if (pos == std::string::npos) continue;
      std::string out;
      size_t last = 0;
      for (; pos != std::string::npos; pos = t.find(pattern_, last)) {
        out.append(t, last, pos - last);
        out += content_;
        last = pos + pattern_.size();
      }
      out.append(t, last, std::string::npos);
      t = std::move(out);
    }
  }

 private:
  std::string pattern_, content_;
};

class StripDecoder : public Decoder {
 public:
  StripDecoder(std::string content, size_t start, size_t stop)
      : content_(std::move(content)), start_(start), stop_(stop) {}
  void DecodeChain(std::vector<std::string>* tokens) const override {
    for (std::string& t : *tokens) {
      size_t begin = 0, end = t.size();
      for (size_t i = 0; i < start_ && t.compare(begin, content_.size(), content_) == 0 &&
                         begin + content_.size() <= end;
           ++i) {
        begin += content_.size();
      }
      for (size_t i = 0; i < stop_ && end >= begin + content_.size() &&
                         t.compare(end - content_.size(), content_.size(), content_) == 0;
           ++i) {
        end -= content_.size();
      }
      t = t.substr(begin, end - begin);
    }
  }

 private:
  std::string content_;
  size_t start_, stop_;
};

class MetaspaceDecoder : public Decoder {
 public:
  MetaspaceDecoder(std::string replacement, bool prepend)
      : replacement_(std::move(replacement)), prepend_(prepend) {}
  void DecodeChain(std::vector<std::string>* tokens) const override {
    for (size_t i = 0; i < tokens->size(); ++i) {
      std::string& t = (*tokens)[i];
      std::string out;
      size_t last = 0;
      for (size_t pos = t.find(replacement_); pos != std::string::npos;
           pos = t.find(replacement_, last)) {
        out.append(t, last, pos - last);
        if (!(i == 0 && prepend_)) out += ' ';
        last = pos + replacement_.size();
      }
      out.append(t, last, std::string::npos);
      t = std::move(out);
    }
  }

 private:
  std::string replacement_;
  bool prepend_;
};

class SequenceDecoder : public Decoder {
 public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> list) : list_(std::move(list)) {}
  void DecodeChain(std::vector<std::string>* tokens) const override {
    for (const auto& d : list_) d->DecodeChain(tokens);
  }

 private:
  std::vector<std::unique_ptr<Decoder>> list_;
};

}  // namespace

std::unique_ptr<Decoder> MakeByteLevelDecoder() { return std::make_unique<ByteLevelDecoder>(); }

std::unique_ptr<Decoder> MakeSentencePieceDecoder(bool strip_first) {
  std::vector<std::unique_ptr<Decoder>> list;
  list.push_back(std::make_unique<ReplaceDecoder>("\xE2\x96\x81", " "));
  list.push_back(std::make_unique<ByteFallbackDecoder>());
  list.push_back(std::make_unique<FuseDecoder>());
  if (strip_first) list.push_back(std::make_unique<StripDecoder>(" ", 1, 0));
  return std::make_unique<SequenceDecoder>(std::move(list));
}

absl::StatusOr<std::unique_ptr<Decoder>> ParseDecoder(const Json& j) {
  std::string type = StrField(j, "type");
  if (type == "ByteLevel") return MakeByteLevelDecoder();
  if (type == "ByteFallback") return std::unique_ptr<Decoder>(new ByteFallbackDecoder());
  if (type == "Fuse") return std::unique_ptr<Decoder>(new FuseDecoder());
  if (type == "Replace") {
    const Json* pattern = Field(j, "pattern");
    if (pattern == nullptr || !pattern->contains("String")) {
      return absl::UnimplementedError("tokenizer.json: Replace decoder needs a String pattern");
    }
    return std::unique_ptr<Decoder>(
        new ReplaceDecoder(StrField(*pattern, "String"), StrField(j, "content")));
  }
  if (type == "Strip") {
    return std::unique_ptr<Decoder>(new StripDecoder(StrField(j, "content", " "),
                                                     IntField(j, "start", 0),
                                                     IntField(j, "stop", 0)));
  }
  if (type == "Metaspace") {
    std::string scheme = StrField(j, "prepend_scheme");
    bool prepend = scheme.empty() ? BoolField(j, "add_prefix_space", true) : scheme != "never";
    return std::unique_ptr<Decoder>(
        new MetaspaceDecoder(StrField(j, "replacement", "\xE2\x96\x81"), prepend));
  }
  if (type == "Sequence") {
    std::vector<std::unique_ptr<Decoder>> list;
    const Json* items = Field(j, "decoders");
    if (items != nullptr && items->is_array()) {
      for (const Json& item : *items) {
        auto d = ParseDecoder(item);
        if (!d.ok()) return d.status();
        list.push_back(std::move(*d));
      }
    }
    return std::unique_ptr<Decoder>(new SequenceDecoder(std::move(list)));
  }
  return absl::UnimplementedError(
      absl::StrCat("tokenizer.json: decoder '", type, "' is not supported yet"));
}

}  // namespace strata::tokenizer
