#include <algorithm>

#include "strata/detokenizer.h"

namespace strata {

StopStringMatcher::StopStringMatcher(std::vector<std::string> stop_strings)
    : stops_(std::move(stop_strings)) {}

StopStringMatcher::Result StopStringMatcher::Feed(std::string_view text) {
  Result result;
  if (stopped_) return result;
  pending_.append(text.data(), text.size());
  // Earliest occurrence of any stop string; the pending text holds no complete one before this
  // call, so a match may only end inside the new text.
  size_t best = std::string::npos;
  for (size_t i = 0; i < stops_.size(); ++i) {
    if (stops_[i].empty()) continue;
    size_t pos = pending_.find(stops_[i]);
    if (pos != std::string::npos && (best == std::string::npos || pos < best)) {
      best = pos;
      result.stop_index = static_cast<int>(i);
    }
  }
  if (best != std::string::npos) {
    result.text = pending_.substr(0, best);
    result.stopped = true;
    stopped_ = true;
    pending_.clear();
    return result;
  }
  // Hold back the longest suffix that is a proper prefix of a stop string.
  size_t hold = 0;
  for (const std::string& stop : stops_) {
    size_t max_len = std::min(stop.size() - (stop.empty() ? 0 : 1), pending_.size());
    for (size_t len = max_len; len > hold; --len) {
      if (pending_.compare(pending_.size() - len, len, stop, 0, len) == 0) {
        hold = len;
        break;
      }
    }
  }
  result.text = pending_.substr(0, pending_.size() - hold);
  pending_.erase(0, pending_.size() - hold);
  return result;
}

std::string StopStringMatcher::Flush() {
  if (stopped_) return "";
  std::string out = std::move(pending_);
  pending_.clear();
  return out;
}

}  // namespace strata
