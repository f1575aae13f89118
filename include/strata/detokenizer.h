// Streaming text output: IncrementalDetokenizer turns generated ids into text one id at a time,
// and StopStringMatcher cuts the text at the first stop string, even one spanning tokens.
//
// IncrementalDetokenizer uses the prefix-offset scheme of vLLM / TGI: it decodes a short window
// of recent ids twice (up to the last emitted id, and with the new ids) and emits the difference
// once it is valid UTF-8 (no trailing U+FFFD). Decoding whole windows keeps decoder effects that
// depend on context (leading-space stripping, byte-fallback runs, multi-token characters) the
// same as a full Decode, so the emitted pieces concatenate to Decode(all ids) and no byte is
// emitted twice or dropped.
//
// Thread safety: both classes are per-request state; use one instance from one thread at a time.
// The Tokenizer must outlive the detokenizer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "strata/tokenizer.h"

namespace strata {

class IncrementalDetokenizer {
 public:
  // `prompt_ids` (optional) give the context the first generated ids are decoded after, so a
  // leading space of the first generated word is kept as it would be mid-text.
  explicit IncrementalDetokenizer(const Tokenizer& tokenizer, bool skip_special_tokens = false,
                                  const std::vector<int32_t>& prompt_ids = {});

  // Appends `id` and returns the text it completes (often empty for partial characters).
  std::string Step(int32_t id);
  // Returns what is still held back (an incomplete character becomes U+FFFD, as in Decode).
  std::string Flush();

  const std::vector<int32_t>& ids() const { return ids_; }

 private:
  std::string DecodeRange(size_t begin, size_t end) const;

  const Tokenizer& tokenizer_;
  bool skip_special_tokens_;
  std::vector<int32_t> ids_;
  size_t prefix_offset_ = 0;  // start of the decode window
  size_t read_offset_ = 0;    // ids before this were emitted
};

// Finds stop strings in streamed text. Text is emitted as soon as it can no longer be the start
// of a stop string; the longest suffix that is a prefix of some stop string is held back. Once a
// stop string is found, the text before it is emitted and nothing after it ever is.
class StopStringMatcher {
 public:
  explicit StopStringMatcher(std::vector<std::string> stop_strings);

  struct Result {
    std::string text;      // safe to emit now
    bool stopped = false;  // a stop string was found (text ends right before it)
    int stop_index = -1;   // which one (index into stop_strings)
  };
  // Feeds newly decoded text. After a stop, returns empty results.
  Result Feed(std::string_view text);
  // End of generation without a stop: returns the held-back text.
  std::string Flush();
  bool stopped() const { return stopped_; }

 private:
  std::vector<std::string> stops_;
  std::string pending_;
  bool stopped_ = false;
};

}  // namespace strata
