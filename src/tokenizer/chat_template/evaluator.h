// Interpreter: evaluates a parsed template over Values, with @huggingface/jinja's scoping
// (a `for` body has its own scope; `if` does not; macros see their call site's scope) and the
// render limits of ChatTemplateLimits. One Interpreter serves one render; not thread-safe.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "strata/chat_template.h"
#include "tokenizer/chat_template/ast.h"
#include "tokenizer/chat_template/value.h"

namespace strata::jinja {

// Status payload marking an error whose message is final (already located, or raised).
inline constexpr char kLocatedPayload[] = "strata.jinja.located";

struct Env {
  explicit Env(EnvPtr parent_env = nullptr) : parent(std::move(parent_env)) {}
  EnvPtr parent;
  std::unordered_map<std::string, Value> vars;

  // The variable, searching enclosing scopes; nullptr when undefined.
  const Value* Lookup(const std::string& name) const;
  void Set(const std::string& name, Value value) { vars[name] = std::move(value); }
};

class Interpreter {
 public:
  Interpreter(const std::string& source, const ChatTemplateLimits& limits)
      : source_(source), limits_(limits) {}

  absl::StatusOr<std::string> Run(const Node& program, const EnvPtr& globals);

  absl::StatusOr<Value> Eval(const Node& node, const EnvPtr& env);
  absl::Status ExecBlock(const NodeList& body, const EnvPtr& env, std::string* out);
  absl::StatusOr<CallArgs> EvalArgs(const NodeList& args, const EnvPtr& env);
  absl::StatusOr<Value> Call(const Value& fn, const CallArgs& args, const EnvPtr& env);

  // Counts one unit of work against max_steps.
  absl::Status Step();
  // Fails when a produced string / buffer / list exceeds the limits.
  absl::Status CheckSize(size_t bytes) const;
  absl::Status CheckValue(const Value& v) const;
  const ChatTemplateLimits& limits() const { return limits_; }

  // "<message> (at L:C)" as an InvalidArgumentError, marked as located.
  absl::Status ErrorAt(const Node& node, const std::string& message) const;
  // Adds node's location to an error that has none yet (raise_exception errors carry the
  // located mark from the start, so their message stays the template's own).
  absl::Status Locate(const Node& node, const absl::Status& status) const;

 private:
  enum class Flow { kNormal, kBreak, kContinue };

  absl::Status Exec(const Node& node, const EnvPtr& env, std::string* out);
  absl::Status ExecFor(const Node& node, const EnvPtr& env, std::string* out);
  absl::Status ExecSet(const Node& node, const EnvPtr& env);
  Value MakeMacro(const Node& node);
  absl::Status BindMacroArguments(const std::string& display_name, const NodeList& params,
                                  bool wants_kwargs, bool wants_varargs, const CallArgs& args,
                                  const EnvPtr& scope);
  absl::StatusOr<Value> EvalBinary(const Node& node, const EnvPtr& env);
  absl::StatusOr<Value> EvalMember(const Node& node, const EnvPtr& env);
  absl::StatusOr<Value> EvalSlice(const Value& object, const Node& slice, const EnvPtr& env);
  absl::StatusOr<Value> EvalTest(const Node& node, const EnvPtr& env);

  const std::string& source_;
  ChatTemplateLimits limits_;
  int64_t steps_ = 0;
  int depth_ = 0;
  Flow flow_ = Flow::kNormal;
};

// filters.cc: applies `filter` (an Identifier or a Call node) to `operand`.
absl::StatusOr<Value> ApplyFilter(Interpreter& interp, const Value& operand, const Node& filter,
                                  const EnvPtr& env);
// tests.cc: `operand is name(args)`.
absl::StatusOr<bool> ApplyTest(const std::string& name, const Value& operand,
                               const std::vector<Value>& args);
bool HasTest(const std::string& name);
// string_methods.cc: `object.property` / `object[property]` for strings, lists, dicts and other
// values (bound methods included); Undefined when absent.
absl::StatusOr<Value> GetMember(Interpreter& interp, const Value& object, const Value& property);
// string_methods.cc: the globals every template sees (true/false/none, range, namespace, ...).
void InstallGlobals(Interpreter& interp, Env& env);

}  // namespace strata::jinja
