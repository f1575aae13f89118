#include "tokenizer/chat_template/evaluator.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <functional>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "strata/status_macros.h"
#include "tokenizer/chat_template/lexer.h"
#include "tokenizer/chat_template/text_util.h"

namespace strata::jinja {

const Value* Env::Lookup(const std::string& name) const {
  for (const Env* e = this; e != nullptr; e = e->parent.get()) {
    auto it = e->vars.find(name);
    if (it != e->vars.end()) return &it->second;
  }
  return nullptr;
}

absl::Status Interpreter::ErrorAt(const Node& node, const std::string& message) const {
  absl::Status s = absl::InvalidArgumentError(
      absl::StrCat(message, " (at ", LineCol(source_, node.offset), ")"));
  s.SetPayload(kLocatedPayload, absl::Cord("1"));
  return s;
}

absl::Status Interpreter::Locate(const Node& node, const absl::Status& status) const {
  if (status.ok() || status.GetPayload(kLocatedPayload).has_value()) return status;
  return ErrorAt(node, std::string(status.message()));
}

absl::Status Interpreter::Step() {
  if (++steps_ > limits_.max_steps) {
    return absl::InvalidArgumentError(
        absl::StrCat("chat template exceeded ", limits_.max_steps, " evaluation steps"));
  }
  return absl::OkStatus();
}

absl::Status Interpreter::CheckSize(size_t bytes) const {
  if (static_cast<int64_t>(bytes) > limits_.max_output_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("chat template output exceeds ", limits_.max_output_bytes, " bytes"));
  }
  return absl::OkStatus();
}

absl::Status Interpreter::CheckValue(const Value& v) const {
  if (v.is_string()) return CheckSize(v.str().size());
  if (v.is_array()) return CheckSize(v.items().size() * 16);
  return absl::OkStatus();
}

absl::StatusOr<std::string> Interpreter::Run(const Node& program, const EnvPtr& globals) {
  std::string out;
  RETURN_IF_ERROR(ExecBlock(program.body, globals, &out));
  if (flow_ != Flow::kNormal) {
    return absl::InvalidArgumentError("break/continue outside of a for loop");
  }
  return out;
}

absl::Status Interpreter::ExecBlock(const NodeList& body, const EnvPtr& env, std::string* out) {
  for (const NodePtr& node : body) {
    RETURN_IF_ERROR(Exec(*node, env, out));
    if (flow_ != Flow::kNormal) return absl::OkStatus();
  }
  return absl::OkStatus();
}

