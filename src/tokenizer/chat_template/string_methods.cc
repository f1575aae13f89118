// Member access and bound methods (`s.startswith(...)`, `d.items()`, `l.append(x)`), plus the
// template globals. String/dict methods are @huggingface/jinja's; list methods and the extra
// string methods (format, join, find, ...) follow Python where the reference has none.
#include "tokenizer/chat_template/string_methods.h"

#include <ctime>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "strata/status_macros.h"
#include "tokenizer/chat_template/evaluator.h"
#include "tokenizer/chat_template/text_util.h"

namespace strata::jinja {

std::string JsTitle(std::string_view s) {
  std::string out(s);
  for (size_t i = 0; i < out.size(); ++i) {
    if (IsWordChar(out[i]) && (i == 0 || !IsWordChar(out[i - 1])) && out[i] >= 'a' && out[i] <= 'z') {
      out[i] = static_cast<char>(out[i] - 32);
    }
  }
  return out;
}

std::string JsCapitalize(std::string_view s) {
  std::string out(s);
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 32);
  return out;
}

absl::StatusOr<std::string> PyReplace(std::string_view s, std::string_view old_value,
                                      std::string_view new_value, int64_t count,
                                      size_t max_bytes) {
  if (count == 0) return std::string(s);
  int64_t remaining = count < 0 ? INT64_MAX : count;
  std::string out;
  auto check = [&]() -> absl::Status {
    if (out.size() > max_bytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("chat template output exceeds ", max_bytes, " bytes"));
    }
    return absl::OkStatus();
  };
  if (old_value.empty()) {
    size_t i = 0;
    while (true) {
      if (remaining > 0) {
        out += new_value;
        --remaining;
      }
      RETURN_IF_ERROR(check());
      if (i >= s.size()) break;
      const int n = Utf8Length(s, i);
      out += s.substr(i, n);
      i += n;
    }
    return out;
  }
  size_t pos = 0;
  while (remaining > 0) {
    const size_t hit = s.find(old_value, pos);
    if (hit == std::string_view::npos) break;
    out += s.substr(pos, hit - pos);
    out += new_value;
    RETURN_IF_ERROR(check());
    pos = hit + old_value.size();
    --remaining;
  }
  out += s.substr(pos);
  RETURN_IF_ERROR(check());
  return out;
}

absl::StatusOr<std::vector<std::string>> PySplit(std::string_view s, bool sep_is_none,
                                                 std::string_view sep, int64_t maxsplit) {
  std::vector<std::string> result;
  if (sep_is_none) {
    const std::string text = TrimStart(s);
    size_t i = 0;
    while (i < text.size()) {
      const size_t start = i;
      while (i < text.size() && !WhitespaceLength(text, i)) i += Utf8Length(text, i);
      if (maxsplit != -1 && static_cast<int64_t>(result.size()) >= maxsplit) {
        result.push_back(text.substr(start));
        break;
      }
      result.push_back(text.substr(start, i - start));
      while (int w = WhitespaceLength(text, i)) i += w;
    }
    return result;
  }
  if (sep.empty()) return absl::InvalidArgumentError("empty separator");
  size_t pos = 0;
  while (true) {
    if (maxsplit >= 0 && static_cast<int64_t>(result.size()) >= maxsplit) break;
    const size_t hit = s.find(sep, pos);
    if (hit == std::string_view::npos) break;
    result.emplace_back(s.substr(pos, hit - pos));
    pos = hit + sep.size();
  }
  result.emplace_back(s.substr(pos));
  return result;
}

