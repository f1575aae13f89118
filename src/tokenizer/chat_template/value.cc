#include "tokenizer/chat_template/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "tokenizer/chat_template/text_util.h"

namespace strata::jinja {

const Value* CallArgs::Get(const std::string& name, size_t index) const {
  if (index < positional.size()) return &positional[index];
  for (const auto& [k, v] : kwargs) {
    if (k == name) return &v;
  }
  return nullptr;
}

const Value* Object::Find(const std::string& key) const {
  for (const auto& e : entries_) {
    if (e.first == key) return &e.second;
  }
  return nullptr;
}

Value* Object::Find(const std::string& key) {
  for (auto& e : entries_) {
    if (e.first == key) return &e.second;
  }
  return nullptr;
}

void Object::Set(const std::string& key, Value value) {
  if (Value* v = Find(key)) {
    *v = std::move(value);
  } else {
    entries_.emplace_back(key, std::move(value));
  }
}

bool Object::Erase(const std::string& key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == key) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

Value Value::String(std::string s) {
  Value v;
  v.kind_ = Kind::kString;
  v.str_ = std::make_shared<const std::string>(std::move(s));
  return v;
}

Value Value::Array(std::vector<Value> items) {
  Value v;
  v.kind_ = Kind::kArray;
  v.array_ = std::make_shared<std::vector<Value>>(std::move(items));
  return v;
}

Value Value::Tuple(std::vector<Value> items) {
  Value v = Array(std::move(items));
  v.kind_ = Kind::kTuple;
  return v;
}

Value Value::MakeObject() {
  Value v;
  v.kind_ = Kind::kObject;
  v.object_ = std::make_shared<Object>();
  return v;
}

Value Value::Namespace() {
  Value v = MakeObject();
  v.kind_ = Kind::kNamespace;
  return v;
}

Value Value::MakeFunction(std::string name, NativeFunction fn) {
  Value v;
  v.kind_ = Kind::kFunction;
  v.function_ = std::make_shared<const Function>(Function{std::move(name), std::move(fn)});
  return v;
}

absl::StatusOr<Value> Value::FromJson(const nlohmann::ordered_json& json, int max_depth) {
  if (max_depth <= 0) return absl::InvalidArgumentError("chat template input nested too deeply");
  switch (json.type()) {
    case nlohmann::ordered_json::value_t::null:
    case nlohmann::ordered_json::value_t::discarded:
      return Null();
    case nlohmann::ordered_json::value_t::boolean:
      return Bool(json.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer:
      return Int(json.get<int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned: {
      const uint64_t u = json.get<uint64_t>();
      if (u <= static_cast<uint64_t>(INT64_MAX)) return Int(static_cast<int64_t>(u));
      return Float(static_cast<double>(u));
    }
    case nlohmann::ordered_json::value_t::number_float: {
      const double d = json.get<double>();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) {
        return Int(static_cast<int64_t>(d));
      }
      return Float(d);
    }
    case nlohmann::ordered_json::value_t::string:
      return String(json.get<std::string>());
    case nlohmann::ordered_json::value_t::array: {
      std::vector<Value> items;
      items.reserve(json.size());
      for (const auto& item : json) {
        auto v = FromJson(item, max_depth - 1);
        if (!v.ok()) return v.status();
        items.push_back(std::move(*v));
      }
      return Array(std::move(items));
    }
    case nlohmann::ordered_json::value_t::object: {
      Value obj = MakeObject();
      for (auto it = json.begin(); it != json.end(); ++it) {
        auto v = FromJson(it.value(), max_depth - 1);
        if (!v.ok()) return v.status();
        obj.object().Set(it.key(), std::move(*v));
      }
      return obj;
    }
    case nlohmann::ordered_json::value_t::binary:
      return absl::InvalidArgumentError("binary JSON values are not supported");
  }
  return Null();
}

const void* Value::identity() const {
  if (array_) return array_.get();
  if (object_) return object_.get();
  if (function_) return function_.get();
  return nullptr;
}

bool Value::Truthy() const {
  switch (kind_) {
    case Kind::kUndefined:
    case Kind::kNull:
      return false;
    case Kind::kBool:
    case Kind::kInt:
      return int_ != 0;
    case Kind::kFloat:
      return float_ != 0 && !std::isnan(float_);
    case Kind::kString:
      return !str_->empty();
    case Kind::kArray:
    case Kind::kTuple:
      return !array_->empty();
    case Kind::kObject:
      return object_->size() > 0;
    case Kind::kNamespace:
    case Kind::kFunction:
      return true;
  }
  return false;
}

const char* Value::TypeName() const {
  switch (kind_) {
    case Kind::kUndefined: return "UndefinedValue";
    case Kind::kNull: return "NullValue";
    case Kind::kBool: return "BooleanValue";
    case Kind::kInt: return "IntegerValue";
    case Kind::kFloat: return "FloatValue";
    case Kind::kString: return "StringValue";
    case Kind::kArray: return "ArrayValue";
    case Kind::kTuple: return "TupleValue";
    case Kind::kObject: return "ObjectValue";
    case Kind::kNamespace: return "NamespaceValue";
    case Kind::kFunction: return "FunctionValue";
  }
  return "?";
}

std::string JsNumberToString(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d == 0) return "0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);  // [-]d[.ddd]e[+-]XX
  std::string sign;
  if (sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  const size_t epos = sci.find('e');
  const int exp10 = std::atoi(sci.c_str() + epos + 1);
  std::string digits;
  for (size_t i = 0; i < epos; ++i) {
    if (sci[i] != '.') digits.push_back(sci[i]);
  }
  const int k = static_cast<int>(digits.size());
  const int n = exp10 + 1;
  std::string out;
  if (k <= n && n <= 21) {
    out = digits + std::string(n - k, '0');
  } else if (0 < n && n <= 21) {
    out = digits.substr(0, n) + "." + digits.substr(n);
  } else if (-6 < n && n <= 0) {
    out = "0." + std::string(-n, '0') + digits;
  } else {
    out = digits.substr(0, 1);
    if (k > 1) out += "." + digits.substr(1);
    out += (n - 1 >= 0 ? "e+" : "e-") + std::to_string(std::abs(n - 1));
  }
  return sign + out;
}

namespace {

std::string FloatToString(double d) {
  if (d == 0 && std::signbit(d)) return "-0.0";
  if (std::isfinite(d) && d == std::floor(d)) {
    if (std::fabs(d) >= 1e21) return JsNumberToString(d);
    char buf[400];
    std::snprintf(buf, sizeof(buf), "%.1f", d);
    return buf;
  }
  return JsNumberToString(d);
}

// Approximates String.prototype.localeCompare (ICU root collation) for ASCII keys: punctuation
// before digits before letters, letters case-insensitive, lowercase first on ties.
int LocaleCompare(const std::string& a, const std::string& b) {
  auto weight = [](unsigned char c) -> int {
    if (c >= 'a' && c <= 'z') return 1000 + (c - 'a') * 2;
    if (c >= 'A' && c <= 'Z') return 1000 + (c - 'A') * 2;
    if (c >= '0' && c <= '9') return 500 + c;
    return c;
  };
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const int wa = weight(a[i]), wb = weight(b[i]);
    if (wa != wb) return wa < wb ? -1 : 1;
  }
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  for (size_t i = 0; i < n; ++i) {
    const bool la = a[i] >= 'a' && a[i] <= 'z', lb = b[i] >= 'a' && b[i] <= 'z';
    if (la != lb) return la ? -1 : 1;
  }
  return 0;
}

void AppendHex4(unsigned v, std::string* out) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "\\u%04x", v & 0xffffu);
  out->append(buf);
}

}  // namespace