absl::Status Interpreter::Exec(const Node& node, const EnvPtr& env, std::string* out) {
  RETURN_IF_ERROR(Step());
  switch (node.kind) {
    case NodeKind::kProgram:
      return ExecBlock(node.body, env, out);
    case NodeKind::kComment:
      return absl::OkStatus();
    case NodeKind::kIf: {
      ASSIGN_OR_RETURN(Value test, Eval(*node.a, env));
      return ExecBlock(test.Truthy() ? node.body : node.alternate, env, out);
    }
    case NodeKind::kFor:
      return ExecFor(node, env, out);
    case NodeKind::kSet:
      return ExecSet(node, env);
    case NodeKind::kMacro:
      env->Set(node.name, MakeMacro(node));
      return absl::OkStatus();
    case NodeKind::kBreak:
      flow_ = Flow::kBreak;
      return absl::OkStatus();
    case NodeKind::kContinue:
      flow_ = Flow::kContinue;
      return absl::OkStatus();
    case NodeKind::kCallBlock: {
      // The caller() function renders the block in the scope where the call block stands.
      bool wants_kwargs = false, wants_varargs = false;
      std::function<void(const Node&)> scan = [&](const Node& n) {
        if (n.kind == NodeKind::kIdentifier) {
          wants_kwargs |= n.name == "kwargs";
          wants_varargs |= n.name == "varargs";
        }
        for (const NodePtr* p : {&n.a, &n.b, &n.c}) if (*p) scan(**p);
        for (const NodeList* l : {&n.args, &n.body, &n.alternate}) for (const auto& c : *l) scan(*c);
      };
      for (const auto& c : node.body) scan(*c);
      const Node* block = &node;
      Value caller = Value::MakeFunction(
          "caller", [this, block, env, wants_kwargs, wants_varargs](
                        const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
            auto scope = std::make_shared<Env>(env);
            RETURN_IF_ERROR(BindMacroArguments("None", block->args, wants_kwargs, wants_varargs,
                                               args, scope));
            std::string body;
            RETURN_IF_ERROR(ExecBlock(block->body, scope, &body));
            if (flow_ != Flow::kNormal) {
              flow_ = Flow::kNormal;
              return absl::InvalidArgumentError("break/continue outside of a for loop");
            }
            return Value::String(std::move(body));
          });
      ASSIGN_OR_RETURN(CallArgs args, EvalArgs(node.a->args, env));
      ASSIGN_OR_RETURN(Value fn, Eval(*node.a->a, env));
      auto call_env = std::make_shared<Env>(env);
      call_env->Set("caller", caller);
      ASSIGN_OR_RETURN(Value result, Call(fn, args, call_env));
      if (!result.is_null() && !result.is_undefined()) *out += ToOutputString(result);
      return CheckSize(out->size());
    }
    case NodeKind::kFilterBlock: {
      std::string body;
      RETURN_IF_ERROR(ExecBlock(node.body, env, &body));
      if (flow_ != Flow::kNormal) return absl::OkStatus();
      ASSIGN_OR_RETURN(Value result, ApplyFilter(*this, Value::String(std::move(body)), *node.a, env));
      if (!result.is_null() && !result.is_undefined()) *out += ToOutputString(result);
      return CheckSize(out->size());
    }
    default: {
      ASSIGN_OR_RETURN(Value v, Eval(node, env));
      if (!v.is_null() && !v.is_undefined()) {
        if (v.is_string()) {
          *out += v.str();
        } else {
          *out += ToOutputString(v);
        }
      }
      return CheckSize(out->size());
    }
  }
}

absl::Status Interpreter::ExecSet(const Node& node, const EnvPtr& env) {
  Value rhs;
  if (node.b) {
    ASSIGN_OR_RETURN(rhs, Eval(*node.b, env));
  } else {
    std::string body;
    RETURN_IF_ERROR(ExecBlock(node.body, env, &body));
    rhs = Value::String(std::move(body));
  }
  const Node& lhs = *node.a;
  if (lhs.kind == NodeKind::kIdentifier) {
    env->Set(lhs.name, std::move(rhs));
  } else if (lhs.kind == NodeKind::kTupleLiteral) {
    if (!rhs.is_array()) {
      return ErrorAt(node, absl::StrCat("Cannot unpack non-iterable type in set: ", rhs.TypeName()));
    }
    const auto& items = rhs.items();
    if (items.size() != lhs.args.size()) {
      return ErrorAt(node, absl::StrCat("Too ", lhs.args.size() > items.size() ? "few" : "many",
                                        " items to unpack in set"));
    }
    for (size_t k = 0; k < items.size(); ++k) {
      if (lhs.args[k]->kind != NodeKind::kIdentifier) {
        return ErrorAt(node, "Cannot unpack to non-identifier in set");
      }
      env->Set(lhs.args[k]->name, items[k]);
    }
  } else if (lhs.kind == NodeKind::kMember) {
    ASSIGN_OR_RETURN(Value object, Eval(*lhs.a, env));
    if (!object.is_namespace()) {
      return ErrorAt(node, "cannot assign attribute on non-namespace object");
    }
    if (lhs.flag || lhs.b->kind != NodeKind::kIdentifier) {
      return ErrorAt(node, "Cannot assign to member with non-identifier property");
    }
    object.object().Set(lhs.b->name, std::move(rhs));
  } else {
    return ErrorAt(node, "Invalid left-hand side in set");
  }
  return absl::OkStatus();
}

