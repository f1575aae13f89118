// Test harness: runs sequences through Model::Forward under a given schedule (which tokens of
// which sequence go into each pass) and records every position's logits, so tests can compare
// schedules bitwise.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/make_model.h"
#include "strata/kv_pool.h"
#include "strata/model.h"

namespace strata::testing {

// One pass: (sequence index, number of its next tokens) pairs.
using Pass = std::vector<std::pair<int, int>>;

// logits[seq][pos] = the vocab-sized row predicting position pos + 1.
using SequenceLogits = std::vector<std::vector<std::vector<float>>>;

// Runs `passes` over `prompts` on `model`; every prompt must be fully consumed by the passes.
SequenceLogits RunSchedule(Model& model, const std::vector<std::vector<int32_t>>& prompts,
                           const std::vector<Pass>& passes);

// Deterministic pseudo-random prompt of `length` ids in [0, vocab).
std::vector<int32_t> RandomPrompt(int length, int vocab, uint64_t seed);

// Makes (once per process) a random `tiny` model and returns its options; paths via
// RandomModelHfDir / RandomModelGgufPath.
MakeModelOptions TinyModel(Architecture arch, DType hf_dtype, DType gguf_dtype);

}  // namespace strata::testing
