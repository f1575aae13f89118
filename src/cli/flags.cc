#include "cli/flags.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace strata::cli {

absl::StatusOr<Flags> Flags::Parse(const std::vector<FlagSpec>& specs, int argc, char** argv,
                                   int first) {
  Flags flags;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", arg, "'"));
    }
    arg = arg.substr(2);
    std::optional<std::string> value;
    if (const size_t eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    const FlagSpec* spec = nullptr;
    for (const FlagSpec& s : specs) {
      if (s.name == arg) spec = &s;
    }
    if (spec == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", arg, " (see --help)"));
    }
    if (!value.has_value()) {
      if (spec->is_bool) {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        return absl::InvalidArgumentError(absl::StrCat("flag --", arg, " needs a value"));
      }
    }
    flags.values_[arg] = *value;
  }
  return flags;
}

std::string Flags::Help(const std::string& usage, const std::vector<FlagSpec>& specs) {
  std::string out = absl::StrCat("usage: ", usage, "\n\nflags:\n");
  for (const FlagSpec& s : specs) {
    std::string head = absl::StrCat("  --", s.name, s.is_bool ? "" : " VALUE");
    if (head.size() < 28) head.resize(28, ' ');
    absl::StrAppend(&out, head, " ", s.help);
    if (!s.default_value.empty()) absl::StrAppend(&out, " (default: ", s.default_value, ")");
    absl::StrAppend(&out, "\n");
  }
  return out;
}

std::string Flags::String(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

absl::StatusOr<int> Flags::Int(const std::string& name, int fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  int v;
  if (!absl::SimpleAtoi(it->second, &v)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " wants an integer, got '", it->second, "'"));
  }
  return v;
}

absl::StatusOr<double> Flags::Double(const std::string& name, double fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  double v;
  if (!absl::SimpleAtod(it->second, &v)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " wants a number, got '", it->second, "'"));
  }
  return v;
}

}  // namespace strata::cli
