#include "config/yaml_reader.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "config/units.h"

namespace strata::config {
namespace {

bool HasPosition(const YAML::Mark& mark) { return mark.line >= 0 && mark.column >= 0; }

// Quoted ("8000", '8000') and explicitly !!str-tagged scalars are strings, never numbers.
bool IsQuoted(const YAML::Node& node) {
  const std::string& tag = node.Tag();
  return tag == "!" || tag == "tag:yaml.org,2002:str" || tag == "!!str";
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
    }
  }
  return row[b.size()];
}

}  // namespace

void ErrorList::Add(const YAML::Mark& mark, const std::string& key_path,
                    const std::string& message) {
  const int line = HasPosition(mark) ? mark.line + 1 : 1;
  const int column = HasPosition(mark) ? mark.column + 1 : 1;
  std::string text = absl::StrCat(file_name_, ":", line, ":", column, ": ");
  if (!key_path.empty()) absl::StrAppend(&text, key_path, ": ");
  absl::StrAppend(&text, message);
  errors_.push_back({line, column, std::move(text)});
}

absl::Status ErrorList::ToStatus() const {
  if (errors_.empty()) return absl::OkStatus();
  std::vector<Entry> sorted = errors_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  std::vector<std::string> lines;
  for (const Entry& e : sorted) lines.push_back(e.text);
  return absl::InvalidArgumentError(absl::StrJoin(lines, "\n"));
}

std::optional<std::string> ClosestMatch(const std::string& word,
                                        const std::vector<std::string>& candidates) {
  const std::string lower = absl::AsciiStrToLower(word);
  // Short words allow fewer edits: otherwise every 1-3 letter word "matches" every short key.
  const size_t limit =
      std::min(std::max<size_t>(2, word.size() / 4), std::max<size_t>(1, word.size() / 2));
  std::optional<std::string> best;
  size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    const size_t d = EditDistance(lower, absl::AsciiStrToLower(candidate));
    if (d < best_distance && d < word.size()) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

std::string NodeKindName(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return IsQuoted(node) ? "a quoted string" : absl::StrCat("'", node.Scalar(), "'");
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return "null";
  }
  return "?";
}

MapReader::MapReader(ErrorList* errors, const YAML::Node& node, std::string path,
                     const YAML::Mark& fallback_mark)
    : errors_(errors), path_(std::move(path)) {
  mark_ = HasPosition(node.Mark()) ? node.Mark() : fallback_mark;
  if (!node.IsDefined() || node.IsNull()) return;
  if (!node.IsMap()) {
    errors_->Add(mark_, path_, absl::StrCat("expected a mapping, got ", NodeKindName(node)));
    is_mapping_ = false;
    return;
  }
  for (const auto& pair : node) {
    // Copies: yaml-cpp's iterator hands out proxies, references into them would dangle.
    const YAML::Node key = pair.first;
    const YAML::Node value = pair.second;
    if (!key.IsScalar()) {
      errors_->Add(key.Mark(), path_, "keys must be plain strings");
      continue;
    }
    const std::string name = key.Scalar();
    const auto previous = std::find_if(entries_.begin(), entries_.end(),
                                       [&](const Entry& e) { return e.key == name; });
    if (previous != entries_.end()) {
      errors_->Add(key.Mark(), PathOf(name),
                   absl::StrCat("duplicate key (first defined at line ",
                                previous->key_node.Mark().line + 1, ")"));
      continue;
    }
    entries_.push_back({name, key, value});
  }
}

std::string MapReader::PathOf(const std::string& key) const {
  return path_.empty() ? key : absl::StrCat(path_, ".", key);
}

const MapReader::Entry* MapReader::Find(const std::string& key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.push_back(key);
  for (const Entry& e : entries_) {
    if (e.key == key) return e.value.IsNull() ? nullptr : &e;
  }
  return nullptr;
}

bool MapReader::Has(const std::string& key) { return Find(key) != nullptr; }