absl::Status Interpreter::ExecFor(const Node& node, const EnvPtr& env, std::string* out) {
  auto scope = std::make_shared<Env>(env);
  ASSIGN_OR_RETURN(Value iterable, Eval(*node.b, scope));
  std::vector<Value> source;
  if (iterable.is_array()) {
    source = iterable.items();
  } else if (iterable.is_object()) {
    for (const auto& [k, v] : iterable.object().entries()) source.push_back(Value::String(k));
  } else if (iterable.is_string()) {
    for (auto& cp : CodePoints(iterable.str())) source.push_back(Value::String(std::move(cp)));
  } else if (!iterable.is_undefined()) {
    return ErrorAt(node, absl::StrCat("Expected iterable or object type in for loop: got ",
                                      iterable.TypeName()));
  }
  const Node& loopvar = *node.a;
  auto bind = [&](const EnvPtr& target, const Value& current) -> absl::Status {
    if (loopvar.kind == NodeKind::kIdentifier) {
      target->Set(loopvar.name, current);
      return absl::OkStatus();
    }
    if (!current.is_array()) {
      return ErrorAt(node, absl::StrCat("Cannot unpack non-iterable type: ", current.TypeName()));
    }
    if (current.items().size() != loopvar.args.size()) {
      return ErrorAt(node, absl::StrCat("Too ",
                                        loopvar.args.size() > current.items().size() ? "few" : "many",
                                        " items to unpack"));
    }
    for (size_t k = 0; k < loopvar.args.size(); ++k) {
      if (loopvar.args[k]->kind != NodeKind::kIdentifier) {
        return ErrorAt(node, "Cannot unpack non-identifier type");
      }
      target->Set(loopvar.args[k]->name, current.items()[k]);
    }
    return absl::OkStatus();
  };
  std::vector<Value> items;
  if (node.c) {
    for (const Value& current : source) {
      RETURN_IF_ERROR(Step());
      auto loop_scope = std::make_shared<Env>(scope);
      RETURN_IF_ERROR(bind(loop_scope, current));
      ASSIGN_OR_RETURN(Value keep, Eval(*node.c, loop_scope));
      if (keep.Truthy()) items.push_back(current);
    }
  } else {
    items = std::move(source);
  }
  bool no_iteration = true;
  const int64_t n = static_cast<int64_t>(items.size());
  for (int64_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(Step());
    Value loop = Value::MakeObject();
    Object& o = loop.object();
    o.Set("index", Value::Int(i + 1));
    o.Set("index0", Value::Int(i));
    o.Set("revindex", Value::Int(n - i));
    o.Set("revindex0", Value::Int(n - i - 1));
    o.Set("first", Value::Bool(i == 0));
    o.Set("last", Value::Bool(i == n - 1));
    o.Set("length", Value::Int(n));
    o.Set("previtem", i > 0 ? items[i - 1] : Value());
    o.Set("nextitem", i < n - 1 ? items[i + 1] : Value());
    scope->Set("loop", std::move(loop));
    RETURN_IF_ERROR(bind(scope, items[i]));
    const size_t mark = out->size();
    RETURN_IF_ERROR(ExecBlock(node.body, scope, out));
    if (flow_ != Flow::kNormal) {
      // As in @huggingface/jinja, an iteration cut short by break/continue emits nothing.
      out->resize(mark);
      const Flow f = flow_;
      flow_ = Flow::kNormal;
      if (f == Flow::kBreak) break;
      continue;
    }
    no_iteration = false;
  }
  if (no_iteration) RETURN_IF_ERROR(ExecBlock(node.alternate, scope, out));
  return absl::OkStatus();
}