namespace {

absl::Status ArgError(const std::string& message) { return absl::InvalidArgumentError(message); }

// Python-flavoured str() used by str.format.
std::string PyStr(const Value& v) {
  if (v.is_bool()) return v.as_bool() ? "True" : "False";
  if (v.is_null()) return "None";
  if (v.is_undefined()) return "";
  return ToOutputString(v);
}

absl::StatusOr<std::string> PyFormat(const std::string& fmt, const CallArgs& args) {
  std::string out;
  size_t auto_index = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    const char c = fmt[i];
    if (c == '{' && i + 1 < fmt.size() && fmt[i + 1] == '{') {
      out.push_back('{');
      ++i;
    } else if (c == '}' && i + 1 < fmt.size() && fmt[i + 1] == '}') {
      out.push_back('}');
      ++i;
    } else if (c == '{') {
      const size_t close = fmt.find('}', i);
      if (close == std::string::npos) return ArgError("Single '{' encountered in format string");
      std::string field = fmt.substr(i + 1, close - i - 1);
      const size_t colon = field.find_first_of(":!");
      if (colon != std::string::npos) field = field.substr(0, colon);
      const Value* v = nullptr;
      if (field.empty()) {
        v = auto_index < args.positional.size() ? &args.positional[auto_index] : nullptr;
        ++auto_index;
      } else if (field.find_first_not_of("0123456789") == std::string::npos) {
        const size_t k = std::stoul(field);
        v = k < args.positional.size() ? &args.positional[k] : nullptr;
      } else {
        v = args.Get(field);
      }
      if (v == nullptr) return ArgError(absl::StrCat("format: missing argument '", field, "'"));
      out += PyStr(*v);
      i = close;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Value Bound(const std::string& name, NativeFunction fn) {
  return Value::MakeFunction(name, std::move(fn));
}

const Value& ArgOr(const CallArgs& args, const std::string& name, size_t index, const Value& fallback) {
  const Value* v = args.Get(name, index);
  return v ? *v : fallback;
}

absl::StatusOr<Value> StringMember(Interpreter& interp, const std::string& s,
                                   const std::string& name) {
  const size_t max_bytes = static_cast<size_t>(interp.limits().max_output_bytes);
  auto str_fn = [&](std::string (*f)(std::string_view)) {
    return Bound(name, [s, f](const CallArgs&, const EnvPtr&) -> absl::StatusOr<Value> {
      return Value::String(f(s));
    });
  };
  if (name == "length") return Value::Int(Utf16Length(s));
  if (name == "upper") return str_fn(&AsciiUpper);
  if (name == "lower") return str_fn(&AsciiLower);
  if (name == "title") return str_fn(&JsTitle);
  if (name == "capitalize") return str_fn(&JsCapitalize);
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    const bool left = name != "rstrip", right = name != "lstrip";
    return Bound(name, [s, left, right](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
      const Value* chars = args.Get("chars", 0);
      if (chars && chars->is_string()) return Value::String(StripChars(s, chars->str(), left, right));
      if (left && right) return Value::String(Trim(s));
      return Value::String(left ? TrimStart(s) : TrimEnd(s));
    });
  }
  if (name == "startswith" || name == "endswith") {
    const bool starts = name == "startswith";
    return Bound(name, [s, starts, name](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
      if (args.positional.empty()) return ArgError(name + "() requires at least one argument");
      const Value& p = args.positional[0];
      auto test = [&](const std::string& x) {
        if (x.size() > s.size()) return false;
        return starts ? s.compare(0, x.size(), x) == 0 : s.compare(s.size() - x.size(), x.size(), x) == 0;
      };
      if (p.is_string()) return Value::Bool(test(p.str()));
      if (p.is_array()) {
        for (const Value& item : p.items()) {
          if (!item.is_string()) return ArgError(name + "() tuple elements must be strings");
          if (test(item.str())) return Value::Bool(true);
        }
        return Value::Bool(false);
      }
      return ArgError(name + "() argument must be a string or tuple of strings");
    });
  }
  if (name == "split" || name == "rsplit") {
    return Bound(name, [s](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
      const Value sep = ArgOr(args, "sep", 0, Value::Null());
      if (!sep.is_string() && !sep.is_null()) return ArgError("sep argument must be a string or null");
      const Value maxsplit = ArgOr(args, "maxsplit", 1, Value::Int(-1));
      if (!maxsplit.is_int()) return ArgError("maxsplit argument must be a number");
      ASSIGN_OR_RETURN(auto parts, PySplit(s, sep.is_null(), sep.is_string() ? sep.str() : "",
                                           maxsplit.as_int()));
      std::vector<Value> items;
      for (auto& p : parts) items.push_back(Value::String(std::move(p)));
      return Value::Array(std::move(items));
    });
  }
  if (name == "replace") {
    return Bound(name, [s, max_bytes](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
      if (args.positional.size() < 2) return ArgError("replace() requires at least two arguments");
      const Value& o = args.positional[0];
      const Value& n = args.positional[1];
      if (!o.is_string() || !n.is_string()) return ArgError("replace() arguments must be strings");
      const Value count = ArgOr(args, "count", 2, Value::Null());
      if (!count.is_int() && !count.is_null()) {
        return ArgError("replace() count argument must be a number or null");
      }
      ASSIGN_OR_RETURN(std::string r, PyReplace(s, o.str(), n.str(), count.is_int() ? count.as_int() : -1, max_bytes));
      return Value::String(std::move(r));
    });
  }
  if (name == "format") {
    return Bound(name, [s](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
      ASSIGN_OR_RETURN(std::string r, PyFormat(s, args));
      return Value::String(std::move(r));
    });
  }
  if (name == "join") {
    return Bound(name, [s](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
      if (args.positional.empty() || !args.positional[0].is_array()) {
        return ArgError("join() argument must be a list");
      }
      std::string out;
      bool first = true;
      for (const Value& item : args.positional[0].items()) {
        if (!item.is_string()) return ArgError("join() expects a list of strings");
        if (!first) out += s;
        first = false;
        out += item.str();
      }
      return Value::String(std::move(out));
    });
  }
  if (name == "find" || name == "rfind" || name == "index" || name == "count") {
    return Bound(name, [s, name](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
      if (args.positional.empty() || !args.positional[0].is_string()) {
        return ArgError(name + "() argument must be a string");
      }
      const std::string& sub = args.positional[0].str();
      if (name == "count") {
        if (sub.empty()) return Value::Int(static_cast<int64_t>(CodePoints(s).size()) + 1);
        int64_t n = 0;
        for (size_t p = s.find(sub); p != std::string::npos; p = s.find(sub, p + sub.size())) ++n;
        return Value::Int(n);
      }
      const size_t p = name == "rfind" ? s.rfind(sub) : s.find(sub);
      if (p == std::string::npos) {
        if (name == "index") return ArgError("substring not found");
        return Value::Int(-1);
      }
      return Value::Int(static_cast<int64_t>(CodePoints(s.substr(0, p)).size()));
    });
  }
  if (name == "isdigit" || name == "isalpha" || name == "isalnum" || name == "isspace" ||
      name == "islower" || name == "isupper") {
    return Bound(name, [s, name](const CallArgs&, const EnvPtr&) -> absl::StatusOr<Value> {
      if (name == "islower") return Value::Bool(s != AsciiUpper(s) && s == AsciiLower(s));
      if (name == "isupper") return Value::Bool(s != AsciiLower(s) && s == AsciiUpper(s));
      if (s.empty()) return Value::Bool(false);
      for (char c : s) {
        const bool digit = c >= '0' && c <= '9';
        const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        const bool ok = name == "isdigit" ? digit : name == "isalpha" ? alpha
                      : name == "isalnum" ? (digit || alpha) : (c == ' ' || (c >= 9 && c <= 13));
        if (!ok) return Value::Bool(false);
      }
      return Value::Bool(true);
    });
  }
  if (name == "removeprefix" || name == "removesuffix") {
    const bool prefix = name == "removeprefix";
    return Bound(name, [s, prefix](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
      if (args.positional.empty() || !args.positional[0].is_string()) return ArgError("expected a string");
      const std::string& x = args.positional[0].str();
      if (prefix && s.compare(0, x.size(), x) == 0) return Value::String(s.substr(x.size()));
      if (!prefix && x.size() <= s.size() && s.compare(s.size() - x.size(), x.size(), x) == 0) {
        return Value::String(s.substr(0, s.size() - x.size()));
      }
      return Value::String(s);
    });
  }
  if (name == "splitlines") {
    return Bound(name, [s](const CallArgs&, const EnvPtr&) -> absl::StatusOr<Value> {
      std::vector<Value> lines;
      size_t start = 0;
      for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\n' || s[i] == '\r') {
          lines.push_back(Value::String(s.substr(start, i - start)));
          if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
          start = i + 1;
        }
      }
      if (start < s.size()) lines.push_back(Value::String(s.substr(start)));
      return Value::Array(std::move(lines));
    });
  }
  return Value();
}

