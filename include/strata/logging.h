// Logging set-up: spdlog with one line per event. Progress bars for long operations.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace strata {

// Installs the default logger ("info" unless `level` names another spdlog level).
void InitLogging(const std::string& level = "info");

// Reports progress of a long operation: a bar when stderr is a terminal, else a log line every
// 10% once the operation has run for a second. Thread-compatible.
class Progress {
 public:
  Progress(std::string what, uint64_t total);
  void Advance(uint64_t amount);
  void Finish();

 private:
  std::string what_;
  uint64_t total_;
  uint64_t done_ = 0;
  int last_decile_ = -1;
  bool tty_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  bool finished_ = false;
};

}  // namespace strata
