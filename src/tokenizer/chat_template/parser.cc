#include "tokenizer/chat_template/parser.h"

#include <cstdlib>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "strata/status_macros.h"

namespace strata::jinja {

namespace {

constexpr int kMaxParseDepth = 200;

using MutableNode = std::shared_ptr<Node>;

class Parser {
 public:
  Parser(const std::vector<Token>& tokens, const std::string& source)
      : tokens_(tokens), source_(source) {}

  absl::StatusOr<NodePtr> ParseProgram() {
    auto program = Make(NodeKind::kProgram, 0);
    while (current_ < tokens_.size()) {
      ASSIGN_OR_RETURN(NodePtr node, ParseAny());
      program->body.push_back(std::move(node));
    }
    return NodePtr(program);
  }

 private:
  // Depth guard for recursive descent.
  class DepthGuard {
   public:
    explicit DepthGuard(Parser* p) : p_(p) { ++p_->depth_; }
    ~DepthGuard() { --p_->depth_; }
    bool exceeded() const { return p_->depth_ > kMaxParseDepth; }

   private:
    Parser* p_;
  };

  MutableNode Make(NodeKind kind, int offset) {
    auto n = std::make_shared<Node>();
    n->kind = kind;
    n->offset = offset;
    return n;
  }
  int Offset() const {
    if (current_ < tokens_.size()) return tokens_[current_].offset;
    return static_cast<int>(source_.size());
  }
  absl::Status Error(const std::string& message) const {
    return absl::InvalidArgumentError(absl::StrCat("chat template syntax error at ",
                                                   LineCol(source_, Offset()), ": ", message));
  }
  bool Is(TokenType t, size_t ahead = 0) const {
    return current_ + ahead < tokens_.size() && tokens_[current_ + ahead].type == t;
  }
  bool IsIdentifier(const char* name, size_t ahead = 0) const {
    return Is(TokenType::kIdentifier, ahead) && tokens_[current_ + ahead].value == name;
  }
  bool IsStatement(std::initializer_list<const char*> names) const {
    if (!Is(TokenType::kOpenStatement) || !Is(TokenType::kIdentifier, 1)) return false;
    for (const char* n : names) {
      if (tokens_[current_ + 1].value == n) return true;
    }
    return false;
  }
  absl::StatusOr<Token> Expect(TokenType type, const char* what) {
    if (current_ >= tokens_.size()) {
      return Error(absl::StrCat(what, ", got end of template"));
    }
    if (tokens_[current_].type != type) {
      return Error(absl::StrCat(what, ", got ", TokenTypeName(tokens_[current_].type), " '",
                                tokens_[current_].value, "'"));
    }
    return tokens_[current_++];
  }
  absl::Status ExpectIdentifier(const char* name) {
    if (!IsIdentifier(name)) return Error(absl::StrCat("Expected '", name, "'"));
    ++current_;
    return absl::OkStatus();
  }
  // Parses statements until one of `names` opens a statement.
  absl::Status ParseUntil(std::initializer_list<const char*> names, NodeList* out) {
    while (!IsStatement(names)) {
      if (current_ >= tokens_.size()) {
        std::string list;
        for (const char* n : names) list += (list.empty() ? "" : "/") + std::string(n);
        return Error(absl::StrCat("Unexpected end of template, expected {% ", list, " %}"));
      }
      ASSIGN_OR_RETURN(NodePtr node, ParseAny());
      out->push_back(std::move(node));
    }
    return absl::OkStatus();
  }
  absl::Status ExpectEnd(const char* name) {
    RETURN_IF_ERROR(Expect(TokenType::kOpenStatement, "Expected '{%'").status());
    RETURN_IF_ERROR(ExpectIdentifier(name));
    return Expect(TokenType::kCloseStatement, "Expected '%}'").status();
  }

