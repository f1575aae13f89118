// Server config parsing (configs/server.yaml). Key reference: docs/server-config.md.
#include "strata/server_config.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "config/config_file.h"
#include "config/yaml_reader.h"

namespace strata {
namespace {

using config::IntRange;
using config::MapReader;

void ReadTimeout(MapReader& r, const std::string& key, bool allow_zero, absl::Duration* out) {
  absl::Duration value;
  if (!r.ReadDuration(key, &value)) return;
  if (value == absl::ZeroDuration() && !allow_zero) {
    r.Error(key, "must be greater than 0");
    return;
  }
  *out = value;
}

void ReadServer(MapReader& r, const std::string& base_dir, ServerConfig* out) {
  r.ReadNonEmptyString("host", &out->host);
  r.ReadInt("port", &out->port, IntRange{0, 65535});
  r.ReadInt("grpc_port", &out->grpc_port, IntRange{0, 65535});
  if (out->port != 0 && out->port == out->grpc_port) {
    r.Error("grpc_port", absl::StrCat("must differ from port (both are ", out->port, ")"));
  }
  if (r.ReadNonEmptyString("api_key_file", &out->api_key_file)) {
    out->api_key_file = config::ResolvePath(base_dir, out->api_key_file);
  }
  uint64_t max_body_bytes = 0;
  if (r.ReadByteSize("max_body_bytes", &max_body_bytes)) {
    if (max_body_bytes == 0) {
      r.Error("max_body_bytes", "must be greater than 0");
    } else {
      out->max_body_bytes = max_body_bytes;
    }
  }
  r.ReadInt("max_connections", &out->max_connections, IntRange{1});
  ReadTimeout(r, "header_timeout", /*allow_zero=*/false, &out->header_timeout);
  ReadTimeout(r, "idle_timeout", /*allow_zero=*/false, &out->idle_timeout);
  ReadTimeout(r, "drain_timeout", /*allow_zero=*/true, &out->drain_timeout);
  r.ReadBool("metrics_require_auth", &out->metrics_require_auth);
  r.Finish();
}

absl::StatusOr<ServerConfig> Parse(const std::string& text, const std::string& file_name,
                                   const std::string& base_dir) {
  config::ErrorList errors(file_name);
  ServerConfig server;
  try {
    std::optional<YAML::Node> root = config::ParseYamlDocument(text, &errors);
    if (root) {
      MapReader reader(&errors, *root, "", YAML::Mark());
      if (reader.is_mapping()) ReadServer(reader, base_dir, &server);
    }
  } catch (const YAML::Exception& e) {  // defensive: the reader should not throw
    errors.Add(e.mark, "", e.msg);
  }
  if (!errors.empty()) return errors.ToStatus();
  return server;
}

}  // namespace

absl::StatusOr<ServerConfig> ParseServerConfig(const std::string& yaml_text,
                                               const std::string& file_name_for_errors) {
  return Parse(yaml_text, file_name_for_errors, config::BaseDirOf(file_name_for_errors));
}

absl::StatusOr<ServerConfig> LoadServerConfig(const std::string& path) {
  absl::StatusOr<std::string> text = config::ReadTextFile(path);
  if (!text.ok()) return text.status();
  std::error_code ec;
  std::string base_dir = std::filesystem::absolute(path, ec).parent_path().string();
  if (ec) base_dir = config::BaseDirOf(path);
  absl::StatusOr<ServerConfig> server = Parse(*text, path, base_dir);
  if (server.ok()) server->config_path = path;
  return server;
}

}  // namespace strata
