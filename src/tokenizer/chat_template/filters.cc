// Filters (`x | name(args)`), following @huggingface/jinja's applyFilter case by case (including
// its split between the bare `x|int` and the called `x|int()` forms), and Jinja2's semantics
// for filters the reference lacks (map by filter name, select/reject, batch, round, ...).
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "strata/status_macros.h"
#include "tokenizer/chat_template/evaluator.h"
#include "tokenizer/chat_template/string_methods.h"
#include "tokenizer/chat_template/text_util.h"

namespace strata::jinja {

namespace {

absl::Status Err(const std::string& m) { return absl::InvalidArgumentError(m); }

const Value& ArgOr(const CallArgs& args, const std::string& name, size_t index,
                   const Value& fallback) {
  const Value* v = args.Get(name, index);
  return v ? *v : fallback;
}

// getAttributeValue: dotted path through dicts/namespaces and list indices.
Value AttributePath(const Value& item, const std::string& path) {
  Value v = item;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (v.is_attribute_container()) {
      const Value* f = v.object().Find(part);
      v = f ? *f : Value();
    } else if (v.is_array()) {
      char* end = nullptr;
      const long idx = std::strtol(part.c_str(), &end, 10);
      if (end == part.c_str() || idx < 0 || idx >= static_cast<long>(v.items().size())) return Value();
      v = v.items()[idx];
    } else {
      return Value();
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return v;
}

// Element string for JS Array.prototype.join over raw values.
std::string JoinElement(const Value& v) {
  if (v.is_null() || v.is_undefined()) return "";
  return ToJsString(v);
}

absl::StatusOr<Value> SortArray(const Value& operand, bool reverse, bool case_sensitive,
                                const Value& attribute) {
  std::vector<Value> items = operand.items();
  absl::Status error;
  auto key = [&](const Value& item) {
    if (attribute.is_null() || attribute.is_undefined()) return item;
    return AttributePath(item, attribute.is_int() ? std::to_string(attribute.as_int()) : attribute.str());
  };
  std::stable_sort(items.begin(), items.end(), [&](const Value& a, const Value& b) {
    if (!error.ok()) return false;
    auto c = CompareValues(key(a), key(b), case_sensitive);
    if (!c.ok()) {
      error = c.status();
      return false;
    }
    return reverse ? *c > 0 : *c < 0;
  });
  RETURN_IF_ERROR(error);
  return Value::Array(std::move(items));
}

std::string Indent(const std::string& s, int64_t width, bool first, bool blank) {
  const std::string pad(static_cast<size_t>(std::max<int64_t>(width, 0)), ' ');
  std::string out;
  size_t start = 0;
  for (size_t i = 0;; ++i) {
    const size_t nl = s.find('\n', start);
    const std::string line = s.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (i > 0) out += "\n";
    if ((i == 0 && !first) || (line.empty() && !blank)) {
      out += line;
    } else {
      out += pad + line;
    }
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

std::string StripTags(const std::string& s) {
  std::string no_tags;
  bool in_tag = false;
  for (char c : s) {
    if (c == '<') in_tag = true;
    else if (c == '>' && in_tag) in_tag = false;
    else if (!in_tag) no_tags.push_back(c);
  }
  auto parts = PySplit(no_tags, true, "", -1);
  std::string out;
  for (const auto& p : *parts) out += (out.empty() ? "" : " ") + p;
  return out;
}

std::string HtmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

absl::StatusOr<Value> ToJsonFilter(Interpreter& interp, const Value& operand, const CallArgs& args) {
  JsonOptions o;
  const Value indent = ArgOr(args, "indent", SIZE_MAX, Value::Null());
  if (!indent.is_int() && !indent.is_null()) return Err("If set, indent must be a number");
  o.indent = indent.is_int() ? static_cast<int>(std::clamp<int64_t>(indent.as_int(), 0, 64)) : 0;
  const Value ensure_ascii = ArgOr(args, "ensure_ascii", SIZE_MAX, Value::Bool(false));
  if (!ensure_ascii.is_bool()) return Err("If set, ensure_ascii must be a boolean");
  o.ensure_ascii = ensure_ascii.as_bool();
  const Value sort_keys = ArgOr(args, "sort_keys", SIZE_MAX, Value::Bool(false));
  if (!sort_keys.is_bool()) return Err("If set, sort_keys must be a boolean");
  o.sort_keys = sort_keys.as_bool();
  const Value separators = ArgOr(args, "separators", SIZE_MAX, Value::Null());
  if (separators.is_array()) {
    if (separators.items().size() != 2 || !separators.items()[0].is_string() ||
        !separators.items()[1].is_string()) {
      return Err("separators must be a tuple of two strings");
    }
    o.has_separators = true;
    o.item_separator = separators.items()[0].str();
    o.key_separator = separators.items()[1].str();
  } else if (!separators.is_null()) {
    return Err("If set, separators must be a tuple of two strings");
  }
  ASSIGN_OR_RETURN(std::string s, ToJson(operand, o));
  RETURN_IF_ERROR(interp.CheckSize(s.size()));
  return Value::String(std::move(s));
}

// Filters without call-specific behaviour: the bare form `x|name`.
absl::StatusOr<Value> BareFilter(const std::string& name, const Value& operand) {
  if (operand.is_array()) {
    const auto& items = operand.items();
    if (name == "list") return Value::Array(items);
    if (name == "first") return items.empty() ? Value() : items.front();
    if (name == "last") return items.empty() ? Value() : items.back();
    if (name == "length" || name == "count") return Value::Int(static_cast<int64_t>(items.size()));
    if (name == "reverse") return Value::Array(std::vector<Value>(items.rbegin(), items.rend()));
    if (name == "sort") return SortArray(operand, false, false, Value::Null());
    if (name == "join") {
      std::string out;
      for (const Value& v : items) out += JoinElement(v);
      return Value::String(std::move(out));
    }
    if (name == "string") {
      JsonOptions o;
      o.undefined_as_null = false;
      ASSIGN_OR_RETURN(std::string s, ToJson(operand, o));
      return Value::String(std::move(s));
    }
    if (name == "unique") {
      std::vector<Value> out;
      for (const Value& v : items) {
        bool seen = false;
        for (const Value& u : out) seen |= StrictEquals(u, v);
        if (!seen) out.push_back(v);
      }
      return Value::Array(std::move(out));
    }
    if (name == "sum" || name == "min" || name == "max") {
      if (name == "sum") {
        bool is_float = false;
        double total = 0;
        int64_t itotal = 0;
        for (const Value& v : items) {
          if (!v.is_number()) return Err("sum() needs numbers");
          is_float |= v.is_float();
          total += v.as_number();
          if (v.is_int()) itotal += v.as_int();
        }
        return is_float ? Value::Float(total) : Value::Int(itotal);
      }
      if (items.empty()) return Value();
      Value best = items[0];
      for (const Value& v : items) {
        ASSIGN_OR_RETURN(int c, CompareValues(v, best, false));
        if (name == "min" ? c < 0 : c > 0) best = v;
      }
      return best;
    }
    return Err(absl::StrCat("Unknown ArrayValue filter: ", name));
  }
  if (operand.is_string()) {
    const std::string& s = operand.str();
    if (name == "length" || name == "count") return Value::Int(Utf16Length(s));
    if (name == "upper") return Value::String(AsciiUpper(s));
    if (name == "lower") return Value::String(AsciiLower(s));
    if (name == "title") return Value::String(JsTitle(s));
    if (name == "capitalize") return Value::String(JsCapitalize(s));
    if (name == "trim") return Value::String(Trim(s));
    if (name == "indent") return Value::String(Indent(s, 4, false, false));
    if (name == "join" || name == "string") return operand;
    if (name == "int") {
      double d;
      return Value::Int(JsParseInt(s, &d) ? static_cast<int64_t>(d) : 0);
    }
    if (name == "float") {
      double d;
      return Value::Float(JsParseFloat(s, &d) ? d : 0);
    }
    if (name == "list") {
      std::vector<Value> chars;
      for (auto& c : CodePoints(s)) chars.push_back(Value::String(std::move(c)));
      return Value::Array(std::move(chars));
    }
    if (name == "first" || name == "last") {
      auto cps = CodePoints(s);
      if (cps.empty()) return Value();
      return Value::String(name == "first" ? cps.front() : cps.back());
    }
    if (name == "reverse") {
      auto cps = CodePoints(s);
      std::string out;
      for (auto it = cps.rbegin(); it != cps.rend(); ++it) out += *it;
      return Value::String(std::move(out));
    }
    if (name == "wordcount") {
      ASSIGN_OR_RETURN(auto words, PySplit(s, true, "", -1));
      return Value::Int(static_cast<int64_t>(words.size()));
    }
    if (name == "striptags") return Value::String(StripTags(s));
    if (name == "escape" || name == "e") return Value::String(HtmlEscape(s));
    return Err(absl::StrCat("Unknown StringValue filter: ", name));
  }
  if (operand.is_number()) {
    if (name == "abs") {
      return operand.is_int() ? Value::Int(operand.as_int() < 0 ? -operand.as_int() : operand.as_int())
                              : Value::Float(std::fabs(operand.as_number()));
    }
    if (name == "int") {
      return operand.is_int() ? operand : Value::Int(static_cast<int64_t>(std::floor(operand.as_number())));
    }
    if (name == "float") return Value::Float(operand.as_number());
    if (name == "string") return Value::String(ToOutputString(operand));
    if (name == "round") return Value::Float(std::round(operand.as_number()));
    return Err(absl::StrCat("Unknown NumericValue filter: ", name));
  }
  if (operand.is_object()) {
    if (name == "length" || name == "count") return Value::Int(static_cast<int64_t>(operand.object().size()));
    if (name == "list") {
      std::vector<Value> keys;
      for (const auto& [k, v] : operand.object().entries()) keys.push_back(Value::String(k));
      return Value::Array(std::move(keys));
    }
    if (name == "string") return Value::String(ToOutputString(operand));
    return Err(absl::StrCat("Unknown ObjectValue filter: ", name));
  }
  if (operand.is_bool()) {
    if (name == "bool") return operand;
    if (name == "int") return Value::Int(operand.as_bool());
    if (name == "float") return Value::Float(operand.as_bool());
    if (name == "string") return Value::String(operand.as_bool() ? "true" : "false");
    return Err(absl::StrCat("Unknown BooleanValue filter: ", name));
  }
  if (operand.is_null() && name == "string") return Value::String("None");
  if (name == "string") return Value::String(ToOutputString(operand));
  return Err(absl::StrCat("Cannot apply filter \"", name, "\" to type: ", operand.TypeName()));
}

absl::StatusOr<Value> NamedFilter(Interpreter& interp, const std::string& name,
                                  const Value& operand, const CallArgs& args, bool called,
                                  const EnvPtr& env);

// select/reject/selectattr/rejectattr.
absl::StatusOr<Value> SelectFilter(const std::string& name, const Value& operand,
                                   const CallArgs& args) {
  if (!operand.is_array()) return Err(absl::StrCat("Cannot apply filter \"", name, "\" to type: ", operand.TypeName()));
  const bool by_attr = name == "selectattr" || name == "rejectattr";
  const bool select = name == "select" || name == "selectattr";
  size_t next = 0;
  std::string attr;
  if (by_attr) {
    if (args.positional.empty() || !args.positional[0].is_string()) {
      return Err(absl::StrCat("arguments of `", name, "` must be strings"));
    }
    attr = args.positional[0].str();
    next = 1;
    for (const Value& item : operand.items()) {
      if (!item.is_attribute_container()) {
        return Err(absl::StrCat("`", name, "` can only be applied to array of objects"));
      }
    }
  }
  std::string test;
  std::vector<Value> test_args;
  if (args.positional.size() > next) {
    if (!args.positional[next].is_string()) return Err("test name must be a string");
    test = args.positional[next].str();
    if (!HasTest(test)) return Err(absl::StrCat("Unknown test: ", test));
    test_args.assign(args.positional.begin() + next + 1, args.positional.end());
  }
  std::vector<Value> out;
  for (const Value& item : operand.items()) {
    bool result;
    if (by_attr) {
      const Value* a = item.object().Find(attr);
      if (a == nullptr) {
        result = false;  // @huggingface/jinja: a missing attribute never passes the test
      } else if (test.empty()) {
        result = a->Truthy();
      } else {
        ASSIGN_OR_RETURN(result, ApplyTest(test, *a, test_args));
      }
    } else if (test.empty()) {
      result = item.Truthy();
    } else {
      ASSIGN_OR_RETURN(result, ApplyTest(test, item, test_args));
    }
    if (result == select) out.push_back(item);
  }
  return Value::Array(std::move(out));
}

absl::StatusOr<Value> NamedFilter(Interpreter& interp, const std::string& name,
                                  const Value& operand, const CallArgs& args, bool called,
                                  const EnvPtr& env) {
  RETURN_IF_ERROR(interp.Step());
  if (name == "safe") return operand;
  if (name == "tojson") return ToJsonFilter(interp, operand, args);
  if (name == "default" || name == "d") {
    const Value fallback = args.positional.empty() ? Value::String("") : args.positional[0];
    const Value boolean = ArgOr(args, "boolean", 1, Value::Bool(false));
    if (!boolean.is_bool()) return Err("`default` filter flag must be a boolean");
    if (operand.is_undefined() || (boolean.as_bool() && !operand.Truthy())) return fallback;
    return operand;
  }
  if (name == "selectattr" || name == "rejectattr" || name == "select" || name == "reject") {
    return SelectFilter(name, operand, args);
  }
  if (called) {
    if (name == "join") {
      const Value sep = ArgOr(args, "separator", 0, ArgOr(args, "d", SIZE_MAX, Value::String("")));
      if (!sep.is_string()) return Err("separator must be a string");
      const Value attribute = ArgOr(args, "attribute", 1, Value::Null());
      std::vector<std::string> parts;
      if (operand.is_string()) {
        parts = CodePoints(operand.str());
      } else if (operand.is_array()) {
        for (const Value& v : operand.items()) {
          parts.push_back(JoinElement(attribute.is_string() ? AttributePath(v, attribute.str()) : v));
        }
      } else {
        return Err(absl::StrCat("Cannot apply filter \"join\" to type: ", operand.TypeName()));
      }
      std::string out;
      for (size_t k = 0; k < parts.size(); ++k) {
        if (k) out += sep.str();
        out += parts[k];
        RETURN_IF_ERROR(interp.CheckSize(out.size()));
      }
      return Value::String(std::move(out));
    }
    if (name == "int" || name == "float") {
      const Value fallback = ArgOr(args, "default", 0, name == "int" ? Value::Int(0) : Value::Float(0));
      if (operand.is_string()) {
        double d;
        const bool ok = name == "int" ? JsParseInt(operand.str(), &d) : JsParseFloat(operand.str(), &d);
        if (!ok) return fallback;
        return name == "int" ? Value::Int(static_cast<int64_t>(d)) : Value::Float(d);
      }
      if (operand.is_number()) return operand;
      if (operand.is_bool()) return name == "int" ? Value::Int(operand.as_bool()) : Value::Float(operand.as_bool());
      return Err(absl::StrCat("Cannot apply filter \"", name, "\" to type: ", operand.TypeName()));
    }
    if (operand.is_array()) {
      if (name == "sort") {
        const Value reverse = ArgOr(args, "reverse", 0, Value::Bool(false));
        if (!reverse.is_bool()) return Err("reverse must be a boolean");
        const Value case_sensitive = ArgOr(args, "case_sensitive", 1, Value::Bool(false));
        if (!case_sensitive.is_bool()) return Err("case_sensitive must be a boolean");
        const Value attribute = ArgOr(args, "attribute", 2, Value::Null());
        if (!attribute.is_string() && !attribute.is_int() && !attribute.is_null()) {
          return Err("attribute must be a string, integer, or null");
        }
        return SortArray(operand, reverse.as_bool(), case_sensitive.as_bool(), attribute);
      }
      if (name == "map") {
        if (const Value* attr = args.Get("attribute")) {
          if (!attr->is_string()) return Err("attribute must be a string");
          const Value* fallback = args.Get("default");
          std::vector<Value> out;
          for (const Value& item : operand.items()) {
            if (!item.is_attribute_container()) return Err("items in map must be an object");
            Value v = AttributePath(item, attr->str());
            out.push_back(v.is_undefined() && fallback ? *fallback : v);
          }
          return Value::Array(std::move(out));
        }
        if (args.positional.empty() || !args.positional[0].is_string()) {
          return Err("map needs a filter name or attribute=");
        }
        const std::string filter = args.positional[0].str();
        CallArgs rest;
        rest.positional.assign(args.positional.begin() + 1, args.positional.end());
        rest.kwargs = args.kwargs;
        std::vector<Value> out;
        for (const Value& item : operand.items()) {
          ASSIGN_OR_RETURN(Value v, NamedFilter(interp, filter, item, rest,
                                                !rest.positional.empty() || !rest.kwargs.empty(), env));
          out.push_back(std::move(v));
        }
        return Value::Array(std::move(out));
      }
      if (name == "batch") {
        const Value size = ArgOr(args, "linecount", 0, Value::Int(1));
        if (!size.is_int() || size.as_int() <= 0) return Err("batch size must be a positive integer");
        const Value* fill = args.Get("fill_with", 1);
        std::vector<Value> out, current;
        for (const Value& item : operand.items()) {
          current.push_back(item);
          if (static_cast<int64_t>(current.size()) == size.as_int()) {
            out.push_back(Value::Array(std::move(current)));
            current.clear();
          }
        }
        if (!current.empty()) {
          if (fill) while (static_cast<int64_t>(current.size()) < size.as_int()) current.push_back(*fill);
          out.push_back(Value::Array(std::move(current)));
        }
        return Value::Array(std::move(out));
      }
    } else if (operand.is_string()) {
      if (name == "indent") {
        const Value width = ArgOr(args, "width", 0, Value::Int(4));
        if (!width.is_int()) return Err("width must be a number");
        const bool first = ArgOr(args, "first", 1, Value::Bool(false)).Truthy();
        const bool blank = ArgOr(args, "blank", 2, Value::Bool(false)).Truthy();
        RETURN_IF_ERROR(interp.CheckSize(operand.str().size() +
                                         static_cast<size_t>(std::clamp<int64_t>(width.as_int(), 0, 1 << 30)) *
                                             (std::count(operand.str().begin(), operand.str().end(), '\n') + 1)));
        return Value::String(Indent(operand.str(), width.as_int(), first, blank));
      }
      if (name == "replace") {
        if (args.positional.size() < 2) return Err("replace() requires at least two arguments");
        const Value& o = args.positional[0];
        const Value& n = args.positional[1];
        if (!o.is_string() || !n.is_string()) return Err("replace() arguments must be strings");
        const Value count = ArgOr(args, "count", 2, Value::Null());
        if (!count.is_int() && !count.is_null()) return Err("replace() count argument must be a number or null");
        ASSIGN_OR_RETURN(std::string r, PyReplace(operand.str(), o.str(), n.str(),
                                                  count.is_int() ? count.as_int() : -1,
                                                  static_cast<size_t>(interp.limits().max_output_bytes)));
        return Value::String(std::move(r));
      }
      if (name == "trim" && !args.positional.empty() && args.positional[0].is_string()) {
        return Value::String(StripChars(operand.str(), args.positional[0].str(), true, true));
      }
    } else if (operand.is_number() && name == "round") {
      const Value precision = ArgOr(args, "precision", 0, Value::Int(0));
      const Value method = ArgOr(args, "method", 1, Value::String("common"));
      const double scale = std::pow(10.0, precision.is_int() ? precision.as_int() : 0);
      const double x = operand.as_number() * scale;
      const std::string m = method.is_string() ? method.str() : "common";
      const double r = m == "floor" ? std::floor(x) : m == "ceil" ? std::ceil(x) : std::round(x);
      return Value::Float(r / scale);
    }
  }
  if (operand.is_object()) {
    if (name == "items" || name == "keys" || name == "values" || name == "get" || name == "dictsort") {
      ASSIGN_OR_RETURN(Value fn, GetMember(interp, operand, Value::String(name)));
      if (fn.is_function()) return interp.Call(fn, args, env);
    }
  }
  return BareFilter(name, operand);
}

}  // namespace

absl::StatusOr<Value> ApplyFilter(Interpreter& interp, const Value& operand, const Node& filter,
                                  const EnvPtr& env) {
  if (filter.kind == NodeKind::kIdentifier) {
    return NamedFilter(interp, filter.name, operand, CallArgs{}, /*called=*/false, env);
  }
  if (filter.kind == NodeKind::kCall && filter.a->kind == NodeKind::kIdentifier) {
    ASSIGN_OR_RETURN(CallArgs args, interp.EvalArgs(filter.args, env));
    return NamedFilter(interp, filter.a->name, operand, args, /*called=*/true, env);
  }
  return Err("Unknown filter");
}

}  // namespace strata::jinja