absl::Status Interpreter::BindMacroArguments(const std::string& display_name,
                                             const NodeList& params, bool wants_kwargs,
                                             bool wants_varargs, const CallArgs& args,
                                             const EnvPtr& scope) {
  std::vector<std::pair<std::string, Value>> kwargs = args.kwargs;
  std::vector<std::pair<std::string, const Node*>> pending_defaults;
  for (size_t i = 0; i < params.size(); ++i) {
    const Node& p = *params[i];
    const std::string& name = p.name;
    const Value* value = i < args.positional.size() ? &args.positional[i] : nullptr;
    Value taken;
    if (value == nullptr) {
      for (auto it = kwargs.begin(); it != kwargs.end(); ++it) {
        if (it->first == name) {
          taken = it->second;
          value = &taken;
          kwargs.erase(it);
          break;
        }
      }
    }
    if (value == nullptr && p.kind == NodeKind::kKeywordArg) {
      pending_defaults.emplace_back(name, p.a.get());
    }
    scope->Set(name, value ? *value : Value());
  }
  if (wants_kwargs) {
    Value kw = Value::MakeObject();
    for (auto& [k, v] : kwargs) kw.object().Set(k, v);
    scope->Set("kwargs", kw);
  } else if (!kwargs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("macro ", display_name,
                                                   " takes no keyword argument '",
                                                   kwargs.front().first, "'"));
  }
  if (wants_varargs) {
    std::vector<Value> rest;
    for (size_t i = params.size(); i < args.positional.size(); ++i) rest.push_back(args.positional[i]);
    scope->Set("varargs", Value::Array(std::move(rest)));
  } else if (args.positional.size() > params.size()) {
    return absl::InvalidArgumentError(absl::StrCat("macro ", display_name, " takes not more than ",
                                                   params.size(), " argument(s)"));
  }
  for (const auto& [name, expr] : pending_defaults) {
    ASSIGN_OR_RETURN(Value v, Eval(*expr, scope));
    scope->Set(name, std::move(v));
  }
  return absl::OkStatus();
}

Value Interpreter::MakeMacro(const Node& node) {
  bool wants_kwargs = false, wants_varargs = false;
  std::vector<std::string> declared;
  for (const auto& p : node.args) declared.push_back(p->name);
  std::function<void(const Node&)> scan = [&](const Node& n) {
    if (n.kind == NodeKind::kIdentifier) {
      wants_kwargs |= n.name == "kwargs";
      wants_varargs |= n.name == "varargs";
    }
    for (const NodePtr* p : {&n.a, &n.b, &n.c}) if (*p) scan(**p);
    for (const NodeList* l : {&n.args, &n.body, &n.alternate}) for (const auto& c : *l) scan(*c);
  };
  for (const auto& c : node.body) scan(*c);
  for (const auto& d : declared) {
    if (d == "kwargs") wants_kwargs = false;
    if (d == "varargs") wants_varargs = false;
  }
  const Node* macro = &node;
  return Value::MakeFunction(
      node.name, [this, macro, wants_kwargs, wants_varargs](
                     const CallArgs& args, const EnvPtr& call_env) -> absl::StatusOr<Value> {
        auto scope = std::make_shared<Env>(call_env);
        RETURN_IF_ERROR(BindMacroArguments("'" + macro->name + "'", macro->args, wants_kwargs,
                                           wants_varargs, args, scope));
        std::string body;
        RETURN_IF_ERROR(ExecBlock(macro->body, scope, &body));
        if (flow_ != Flow::kNormal) {
          flow_ = Flow::kNormal;
          return absl::InvalidArgumentError("break/continue outside of a for loop");
        }
        return Value::String(std::move(body));
      });
}