  absl::StatusOr<NodePtr> ParseAny() {
    DepthGuard guard(this);
    if (guard.exceeded()) return Error("template nested too deeply");
    const Token& t = tokens_[current_];
    switch (t.type) {
      case TokenType::kComment: {
        auto n = Make(NodeKind::kComment, t.offset);
        ++current_;
        return NodePtr(n);
      }
      case TokenType::kText:
      case TokenType::kRawText: {
        auto n = Make(NodeKind::kStringLiteral, t.offset);
        n->name = t.value;
        ++current_;
        return NodePtr(n);
      }
      case TokenType::kOpenStatement:
        return ParseStatement();
      case TokenType::kOpenExpression: {
        ++current_;
        ASSIGN_OR_RETURN(NodePtr e, ParseExpression());
        RETURN_IF_ERROR(Expect(TokenType::kCloseExpression, "Expected '}}'").status());
        return e;
      }
      default:
        return Error(absl::StrCat("Unexpected token type: ", TokenTypeName(t.type)));
    }
  }

  absl::StatusOr<NodePtr> ParseStatement() {
    const int offset = Offset();
    ++current_;  // {%
    if (!Is(TokenType::kIdentifier)) {
      return Error(absl::StrCat("Unknown statement, got ",
                                current_ < tokens_.size() ? TokenTypeName(tokens_[current_].type)
                                                          : "end of template"));
    }
    const std::string name = tokens_[current_].value;
    ++current_;
    if (name == "set") return ParseSet(offset);
    if (name == "if") {
      ASSIGN_OR_RETURN(NodePtr n, ParseIf(offset));
      RETURN_IF_ERROR(ExpectEnd("endif"));
      return n;
    }
    if (name == "macro") {
      auto n = Make(NodeKind::kMacro, offset);
      ASSIGN_OR_RETURN(NodePtr id, ParsePrimary());
      if (id->kind != NodeKind::kIdentifier) return Error("Expected identifier following macro");
      n->name = id->name;
      ASSIGN_OR_RETURN(n->args, ParseArgs(/*parameters=*/true));
      RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "Expected '%}'").status());
      RETURN_IF_ERROR(ParseUntil({"endmacro"}, &n->body));
      RETURN_IF_ERROR(ExpectEnd("endmacro"));
      return NodePtr(n);
    }
    if (name == "for") {
      ASSIGN_OR_RETURN(NodePtr n, ParseFor(offset));
      RETURN_IF_ERROR(ExpectEnd("endfor"));
      return n;
    }
    if (name == "call") {
      auto n = Make(NodeKind::kCallBlock, offset);
      if (Is(TokenType::kOpenParen)) {
        ASSIGN_OR_RETURN(n->args, ParseArgs(/*parameters=*/true));
      }
      ASSIGN_OR_RETURN(NodePtr callee, ParsePrimary());
      if (callee->kind != NodeKind::kIdentifier) {
        return Error("Expected identifier following call statement");
      }
      auto call = Make(NodeKind::kCall, callee->offset);
      call->a = callee;
      ASSIGN_OR_RETURN(call->args, ParseArgs(/*parameters=*/false));
      n->a = call;
      RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "Expected '%}'").status());
      RETURN_IF_ERROR(ParseUntil({"endcall"}, &n->body));
      RETURN_IF_ERROR(ExpectEnd("endcall"));
      return NodePtr(n);
    }
    if (name == "break" || name == "continue") {
      RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "Expected '%}'").status());
      return NodePtr(Make(name == "break" ? NodeKind::kBreak : NodeKind::kContinue, offset));
    }
    if (name == "filter") {
      auto n = Make(NodeKind::kFilterBlock, offset);
      ASSIGN_OR_RETURN(NodePtr f, ParsePrimary());
      if (f->kind == NodeKind::kIdentifier && Is(TokenType::kOpenParen)) {
        ASSIGN_OR_RETURN(f, ParseCall(f));
      }
      n->a = f;
      RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "Expected '%}'").status());
      RETURN_IF_ERROR(ParseUntil({"endfilter"}, &n->body));
      RETURN_IF_ERROR(ExpectEnd("endfilter"));
      return NodePtr(n);
    }
    --current_;
    return Error(absl::StrCat("Unknown statement type: ", name));
  }

  absl::StatusOr<NodePtr> ParseSet(int offset) {
    auto n = Make(NodeKind::kSet, offset);
    ASSIGN_OR_RETURN(n->a, ParseExpressionSequence(false));
    if (Is(TokenType::kEquals)) {
      ++current_;
      ASSIGN_OR_RETURN(n->b, ParseExpressionSequence(false));
    } else {
      RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "Expected '%}'").status());
      RETURN_IF_ERROR(ParseUntil({"endset"}, &n->body));
      RETURN_IF_ERROR(Expect(TokenType::kOpenStatement, "Expected '{%'").status());
      RETURN_IF_ERROR(ExpectIdentifier("endset"));
    }
    RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "Expected '%}'").status());
    return NodePtr(n);
  }

  absl::StatusOr<NodePtr> ParseIf(int offset) {
    auto n = Make(NodeKind::kIf, offset);
    ASSIGN_OR_RETURN(n->a, ParseExpression());
    RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "Expected '%}'").status());
    RETURN_IF_ERROR(ParseUntil({"elif", "else", "endif"}, &n->body));
    if (IsStatement({"elif"})) {
      const int elif_offset = Offset();
      current_ += 2;
      ASSIGN_OR_RETURN(NodePtr elif, ParseIf(elif_offset));
      n->alternate.push_back(std::move(elif));
    } else if (IsStatement({"else"})) {
      current_ += 2;
      RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "Expected '%}'").status());
      RETURN_IF_ERROR(ParseUntil({"endif"}, &n->alternate));
    }
    return NodePtr(n);
  }

  absl::StatusOr<NodePtr> ParseFor(int offset) {
    auto n = Make(NodeKind::kFor, offset);
    ASSIGN_OR_RETURN(n->a, ParseExpressionSequence(true));
    if (n->a->kind != NodeKind::kIdentifier && n->a->kind != NodeKind::kTupleLiteral) {
      return Error("Expected identifier/tuple for the loop variable");
    }
    if (!IsIdentifier("in")) return Error("Expected `in` keyword following loop variable");
    ++current_;
    ASSIGN_OR_RETURN(NodePtr iterable, ParseExpression());
    if (iterable->kind == NodeKind::kSelect) {
      n->b = iterable->a;
      n->c = iterable->b;
    } else {
      n->b = iterable;
    }
    RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "Expected '%}'").status());
    RETURN_IF_ERROR(ParseUntil({"endfor", "else"}, &n->body));
    if (IsStatement({"else"})) {
      current_ += 2;
      RETURN_IF_ERROR(Expect(TokenType::kCloseStatement, "Expected '%}'").status());
      RETURN_IF_ERROR(ParseUntil({"endfor"}, &n->alternate));
    }
    return NodePtr(n);
  }

  absl::StatusOr<NodePtr> ParseExpressionSequence(bool primary) {
    const int offset = Offset();
    NodeList items;
    {
      ASSIGN_OR_RETURN(NodePtr first, primary ? ParsePrimary() : ParseExpression());
      items.push_back(std::move(first));
    }
    const bool is_tuple = Is(TokenType::kComma);
    while (is_tuple) {
      ++current_;
      ASSIGN_OR_RETURN(NodePtr next, primary ? ParsePrimary() : ParseExpression());
      items.push_back(std::move(next));
      if (!Is(TokenType::kComma)) break;
    }
    if (!is_tuple) return items[0];
    auto t = Make(NodeKind::kTupleLiteral, offset);
    t->args = std::move(items);
    return NodePtr(t);
  }

  absl::StatusOr<NodePtr> ParseExpression() {
    DepthGuard guard(this);
    if (guard.exceeded()) return Error("expression nested too deeply");
    return ParseIfExpression();
  }

  absl::StatusOr<NodePtr> ParseIfExpression() {
    ASSIGN_OR_RETURN(NodePtr a, ParseOr());
    if (IsIdentifier("if")) {
      const int offset = Offset();
      ++current_;
      ASSIGN_OR_RETURN(NodePtr test, ParseOr());
      if (IsIdentifier("else")) {
        ++current_;
        ASSIGN_OR_RETURN(NodePtr other, ParseIfExpression());
        auto t = Make(NodeKind::kTernary, offset);
        t->a = test;
        t->b = a;
        t->c = other;
        return NodePtr(t);
      }
      auto s = Make(NodeKind::kSelect, offset);
      s->a = a;
      s->b = test;
      return NodePtr(s);
    }
    return a;
  }

  NodePtr Binary(const std::string& op, NodePtr l, NodePtr r, int offset) {
    auto n = Make(NodeKind::kBinary, offset);
    n->name = op;
    n->a = std::move(l);
    n->b = std::move(r);
    return n;
  }

  absl::StatusOr<NodePtr> ParseOr() {
    ASSIGN_OR_RETURN(NodePtr left, ParseAnd());
    while (IsIdentifier("or")) {
      const int offset = Offset();
      ++current_;
      ASSIGN_OR_RETURN(NodePtr right, ParseAnd());
      left = Binary("or", left, right, offset);
    }
    return left;
  }

  absl::StatusOr<NodePtr> ParseAnd() {
    ASSIGN_OR_RETURN(NodePtr left, ParseNot());
    while (IsIdentifier("and")) {
      const int offset = Offset();
      ++current_;
      ASSIGN_OR_RETURN(NodePtr right, ParseNot());
      left = Binary("and", left, right, offset);
    }
    return left;
  }

  absl::StatusOr<NodePtr> ParseNot() {
    if (IsIdentifier("not")) {
      DepthGuard guard(this);
      if (guard.exceeded()) return Error("expression nested too deeply");
      const int offset = Offset();
      ++current_;
      ASSIGN_OR_RETURN(NodePtr arg, ParseNot());
      auto n = Make(NodeKind::kUnary, offset);
      n->name = "not";
      n->a = arg;
      return NodePtr(n);
    }
    return ParseComparison();
  }

  absl::StatusOr<NodePtr> ParseComparison() {
    ASSIGN_OR_RETURN(NodePtr left, ParseAdditive());
    while (true) {
      const int offset = Offset();
      std::string op;
      if (IsIdentifier("not") && IsIdentifier("in", 1)) {
        op = "not in";
        current_ += 2;
      } else if (IsIdentifier("in")) {
        op = "in";
        ++current_;
      } else if (Is(TokenType::kComparisonBinaryOperator)) {
        op = tokens_[current_++].value;
      } else {
        break;
      }
      ASSIGN_OR_RETURN(NodePtr right, ParseAdditive());
      left = Binary(op, left, right, offset);
    }
    return left;
  }

  absl::StatusOr<NodePtr> ParseAdditive() {
    ASSIGN_OR_RETURN(NodePtr left, ParseMultiplicative());
    while (Is(TokenType::kAdditiveBinaryOperator)) {
      const int offset = Offset();
      const std::string op = tokens_[current_++].value;
      ASSIGN_OR_RETURN(NodePtr right, ParseMultiplicative());
      left = Binary(op, left, right, offset);
    }
    return left;
  }

  absl::StatusOr<NodePtr> ParseMultiplicative() {
    ASSIGN_OR_RETURN(NodePtr left, ParsePower());
    while (Is(TokenType::kMultiplicativeBinaryOperator)) {
      const int offset = Offset();
      const std::string op = tokens_[current_++].value;
      ASSIGN_OR_RETURN(NodePtr right, ParsePower());
      left = Binary(op, left, right, offset);
    }
    return left;
  }

  absl::StatusOr<NodePtr> ParsePower() {
    ASSIGN_OR_RETURN(NodePtr left, ParseTest());
    while (Is(TokenType::kExponentiationBinaryOperator)) {
      const int offset = Offset();
      ++current_;
      ASSIGN_OR_RETURN(NodePtr right, ParseTest());
      left = Binary("**", left, right, offset);
    }
    return left;
  }

  absl::StatusOr<NodePtr> ParseTest() {
    ASSIGN_OR_RETURN(NodePtr operand, ParseFilter());
    while (IsIdentifier("is")) {
      const int offset = Offset();
      ++current_;
      const bool negate = IsIdentifier("not");
      if (negate) ++current_;
      if (!Is(TokenType::kIdentifier)) return Error("Expected identifier for the test");
      auto n = Make(NodeKind::kTest, offset);
      n->name = tokens_[current_++].value;
      n->flag = negate;
      n->a = operand;
      // Jinja2 test arguments: `is divisibleby(3)` or `is sameas 3` (one literal).
      if (Is(TokenType::kOpenParen)) {
        ASSIGN_OR_RETURN(n->args, ParseArgs(false));
      } else if (Is(TokenType::kNumericLiteral) || Is(TokenType::kStringLiteral)) {
        ASSIGN_OR_RETURN(NodePtr arg, ParsePrimary());
        n->args.push_back(std::move(arg));
      }
      operand = n;
    }
    return operand;
  }

  absl::StatusOr<NodePtr> ParseFilter() {
    ASSIGN_OR_RETURN(NodePtr operand, ParseUnarySign());
    while (Is(TokenType::kPipe)) {
      const int offset = Offset();
      ++current_;
      ASSIGN_OR_RETURN(NodePtr filter, ParsePrimary());
      if (filter->kind != NodeKind::kIdentifier) return Error("Expected identifier for the filter");
      if (Is(TokenType::kOpenParen)) {
        ASSIGN_OR_RETURN(filter, ParseCall(filter));
      }
      auto n = Make(NodeKind::kFilter, offset);
      n->a = operand;
      n->b = filter;
      operand = n;
    }
    return operand;
  }

  absl::StatusOr<NodePtr> ParseUnarySign() {
    if ((Is(TokenType::kUnaryOperator) || Is(TokenType::kAdditiveBinaryOperator)) &&
        (tokens_[current_].value == "-" || tokens_[current_].value == "+")) {
      DepthGuard guard(this);
      if (guard.exceeded()) return Error("expression nested too deeply");
      auto n = Make(NodeKind::kUnary, Offset());
      n->name = tokens_[current_++].value;
      ASSIGN_OR_RETURN(n->a, ParseUnarySign());
      return NodePtr(n);
    }
    return ParseCallMember();
  }

  absl::StatusOr<NodePtr> ParseCallMember() {
    ASSIGN_OR_RETURN(NodePtr primary, ParsePrimary());
    ASSIGN_OR_RETURN(NodePtr member, ParseMember(primary));
    if (Is(TokenType::kOpenParen)) return ParseCall(member);
    return member;
  }

  absl::StatusOr<NodePtr> ParseCall(NodePtr callee) {
    auto n = Make(NodeKind::kCall, callee->offset);
    n->a = callee;
    ASSIGN_OR_RETURN(n->args, ParseArgs(false));
    ASSIGN_OR_RETURN(NodePtr expr, ParseMember(n));
    if (Is(TokenType::kOpenParen)) return ParseCall(expr);
    return expr;
  }

  absl::StatusOr<NodeList> ParseArgs(bool parameters) {
    RETURN_IF_ERROR(Expect(TokenType::kOpenParen, "Expected '('").status());
    NodeList args;
    std::set<std::string> names;
    bool saw_keyword = false, saw_spread = false;
    while (!Is(TokenType::kCloseParen)) {
      if (current_ >= tokens_.size()) return Error("Expected ')'");
      const int offset = Offset();
      const bool kw_spread = Is(TokenType::kExponentiationBinaryOperator);
      const bool pos_spread =
          Is(TokenType::kMultiplicativeBinaryOperator) && tokens_[current_].value == "*";
      if (parameters && (kw_spread || pos_spread)) {
        return Error("Argument unpacking is not allowed in parameter declarations");
      }
      if (kw_spread) {
        ++current_;
        auto n = Make(NodeKind::kKeywordSpread, offset);
        ASSIGN_OR_RETURN(n->a, ParseExpression());
        args.push_back(n);
        if (Is(TokenType::kComma)) ++current_;
        if (!Is(TokenType::kCloseParen)) {
          return Error("Expected closing parenthesis: `**` must be applied to the final argument");
        }
        break;
      }
      NodePtr arg;
      if (pos_spread) {
        if (saw_spread) return Error("Only one `*` argument unpacking is allowed");
        saw_spread = true;
        ++current_;
        auto n = Make(NodeKind::kSpread, offset);
        ASSIGN_OR_RETURN(n->a, ParseExpression());
        arg = n;
      } else {
        ASSIGN_OR_RETURN(arg, ParseExpression());
        if (Is(TokenType::kEquals)) {
          ++current_;
          if (arg->kind != NodeKind::kIdentifier) {
            return Error(parameters ? "Expected identifier for parameter declaration"
                                    : "Expected identifier for keyword argument");
          }
          auto kw = Make(NodeKind::kKeywordArg, offset);
          kw->name = arg->name;
          ASSIGN_OR_RETURN(kw->a, ParseExpression());
          arg = kw;
        }
        if (parameters) {
          if (arg->kind != NodeKind::kIdentifier && arg->kind != NodeKind::kKeywordArg) {
            return Error("Expected identifier for parameter declaration");
          }
          if (!names.insert(arg->name).second) {
            return Error(absl::StrCat("Duplicate parameter name: ", arg->name));
          }
        }
        if (arg->kind == NodeKind::kKeywordArg) {
          saw_keyword = true;
        } else if (saw_keyword) {
          return Error(parameters ? "Non-default argument follows default argument"
                                  : "Positional arguments must come before keyword arguments");
        } else if (saw_spread) {
          return Error("Positional arguments must not follow `*` argument unpacking");
        }
      }
      args.push_back(std::move(arg));
      if (Is(TokenType::kComma)) ++current_;
    }
    ++current_;  // )
    return args;
  }

  absl::StatusOr<NodePtr> ParseSubscript() {
    NodeList parts;  // null entries are omitted slice bounds
    bool is_slice = false;
    const int offset = Offset();
    while (!Is(TokenType::kCloseSquareBracket)) {
      if (current_ >= tokens_.size()) return Error("Expected ']'");
      if (Is(TokenType::kColon)) {
        parts.push_back(nullptr);
        ++current_;
        is_slice = true;
      } else {
        ASSIGN_OR_RETURN(NodePtr e, ParseExpression());
        parts.push_back(std::move(e));
        if (Is(TokenType::kColon)) {
          ++current_;
          is_slice = true;
        }
      }
    }
    if (parts.empty()) return Error("Expected at least one argument for member/slice expression");
    if (!is_slice) return parts[0];
    if (parts.size() > 3) return Error("Expected 0-3 arguments for slice expression");
    auto n = Make(NodeKind::kSlice, offset);
    n->a = parts.size() > 0 ? parts[0] : nullptr;
    n->b = parts.size() > 1 ? parts[1] : nullptr;
    n->c = parts.size() > 2 ? parts[2] : nullptr;
    return NodePtr(n);
  }

  absl::StatusOr<NodePtr> ParseMember(NodePtr object) {
    while (Is(TokenType::kDot) || Is(TokenType::kOpenSquareBracket)) {
      const int offset = Offset();
      const bool computed = Is(TokenType::kOpenSquareBracket);
      ++current_;
      auto n = Make(NodeKind::kMember, offset);
      n->a = object;
      n->flag = computed;
      if (computed) {
        ASSIGN_OR_RETURN(n->b, ParseSubscript());
        RETURN_IF_ERROR(Expect(TokenType::kCloseSquareBracket, "Expected ']'").status());
      } else {
        ASSIGN_OR_RETURN(n->b, ParsePrimary());
        if (n->b->kind != NodeKind::kIdentifier && n->b->kind != NodeKind::kIntLiteral) {
          return Error("Expected identifier or integer following dot operator");
        }
      }
      object = n;
    }
    return object;
  }

  absl::StatusOr<NodePtr> ParsePrimary() {
    DepthGuard guard(this);
    if (guard.exceeded()) return Error("expression nested too deeply");
    if (current_ >= tokens_.size()) return Error("Unexpected end of template");
    const Token& t = tokens_[current_++];
    switch (t.type) {
      case TokenType::kNumericLiteral: {
        if (t.value.find('.') != std::string::npos) {
          auto n = Make(NodeKind::kFloatLiteral, t.offset);
          n->f = std::strtod(t.value.c_str(), nullptr);
          return NodePtr(n);
        }
        auto n = Make(NodeKind::kIntLiteral, t.offset);
        errno = 0;
        n->i = std::strtoll(t.value.c_str(), nullptr, 10);
        if (errno == ERANGE) {
          --current_;
          return Error("Integer literal out of range");
        }
        return NodePtr(n);
      }
      case TokenType::kStringLiteral: {
        auto n = Make(NodeKind::kStringLiteral, t.offset);
        n->name = t.value;
        while (Is(TokenType::kStringLiteral)) n->name += tokens_[current_++].value;
        return NodePtr(n);
      }
      case TokenType::kIdentifier: {
        auto n = Make(NodeKind::kIdentifier, t.offset);
        n->name = t.value;
        return NodePtr(n);
      }
      case TokenType::kOpenParen: {
        ASSIGN_OR_RETURN(NodePtr e, ParseExpressionSequence(false));
        RETURN_IF_ERROR(Expect(TokenType::kCloseParen, "Expected ')'").status());
        return e;
      }
      case TokenType::kOpenSquareBracket: {
        auto n = Make(NodeKind::kArrayLiteral, t.offset);
        while (!Is(TokenType::kCloseSquareBracket)) {
          if (current_ >= tokens_.size()) return Error("Expected ']'");
          ASSIGN_OR_RETURN(NodePtr e, ParseExpression());
          n->args.push_back(std::move(e));
          if (Is(TokenType::kComma)) ++current_;
        }
        ++current_;
        return NodePtr(n);
      }
      case TokenType::kOpenCurlyBracket: {
        auto n = Make(NodeKind::kObjectLiteral, t.offset);
        while (!Is(TokenType::kCloseCurlyBracket)) {
          if (current_ >= tokens_.size()) return Error("Expected '}'");
          ASSIGN_OR_RETURN(NodePtr key, ParseExpression());
          RETURN_IF_ERROR(
              Expect(TokenType::kColon, "Expected colon between key and value in object literal")
                  .status());
          ASSIGN_OR_RETURN(NodePtr value, ParseExpression());
          n->args.push_back(std::move(key));
          n->args.push_back(std::move(value));
          if (Is(TokenType::kComma)) ++current_;
        }
        ++current_;
        return NodePtr(n);
      }
      default:
        --current_;
        return Error(absl::StrCat("Unexpected token: ", TokenTypeName(t.type), " '", t.value, "'"));
    }
  }

  const std::vector<Token>& tokens_;
  const std::string& source_;
  size_t current_ = 0;
  int depth_ = 0;
};

}  // namespace

absl::StatusOr<NodePtr> Parse(const std::vector<Token>& tokens, const std::string& source) {
  Parser parser(tokens, source);
  return parser.ParseProgram();
}

}  // namespace strata::jinja
