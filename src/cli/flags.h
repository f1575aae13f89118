// Flags: a tiny `--name value` / `--name=value` parser for one subcommand's arguments.
//
// absl::flags is process-global, which fits one binary with one flag set, not subcommands that
// each own theirs; this keeps every subcommand's flags, help and errors local.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace strata::cli {

struct FlagSpec {
  std::string name;  // without dashes
  std::string help;
  bool is_bool = false;
  std::string default_value;  // shown in help; empty = none
};

class Flags {
 public:
  // Parses argv[first..argc). Unknown flags and missing values are errors.
  static absl::StatusOr<Flags> Parse(const std::vector<FlagSpec>& specs, int argc, char** argv,
                                     int first);
  static std::string Help(const std::string& usage, const std::vector<FlagSpec>& specs);

  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  bool Bool(const std::string& name) const { return Has(name) && values_.at(name) != "false"; }
  std::string String(const std::string& name, const std::string& fallback = "") const;
  absl::StatusOr<int> Int(const std::string& name, int fallback) const;
  absl::StatusOr<double> Double(const std::string& name, double fallback) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace strata::cli