absl::StatusOr<CallArgs> Interpreter::EvalArgs(const NodeList& args, const EnvPtr& env) {
  CallArgs out;
  auto add_kw = [&](const std::string& key, Value v) -> absl::Status {
    for (const auto& [k, unused] : out.kwargs) {
      if (k == key) {
        return absl::InvalidArgumentError(
            absl::StrCat("Got multiple values for keyword argument '", key, "'"));
      }
    }
    out.kwargs.emplace_back(key, std::move(v));
    return absl::OkStatus();
  };
  for (const NodePtr& a : args) {
    if (a->kind == NodeKind::kSpread) {
      ASSIGN_OR_RETURN(Value v, Eval(*a->a, env));
      if (!v.is_array()) {
        return ErrorAt(*a, absl::StrCat("Cannot unpack non-iterable type: ", v.TypeName()));
      }
      for (const Value& item : v.items()) out.positional.push_back(item);
    } else if (a->kind != NodeKind::kKeywordArg && a->kind != NodeKind::kKeywordSpread) {
      ASSIGN_OR_RETURN(Value v, Eval(*a, env));
      out.positional.push_back(std::move(v));
    }
  }
  for (const NodePtr& a : args) {
    if (a->kind == NodeKind::kKeywordArg) {
      ASSIGN_OR_RETURN(Value v, Eval(*a->a, env));
      RETURN_IF_ERROR(add_kw(a->name, std::move(v)));
    } else if (a->kind == NodeKind::kKeywordSpread) {
      ASSIGN_OR_RETURN(Value v, Eval(*a->a, env));
      if (!v.is_object()) {
        return ErrorAt(*a, absl::StrCat("Argument after ** must be a mapping, not ", v.TypeName()));
      }
      for (const auto& [k, item] : v.object().entries()) RETURN_IF_ERROR(add_kw(k, item));
    }
  }
  return out;
}

absl::StatusOr<Value> Interpreter::Call(const Value& fn, const CallArgs& args, const EnvPtr& env) {
  if (!fn.is_function()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot call something that is not a function: got ", fn.TypeName()));
  }
  if (++depth_ > limits_.max_call_depth) {
    --depth_;
    return absl::InvalidArgumentError(
        absl::StrCat("chat template exceeded call depth ", limits_.max_call_depth));
  }
  auto result = fn.function().fn(args, env);
  --depth_;
  if (result.ok()) RETURN_IF_ERROR(CheckValue(*result));
  return result;
}

absl::StatusOr<Value> Interpreter::Eval(const Node& node, const EnvPtr& env) {
  RETURN_IF_ERROR(Step());
  switch (node.kind) {
    case NodeKind::kIntLiteral:
      return Value::Int(node.i);
    case NodeKind::kFloatLiteral:
      return Value::Float(node.f);
    case NodeKind::kStringLiteral:
      return Value::String(node.name);
    case NodeKind::kArrayLiteral:
    case NodeKind::kTupleLiteral: {
      std::vector<Value> items;
      for (const NodePtr& a : node.args) {
        ASSIGN_OR_RETURN(Value v, Eval(*a, env));
        items.push_back(std::move(v));
      }
      return node.kind == NodeKind::kArrayLiteral ? Value::Array(std::move(items))
                                                  : Value::Tuple(std::move(items));
    }
    case NodeKind::kObjectLiteral: {
      Value obj = Value::MakeObject();
      for (size_t k = 0; k + 1 < node.args.size(); k += 2) {
        ASSIGN_OR_RETURN(Value key, Eval(*node.args[k], env));
        if (!key.is_string()) {
          return ErrorAt(node, absl::StrCat("Object keys must be strings: got ", key.TypeName()));
        }
        ASSIGN_OR_RETURN(Value v, Eval(*node.args[k + 1], env));
        obj.object().Set(key.str(), std::move(v));
      }
      return obj;
    }
    case NodeKind::kIdentifier: {
      const Value* v = env->Lookup(node.name);
      return v ? *v : Value();
    }
    case NodeKind::kCall: {
      ASSIGN_OR_RETURN(CallArgs args, EvalArgs(node.args, env));
      ASSIGN_OR_RETURN(Value fn, Eval(*node.a, env));
      auto result = Call(fn, args, env);
      if (!result.ok()) return Locate(node, result.status());
      return result;
    }
    case NodeKind::kMember:
      return EvalMember(node, env);
    case NodeKind::kUnary: {
      ASSIGN_OR_RETURN(Value arg, Eval(*node.a, env));
      if (node.name == "not") return Value::Bool(!arg.Truthy());
      const int sign = node.name == "-" ? -1 : 1;
      if (arg.is_float()) return Value::Float(sign * arg.as_number());
      if (arg.is_int()) return Value::Int(sign * arg.as_int());
      if (arg.is_bool()) return Value::Int(sign * static_cast<int64_t>(arg.as_bool()));
      return ErrorAt(node, absl::StrCat("Unknown operator \"", node.name, "\" for ", arg.TypeName()));
    }
    case NodeKind::kBinary:
      return EvalBinary(node, env);
    case NodeKind::kFilter: {
      ASSIGN_OR_RETURN(Value operand, Eval(*node.a, env));
      auto result = ApplyFilter(*this, operand, *node.b, env);
      if (!result.ok()) return Locate(node, result.status());
      RETURN_IF_ERROR(CheckValue(*result));
      return result;
    }
    case NodeKind::kTest:
      return EvalTest(node, env);
    case NodeKind::kSelect: {
      ASSIGN_OR_RETURN(Value test, Eval(*node.b, env));
      if (!test.Truthy()) return Value();
      return Eval(*node.a, env);
    }
    case NodeKind::kTernary: {
      ASSIGN_OR_RETURN(Value cond, Eval(*node.a, env));
      return Eval(cond.Truthy() ? *node.b : *node.c, env);
    }
    default:
      return ErrorAt(node, "Unexpected statement in expression");
  }
}

