// ModelCard: one served model as described by a YAML card in configs/models/*.yaml.
//
// The card says where the weights and tokenizer live and how the engine should serve them: KV
// cache sizing, scheduler limits, runtime placement and default sampling parameters. Parsing is
// strict: unknown keys, wrong types and impossible values are errors that name the file, line,
// column and key path (`demo.yaml:7:3: kv_cache.block_sizee: unknown key; did you mean
// 'block_size'?`). Every key, its type and default are documented in docs/model-cards.md.
//
// Paths in a loaded card are already resolved against the card's directory. Values the card
// leaves to the model (max_model_len, generation defaults, chat template) stay unset here and
// are filled in by the model/tokenizer modules. ModelCard is a plain value type; the functions
// are thread-safe and never throw.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "strata/tensor.h"

namespace strata {

enum class WeightFormat { kHf, kGguf };
enum class Device { kCpu, kCuda };
enum class SpeculativeMethod { kNone, kNgram, kDraft };
enum class BlockStoreBackend { kNone, kFile, kRedis };

const char* WeightFormatName(WeightFormat format);  // "hf", "gguf"
const char* DeviceName(Device device);              // "cpu", "cuda"

struct ModelSource {
  WeightFormat format = WeightFormat::kHf;  // default: "gguf" if path ends in .gguf, else "hf"
  std::string path;                         // HF model directory or .gguf file (resolved)
  std::optional<DType> dtype;               // nullopt = auto (the checkpoint's dtype)
};

struct TokenizerSettings {
  std::string path;  // default: source.path (the HF directory or the GGUF file)
  // At most one of these is set; both empty = the template from tokenizer_config.json / GGUF.
  std::string chat_template;       // inline Jinja text
  std::string chat_template_file;  // from "file:<path>" (resolved)
};

// How much memory the KV cache may take: a byte count or a fraction of free memory.
struct MemoryBudget {
  uint64_t bytes = 0;     // > 0: exactly this many bytes
  double fraction = 0.5;  // used when bytes == 0; in (0, 1]
};

struct KvCacheSettings {
  int block_size = 16;         // tokens per block; power of two in [1, 256]
  std::optional<DType> dtype;  // nullopt = auto (the model's compute dtype)
  MemoryBudget memory;
  bool enable_prefix_caching = true;
};

struct SchedulerSettings {
  int max_num_seqs = 256;             // running sequences per step
  int max_num_batched_tokens = 2048;  // tokens per step (prefill chunks + decodes)
  int max_waiting_requests = 1024;    // queued requests before 429/503
  bool enable_chunked_prefill = true;
};

struct RuntimeSettings {
  int threads = 0;  // CPU worker threads; 0 = all cores
  Device device = Device::kCpu;
};

// Defaults for requests that do not set a field. Unset here = generation_config.json, then the
// OpenAI defaults.
struct GenerationOverrides {
  std::optional<double> temperature;         // >= 0
  std::optional<double> top_p;               // (0, 1]
  std::optional<int> top_k;                  // >= -1; 0 and -1 disable
  std::optional<double> min_p;               // [0, 1]
  std::optional<double> repetition_penalty;  // > 0
  std::optional<int> max_tokens;             // >= 1
};

// Not active yet: parsed and validated for later issues.
struct SpeculativeSettings {
  SpeculativeMethod method = SpeculativeMethod::kNone;
  int num_speculative_tokens = 0;  // required (>= 1) when method != none
  std::string draft_model;         // required iff method == draft (resolved path)
};

// Not active yet.
struct ParallelSettings {
  int tensor_parallel_size = 1;
};

// Not active yet.
struct BlockStoreSettings {
  BlockStoreBackend backend = BlockStoreBackend::kNone;
  std::string path;  // backend == file: the directory (resolved); required
  std::string url;   // backend == redis: redis://, rediss:// or unix:// URL; required
  absl::Duration ttl_chat = absl::Hours(24 * 7);
  absl::Duration ttl_agent = absl::Hours(24 * 3);
};

struct ModelCard {
  std::string name;                  // the API model id
  std::vector<std::string> aliases;  // other ids the API accepts
  ModelSource source;
  std::optional<int> max_model_len;  // nullopt = the model's max_position_embeddings
  TokenizerSettings tokenizer;
  KvCacheSettings kv_cache;
  SchedulerSettings scheduler;
  RuntimeSettings runtime;
  GenerationOverrides generation_defaults;
  SpeculativeSettings speculative;
  ParallelSettings parallel;
  BlockStoreSettings block_store;

  std::string card_path;  // the file it was loaded from ("" when parsed from text)
};

// Reads and parses the card at `path`. Relative paths inside resolve against its directory.
// NotFound if the file cannot be read; InvalidArgument (all problems, one per line) otherwise.
absl::StatusOr<ModelCard> LoadModelCard(const std::string& path);

// Parses card text. `file_name_for_errors` prefixes messages, and its directory (if any) is the
// base for relative paths; a bare name such as "<inline>" leaves them relative to the cwd.
absl::StatusOr<ModelCard> ParseModelCard(const std::string& yaml_text,
                                         const std::string& file_name_for_errors);

}  // namespace strata