std::string JsonQuote(const std::string& s, bool ensure_ascii) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          if (c < 0x20 || (ensure_ascii && c == 0x7f)) {
            AppendHex4(c, &out);
          } else {
            out.push_back(static_cast<char>(c));
          }
      }
      ++i;
      continue;
    }
    const int n = Utf8Length(s, i);
    if (ensure_ascii) {
      const uint32_t cp = DecodeUtf8(s, i);
      if (cp >= 0x10000) {
        const uint32_t v = cp - 0x10000;
        AppendHex4(0xD800 + (v >> 10), &out);
        AppendHex4(0xDC00 + (v & 0x3FF), &out);
      } else {
        AppendHex4(cp, &out);
      }
    } else {
      out.append(s, i, n);
    }
    i += n;
  }
  out.push_back('"');
  return out;
}

absl::StatusOr<std::string> ToJson(const Value& v, const JsonOptions& o, int depth) {
  if (depth > 512) return absl::InvalidArgumentError("tojson: value nested too deeply");
  std::string item_sep = o.has_separators ? o.item_separator : (o.indent ? "," : ", ");
  std::string key_sep = o.has_separators ? o.key_separator : ": ";
  switch (v.kind()) {
    case Value::Kind::kNull:
      return std::string("null");
    case Value::Kind::kUndefined:
      return std::string(o.undefined_as_null ? "null" : "undefined");
    case Value::Kind::kInt:
      return std::to_string(v.as_int());
    case Value::Kind::kFloat:
      return std::isfinite(v.as_number()) ? JsNumberToString(v.as_number()) : "null";
    case Value::Kind::kBool:
      return std::string(v.as_bool() ? "true" : "false");
    case Value::Kind::kString:
      return JsonQuote(v.str(), o.ensure_ascii);
    case Value::Kind::kArray:
    case Value::Kind::kTuple:
    case Value::Kind::kObject:
    case Value::Kind::kNamespace: {
      const std::string indent(o.indent > 0 ? o.indent : 0, ' ');
      std::string base = "\n";
      for (int k = 0; k < depth; ++k) base += indent;
      const std::string child = base + indent;
      std::vector<std::string> core;
      if (v.is_array()) {
        for (const Value& item : v.items()) {
          auto s = ToJson(item, o, depth + 1);
          if (!s.ok()) return s.status();
          core.push_back(std::move(*s));
        }
        std::string out = "[";
        if (o.indent && !core.empty()) {
          out += child;
          for (size_t k = 0; k < core.size(); ++k) {
            if (k) out += item_sep + child;
            out += core[k];
          }
          out += base;
        } else {
          for (size_t k = 0; k < core.size(); ++k) {
            if (k) out += item_sep;
            out += core[k];
          }
        }
        return out + "]";
      }
      std::vector<const std::pair<std::string, Value>*> entries;
      for (const auto& e : v.object().entries()) entries.push_back(&e);
      if (o.sort_keys) {
        std::stable_sort(entries.begin(), entries.end(), [](auto* a, auto* b) {
          return LocaleCompare(a->first, b->first) < 0;
        });
      }
      for (const auto* e : entries) {
        auto s = ToJson(e->second, o, depth + 1);
        if (!s.ok()) return s.status();
        std::string item = JsonQuote(e->first, o.ensure_ascii) + key_sep + *s;
        core.push_back(o.indent ? child + item : item);
      }
      std::string out = "{";
      for (size_t k = 0; k < core.size(); ++k) {
        if (k) out += item_sep;
        out += core[k];
      }
      if (o.indent && !core.empty()) out += base;
      return out + "}";
    }
    case Value::Kind::kFunction:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat("Cannot convert to JSON: ", v.TypeName()));
}

