// String operations shared by string methods (`s.title()`) and filters (`s|title`), with
// @huggingface/jinja's semantics (JS regexes and String methods) spelled out in C++.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace strata::jinja {

// value.replace(/\b\w/g, c => c.toUpperCase()): only word starts change.
std::string JsTitle(std::string_view s);
// First character upper-cased, the rest unchanged.
std::string JsCapitalize(std::string_view s);
// Python str.replace(old, new, count); count < 0 = all. `max_bytes` bounds the result.
absl::StatusOr<std::string> PyReplace(std::string_view s, std::string_view old_value,
                                      std::string_view new_value, int64_t count, size_t max_bytes);
// Python str.split(sep, maxsplit); `sep_is_none` splits on whitespace runs.
absl::StatusOr<std::vector<std::string>> PySplit(std::string_view s, bool sep_is_none,
                                                 std::string_view sep, int64_t maxsplit);

}  // namespace strata::jinja
