#include "tokenizer/chat_template/lexer.h"

#include <cctype>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tokenizer/chat_template/text_util.h"
#include "tokenizer/unicode.h"

namespace strata::jinja {

namespace {

// Source text after preprocessing, with the original offset of every byte.
struct Mapped {
  std::string text;
  std::vector<int> origin;
  void Push(char c, int from) {
    text.push_back(c);
    origin.push_back(from);
  }
};

bool IsLineStart(const Mapped& m, size_t i) {
  if (i == 0) return true;
  const char p = m.text[i - 1];
  if (p == '\n' || p == '\r') return true;
  // U+2028 / U+2029 (E2 80 A8/A9) also start a line for JS's multiline `^`.
  return i >= 3 && static_cast<unsigned char>(m.text[i - 3]) == 0xE2 &&
         static_cast<unsigned char>(m.text[i - 2]) == 0x80 &&
         (static_cast<unsigned char>(p) == 0xA8 || static_cast<unsigned char>(p) == 0xA9);
}

// template.replace(/^[ \t]*({[#%-])/gm, "$1")
Mapped LstripBlocks(const Mapped& in) {
  Mapped out;
  for (size_t i = 0; i < in.text.size();) {
    if (IsLineStart(in, i)) {
      size_t j = i;
      while (j < in.text.size() && (in.text[j] == ' ' || in.text[j] == '\t')) ++j;
      if (j + 1 < in.text.size() && in.text[j] == '{' &&
          (in.text[j + 1] == '#' || in.text[j + 1] == '%' || in.text[j + 1] == '-')) {
        i = j;
      }
    }
    out.Push(in.text[i], in.origin[i]);
    ++i;
  }
  return out;
}

// template.replace(/([#%-]})\n/g, "$1")
Mapped TrimBlocks(const Mapped& in) {
  Mapped out;
  const std::string& s = in.text;
  for (size_t i = 0; i < s.size();) {
    if (i + 2 < s.size() && (s[i] == '#' || s[i] == '%' || s[i] == '-') && s[i + 1] == '}' &&
        s[i + 2] == '\n') {
      out.Push(s[i], in.origin[i]);
      out.Push(s[i + 1], in.origin[i + 1]);
      i += 3;
      continue;
    }
    out.Push(s[i], in.origin[i]);
    ++i;
  }
  return out;
}

// /(\s*){%(-?)\s*(?:end)?generation\s*(-?)%}(\s*)/gs → (lstrip ? "" : before) + (rstrip ? "" : after)
Mapped DropGenerationTags(const Mapped& in) {
  Mapped out;
  const std::string& s = in.text;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "{%") == 0) {
      size_t j = i + 2;
      const bool lstrip = j < s.size() && s[j] == '-';
      if (lstrip) ++j;
      while (int w = WhitespaceLength(s, j)) j += w;
      if (s.compare(j, 3, "end") == 0 && s.compare(j + 3, 10, "generation") == 0) j += 3;
      if (s.compare(j, 10, "generation") == 0) {
        j += 10;
        while (int w = WhitespaceLength(s, j)) j += w;
        const bool rstrip = j < s.size() && s[j] == '-';
        if (rstrip) ++j;
        if (s.compare(j, 2, "%}") == 0) {
          j += 2;
          if (lstrip) {
            std::string trimmed = TrimEnd(out.text);
            out.text.resize(trimmed.size());
            out.origin.resize(trimmed.size());
          }
          if (rstrip) {
            while (int w = WhitespaceLength(s, j)) j += w;
          }
          i = j;
          continue;
        }
      }
    }
    out.Push(s[i], in.origin[i]);
    ++i;
  }
  return out;
}

Mapped Preprocess(const std::string& source) {
  Mapped m;
  size_t n = source.size();
  if (n > 0 && source[n - 1] == '\n') --n;
  m.text.reserve(n);
  for (size_t i = 0; i < n; ++i) m.Push(source[i], static_cast<int>(i));
  return DropGenerationTags(TrimBlocks(LstripBlocks(m)));
}

struct MappingEntry {
  const char* seq;
  TokenType type;
};

