// AST of a parsed chat template: one Node type with a kind tag (statements and expressions),
// mirroring @huggingface/jinja's node classes. Immutable after parsing; shared by renders.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace strata::jinja {

struct Node;
using NodePtr = std::shared_ptr<const Node>;
using NodeList = std::vector<NodePtr>;

enum class NodeKind {
  // Statements
  kProgram,       // body
  kIf,            // a = test, body, alternate
  kFor,           // a = loop var (Identifier/Tuple), b = iterable, c = select test (or null),
                  // body, alternate (the else block)
  kSet,           // a = assignee, b = value (or null: block set with body)
  kMacro,         // name, args (parameters), body
  kCallBlock,     // a = call expression, args (caller parameters), body
  kFilterBlock,   // a = filter (Identifier or Call), body
  kBreak,
  kContinue,
  kComment,
  // Expressions
  kIntLiteral,    // i
  kFloatLiteral,  // f
  kStringLiteral, // name = value (also template text)
  kArrayLiteral,  // args
  kTupleLiteral,  // args
  kObjectLiteral, // args = key, value, key, value, ...
  kIdentifier,    // name
  kMember,        // a = object, b = property, flag = computed
  kCall,          // a = callee, args
  kUnary,         // name = operator, a = operand
  kBinary,        // name = operator, a = left, b = right
  kFilter,        // a = operand, b = filter (Identifier or Call)
  kTest,          // a = operand, name = test, flag = negate, args = test arguments
  kSelect,        // a = value, b = test (`a if b` without else)
  kTernary,       // a = condition, b = true value, c = false value
  kSlice,         // a = start, b = stop, c = step (each may be null)
  kKeywordArg,    // name = key, a = value
  kSpread,        // a = value (*args)
  kKeywordSpread, // a = value (**kwargs)
};

struct Node {
  NodeKind kind;
  int offset = 0;  // byte offset in the template source
  std::string name;
  int64_t i = 0;
  double f = 0;
  bool flag = false;
  NodePtr a, b, c;
  NodeList args;
  NodeList body;
  NodeList alternate;
};

}  // namespace strata::jinja