std::string ToOutputString(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kUndefined: return "undefined";
    case Value::Kind::kNull: return "null";
    case Value::Kind::kBool: return v.as_bool() ? "true" : "false";
    case Value::Kind::kInt: return std::to_string(v.as_int());
    case Value::Kind::kFloat: return FloatToString(v.as_number());
    case Value::Kind::kString: return v.str();
    case Value::Kind::kFunction: return "[function " + v.function().name + "]";
    default: {
      JsonOptions o;
      o.undefined_as_null = false;
      auto s = ToJson(v, o);
      return s.ok() ? *s : std::string();
    }
  }
}

std::string ToJsString(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kFloat: return JsNumberToString(v.as_number());
    case Value::Kind::kArray:
    case Value::Kind::kTuple: {
      std::string out;
      bool first = true;
      for (const Value& item : v.items()) {
        if (!first) out += ",";
        first = false;
        out += ToOutputString(item);
      }
      return out;
    }
    case Value::Kind::kObject:
    case Value::Kind::kNamespace:
      return "[object Map]";
    default:
      return ToOutputString(v);
  }
}

namespace {
// JS ToNumber on a string.
double JsStringToNumber(const std::string& s) {
  std::string t = Trim(s);
  if (t.empty()) return 0;
  if (t == "Infinity" || t == "+Infinity") return INFINITY;
  if (t == "-Infinity") return -INFINITY;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    char* end = nullptr;
    const double d = static_cast<double>(std::strtoull(t.c_str() + 2, &end, 16));
    return *end ? NAN : d;
  }
  for (char c : t) {
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
      return NAN;
    }
  }
  char* end = nullptr;
  const double d = std::strtod(t.c_str(), &end);
  return *end ? NAN : d;
}