constexpr MappingEntry kMapping[] = {
    {"{%", TokenType::kOpenStatement},
    {"%}", TokenType::kCloseStatement},
    {"{{", TokenType::kOpenExpression},
    {"}}", TokenType::kCloseExpression},
    {"(", TokenType::kOpenParen},
    {")", TokenType::kCloseParen},
    {"{", TokenType::kOpenCurlyBracket},
    {"}", TokenType::kCloseCurlyBracket},
    {"[", TokenType::kOpenSquareBracket},
    {"]", TokenType::kCloseSquareBracket},
    {",", TokenType::kComma},
    {".", TokenType::kDot},
    {":", TokenType::kColon},
    {"|", TokenType::kPipe},
    {"<=", TokenType::kComparisonBinaryOperator},
    {">=", TokenType::kComparisonBinaryOperator},
    {"==", TokenType::kComparisonBinaryOperator},
    {"!=", TokenType::kComparisonBinaryOperator},
    {"<", TokenType::kComparisonBinaryOperator},
    {">", TokenType::kComparisonBinaryOperator},
    {"+", TokenType::kAdditiveBinaryOperator},
    {"-", TokenType::kAdditiveBinaryOperator},
    {"~", TokenType::kAdditiveBinaryOperator},
    {"**", TokenType::kExponentiationBinaryOperator},
    {"*", TokenType::kMultiplicativeBinaryOperator},
    {"//", TokenType::kMultiplicativeBinaryOperator},
    {"/", TokenType::kMultiplicativeBinaryOperator},
    {"%", TokenType::kMultiplicativeBinaryOperator},
    {"=", TokenType::kEquals},
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  Lexer(const std::string& original, Mapped src) : original_(original), m_(std::move(src)) {}

  absl::StatusOr<std::vector<Token>> Run();

 private:
  const std::string& s() const { return m_.text; }
  char At(size_t i) const { return i < m_.text.size() ? m_.text[i] : '\0'; }
  int Origin(size_t i) const {
    if (m_.origin.empty()) return 0;
    return i < m_.origin.size() ? m_.origin[i] : m_.origin.back() + 1;
  }
  absl::Status Error(const std::string& message, size_t at) const {
    return absl::InvalidArgumentError(absl::StrCat("chat template syntax error at ",
                                                   LineCol(original_, Origin(at)), ": ", message));
  }
  void Push(TokenType type, std::string value, size_t at) {
    tokens_.push_back(Token{type, std::move(value), Origin(at)});
  }
  TokenType LastType() const { return tokens_.back().type; }
  void StripTrailingWhitespace() {
    if (!tokens_.empty() && tokens_.back().type == TokenType::kText) {
      tokens_.back().value = TrimEnd(tokens_.back().value);
      if (tokens_.back().value.empty()) tokens_.pop_back();
    }
  }
  void SkipLeadingWhitespace() {
    while (int w = WhitespaceLength(s(), pos_)) pos_ += w;
  }
  // consumeWhile with backslash escapes, as the reference does for strings (and whitespace).
  absl::StatusOr<std::string> ConsumeString(char quote);
  std::string ConsumeDigits() {
    std::string out;
    while (IsDigit(At(pos_))) out.push_back(s()[pos_++]);
    return out;
  }
  // `{% raw %}...{% endraw %}` at pos_: true and pushes the text when it is one.
  absl::StatusOr<bool> TryRaw();

  const std::string& original_;
  Mapped m_;
  size_t pos_ = 0;
  int curly_depth_ = 0;
  std::vector<Token> tokens_;
};

absl::StatusOr<std::string> Lexer::ConsumeString(char quote) {
  std::string str;
  const size_t start = pos_;
  while (true) {
    if (pos_ >= s().size()) return Error("Unexpected end of input", start);
    const char c = s()[pos_];
    if (c == quote) break;
    if (c == '\\') {
      ++pos_;
      if (pos_ >= s().size()) return Error("Unexpected end of input", start);
      const char e = s()[pos_++];
      if (e == 'x' || e == 'u') {
        const size_t len = e == 'x' ? 2 : 4;
        const std::string hex = s().substr(pos_, len);
        bool ok = hex.size() == len;
        for (char h : hex) ok = ok && std::isxdigit(static_cast<unsigned char>(h));
        if (!ok) return Error(absl::StrCat("Invalid hexadecimal escape sequence: \\", std::string(1, e), hex), pos_);
        uint32_t cp = std::stoul(hex, nullptr, 16);
        pos_ += len;
        // Join a UTF-16 surrogate pair written as two \u escapes.
        if (cp >= 0xD800 && cp < 0xDC00 && At(pos_) == '\\' && At(pos_ + 1) == 'u') {
          const std::string lo = s().substr(pos_ + 2, 4);
          bool lok = lo.size() == 4;
          for (char h : lo) lok = lok && std::isxdigit(static_cast<unsigned char>(h));
          if (lok) {
            const uint32_t low = std::stoul(lo, nullptr, 16);
            if (low >= 0xDC00 && low < 0xE000) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
              pos_ += 6;
            }
          }
        }
        tokenizer::AppendUtf8(cp, &str);
        continue;
      }
      switch (e) {
        case 'n': str.push_back('\n'); break;
        case 't': str.push_back('\t'); break;
        case 'r': str.push_back('\r'); break;
        case 'b': str.push_back('\b'); break;
        case 'f': str.push_back('\f'); break;
        case 'v': str.push_back('\v'); break;
        case '\'': str.push_back('\''); break;
        case '"': str.push_back('"'); break;
        case '\\': str.push_back('\\'); break;
        default:
          return Error(absl::StrCat("Unexpected escaped character: ", std::string(1, e)), pos_ - 1);
      }
      continue;
    }
    str.push_back(c);
    ++pos_;
  }
  return str;
}

