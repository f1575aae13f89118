// Model card parsing: schema, defaults and cross-field checks. The key reference is
// docs/model-cards.md; keep the two in step.
#include "strata/model_card.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "config/config_file.h"
#include "config/units.h"
#include "config/yaml_reader.h"

namespace strata {

const char* WeightFormatName(WeightFormat format) {
  return format == WeightFormat::kGguf ? "gguf" : "hf";
}

const char* DeviceName(Device device) { return device == Device::kCuda ? "cuda" : "cpu"; }

namespace {

using config::IntRange;
using config::MapReader;

// vLLM's spellings (float16, bfloat16, half, float32, float) are accepted as aliases.
const std::vector<std::pair<std::string, std::optional<DType>>>& DTypeChoices() {
  static const auto* choices = new std::vector<std::pair<std::string, std::optional<DType>>>{
      {"auto", std::nullopt},     {"f32", DType::kF32},     {"bf16", DType::kBF16},
      {"f16", DType::kF16},       {"float32", DType::kF32}, {"float", DType::kF32},
      {"bfloat16", DType::kBF16}, {"float16", DType::kF16}, {"half", DType::kF16}};
  return *choices;
}

// Every key of the schema with the section it belongs to, for "belongs under" hints.
const std::vector<std::pair<std::string, std::string>>& Schema() {
  static const auto* keys = new std::vector<std::pair<std::string, std::string>>{
      {"name", ""},
      {"aliases", ""},
      {"max_model_len", ""},
      {"source", ""},
      {"tokenizer", ""},
      {"kv_cache", ""},
      {"scheduler", ""},
      {"runtime", ""},
      {"generation_defaults", ""},
      {"speculative", ""},
      {"parallel", ""},
      {"block_store", ""},
      {"format", "source"},
      {"path", "source"},
      {"dtype", "source"},
      {"path", "tokenizer"},
      {"chat_template", "tokenizer"},
      {"block_size", "kv_cache"},
      {"dtype", "kv_cache"},
      {"memory", "kv_cache"},
      {"enable_prefix_caching", "kv_cache"},
      {"max_num_seqs", "scheduler"},
      {"max_num_batched_tokens", "scheduler"},
      {"max_waiting_requests", "scheduler"},
      {"enable_chunked_prefill", "scheduler"},
      {"threads", "runtime"},
      {"device", "runtime"},
      {"temperature", "generation_defaults"},
      {"top_p", "generation_defaults"},
      {"top_k", "generation_defaults"},
      {"min_p", "generation_defaults"},
      {"repetition_penalty", "generation_defaults"},
      {"max_tokens", "generation_defaults"},
      {"method", "speculative"},
      {"num_speculative_tokens", "speculative"},
      {"draft_model", "speculative"},
      {"tensor_parallel_size", "parallel"},
      {"backend", "block_store"},
      {"path", "block_store"},
      {"url", "block_store"},
      {"ttl", "block_store"},
      {"chat", "block_store.ttl"},
      {"agent", "block_store.ttl"}};
  return *keys;
}

void ReadSource(MapReader r, const std::string& base_dir, ModelSource* out) {
  r.Require("path");
  if (r.ReadNonEmptyString("path", &out->path)) {
    const bool gguf = absl::EndsWithIgnoreCase(out->path, ".gguf");
    out->format = gguf ? WeightFormat::kGguf : WeightFormat::kHf;
    out->path = config::ResolvePath(base_dir, out->path);
  }
  r.ReadEnum<WeightFormat>("format", {{"hf", WeightFormat::kHf}, {"gguf", WeightFormat::kGguf}},
                           &out->format);
  r.ReadEnum("dtype", DTypeChoices(), &out->dtype);
  r.Finish(Schema());
}

void ReadTokenizer(MapReader r, const std::string& base_dir, const ModelSource& source,
                   TokenizerSettings* out) {
  out->path = source.path;
  if (r.ReadNonEmptyString("path", &out->path)) {
    out->path = config::ResolvePath(base_dir, out->path);
  }
  std::string chat_template;
  if (r.ReadNonEmptyString("chat_template", &chat_template)) {
    if (absl::StartsWith(chat_template, "file:")) {
      const std::string file(absl::StripAsciiWhitespace(chat_template.substr(5)));
      if (file.empty()) {
        r.Error("chat_template", "'file:' needs a path, e.g. 'file:templates/chatml.jinja'");
      } else {
        out->chat_template_file = config::ResolvePath(base_dir, file);
      }
    } else {
      out->chat_template = std::move(chat_template);
    }
  }
  r.Finish(Schema());
}

// `memory`: a plain number is a fraction of free memory in (0, 1]; anything with a unit is bytes.
void ReadMemory(MapReader& r, MemoryBudget* out) {
  std::optional<YAML::Node> node = r.Raw("memory");
  if (!node) return;
  if (!node->IsScalar()) {
    r.Error("memory", absl::StrCat("expected a byte size such as '4GiB' or a fraction such as 0.9, "
                                   "got ",
                                   config::NodeKindName(*node)));
    return;
  }
  const std::string text(absl::StripAsciiWhitespace(node->Scalar()));
  double fraction = 0;
  if (absl::SimpleAtod(text, &fraction)) {
    if (!(fraction > 0 && fraction <= 1)) {
      r.Error("memory", absl::StrCat("a fraction of free memory must be in (0, 1], got ", text,
                                     "; for a byte size add a unit, e.g. '4GiB'"));
      return;
    }
    *out = MemoryBudget{.bytes = 0, .fraction = fraction};
    return;
  }
  absl::StatusOr<uint64_t> bytes = config::ParseByteSize(text);
  if (!bytes.ok()) {
    r.Error("memory", std::string(bytes.status().message()));
  } else if (*bytes == 0) {
    r.Error("memory", "must be greater than 0 bytes");
  } else {
    out->bytes = *bytes;
  }
}

void ReadKvCache(MapReader r, KvCacheSettings* out) {
  int block_size = out->block_size;
  if (r.ReadInt("block_size", &block_size, IntRange{1, 256})) {
    if ((block_size & (block_size - 1)) != 0) {
      r.Error("block_size",
              absl::StrCat("must be a power of two (1, 2, 4, ..., 256), got ", block_size));
    } else {
      out->block_size = block_size;
    }
  }
  r.ReadEnum("dtype", DTypeChoices(), &out->dtype);
  ReadMemory(r, &out->memory);
  r.ReadBool("enable_prefix_caching", &out->enable_prefix_caching);
  r.Finish(Schema());
}

void ReadScheduler(MapReader r, const std::optional<int>& max_model_len, SchedulerSettings* out) {
  r.ReadInt("max_num_seqs", &out->max_num_seqs, IntRange{1});
  const bool tokens_set =
      r.ReadInt("max_num_batched_tokens", &out->max_num_batched_tokens, IntRange{1});
  r.ReadInt("max_waiting_requests", &out->max_waiting_requests, IntRange{0});
  r.ReadBool("enable_chunked_prefill", &out->enable_chunked_prefill);
  // Each running sequence decodes one token per step, so the budget must cover them all.
  if (out->max_num_batched_tokens < out->max_num_seqs) {
    r.Error(tokens_set ? "max_num_batched_tokens" : "max_num_seqs",
            absl::StrCat("max_num_batched_tokens (", out->max_num_batched_tokens,
                         ") must be >= max_num_seqs (", out->max_num_seqs, ")"));
  }
  // Without chunking a whole prompt is prefilled in one step.
  if (!out->enable_chunked_prefill && max_model_len &&
      out->max_num_batched_tokens < *max_model_len) {
    r.Error(tokens_set ? "max_num_batched_tokens" : "enable_chunked_prefill",
            absl::StrCat("with enable_chunked_prefill: false, max_num_batched_tokens (",
                         out->max_num_batched_tokens, ") must be >= max_model_len (",
                         *max_model_len, ")"));
  }
  r.Finish(Schema());
}

void ReadRuntime(MapReader r, RuntimeSettings* out) {
  r.ReadInt("threads", &out->threads, IntRange{0, 4096});
  r.ReadEnum<Device>("device", {{"cpu", Device::kCpu}, {"cuda", Device::kCuda}}, &out->device);
  r.Finish(Schema());
}

// Reads a number and checks it against a bound described by `rule` ("must be >= 0").
void ReadBounded(MapReader& r, const std::string& key, bool (*ok)(double), const char* rule,
                 std::optional<double>* out) {
  double value = 0;
  if (!r.ReadDouble(key, &value)) return;
  if (!ok(value)) {
    r.Error(key, absl::StrCat(rule, ", got ", value));
    return;
  }
  *out = value;
}

void ReadGenerationDefaults(MapReader r, GenerationOverrides* out) {
  ReadBounded(
      r, "temperature", [](double v) { return v >= 0; }, "must be >= 0", &out->temperature);
  ReadBounded(
      r, "top_p", [](double v) { return v > 0 && v <= 1; }, "must be in (0, 1]", &out->top_p);
  int top_k = 0;
  if (r.ReadInt("top_k", &top_k, IntRange{-1})) out->top_k = top_k;
  ReadBounded(
      r, "min_p", [](double v) { return v >= 0 && v <= 1; }, "must be in [0, 1]", &out->min_p);
  ReadBounded(
      r, "repetition_penalty", [](double v) { return v > 0; }, "must be > 0",
      &out->repetition_penalty);
  int max_tokens = 0;
  if (r.ReadInt("max_tokens", &max_tokens, IntRange{1})) out->max_tokens = max_tokens;
  r.Finish(Schema());
}

void ReadSpeculative(MapReader r, const std::string& base_dir, SpeculativeSettings* out) {
  r.ReadEnum<SpeculativeMethod>("method",
                                {{"none", SpeculativeMethod::kNone},
                                 {"ngram", SpeculativeMethod::kNgram},
                                 {"draft", SpeculativeMethod::kDraft}},
                                &out->method);
  const char* method_name = out->method == SpeculativeMethod::kNgram   ? "ngram"
                            : out->method == SpeculativeMethod::kDraft ? "draft"
                                                                       : "none";
  if (r.Has("num_speculative_tokens") && out->method == SpeculativeMethod::kNone) {
    r.Error("num_speculative_tokens", "has no effect unless method is 'ngram' or 'draft'");
  } else if (!r.ReadInt("num_speculative_tokens", &out->num_speculative_tokens, IntRange{1, 64}) &&
             out->method != SpeculativeMethod::kNone && !r.Has("num_speculative_tokens")) {
    r.Error("num_speculative_tokens", absl::StrCat("required when method is '", method_name, "'"));
  }
  if (r.Has("draft_model") && out->method != SpeculativeMethod::kDraft) {
    r.Error("draft_model", "only used when method is 'draft'");
  } else if (r.ReadNonEmptyString("draft_model", &out->draft_model)) {
    out->draft_model = config::ResolvePath(base_dir, out->draft_model);
  } else if (out->method == SpeculativeMethod::kDraft && !r.Has("draft_model")) {
    r.Error("draft_model", "required when method is 'draft'");
  }
  r.Finish(Schema());
}

void ReadParallel(MapReader r, ParallelSettings* out) {
  r.ReadInt("tensor_parallel_size", &out->tensor_parallel_size, IntRange{1, 1024});
  r.Finish(Schema());
}

void ReadTtl(MapReader r, BlockStoreSettings* out) {
  for (auto [key, field] :
       {std::pair{"chat", &out->ttl_chat}, std::pair{"agent", &out->ttl_agent}}) {
    absl::Duration ttl;
    if (!r.ReadDuration(key, &ttl)) continue;
    if (ttl <= absl::ZeroDuration()) {
      r.Error(key, "must be greater than 0");
    } else {
      *field = ttl;
    }
  }
  r.Finish(Schema());
}

void ReadBlockStore(MapReader r, const std::string& base_dir, BlockStoreSettings* out) {
  r.ReadEnum<BlockStoreBackend>("backend",
                                {{"none", BlockStoreBackend::kNone},
                                 {"file", BlockStoreBackend::kFile},
                                 {"redis", BlockStoreBackend::kRedis}},
                                &out->backend);
  const bool is_file = out->backend == BlockStoreBackend::kFile;
  const bool is_redis = out->backend == BlockStoreBackend::kRedis;
  if (r.Has("path") && !is_file) {
    r.Error("path", "only used when backend is 'file'");
  } else if (r.ReadNonEmptyString("path", &out->path)) {
    out->path = config::ResolvePath(base_dir, out->path);
  } else if (is_file && !r.Has("path")) {
    r.Error("path", "required when backend is 'file'");
  }
  if (r.Has("url") && !is_redis) {
    r.Error("url", "only used when backend is 'redis'");
  } else if (r.ReadNonEmptyString("url", &out->url)) {
    if (!absl::StartsWith(out->url, "redis://") && !absl::StartsWith(out->url, "rediss://") &&
        !absl::StartsWith(out->url, "unix://")) {
      r.Error("url",
              absl::StrCat("expected a redis://, rediss:// or unix:// URL, got '", out->url, "'"));
    }
  } else if (is_redis && !r.Has("url")) {
    r.Error("url", "required when backend is 'redis'");
  }
  ReadTtl(r.Section("ttl"), out);
  r.Finish(Schema());
}

void ReadCard(MapReader& r, const std::string& base_dir, ModelCard* card) {
  r.Require("name");
  r.ReadNonEmptyString("name", &card->name);
  if (r.ReadStringList("aliases", &card->aliases)) {
    std::vector<std::string> seen = {card->name};
    for (const std::string& alias : card->aliases) {
      if (std::find(seen.begin(), seen.end(), alias) != seen.end()) {
        r.Error("aliases", absl::StrCat("'", alias, "' is listed twice (or repeats the name)"));
      }
      seen.push_back(alias);
    }
  }
  ReadSource(r.Section("source"), base_dir, &card->source);  // reports source.path if absent
  int max_model_len = 0;
  if (r.ReadInt("max_model_len", &max_model_len, IntRange{1})) card->max_model_len = max_model_len;
  ReadTokenizer(r.Section("tokenizer"), base_dir, card->source, &card->tokenizer);
  ReadKvCache(r.Section("kv_cache"), &card->kv_cache);
  ReadScheduler(r.Section("scheduler"), card->max_model_len, &card->scheduler);
  ReadRuntime(r.Section("runtime"), &card->runtime);
  ReadGenerationDefaults(r.Section("generation_defaults"), &card->generation_defaults);
  ReadSpeculative(r.Section("speculative"), base_dir, &card->speculative);
  ReadParallel(r.Section("parallel"), &card->parallel);
  ReadBlockStore(r.Section("block_store"), base_dir, &card->block_store);
  r.Finish(Schema());
}

absl::StatusOr<ModelCard> Parse(const std::string& text, const std::string& file_name,
                                const std::string& base_dir) {
  config::ErrorList errors(file_name);
  ModelCard card;
  try {
    std::optional<YAML::Node> root = config::ParseYamlDocument(text, &errors);
    if (root) {
      MapReader reader(&errors, *root, "", YAML::Mark());
      if (reader.is_mapping()) ReadCard(reader, base_dir, &card);
    }
  } catch (const YAML::Exception& e) {  // defensive: the reader should not throw
    errors.Add(e.mark, "", e.msg);
  }
  if (!errors.empty()) return errors.ToStatus();
  return card;
}

}  // namespace

absl::StatusOr<ModelCard> ParseModelCard(const std::string& yaml_text,
                                         const std::string& file_name_for_errors) {
  return Parse(yaml_text, file_name_for_errors, config::BaseDirOf(file_name_for_errors));
}

absl::StatusOr<ModelCard> LoadModelCard(const std::string& path) {
  absl::StatusOr<std::string> text = config::ReadTextFile(path);
  if (!text.ok()) return text.status();
  std::error_code ec;
  std::string base_dir = std::filesystem::absolute(path, ec).parent_path().string();
  if (ec) base_dir = config::BaseDirOf(path);
  absl::StatusOr<ModelCard> card = Parse(*text, path, base_dir);
  if (card.ok()) card->card_path = path;
  return card;
}

}  // namespace strata
