#include "config/config_file.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace strata::config {

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory, expected a YAML file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    const std::string message = absl::StrCat(path, ": cannot open: ", std::strerror(err));
    if (err == ENOENT) return absl::NotFoundError(message);
    if (err == EACCES) return absl::PermissionDeniedError(message);
    return absl::InternalError(message);
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::InternalError(absl::StrCat(path, ": read failed"));
  return text.str();
}

std::optional<YAML::Node> ParseYamlDocument(const std::string& text, ErrorList* errors) {
  try {
    std::vector<YAML::Node> documents = YAML::LoadAll(text);
    if (documents.size() > 1) {
      errors->Add(documents[1].Mark(), "",
                  "expected one YAML document, found several (remove the '---' separator)");
      return std::nullopt;
    }
    return documents.empty() ? YAML::Node() : documents[0];
  } catch (const YAML::Exception& e) {
    errors->Add(e.mark, "", absl::StrCat("YAML syntax error: ", e.msg));
    return std::nullopt;
  } catch (const std::exception& e) {  // yaml-cpp may throw std errors on pathological input
    errors->Add(YAML::Mark::null_mark(), "", absl::StrCat("cannot parse YAML: ", e.what()));
    return std::nullopt;
  }
}

std::string BaseDirOf(const std::string& file_name) {
  return std::filesystem::path(file_name).parent_path().string();
}

std::string ResolvePath(const std::string& base_dir, const std::string& path) {
  if (path.empty()) return path;
  std::filesystem::path p(path);
  if (path == "~" || path.rfind("~/", 0) == 0) {
    if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
      p = std::filesystem::path(home) / (path.size() > 2 ? path.substr(2) : "");
    }
  }
  if (p.is_relative() && !base_dir.empty()) p = std::filesystem::path(base_dir) / p;
  std::string out = p.lexically_normal().string();
  // lexically_normal keeps a trailing separator for "dir/"; drop it so paths compare equal.
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

}  // namespace strata::config
