// File-level plumbing shared by the config parsers: reading a file, parsing YAML without letting
// yaml-cpp exceptions escape, and resolving relative paths against the config's directory.
//
// Internal to src/config. Thread-safe.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "config/yaml_reader.h"
#include "yaml-cpp/yaml.h"

namespace strata::config {

// The whole file; NotFound / PermissionDenied / Internal with the path and errno text.
absl::StatusOr<std::string> ReadTextFile(const std::string& path);

// Parses one YAML document. On a syntax error records `<file>:<line>:<col>: YAML syntax error:
// ...` in `errors` and returns nullopt. A stream with several documents is an error too.
std::optional<YAML::Node> ParseYamlDocument(const std::string& text, ErrorList* errors);

// The directory of `file_name` ("" if it has none).
std::string BaseDirOf(const std::string& file_name);

// `path` with a leading "~/" expanded to $HOME and, if still relative, joined to `base_dir`
// (lexically normalized). Empty stays empty.
std::string ResolvePath(const std::string& base_dir, const std::string& path);

}  // namespace strata::config
