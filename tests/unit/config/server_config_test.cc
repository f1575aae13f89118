#include "strata/server_config.h"

#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace strata {
namespace {

using ::testing::HasSubstr;

constexpr char kFile[] = "etc/server.yaml";

ServerConfig ParseOk(const std::string& yaml) {
  absl::StatusOr<ServerConfig> config = ParseServerConfig(yaml, kFile);
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : ServerConfig{};
}

std::string ErrorOf(const std::string& yaml) {
  absl::StatusOr<ServerConfig> config = ParseServerConfig(yaml, kFile);
  EXPECT_FALSE(config.ok());
  return config.ok() ? "" : std::string(config.status().message());
}

TEST(ServerConfigTest, EmptyFileGivesDefaults) {
  const ServerConfig config = ParseOk("");
  EXPECT_EQ(config.host, "127.0.0.1");
  EXPECT_EQ(config.port, 8000);
  EXPECT_EQ(config.grpc_port, 50051);
  EXPECT_EQ(config.api_key_file, "");
  EXPECT_EQ(config.max_body_bytes, 32ull << 20);
  EXPECT_EQ(config.max_connections, 1024);
  EXPECT_EQ(config.header_timeout, absl::Seconds(10));
  EXPECT_EQ(config.idle_timeout, absl::Seconds(60));
  EXPECT_EQ(config.drain_timeout, absl::Seconds(30));
  EXPECT_FALSE(config.metrics_require_auth);
}

TEST(ServerConfigTest, EveryKeySet) {
  const ServerConfig config = ParseOk(R"(host: 0.0.0.0
port: 0
grpc_port: 9000
api_key_file: keys.txt
max_body_bytes: 1MiB
max_connections: 10
header_timeout: 2s
idle_timeout: 5m
drain_timeout: 0s
metrics_require_auth: true
)");
  EXPECT_EQ(config.host, "0.0.0.0");
  EXPECT_EQ(config.port, 0);
  EXPECT_EQ(config.grpc_port, 9000);
  EXPECT_EQ(config.api_key_file, "etc/keys.txt");
  EXPECT_EQ(config.max_body_bytes, 1ull << 20);
  EXPECT_EQ(config.max_connections, 10);
  EXPECT_EQ(config.header_timeout, absl::Seconds(2));
  EXPECT_EQ(config.idle_timeout, absl::Minutes(5));
  EXPECT_EQ(config.drain_timeout, absl::ZeroDuration());
  EXPECT_TRUE(config.metrics_require_auth);
}

TEST(ServerConfigTest, PlainIntegerBodySizeIsBytes) {
  EXPECT_EQ(ParseOk("max_body_bytes: 65536\n").max_body_bytes, 65536u);
}

TEST(ServerConfigErrorTest, UnknownKeySuggestsNearMiss) {
  EXPECT_EQ(ErrorOf("port: 1\nidle_timout: 5s\n"),
            "etc/server.yaml:2:1: idle_timout: unknown key; did you mean 'idle_timeout'?");
}

TEST(ServerConfigErrorTest, PortRange) {
  EXPECT_EQ(ErrorOf("port: 70000\n"),
            "etc/server.yaml:1:7: port: must be between 0 and 65535, got 70000");
  EXPECT_EQ(ErrorOf("grpc_port: -1\n"),
            "etc/server.yaml:1:12: grpc_port: must be between 0 and 65535, got -1");
  EXPECT_EQ(ErrorOf("port: 9000\ngrpc_port: 9000\n"),
            "etc/server.yaml:2:12: grpc_port: must differ from port (both are 9000)");
}

TEST(ServerConfigErrorTest, TypesAndValues) {
  EXPECT_EQ(ErrorOf("port: \"8000\"\n"),
            "etc/server.yaml:1:7: port: expected an integer, got a quoted string");
  EXPECT_EQ(ErrorOf("host: \"\"\n"), "etc/server.yaml:1:7: host: must not be empty");
  EXPECT_EQ(ErrorOf("max_connections: 0\n"),
            "etc/server.yaml:1:18: max_connections: must be >= 1, got 0");
  EXPECT_EQ(ErrorOf("max_body_bytes: 0\n"),
            "etc/server.yaml:1:17: max_body_bytes: must be greater than 0");
  EXPECT_THAT(ErrorOf("max_body_bytes: lots\n"),
              HasSubstr("etc/server.yaml:1:17: max_body_bytes: invalid byte size 'lots'"));
  EXPECT_EQ(ErrorOf("header_timeout: 0s\n"),
            "etc/server.yaml:1:17: header_timeout: must be greater than 0");
  EXPECT_THAT(ErrorOf("idle_timeout: 60\n"),
              HasSubstr("etc/server.yaml:1:15: idle_timeout: duration '60' needs a unit"));
  EXPECT_EQ(ErrorOf("metrics_require_auth: 1\n"),
            "etc/server.yaml:1:23: metrics_require_auth: expected a boolean (true or false), got "
            "'1'");
}

TEST(ServerConfigErrorTest, SyntaxError) {
  EXPECT_THAT(ErrorOf("port: 1\n: :\n  - [\n"),
              ::testing::MatchesRegex("etc/server\\.yaml:[0-9]+:[0-9]+: YAML syntax error: .+"));
}

TEST(ShippedServerConfigTest, ParsesToDefaults) {
  absl::StatusOr<ServerConfig> config = LoadServerConfig(STRATA_SOURCE_DIR "/configs/server.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  const ServerConfig defaults;
  EXPECT_EQ(config->host, defaults.host);
  EXPECT_EQ(config->port, defaults.port);
  EXPECT_EQ(config->grpc_port, defaults.grpc_port);
  EXPECT_EQ(config->api_key_file, defaults.api_key_file);
  EXPECT_EQ(config->max_body_bytes, defaults.max_body_bytes);
  EXPECT_EQ(config->max_connections, defaults.max_connections);
  EXPECT_EQ(config->header_timeout, defaults.header_timeout);
  EXPECT_EQ(config->idle_timeout, defaults.idle_timeout);
  EXPECT_EQ(config->drain_timeout, defaults.drain_timeout);
  EXPECT_EQ(config->metrics_require_auth, defaults.metrics_require_auth);
}

}  // namespace
}  // namespace strata