absl::StatusOr<Value> Interpreter::EvalTest(const Node& node, const EnvPtr& env) {
  ASSIGN_OR_RETURN(Value operand, Eval(*node.a, env));
  if (!HasTest(node.name)) return ErrorAt(node, absl::StrCat("Unknown test: ", node.name));
  std::vector<Value> args;
  for (const NodePtr& a : node.args) {
    ASSIGN_OR_RETURN(Value v, Eval(*a, env));
    args.push_back(std::move(v));
  }
  auto result = ApplyTest(node.name, operand, args);
  if (!result.ok()) return Locate(node, result.status());
  return Value::Bool(node.flag ? !*result : *result);
}

absl::StatusOr<Value> Interpreter::EvalMember(const Node& node, const EnvPtr& env) {
  ASSIGN_OR_RETURN(Value object, Eval(*node.a, env));
  Value property;
  if (node.flag) {
    if (node.b->kind == NodeKind::kSlice) return EvalSlice(object, *node.b, env);
    ASSIGN_OR_RETURN(property, Eval(*node.b, env));
  } else if (node.b->kind == NodeKind::kIntLiteral) {
    property = Value::Int(node.b->i);
  } else {
    property = Value::String(node.b->name);
  }
  auto v = GetMember(*this, object, property);
  if (!v.ok()) return Locate(node, v.status());
  return v;
}