absl::StatusOr<Value> ArrayMember(const Value& list, const std::string& name) {
  if (name == "length") return Value::Int(static_cast<int64_t>(list.items().size()));
  if (name == "append") {
    return Bound(name, [list](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
      if (args.positional.size() != 1) return ArgError("append() takes exactly one argument");
      list.items().push_back(args.positional[0]);
      return Value::Null();
    });
  }
  if (name == "extend") {
    return Bound(name, [list](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
      if (args.positional.size() != 1 || !args.positional[0].is_array()) {
        return ArgError("extend() takes one list");
      }
      std::vector<Value> copy = args.positional[0].items();
      list.items().insert(list.items().end(), copy.begin(), copy.end());
      return Value::Null();
    });
  }
  if (name == "insert") {
    return Bound(name, [list](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
      if (args.positional.size() != 2 || !args.positional[0].is_int()) {
        return ArgError("insert() takes an index and a value");
      }
      auto& items = list.items();
      int64_t i = args.positional[0].as_int();
      const int64_t n = static_cast<int64_t>(items.size());
      if (i < 0) i = std::max<int64_t>(0, n + i);
      i = std::min(i, n);
      items.insert(items.begin() + i, args.positional[1]);
      return Value::Null();
    });
  }
  if (name == "pop") {
    return Bound(name, [list](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
      auto& items = list.items();
      if (items.empty()) return ArgError("pop from empty list");
      int64_t i = static_cast<int64_t>(items.size()) - 1;
      if (!args.positional.empty()) {
        if (!args.positional[0].is_int()) return ArgError("pop() index must be an integer");
        i = args.positional[0].as_int();
        if (i < 0) i += static_cast<int64_t>(items.size());
        if (i < 0 || i >= static_cast<int64_t>(items.size())) return ArgError("pop index out of range");
      }
      Value v = items[i];
      items.erase(items.begin() + i);
      return v;
    });
  }
  if (name == "index" || name == "count") {
    return Bound(name, [list, name](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
      if (args.positional.empty()) return ArgError(name + "() takes one argument");
      int64_t n = 0;
      const auto& items = list.items();
      for (size_t k = 0; k < items.size(); ++k) {
        if (LooseEquals(items[k], args.positional[0]) && items[k].kind() == args.positional[0].kind()) {
          if (name == "index") return Value::Int(static_cast<int64_t>(k));
          ++n;
        }
      }
      if (name == "index") return ArgError("value is not in list");
      return Value::Int(n);
    });
  }
  return Value();
}

