// Lexer: template source → tokens, as @huggingface/jinja's tokenizer does it (with the
// trim_blocks / lstrip_blocks preprocessing transformers uses, `{% generation %}` tags removed,
// and `{% raw %}` blocks added). Each token records its offset in the original source so errors
// can name line:col. Stateless and thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace strata::jinja {

enum class TokenType {
  kText, kNumericLiteral, kStringLiteral, kIdentifier, kEquals, kOpenParen, kCloseParen,
  kOpenStatement, kCloseStatement, kOpenExpression, kCloseExpression, kOpenSquareBracket,
  kCloseSquareBracket, kOpenCurlyBracket, kCloseCurlyBracket, kComma, kDot, kColon, kPipe,
  kAdditiveBinaryOperator, kMultiplicativeBinaryOperator, kExponentiationBinaryOperator,
  kComparisonBinaryOperator, kUnaryOperator, kComment, kRawText,
};

const char* TokenTypeName(TokenType type);

struct Token {
  TokenType type;
  std::string value;
  int offset = 0;  // byte offset into the original source
};

// "line:col" (1-based) of a byte offset into `source`.
std::string LineCol(const std::string& source, int offset);

absl::StatusOr<std::vector<Token>> Tokenize(const std::string& source);

}  // namespace strata::jinja