absl::StatusOr<Value> Interpreter::EvalSlice(const Value& object, const Node& slice,
                                             const EnvPtr& env) {
  if (!object.is_array() && !object.is_string()) {
    return ErrorAt(slice, "Slice object must be an array or string");
  }
  std::optional<int64_t> parts[3];
  const NodePtr* nodes[3] = {&slice.a, &slice.b, &slice.c};
  for (int k = 0; k < 3; ++k) {
    if (!*nodes[k]) continue;
    ASSIGN_OR_RETURN(Value v, Eval(**nodes[k], env));
    if (v.is_int()) {
      parts[k] = v.as_int();
    } else if (!v.is_undefined() && !v.is_null()) {
      return ErrorAt(slice, "Slice indices must be integers or none");
    }
  }
  std::vector<std::string> chars;
  const int64_t len = object.is_array() ? static_cast<int64_t>(object.items().size())
                                        : static_cast<int64_t>((chars = CodePoints(object.str())).size());
  const int64_t step = parts[2].value_or(1);
  const int direction = step > 0 ? 1 : step < 0 ? -1 : 0;
  int64_t start, stop;
  if (direction >= 0) {
    start = parts[0].value_or(0);
    start = start < 0 ? std::max<int64_t>(len + start, 0) : std::min(start, len);
    stop = parts[1].value_or(len);
    stop = stop < 0 ? std::max<int64_t>(len + stop, 0) : std::min(stop, len);
  } else {
    start = parts[0].value_or(len - 1);
    start = start < 0 ? std::max<int64_t>(len + start, -1) : std::min(start, len - 1);
    stop = parts[1].value_or(-1);
    stop = stop < -1 ? std::max<int64_t>(len + stop, -1) : std::min(stop, len - 1);
  }
  std::vector<Value> items;
  std::string text;
  if (direction != 0) {
    for (int64_t i = start; direction * i < direction * stop; i += step) {
      if (object.is_array()) {
        items.push_back(object.items()[i]);
      } else {
        text += chars[i];
      }
    }
  }
  if (object.is_array()) return Value::Array(std::move(items));
  return Value::String(std::move(text));
}

namespace {

bool AddOverflows(int64_t a, int64_t b, int64_t* r) { return __builtin_add_overflow(a, b, r); }
bool SubOverflows(int64_t a, int64_t b, int64_t* r) { return __builtin_sub_overflow(a, b, r); }
bool MulOverflows(int64_t a, int64_t b, int64_t* r) { return __builtin_mul_overflow(a, b, r); }

}  // namespace