const MapReader::Entry* MapReader::Scalar(const std::string& key, const char* what,
                                          bool allow_quoted) {
  const Entry* e = Find(key);
  if (e == nullptr) return nullptr;
  if (!e->value.IsScalar() || (!allow_quoted && IsQuoted(e->value))) {
    errors_->Add(e->value.Mark(), PathOf(key),
                 absl::StrCat("expected ", what, ", got ", NodeKindName(e->value)));
    return nullptr;
  }
  return e;
}

bool MapReader::ReadString(const std::string& key, std::string* out) {
  const Entry* e = Scalar(key, "a string", /*allow_quoted=*/true);
  if (e == nullptr) return false;
  *out = e->value.Scalar();
  return true;
}

bool MapReader::ReadNonEmptyString(const std::string& key, std::string* out) {
  std::string value;
  if (!ReadString(key, &value)) return false;
  if (value.empty()) {
    Error(key, "must not be empty");
    return false;
  }
  *out = std::move(value);
  return true;
}

bool MapReader::ReadInt(const std::string& key, int64_t* out, IntRange range) {
  const Entry* e = Scalar(key, "an integer", /*allow_quoted=*/false);
  if (e == nullptr) return false;
  int64_t value = 0;
  if (!absl::SimpleAtoi(e->value.Scalar(), &value)) {
    errors_->Add(e->value.Mark(), PathOf(key),
                 absl::StrCat("expected an integer, got ", NodeKindName(e->value)));
    return false;
  }
  if (value < range.min || value > range.max) {
    std::string bound;
    if (range.max == std::numeric_limits<int64_t>::max()) {
      bound = absl::StrCat("must be >= ", range.min);
    } else if (range.min == std::numeric_limits<int64_t>::min()) {
      bound = absl::StrCat("must be <= ", range.max);
    } else {
      bound = absl::StrCat("must be between ", range.min, " and ", range.max);
    }
    errors_->Add(e->value.Mark(), PathOf(key), absl::StrCat(bound, ", got ", value));
    return false;
  }
  *out = value;
  return true;
}

bool MapReader::ReadInt(const std::string& key, int* out, IntRange range) {
  int64_t value = 0;
  if (!ReadInt(key, &value, range)) return false;
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
    Error(key, absl::StrCat("value ", value, " is out of range"));
    return false;
  }
  *out = static_cast<int>(value);
  return true;
}

bool MapReader::ReadBool(const std::string& key, bool* out) {
  const Entry* e = Scalar(key, "a boolean (true or false)", /*allow_quoted=*/false);
  if (e == nullptr) return false;
  const std::string& s = e->value.Scalar();
  if (s == "true" || s == "True" || s == "TRUE") {
    *out = true;
    return true;
  }
  if (s == "false" || s == "False" || s == "FALSE") {
    *out = false;
    return true;
  }
  errors_->Add(e->value.Mark(), PathOf(key),
               absl::StrCat("expected a boolean (true or false), got ", NodeKindName(e->value)));
  return false;
}

bool MapReader::ReadDouble(const std::string& key, double* out) {
  const Entry* e = Scalar(key, "a number", /*allow_quoted=*/false);
  if (e == nullptr) return false;
  double value = 0;
  if (!absl::SimpleAtod(e->value.Scalar(), &value) || !std::isfinite(value)) {
    errors_->Add(e->value.Mark(), PathOf(key),
                 absl::StrCat("expected a number, got ", NodeKindName(e->value)));
    return false;
  }
  *out = value;
  return true;
}

bool MapReader::ReadStringList(const std::string& key, std::vector<std::string>* out) {
  const Entry* e = Find(key);
  if (e == nullptr) return false;
  if (!e->value.IsSequence()) {
    errors_->Add(e->value.Mark(), PathOf(key),
                 absl::StrCat("expected a list of strings, got ", NodeKindName(e->value)));
    return false;
  }
  std::vector<std::string> values;
  bool ok = true;
  for (size_t i = 0; i < e->value.size(); ++i) {
    const YAML::Node item = e->value[i];
    const std::string item_path = absl::StrCat(PathOf(key), "[", i, "]");
    if (!item.IsScalar() || item.Scalar().empty()) {
      errors_->Add(item.Mark(), item_path,
                   absl::StrCat("expected a non-empty string, got ", NodeKindName(item)));
      ok = false;
      continue;
    }
    values.push_back(item.Scalar());
  }
  if (ok) *out = std::move(values);
  return ok;
}

