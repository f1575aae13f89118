// Jinja tests (`x is name`): @huggingface/jinja's set, plus Jinja2's argument tests
// (divisibleby, sameas, ne, gt/ge/lt/le, in, float) where the reference has none.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tokenizer/chat_template/evaluator.h"
#include "tokenizer/chat_template/text_util.h"

namespace strata::jinja {

namespace {

const std::vector<std::string>& TestNames() {
  static const auto* names = new std::vector<std::string>{
      "boolean", "callable", "odd", "even", "false", "true", "none", "string", "number",
      "integer", "float", "iterable", "mapping", "sequence", "lower", "upper", "defined",
      "undefined", "equalto", "eq", "==", "ne", "!=", "sameas", "divisibleby", "gt", "ge", "lt",
      "le", "greaterthan", "lessthan", "in"};
  return *names;
}

absl::StatusOr<int> Compare(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    return a.as_number() < b.as_number() ? -1 : a.as_number() > b.as_number() ? 1 : 0;
  }
  if (a.is_string() && b.is_string()) return a.str().compare(b.str()) < 0 ? -1 : a.str() == b.str() ? 0 : 1;
  return absl::InvalidArgumentError(
      absl::StrCat("Cannot compare ", a.TypeName(), " with ", b.TypeName()));
}

}  // namespace

bool HasTest(const std::string& name) {
  for (const auto& n : TestNames()) {
    if (n == name) return true;
  }
  return false;
}

absl::StatusOr<bool> ApplyTest(const std::string& name, const Value& v,
                               const std::vector<Value>& args) {
  const Value arg = args.empty() ? Value() : args[0];
  if (name == "boolean") return v.is_bool();
  if (name == "callable") return v.is_function();
  if (name == "odd" || name == "even") {
    if (!v.is_int()) return absl::InvalidArgumentError(absl::StrCat("cannot ", name, " on ", v.TypeName()));
    const bool odd = v.as_int() % 2 != 0;
    return name == "odd" ? odd : !odd;
  }
  if (name == "false") return v.is_bool() && !v.as_bool();
  if (name == "true") return v.is_bool() && v.as_bool();
  if (name == "none") return v.is_null();
  if (name == "string") return v.is_string();
  if (name == "number") return v.is_number();
  if (name == "integer") return v.is_int();
  if (name == "float") return v.is_float();
  if (name == "iterable") return v.kind() == Value::Kind::kArray || v.is_string();
  if (name == "mapping") return v.is_object();
  if (name == "sequence") return v.is_array() || v.is_object() || v.is_string();
  if (name == "lower") return v.is_string() && v.str() == AsciiLower(v.str());
  if (name == "upper") return v.is_string() && v.str() == AsciiUpper(v.str());
  if (name == "defined") return !v.is_undefined();
  if (name == "undefined") return v.is_undefined();
  if (name == "equalto" || name == "eq" || name == "==" || name == "sameas") {
    return StrictEquals(v, arg);
  }
  if (name == "ne" || name == "!=") return !StrictEquals(v, arg);
  if (name == "divisibleby") {
    if (!v.is_number() || !arg.is_number() || arg.as_number() == 0) {
      return absl::InvalidArgumentError("divisibleby needs two numbers (and a non-zero divisor)");
    }
    return std::fmod(v.as_number(), arg.as_number()) == 0;
  }
  if (name == "in") {
    if (arg.is_array()) {
      for (const Value& x : arg.items()) if (StrictEquals(x, v)) return true;
      return false;
    }
    if (arg.is_string() && v.is_string()) return arg.str().find(v.str()) != std::string::npos;
    if (arg.is_attribute_container() && v.is_string()) return arg.object().Find(v.str()) != nullptr;
    return absl::InvalidArgumentError(absl::StrCat("'in' test on ", arg.TypeName()));
  }
  auto c = Compare(v, arg);
  if (!c.ok()) return c.status();
  if (name == "gt" || name == "greaterthan") return *c > 0;
  if (name == "ge") return *c >= 0;
  if (name == "lt" || name == "lessthan") return *c < 0;
  if (name == "le") return *c <= 0;
  return absl::InvalidArgumentError(absl::StrCat("Unknown test: ", name));
}

}  // namespace strata::jinja