bool IsPrimitive(const Value& v) {
  return v.is_bool() || v.is_number() || v.is_string() || v.is_null() || v.is_undefined();
}
}  // namespace

bool LooseEquals(const Value& a, const Value& b) {
  const bool a_nullish = a.is_null() || a.is_undefined();
  const bool b_nullish = b.is_null() || b.is_undefined();
  if (a_nullish || b_nullish) return a_nullish && b_nullish;
  if (a.is_number() && b.is_number()) return a.as_number() == b.as_number();
  if (a.is_string() && b.is_string()) return a.str() == b.str();
  if (a.is_bool() && b.is_bool()) return a.as_bool() == b.as_bool();
  if (!IsPrimitive(a) && !IsPrimitive(b)) return a.identity() == b.identity();
  if (a.is_bool()) return LooseEquals(Value::Int(a.as_bool()), b);
  if (b.is_bool()) return LooseEquals(a, Value::Int(b.as_bool()));
  if (a.is_number() && b.is_string()) return a.as_number() == JsStringToNumber(b.str());
  if (a.is_string() && b.is_number()) return JsStringToNumber(a.str()) == b.as_number();
  // One side is a container: JS converts it to a primitive string.
  if (!IsPrimitive(a)) return LooseEquals(Value::String(ToJsString(a)), b);
  return LooseEquals(a, Value::String(ToJsString(b)));
}

bool StrictEquals(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) return a.as_number() == b.as_number();
  if (a.kind() != b.kind()) {
    if (a.is_array() && b.is_array()) return a.identity() == b.identity();
    return false;
  }
  switch (a.kind()) {
    case Value::Kind::kUndefined:
    case Value::Kind::kNull:
      return true;
    case Value::Kind::kBool:
      return a.as_bool() == b.as_bool();
    case Value::Kind::kString:
      return a.str() == b.str();
    default:
      return a.identity() == b.identity();
  }
}

absl::StatusOr<int> CompareValues(const Value& a, const Value& b, bool case_sensitive) {
  if (a.is_null() && b.is_null()) return 0;
  if (a.is_null() || b.is_null() || a.is_undefined() || b.is_undefined()) {
    if (a.is_undefined() && b.is_undefined()) return 0;
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot compare ", a.TypeName(), " with ", b.TypeName()));
  }
  const bool an = a.is_number() || a.is_bool(), bn = b.is_number() || b.is_bool();
  if (an && bn) {
    const double x = a.is_bool() ? a.as_bool() : a.as_number();
    const double y = b.is_bool() ? b.as_bool() : b.as_number();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.is_string() && b.is_string()) {
    std::string x = case_sensitive ? a.str() : AsciiLower(a.str());
    std::string y = case_sensitive ? b.str() : AsciiLower(b.str());
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.kind() != b.kind()) {
    return absl::InvalidArgumentError(absl::StrCat("Cannot compare different types: ", a.TypeName(),
                                                   " and ", b.TypeName()));
  }
  return absl::InvalidArgumentError(absl::StrCat("Cannot compare type: ", a.TypeName()));
}

}  // namespace strata::jinja