bool MapReader::ReadByteSize(const std::string& key, uint64_t* out) {
  const Entry* e = Scalar(key, "a byte size", /*allow_quoted=*/true);
  if (e == nullptr) return false;
  absl::StatusOr<uint64_t> bytes = ParseByteSize(e->value.Scalar());
  if (!bytes.ok()) {
    errors_->Add(e->value.Mark(), PathOf(key), std::string(bytes.status().message()));
    return false;
  }
  *out = *bytes;
  return true;
}

bool MapReader::ReadDuration(const std::string& key, absl::Duration* out) {
  const Entry* e = Scalar(key, "a duration", /*allow_quoted=*/true);
  if (e == nullptr) return false;
  absl::StatusOr<absl::Duration> duration = ParseDurationText(e->value.Scalar());
  if (!duration.ok()) {
    errors_->Add(e->value.Mark(), PathOf(key), std::string(duration.status().message()));
    return false;
  }
  *out = *duration;
  return true;
}

void MapReader::EnumError(const std::string& key, const std::string& got,
                          const std::vector<std::string>& names) {
  std::string message = absl::StrCat("unknown value '", got, "'");
  if (std::optional<std::string> hint = ClosestMatch(got, names)) {
    absl::StrAppend(&message, "; did you mean '", *hint, "'?");
  }
  absl::StrAppend(&message, " (expected one of: ", absl::StrJoin(names, ", "), ")");
  Error(key, message);
}

MapReader MapReader::Section(const std::string& key) {
  const Entry* e = Find(key);
  if (e == nullptr) {
    // Absent or null: an empty section located at the key (if written) or at this map.
    for (const Entry& entry : entries_) {
      if (entry.key == key)
        return MapReader(errors_, YAML::Node(), PathOf(key), entry.key_node.Mark());
    }
    return MapReader(errors_, YAML::Node(), PathOf(key), mark_);
  }
  return MapReader(errors_, e->value, PathOf(key), e->key_node.Mark());
}

std::optional<YAML::Node> MapReader::Raw(const std::string& key) {
  const Entry* e = Find(key);
  if (e == nullptr) return std::nullopt;
  return e->value;
}

void MapReader::Error(const std::string& key, const std::string& message) {
  for (const Entry& e : entries_) {
    if (e.key == key) {
      // A null value's mark points past the key (often the next line): use the key's.
      const bool at_value = !e.value.IsNull() && HasPosition(e.value.Mark());
      errors_->Add(at_value ? e.value.Mark() : e.key_node.Mark(), PathOf(key), message);
      return;
    }
  }
  errors_->Add(mark_, PathOf(key), message);
}

void MapReader::Require(const std::string& key) {
  if (Has(key) || !is_mapping_) return;  // a non-mapping already has its error
  const bool written =
      std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; });
  Error(key, written ? "required, must not be null" : "required key is missing");
}

void MapReader::Finish(const std::vector<std::pair<std::string, std::string>>& elsewhere) {
  for (const Entry& e : entries_) {
    if (std::find(known_.begin(), known_.end(), e.key) != known_.end()) continue;
    std::string message = "unknown key";
    if (std::optional<std::string> hint = ClosestMatch(e.key, known_)) {
      absl::StrAppend(&message, "; did you mean '", *hint, "'?");
    } else {
      std::vector<std::string> places;
      for (const auto& [name, place] : elsewhere) {
        if (name == e.key && place != path_) {
          places.push_back(place.empty() ? "the top level" : absl::StrCat("'", place, "'"));
        }
      }
      if (!places.empty()) {
        absl::StrAppend(&message, "; '", e.key, "' belongs ",
                        places.size() == 1 && places[0] == "the top level" ? "at " : "under ",
                        absl::StrJoin(places, " or "));
      }
    }
    errors_->Add(e.key_node.Mark(), PathOf(e.key), message);
  }
}

}  // namespace strata::config
