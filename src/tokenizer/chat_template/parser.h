// Parser: tokens → AST, following @huggingface/jinja's grammar and operator precedence
// (ternary < or < and < not < comparison/in < + - ~ < * / // % < ** < is-test < |filter
// < unary sign < call/member < primary). Stateless and thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/chat_template/ast.h"
#include "tokenizer/chat_template/lexer.h"

namespace strata::jinja {

// `source` is only used to turn token offsets into line:col in error messages.
absl::StatusOr<NodePtr> Parse(const std::vector<Token>& tokens, const std::string& source);

}  // namespace strata::jinja
