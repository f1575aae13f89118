// Small, non-throwing accessors for tokenizer.json fields (nlohmann::json throws on type
// mismatches; these return the fallback instead).
#pragma once

#include <string>

#include "nlohmann/json.hpp"

namespace strata::tokenizer {

using Json = nlohmann::json;

inline const Json* Field(const Json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return nullptr;
  return &*it;
}

inline std::string StrField(const Json& j, const char* key, const std::string& fallback = "") {
  const Json* f = Field(j, key);
  return f != nullptr && f->is_string() ? f->get<std::string>() : fallback;
}

inline bool BoolField(const Json& j, const char* key, bool fallback) {
  const Json* f = Field(j, key);
  return f != nullptr && f->is_boolean() ? f->get<bool>() : fallback;
}

inline long long IntField(const Json& j, const char* key, long long fallback) {
  const Json* f = Field(j, key);
  return f != nullptr && f->is_number_integer() ? f->get<long long>() : fallback;
}

}  // namespace strata::tokenizer