absl::StatusOr<bool> Lexer::TryRaw() {
  size_t j = pos_ + 2;
  const bool strip_before = At(j) == '-';
  if (strip_before) ++j;
  while (WhitespaceLength(s(), j)) j += WhitespaceLength(s(), j);
  if (s().compare(j, 3, "raw") != 0 || IsWordChar(At(j + 3))) return false;
  j += 3;
  while (WhitespaceLength(s(), j)) j += WhitespaceLength(s(), j);
  const bool strip_after = At(j) == '-';
  if (strip_after) ++j;
  if (s().compare(j, 2, "%}") != 0) return false;
  const size_t body_start = j + 2;
  // Find {%-? endraw -?%}
  for (size_t k = body_start; k + 1 < s().size(); ++k) {
    if (s()[k] != '{' || s()[k + 1] != '%') continue;
    size_t e = k + 2;
    const bool end_strip_before = At(e) == '-';
    if (end_strip_before) ++e;
    while (WhitespaceLength(s(), e)) e += WhitespaceLength(s(), e);
    if (s().compare(e, 6, "endraw") != 0) continue;
    e += 6;
    while (WhitespaceLength(s(), e)) e += WhitespaceLength(s(), e);
    const bool end_strip_after = At(e) == '-';
    if (end_strip_after) ++e;
    if (s().compare(e, 2, "%}") != 0) continue;
    std::string body = s().substr(body_start, k - body_start);
    if (strip_after) body = TrimStart(body);
    if (end_strip_before) body = TrimEnd(body);
    if (strip_before) StripTrailingWhitespace();
    Push(TokenType::kRawText, std::move(body), body_start);
    pos_ = e + 2;
    if (end_strip_after) SkipLeadingWhitespace();
    return true;
  }
  return Error("Missing {% endraw %}", pos_);
}