absl::StatusOr<Value> Interpreter::EvalBinary(const Node& node, const EnvPtr& env) {
  const std::string& op = node.name;
  ASSIGN_OR_RETURN(Value left, Eval(*node.a, env));
  if (op == "and") return left.Truthy() ? Eval(*node.b, env) : left;
  if (op == "or") return left.Truthy() ? left : Eval(*node.b, env);
  ASSIGN_OR_RETURN(Value right, Eval(*node.b, env));
  if (op == "==") return Value::Bool(LooseEquals(left, right));
  if (op == "!=") return Value::Bool(!LooseEquals(left, right));
  if (left.is_undefined() || right.is_undefined()) {
    if (right.is_undefined() && (op == "in" || op == "not in")) return Value::Bool(op == "not in");
    if (op == "~") {  // Jinja2: an undefined value concatenates as ""
      std::string s = (left.is_undefined() ? "" : ToJsString(left)) +
                      (right.is_undefined() ? "" : ToJsString(right));
      RETURN_IF_ERROR(CheckSize(s.size()));
      return Value::String(std::move(s));
    }
    return ErrorAt(node, absl::StrCat("Cannot perform operation ", op, " on undefined values"));
  }
  if (left.is_null() || right.is_null()) {
    if (op == "in" || op == "not in") {
      if (right.is_array()) {
        bool member = false;
        for (const Value& x : right.items()) member |= StrictEquals(x, left);
        return Value::Bool(op == "in" ? member : !member);
      }
    }
    return ErrorAt(node, "Cannot perform operation on null values");
  }
  if (op == "~") {
    std::string s = ToJsString(left) + ToJsString(right);
    RETURN_IF_ERROR(CheckSize(s.size()));
    return Value::String(std::move(s));
  }
  const bool ln = left.is_number() || left.is_bool(), rn = right.is_number() || right.is_bool();
  if (op == "**" && ln && rn) {
    const double a = left.is_bool() ? left.as_bool() : left.as_number();
    const double b = right.is_bool() ? right.as_bool() : right.as_number();
    if (a == 0 && b < 0) return ErrorAt(node, "0.0 cannot be raised to a negative power");
    const double r = std::pow(a, b);
    if (!std::isfinite(r)) return ErrorAt(node, "Exponentiation result is not a finite real number");
    if (left.is_float() || right.is_float() || b < 0 || std::fabs(r) >= 9.2e18) return Value::Float(r);
    return Value::Int(static_cast<int64_t>(r));
  }
  if (left.is_number() && right.is_number()) {
    const bool is_float = left.is_float() || right.is_float();
    const double a = left.as_number(), b = right.as_number();
    if (op == "+" || op == "-" || op == "*") {
      if (!is_float) {
        int64_t r;
        const bool overflow = op == "+"   ? AddOverflows(left.as_int(), right.as_int(), &r)
                              : op == "-" ? SubOverflows(left.as_int(), right.as_int(), &r)
                                          : MulOverflows(left.as_int(), right.as_int(), &r);
        if (!overflow) return Value::Int(r);
      }
      return Value::Float(op == "+" ? a + b : op == "-" ? a - b : a * b);
    }
    if (op == "/" || op == "//" || op == "%") {
      if (b == 0) return ErrorAt(node, "division by zero");
      if (op == "/") return Value::Float(a / b);
      if (op == "//") {
        if (!is_float) {
          int64_t q = left.as_int() / right.as_int();
          if ((left.as_int() % right.as_int() != 0) && ((left.as_int() < 0) != (right.as_int() < 0))) --q;
          return Value::Int(q);
        }
        return Value::Float(std::floor(a / b));
      }
      if (!is_float) return Value::Int(left.as_int() % right.as_int());
      return Value::Float(std::fmod(a, b));
    }
    if (op == "<") return Value::Bool(a < b);
    if (op == ">") return Value::Bool(a > b);
    if (op == "<=") return Value::Bool(a <= b);
    if (op == ">=") return Value::Bool(a >= b);
  } else if (left.is_array() && right.is_array() && op == "+") {
    std::vector<Value> items = left.items();
    items.insert(items.end(), right.items().begin(), right.items().end());
    Value result = Value::Array(std::move(items));
    RETURN_IF_ERROR(CheckValue(result));
    return result;
  } else if (right.is_array() && (op == "in" || op == "not in")) {
    bool member = false;
    for (const Value& x : right.items()) member |= StrictEquals(x, left);
    return Value::Bool(op == "in" ? member : !member);
  }
  if ((left.is_string() || right.is_string()) && op == "+") {
    std::string s = ToJsString(left) + ToJsString(right);
    RETURN_IF_ERROR(CheckSize(s.size()));
    return Value::String(std::move(s));
  }
  if (left.is_string() && right.is_string()) {
    if (op == "in") return Value::Bool(right.str().find(left.str()) != std::string::npos);
    if (op == "not in") return Value::Bool(right.str().find(left.str()) == std::string::npos);
    // Python compares strings by code point (UTF-8 byte order agrees).
    const int c = left.str().compare(right.str());
    if (op == "<") return Value::Bool(c < 0);
    if (op == ">") return Value::Bool(c > 0);
    if (op == "<=") return Value::Bool(c <= 0);
    if (op == ">=") return Value::Bool(c >= 0);
  }
  if (left.is_string() && right.is_attribute_container() && (op == "in" || op == "not in")) {
    const bool has = right.object().Find(left.str()) != nullptr;
    return Value::Bool(op == "in" ? has : !has);
  }
  // Python: "-" * 3, [x] * 3.
  if (op == "*" && ((left.is_string() && right.is_int()) || (left.is_int() && right.is_string()))) {
    const std::string& s = left.is_string() ? left.str() : right.str();
    const int64_t n = left.is_int() ? left.as_int() : right.as_int();
    if (n > 0) RETURN_IF_ERROR(CheckSize(s.size() * static_cast<size_t>(std::min<int64_t>(n, 1LL << 40))));
    std::string out;
    for (int64_t k = 0; k < n; ++k) out += s;
    return Value::String(std::move(out));
  }
  return ErrorAt(node, absl::StrCat("Unknown operator \"", op, "\" between ", left.TypeName(),
                                    " and ", right.TypeName()));
}

}  // namespace strata::jinja
