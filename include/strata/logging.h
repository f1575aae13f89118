// Logging set-up: spdlog with one line per event. Progress bars for long operations.
#pragma once

#include <cstdint>
#include <string>

namespace strata {

// Installs the default logger ("info" unless `level` names another spdlog level).
void InitLogging(const std::string& level = "info");

// Reports progress of a long operation: a bar when stderr is a terminal, else a log line every
// 10%. Thread-compatible.
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
  bool finished_ = false;
};

}  // namespace strata
