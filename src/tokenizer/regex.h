// Regex: a compiled PCRE2 pattern (UTF + UCP, JIT) standing in for the Oniguruma regexes of HF
// `tokenizers` (its `SysRegex`). Patterns from tokenizer.json are translated where the two
// dialects differ (see Translate in regex.cc).
//
// Thread safety: a Regex is immutable after Compile; FindAll may run on many threads at once
// (match data and the JIT stack are per thread).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace strata::tokenizer {

class Regex {
 public:
  // `pattern` uses Oniguruma (Ruby) syntax as found in tokenizer.json files.
  static absl::StatusOr<std::unique_ptr<Regex>> Compile(std::string_view pattern);
  ~Regex();

  // Appends the [begin, end) byte ranges of all non-overlapping matches in `text`, left to right.
  // REQUIRES: `text` is valid UTF-8.
  void FindAll(std::string_view text, std::vector<std::pair<size_t, size_t>>* matches) const;

 private:
  explicit Regex(void* code) : code_(code) {}
  void* code_;  // pcre2_code_8*
};

}  // namespace strata::tokenizer
