// ServerConfig: process-wide settings of `strata serve` from configs/server.yaml.
//
// Listening addresses, authentication, request limits and timeouts. Parsed with the same strict
// rules and error format as model cards (docs/server-config.md). A plain value type; the
// functions are thread-safe and never throw.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace strata {

struct ServerConfig {
  // Loopback by default so a fresh install is not reachable from the network (vLLM binds
  // 0.0.0.0); set "0.0.0.0" or "::" to serve other hosts.
  std::string host = "127.0.0.1";
  int port = 8000;           // HTTP (OpenAI API); 0 = let the OS choose
  int grpc_port = 50051;     // gRPC; 0 = let the OS choose
  std::string api_key_file;  // one key per line (resolved path); empty = no authentication
  uint64_t max_body_bytes = 32ull << 20;              // larger request bodies get 413
  int max_connections = 1024;                         // concurrent connections; more are refused
  absl::Duration header_timeout = absl::Seconds(10);  // to receive a request's headers
  absl::Duration idle_timeout = absl::Seconds(60);    // keep-alive connection with no request
  absl::Duration drain_timeout = absl::Seconds(30);   // SIGTERM: finish in-flight requests
  bool metrics_require_auth = false;                  // /metrics needs the API key too

  std::string config_path;  // the file it was loaded from ("" when parsed from text)
};

// Reads and parses `path`; relative paths inside resolve against its directory.
absl::StatusOr<ServerConfig> LoadServerConfig(const std::string& path);

// Parses config text; see ParseModelCard for `file_name_for_errors`.
absl::StatusOr<ServerConfig> ParseServerConfig(const std::string& yaml_text,
                                               const std::string& file_name_for_errors);

}  // namespace strata
