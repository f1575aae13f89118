// Strict, position-aware reading of YAML mappings for config files.
//
// A `MapReader` wraps one YAML mapping. Every key the schema knows is asked for through a
// `Read*` call (or `Section`/`Raw`); `Finish()` then reports every key nobody asked for as an
// error with a did-you-mean hint. Problems are not thrown: they are recorded in an `ErrorList`
// as `<file>:<line>:<col>: <key path>: <message>` and the caller turns the list into one
// absl::Status at the end, so a user sees every mistake of a file at once.
//
// Conventions: a key whose value is YAML null (`key:`, `key: ~`, `key: null`) counts as absent
// (the default applies) but is still a known key; a null section is an empty section. Quoted
// scalars are strings: `port: "8000"` is a type error for an integer key.
//
// Internal to src/config. Not thread-safe; one reader tree per parse.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "yaml-cpp/yaml.h"

namespace strata::config {

// Collects located error messages for one file.
class ErrorList {
 public:
  explicit ErrorList(std::string file_name) : file_name_(std::move(file_name)) {}

  // `key_path` may be empty (syntax errors, root-level type errors).
  void Add(const YAML::Mark& mark, const std::string& key_path, const std::string& message);
  bool empty() const { return errors_.empty(); }
  const std::string& file_name() const { return file_name_; }

  // OK when empty, else InvalidArgument with one line per error, ordered by position.
  absl::Status ToStatus() const;

 private:
  struct Entry {
    int line;  // 1-based
    int column;
    std::string text;
  };
  std::string file_name_;
  std::vector<Entry> errors_;
};

// The closest candidate to `word` if it is a plausible typo (Levenshtein distance ignoring case,
// at most max(2, |word| / 4) edits, fewer for words under 4 letters); nullopt otherwise.
std::optional<std::string> ClosestMatch(const std::string& word,
                                        const std::vector<std::string>& candidates);

// Inclusive bounds for integer keys.
struct IntRange {
  int64_t min = std::numeric_limits<int64_t>::min();
  int64_t max = std::numeric_limits<int64_t>::max();
};

class MapReader {
 public:
  // `node` should be a mapping or null (= empty); anything else records a type error.
  // `fallback_mark` locates errors about the map itself when `node` carries no position (null).
  MapReader(ErrorList* errors, const YAML::Node& node, std::string path,
            const YAML::Mark& fallback_mark);

  // "kv_cache.block_size" for key "block_size" of the "kv_cache" reader.
  std::string PathOf(const std::string& key) const;

  // True if `key` is present with a non-null value. Marks the key as known.
  bool Has(const std::string& key);

  // Each Read* marks `key` known. Absent or null: returns false and leaves *out alone. Present
  // but invalid: records an error, returns false. Valid: writes *out, returns true.
  bool ReadString(const std::string& key, std::string* out);
  bool ReadNonEmptyString(const std::string& key, std::string* out);
  bool ReadInt(const std::string& key, int64_t* out, IntRange range = {});
  bool ReadInt(const std::string& key, int* out, IntRange range = {});
  bool ReadBool(const std::string& key, bool* out);
  // A finite number; range checks are the caller's (via `Error`).
  bool ReadDouble(const std::string& key, double* out);
  bool ReadStringList(const std::string& key, std::vector<std::string>* out);
  bool ReadByteSize(const std::string& key, uint64_t* out);
  bool ReadDuration(const std::string& key, absl::Duration* out);

  // One of `choices` (exact, case-sensitive). On a miss: "expected one of a, b, c", with a
  // did-you-mean hint when close.
  template <typename T>
  bool ReadEnum(const std::string& key, const std::vector<std::pair<std::string, T>>& choices,
                T* out) {
    std::string text;
    if (!ReadString(key, &text)) return false;
    std::vector<std::string> names;
    for (const auto& [name, value] : choices) {
      if (name == text) {
        *out = value;
        return true;
      }
      names.push_back(name);
    }
    EnumError(key, text, names);
    return false;
  }

  // A nested mapping (absent or null = empty). Mark the key known.
  MapReader Section(const std::string& key);

  // The raw value node of `key` (nullopt if absent or null). Marks the key known. For values
  // with custom syntax; report problems with `Error`.
  std::optional<YAML::Node> Raw(const std::string& key);

  // Records `message` at the value of `key` (or at this map when the key is absent).
  void Error(const std::string& key, const std::string& message);
  // Records "required key is missing" unless `key` is present.
  void Require(const std::string& key);

  // Records every key no Read*/Section/Raw/Has call asked for. `elsewhere` lists (key, section
  // path) pairs of the whole schema ("" = top level) for a "belongs under 'kv_cache'" hint when
  // no key of this map is close.
  void Finish(const std::vector<std::pair<std::string, std::string>>& elsewhere = {});

  // False if the node was neither a mapping nor null (a type error has been recorded).
  bool is_mapping() const { return is_mapping_; }
  const YAML::Mark& mark() const { return mark_; }
  const std::string& path() const { return path_; }

 private:
  struct Entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
  };
  const Entry* Find(const std::string& key);
  // The value if present and a scalar; records a type error (using `what`) otherwise.
  const Entry* Scalar(const std::string& key, const char* what, bool allow_quoted);
  void EnumError(const std::string& key, const std::string& got,
                 const std::vector<std::string>& names);

  ErrorList* errors_;
  std::string path_;
  YAML::Mark mark_;
  std::vector<Entry> entries_;
  std::vector<std::string> known_;
  bool is_mapping_ = true;
};

// "a mapping", "a list", "a scalar", "null": for type error messages.
std::string NodeKindName(const YAML::Node& node);

}  // namespace strata::config
