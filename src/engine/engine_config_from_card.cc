#include "engine/engine_config_from_card.h"

#include <xxhash.h>

#include <fstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace strata {
namespace {

constexpr size_t kSampleBytes = 64 << 10;

void Append(std::string& buffer, const void* data, size_t size) {
  buffer.append(static_cast<const char*>(data), size);
}

template <typename T>
void AppendValue(std::string& buffer, const T& value) {
  Append(buffer, &value, sizeof(value));
}

}  // namespace

absl::StatusOr<int64_t> AvailableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  int64_t value = 0;
  while (in >> key >> value >> unit) {
    if (key == "MemAvailable:") return value * 1024;
  }
  return absl::UnavailableError("cannot read MemAvailable from /proc/meminfo");
}

BlockHash ModelFingerprint(const ModelWeights& weights, DType kv_dtype, int block_size) {
  const ModelSpec& s = weights.spec;
  std::string buffer = "strata-model-fingerprint/v1";
  buffer += s.hf_architecture;
  for (int v : {static_cast<int>(s.arch), s.vocab_size, s.hidden_size, s.intermediate_size,
                s.num_layers, s.num_heads, s.num_kv_heads, s.head_dim, s.sliding_window,
                static_cast<int>(kv_dtype), block_size}) {
    AppendValue(buffer, v);
  }
  AppendValue(buffer, s.rope_theta);
  AppendValue(buffer, s.rms_norm_eps);
  for (const auto& file : weights.files) {
    AppendValue(buffer, file->size());
    const size_t head = std::min(file->size(), kSampleBytes);
    Append(buffer, file->data(), head);
    Append(buffer, file->data() + file->size() - head, head);
  }
  const XXH128_hash_t h = XXH3_128bits(buffer.data(), buffer.size());
  return BlockHash{h.low64, h.high64};
}

absl::StatusOr<EngineConfig> EngineConfigFromCard(const ModelCard& card,
                                                  const ModelWeights& weights,
                                                  int64_t available_memory_bytes) {
  EngineConfig config;
  config.max_num_seqs = card.scheduler.max_num_seqs;
  config.max_num_batched_tokens = card.scheduler.max_num_batched_tokens;
  config.max_waiting_requests = card.scheduler.max_waiting_requests;
  config.enable_chunked_prefill = card.scheduler.enable_chunked_prefill;
  config.max_model_len = card.max_model_len.value_or(0);
  const int model_max = weights.spec.max_position_embeddings;
  if (config.max_model_len > model_max && model_max > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        card.card_path, ": max_model_len ", config.max_model_len,
        " exceeds the model's max_position_embeddings ", model_max));
  }
  config.kv.block_size = card.kv_cache.block_size;
  config.kv.kv_dtype = card.kv_cache.dtype.value_or(DType::kF32);
  if (config.kv.kv_dtype != DType::kF32 && config.kv.kv_dtype != DType::kBF16 &&
      config.kv.kv_dtype != DType::kF16) {
    return absl::InvalidArgumentError(absl::StrCat(card.card_path, ": kv_cache.dtype ",
                                                   std::string(DTypeName(config.kv.kv_dtype)),
                                                   " is not supported (f32, bf16, f16)"));
  }
  config.kv.enable_prefix_caching = card.kv_cache.enable_prefix_caching;
  config.kv.fingerprint = ModelFingerprint(weights, config.kv.kv_dtype, config.kv.block_size);
  config.kv.num_blocks = 0;  // sized from kv_memory_bytes by Engine::Create
  if (card.kv_cache.memory.bytes > 0) {
    config.kv_memory_bytes = static_cast<int64_t>(card.kv_cache.memory.bytes);
  } else {
    config.kv_memory_bytes =
        static_cast<int64_t>(card.kv_cache.memory.fraction * available_memory_bytes);
  }
  return config;
}

}  // namespace strata
