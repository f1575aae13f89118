// Post-processors: what HF `tokenizers` adds around an encoded sequence when
// add_special_tokens is set (TemplateProcessing, RobertaProcessing, BertProcessing; ByteLevel
// only adjusts offsets, so it is a no-op here; Sequence).
//
// Immutable and thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/json_util.h"

namespace strata::tokenizer {

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  // Wraps the ids of a single sequence. REQUIRES: called only when special tokens are added.
  virtual void Process(std::vector<int32_t>* ids) const = 0;
};

absl::StatusOr<std::unique_ptr<PostProcessor>> ParsePostProcessor(const Json& j);
// BOS / EOS template for GGUF vocabularies; ids < 0 are left out.
std::unique_ptr<PostProcessor> MakeBosEosProcessor(int32_t bos, int32_t eos);

}  // namespace strata::tokenizer
