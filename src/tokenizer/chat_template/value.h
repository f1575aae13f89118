// Value: the runtime value of the Jinja interpreter, modelled on @huggingface/jinja's runtime
// values (undefined, none, bool, integer, float, string, list, tuple, dict, namespace, function).
//
// Lists, dicts and namespaces have reference semantics (as in Python and JS): copies of a Value
// share the container, so `ns.items.append(x)` is seen through every copy. Dicts keep insertion
// order. Strings are UTF-8. Numbers follow JS formatting (the oracle is JS): integers print as
// integers, floats print with ".0" when integral, and tojson prints JS numbers.
// Thread-compatible: values are created and used by one render.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace strata::jinja {

class Value;
struct Env;
using EnvPtr = std::shared_ptr<Env>;

// Positional and keyword arguments of a call.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> kwargs;
  // Keyword `name`, or positional `index` when given, else nullptr.
  const Value* Get(const std::string& name, size_t index = SIZE_MAX) const;
};

using NativeFunction = std::function<absl::StatusOr<Value>(const CallArgs&, const EnvPtr&)>;

struct Function {
  std::string name;
  NativeFunction fn;
};

// An insertion-ordered string-keyed map; small maps dominate, so lookup is a linear scan.
class Object {
 public:
  const Value* Find(const std::string& key) const;
  Value* Find(const std::string& key);
  void Set(const std::string& key, Value value);
  bool Erase(const std::string& key);
  const std::vector<std::pair<std::string, Value>>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }

 private:
  std::vector<std::pair<std::string, Value>> entries_;
};

class Value {
 public:
  enum class Kind : uint8_t {
    kUndefined, kNull, kBool, kInt, kFloat, kString, kArray, kTuple, kObject, kNamespace, kFunction
  };

  Value() = default;
  static Value Null() { Value v; v.kind_ = Kind::kNull; return v; }
  static Value Bool(bool b) { Value v; v.kind_ = Kind::kBool; v.int_ = b; return v; }
  static Value Int(int64_t i) { Value v; v.kind_ = Kind::kInt; v.int_ = i; return v; }
  static Value Float(double d) { Value v; v.kind_ = Kind::kFloat; v.float_ = d; return v; }
  static Value String(std::string s);
  static Value Array(std::vector<Value> items = {});
  static Value Tuple(std::vector<Value> items);
  static Value MakeObject();
  static Value Namespace();
  static Value MakeFunction(std::string name, NativeFunction fn);
  // JSON → Value; integral JSON numbers become integers (as JS's Number.isInteger decides).
  // Fails past `max_depth` nesting.
  static absl::StatusOr<Value> FromJson(const nlohmann::ordered_json& json, int max_depth = 256);

  Kind kind() const { return kind_; }
  bool is_undefined() const { return kind_ == Kind::kUndefined; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  bool is_int() const { return kind_ == Kind::kInt; }
  bool is_float() const { return kind_ == Kind::kFloat; }
  bool is_number() const { return is_int() || is_float(); }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_array() const { return kind_ == Kind::kArray || kind_ == Kind::kTuple; }
  bool is_object() const { return kind_ == Kind::kObject; }
  bool is_namespace() const { return kind_ == Kind::kNamespace; }
  bool is_attribute_container() const { return is_object() || is_namespace(); }
  bool is_function() const { return kind_ == Kind::kFunction; }

  bool as_bool() const { return int_ != 0; }
  int64_t as_int() const { return int_; }
  double as_number() const { return is_int() ? static_cast<double>(int_) : float_; }
  const std::string& str() const { return *str_; }
  std::vector<Value>& items() const { return *array_; }
  Object& object() const { return *object_; }
  const Function& function() const { return *function_; }
  // Identity of the container (lists, dicts, namespaces, functions), for `==` and `in`.
  const void* identity() const;

  // Python/JS truthiness as @huggingface/jinja defines it.
  bool Truthy() const;
  // Type name as @huggingface/jinja spells it in messages ("StringValue", ...).
  const char* TypeName() const;

 private:
  Kind kind_ = Kind::kUndefined;
  int64_t int_ = 0;
  double float_ = 0;
  std::shared_ptr<const std::string> str_;
  std::shared_ptr<std::vector<Value>> array_;
  std::shared_ptr<Object> object_;
  std::shared_ptr<const Function> function_;
};

// ---- Formatting (value.cc) ----

// JS Number.prototype.toString.
std::string JsNumberToString(double d);
// What `{{ v }}` prints (RuntimeValue.toString); none/undefined print as "null"/"undefined" here
// (the caller skips them when printing).
std::string ToOutputString(const Value& v);
// JS `v.value.toString()`: what `~` and string `+` concatenate.
std::string ToJsString(const Value& v);

struct JsonOptions {
  int indent = 0;  // 0 = single line
  bool ensure_ascii = false;
  bool sort_keys = false;
  bool has_separators = false;
  std::string item_separator;
  std::string key_separator;
  bool undefined_as_null = true;
};
// tojson exactly as @huggingface/jinja's toJSON (JSON.stringify for scalars).
absl::StatusOr<std::string> ToJson(const Value& v, const JsonOptions& options, int depth = 0);
// JSON.stringify of one string.
std::string JsonQuote(const std::string& s, bool ensure_ascii);

// ---- Comparison (value.cc) ----

// JS `a.value == b.value` (loose equality), which is what `==` means in @huggingface/jinja.
bool LooseEquals(const Value& a, const Value& b);
// JS `a.value === b.value`: used by `in`, `unique`, `eq` tests.
bool StrictEquals(const Value& a, const Value& b);
// compareRuntimeValues: numbers (and booleans) numerically, strings (optionally case-folded).
absl::StatusOr<int> CompareValues(const Value& a, const Value& b, bool case_sensitive);

}  // namespace strata::jinja
