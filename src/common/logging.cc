#include "strata/logging.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

namespace strata {

void InitLogging(const std::string& level) {
  auto logger = spdlog::stderr_color_mt("strata");
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level));
}

Progress::Progress(std::string what, uint64_t total)
    : what_(std::move(what)), total_(total == 0 ? 1 : total), tty_(::isatty(STDERR_FILENO)) {}

void Progress::Advance(uint64_t amount) {
  done_ += amount;
  if (done_ > total_) done_ = total_;
  const int percent = static_cast<int>(done_ * 100 / total_);
  if (tty_) {
    const int width = 30;
    const int filled = percent * width / 100;
    std::fprintf(stderr, "\r%s [%.*s%*s] %3d%%", what_.c_str(), filled,
                 "##############################", width - filled, "", percent);
    std::fflush(stderr);
  } else if (percent / 10 != last_decile_ &&
             std::chrono::steady_clock::now() - start_ > std::chrono::seconds(1)) {
    // Off a terminal, only operations that take a while are worth progress lines.
    last_decile_ = percent / 10;
    spdlog::info("{}: {}%", what_, percent);
  }
}

void Progress::Finish() {
  if (finished_) return;
  finished_ = true;
  if (tty_) std::fprintf(stderr, "\n");
}

}  // namespace strata