Value ItemsOf(const Value& obj) {
  std::vector<Value> items;
  for (const auto& [k, v] : obj.object().entries()) {
    items.push_back(Value::Array({Value::String(k), v}));
  }
  return Value::Array(std::move(items));
}

absl::StatusOr<Value> ObjectMember(const Value& obj, const std::string& name) {
  if (name == "get") {
    return Bound(name, [obj](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
      const Value key = args.positional.empty() ? Value() : args.positional[0];
      if (!key.is_string()) return ArgError(absl::StrCat("Object key must be a string: got ", key.TypeName()));
      if (const Value* v = obj.object().Find(key.str())) return *v;
      if (args.positional.size() > 1) return args.positional[1];
      return Value::Null();
    });
  }
  if (name == "items") {
    return Bound(name, [obj](const CallArgs&, const EnvPtr&) -> absl::StatusOr<Value> { return ItemsOf(obj); });
  }
  if (name == "keys" || name == "values") {
    const bool keys = name == "keys";
    return Bound(name, [obj, keys](const CallArgs&, const EnvPtr&) -> absl::StatusOr<Value> {
      std::vector<Value> items;
      for (const auto& [k, v] : obj.object().entries()) items.push_back(keys ? Value::String(k) : v);
      return Value::Array(std::move(items));
    });
  }
  if (name == "dictsort") {
    return Bound(name, [obj](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
      const Value case_sensitive = ArgOr(args, "case_sensitive", 0, Value::Bool(false));
      if (!case_sensitive.is_bool()) return ArgError("case_sensitive must be a boolean");
      const Value by = ArgOr(args, "by", 1, Value::String("key"));
      if (!by.is_string()) return ArgError("by must be a string");
      if (by.str() != "key" && by.str() != "value") return ArgError("by must be either 'key' or 'value'");
      const Value reverse = ArgOr(args, "reverse", 2, Value::Bool(false));
      if (!reverse.is_bool()) return ArgError("reverse must be a boolean");
      std::vector<Value> items = ItemsOf(obj).items();
      const size_t index = by.str() == "key" ? 0 : 1;
      absl::Status error;
      std::stable_sort(items.begin(), items.end(), [&](const Value& a, const Value& b) {
        auto c = CompareValues(a.items()[index], b.items()[index], case_sensitive.as_bool());
        if (!c.ok()) {
          error = c.status();
          return false;
        }
        return reverse.as_bool() ? *c > 0 : *c < 0;
      });
      RETURN_IF_ERROR(error);
      return Value::Array(std::move(items));
    });
  }
  return Value();
}

}  // namespace

