// Turns a YAML model card's scheduler and KV settings into an EngineConfig for a loaded model,
// including the KV pool size (bytes, or a fraction of the memory available now) and the model
// fingerprint that seeds the prefix-cache hash chain. Pure apart from reading /proc/meminfo.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "strata/engine.h"
#include "strata/model_card.h"
#include "strata/model_weights.h"

namespace strata {

// Bytes of memory available to new allocations (MemAvailable in /proc/meminfo).
absl::StatusOr<int64_t> AvailableMemoryBytes();

// Identity of (weights, KV dtype, block size) for the prefix cache: a 128-bit hash of the spec,
// each weight file's size and its first and last 64 KiB (hashing gigabytes at start-up would
// cost seconds), the KV dtype and the block size. Equal models on two hosts get equal values.
BlockHash ModelFingerprint(const ModelWeights& weights, DType kv_dtype, int block_size);

// `available_memory_bytes` is used when the card gives the KV budget as a fraction.
absl::StatusOr<EngineConfig> EngineConfigFromCard(const ModelCard& card,
                                                  const ModelWeights& weights,
                                                  int64_t available_memory_bytes);

}  // namespace strata