absl::StatusOr<std::vector<Token>> Lexer::Run() {
  while (pos_ < s().size()) {
    const bool at_text = tokens_.empty() || LastType() == TokenType::kCloseStatement ||
                         LastType() == TokenType::kCloseExpression ||
                         LastType() == TokenType::kComment || LastType() == TokenType::kRawText;
    if (at_text) {
      const size_t start = pos_;
      while (pos_ < s().size() &&
             !(s()[pos_] == '{' && (At(pos_ + 1) == '%' || At(pos_ + 1) == '{' || At(pos_ + 1) == '#'))) {
        ++pos_;
      }
      if (pos_ > start) {
        Push(TokenType::kText, s().substr(start, pos_ - start), start);
        continue;
      }
      if (At(pos_) == '{' && At(pos_ + 1) == '%') {
        auto raw = TryRaw();
        if (!raw.ok()) return raw.status();
        if (*raw) continue;
      }
    }
    if (At(pos_) == '{' && At(pos_ + 1) == '#') {
      const size_t start = pos_;
      pos_ += 2;
      const bool strip_before = At(pos_) == '-';
      if (strip_before) ++pos_;
      std::string comment;
      while (!(At(pos_) == '#' && At(pos_ + 1) == '}')) {
        if (pos_ + 2 >= s().size()) return Error("Missing end of comment tag", start);
        comment.push_back(s()[pos_++]);
      }
      const bool strip_after = !comment.empty() && comment.back() == '-';
      if (strip_after) comment.pop_back();
      if (strip_before) StripTrailingWhitespace();
      Push(TokenType::kComment, std::move(comment), start);
      pos_ += 2;
      if (strip_after) SkipLeadingWhitespace();
      continue;
    }
    if (s().compare(pos_, 3, "{%-") == 0) {
      StripTrailingWhitespace();
      Push(TokenType::kOpenStatement, "{%", pos_);
      pos_ += 3;
      continue;
    }
    if (s().compare(pos_, 3, "{{-") == 0) {
      StripTrailingWhitespace();
      Push(TokenType::kOpenExpression, "{{", pos_);
      curly_depth_ = 0;
      pos_ += 3;
      continue;
    }
    SkipLeadingWhitespace();
    if (pos_ >= s().size()) break;
    if (s().compare(pos_, 3, "-%}") == 0) {
      Push(TokenType::kCloseStatement, "%}", pos_);
      pos_ += 3;
      SkipLeadingWhitespace();
      continue;
    }
    if (s().compare(pos_, 3, "-}}") == 0) {
      Push(TokenType::kCloseExpression, "}}", pos_);
      pos_ += 3;
      SkipLeadingWhitespace();
      continue;
    }
    const char c = s()[pos_];
    if (c == '-' || c == '+') {
      if (tokens_.empty() || LastType() == TokenType::kText) {
        return Error(absl::StrCat("Unexpected character: ", std::string(1, c)), pos_);
      }
      switch (LastType()) {
        case TokenType::kIdentifier:
        case TokenType::kNumericLiteral:
        case TokenType::kStringLiteral:
        case TokenType::kCloseParen:
        case TokenType::kCloseSquareBracket:
          break;
        default: {
          const size_t start = pos_;
          ++pos_;
          std::string num = ConsumeDigits();
          if (!num.empty() && At(pos_) == '.' && IsDigit(At(pos_ + 1))) {
            ++pos_;
            num += "." + ConsumeDigits();
          }
          Push(num.empty() ? TokenType::kUnaryOperator : TokenType::kNumericLiteral,
               std::string(1, c) + num, start);
          continue;
        }
      }
    }
    bool matched = false;
    for (const MappingEntry& e : kMapping) {
      const std::string_view seq(e.seq);
      if (seq == "}}" && curly_depth_ > 0) continue;
      if (s().compare(pos_, seq.size(), seq) == 0) {
        Push(e.type, std::string(seq), pos_);
        if (e.type == TokenType::kOpenExpression) curly_depth_ = 0;
        if (e.type == TokenType::kOpenCurlyBracket) ++curly_depth_;
        if (e.type == TokenType::kCloseCurlyBracket) --curly_depth_;
        pos_ += seq.size();
        matched = true;
        break;
      }
    }
    if (matched) continue;
    if (c == '\'' || c == '"') {
      const size_t start = pos_;
      ++pos_;
      auto str = ConsumeString(c);
      if (!str.ok()) return str.status();
      Push(TokenType::kStringLiteral, std::move(*str), start);
      ++pos_;
      continue;
    }
    if (IsDigit(c)) {
      const size_t start = pos_;
      std::string num = ConsumeDigits();
      if ((tokens_.empty() || LastType() != TokenType::kDot) && At(pos_) == '.' &&
          IsDigit(At(pos_ + 1))) {
        ++pos_;
        num += "." + ConsumeDigits();
      }
      Push(TokenType::kNumericLiteral, std::move(num), start);
      continue;
    }
    if (IsWordChar(c)) {
      const size_t start = pos_;
      while (IsWordChar(At(pos_))) ++pos_;
      Push(TokenType::kIdentifier, s().substr(start, pos_ - start), start);
      continue;
    }
    return Error(absl::StrCat("Unexpected character: ", std::string(1, c)), pos_);
  }
  return std::move(tokens_);
}

}  // namespace

const char* TokenTypeName(TokenType type) {
  static const char* kNames[] = {
      "Text", "NumericLiteral", "StringLiteral", "Identifier", "Equals", "OpenParen",
      "CloseParen", "OpenStatement", "CloseStatement", "OpenExpression", "CloseExpression",
      "OpenSquareBracket", "CloseSquareBracket", "OpenCurlyBracket", "CloseCurlyBracket", "Comma",
      "Dot", "Colon", "Pipe", "AdditiveBinaryOperator", "MultiplicativeBinaryOperator",
      "ExponentiationBinaryOperator", "ComparisonBinaryOperator", "UnaryOperator", "Comment",
      "RawText"};
  return kNames[static_cast<int>(type)];
}

std::string LineCol(const std::string& source, int offset) {
  int line = 1, col = 1;
  for (int i = 0; i < offset && i < static_cast<int>(source.size()); ++i) {
    if (source[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return absl::StrCat(line, ":", col);
}

absl::StatusOr<std::vector<Token>> Tokenize(const std::string& source) {
  Lexer lexer(source, Preprocess(source));
  return lexer.Run();
}

}  // namespace strata::jinja