absl::StatusOr<Value> GetMember(Interpreter& interp, const Value& object, const Value& property) {
  if (object.is_attribute_container()) {
    if (!property.is_string()) {
      return ArgError(absl::StrCat("Cannot access property with non-string: got ", property.TypeName()));
    }
    if (const Value* v = object.object().Find(property.str())) return *v;
    if (object.is_object()) return ObjectMember(object, property.str());
    return Value();
  }
  if (object.is_array() || object.is_string()) {
    if (property.is_int()) {
      int64_t i = property.as_int();
      if (object.is_array()) {
        const int64_t n = static_cast<int64_t>(object.items().size());
        if (i < 0) i += n;
        if (i < 0 || i >= n) return Value();
        return object.items()[i];
      }
      std::vector<std::string> cps = CodePoints(object.str());
      const int64_t n = static_cast<int64_t>(cps.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) return Value();
      return Value::String(cps[i]);
    }
    if (property.is_string()) {
      if (object.is_array()) return ArrayMember(object, property.str());
      return StringMember(interp, object.str(), property.str());
    }
    return ArgError(absl::StrCat("Cannot access property with non-string/non-number: got ",
                                 property.TypeName()));
  }
  if (!property.is_string()) {
    return ArgError(absl::StrCat("Cannot access property with non-string: got ", property.TypeName()));
  }
  return Value();
}

namespace {

std::string StrftimeNow(const std::string& format) {
  static const char* kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                                  "July",    "August",   "September", "October", "November", "December"};
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  auto pad2 = [](int n) { return n < 10 ? "0" + std::to_string(n) : std::to_string(n); };
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%' || i + 1 >= format.size()) {
      out.push_back(format[i]);
      continue;
    }
    const char c = format[i + 1];
    switch (c) {
      case 'Y': out += std::to_string(tm.tm_year + 1900); break;
      case 'm': out += pad2(tm.tm_mon + 1); break;
      case 'd': out += pad2(tm.tm_mday); break;
      case 'b': out += std::string(kMonths[tm.tm_mon]).substr(0, 3); break;
      case 'B': out += kMonths[tm.tm_mon]; break;
      case 'H': out += pad2(tm.tm_hour); break;
      case 'M': out += pad2(tm.tm_min); break;
      case '%': out += "%"; break;
      default: out += format.substr(i, 2); break;
    }
    ++i;
  }
  return out;
}

}  // namespace

void InstallGlobals(Interpreter& interp, Env& env) {
  env.Set("true", Value::Bool(true));
  env.Set("false", Value::Bool(false));
  env.Set("none", Value::Null());
  env.Set("True", Value::Bool(true));
  env.Set("False", Value::Bool(false));
  env.Set("None", Value::Null());
  env.Set("raise_exception", Value::MakeFunction(
      "raise_exception", [](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
        std::string message = args.positional.empty() ? "undefined" : ToJsString(args.positional[0]);
        absl::Status s = absl::InvalidArgumentError(message);
        s.SetPayload(kLocatedPayload, absl::Cord("raised"));
        return s;
      }));
  const int64_t max_len = interp.limits().max_steps;
  env.Set("range", Value::MakeFunction(
      "range", [max_len](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
        for (const Value& a : args.positional) {
          if (!a.is_int()) return ArgError("range() arguments must be integers");
        }
        if (args.positional.empty() || args.positional.size() > 3) {
          return ArgError("range() takes 1 to 3 arguments");
        }
        int64_t start = 0, stop, step = 1;
        if (args.positional.size() == 1) {
          stop = args.positional[0].as_int();
        } else {
          start = args.positional[0].as_int();
          stop = args.positional[1].as_int();
          if (args.positional.size() == 3) step = args.positional[2].as_int();
        }
        if (step == 0) return ArgError("range() step must not be zero");
        std::vector<Value> items;
        for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
          if (static_cast<int64_t>(items.size()) >= max_len) return ArgError("range() too long");
          items.push_back(Value::Int(i));
        }
        return Value::Array(std::move(items));
      }));
  env.Set("strftime_now", Value::MakeFunction(
      "strftime_now", [](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
        if (args.positional.empty() || !args.positional[0].is_string()) {
          return ArgError("strftime_now() takes a format string");
        }
        return Value::String(StrftimeNow(args.positional[0].str()));
      }));
  env.Set("namespace", Value::MakeFunction(
      "namespace", [](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
        if (args.positional.size() > 1) {
          return ArgError(absl::StrCat("namespace expected at most 1 argument, got ",
                                       args.positional.size()));
        }
        Value ns = Value::Namespace();
        if (args.positional.size() == 1) {
          const Value& src = args.positional[0];
          if (src.is_object()) {
            for (const auto& [k, v] : src.object().entries()) ns.object().Set(k, v);
          } else if (src.is_array()) {
            for (const Value& pair : src.items()) {
              if (!pair.is_array() || pair.items().size() != 2 || !pair.items()[0].is_string()) {
                return ArgError("namespace expected an object or an iterable of [key, value] pairs");
              }
              ns.object().Set(pair.items()[0].str(), pair.items()[1]);
            }
          } else {
            return ArgError(absl::StrCat("'", src.TypeName(), "' object is not iterable"));
          }
        }
        for (const auto& [k, v] : args.kwargs) ns.object().Set(k, v);
        return ns;
      }));
  env.Set("dict", Value::MakeFunction(
      "dict", [](const CallArgs& args, const EnvPtr&) -> absl::StatusOr<Value> {
        Value d = Value::MakeObject();
        if (!args.positional.empty() && args.positional[0].is_object()) {
          for (const auto& [k, v] : args.positional[0].object().entries()) d.object().Set(k, v);
        }
        for (const auto& [k, v] : args.kwargs) d.object().Set(k, v);
        return d;
      }));
}

}  // namespace strata::jinja
