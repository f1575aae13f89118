// `strata generate`: runs a model on one or more prompts from the command line and prints the
// generated tokens (or one JSON object with ids and top logprobs), then throughput. It drives the
// model directly, one sequence at a time; the engine's scheduler is not involved. A text prompt
// (--prompt, optionally wrapped in the chat template with --chat) is encoded with the model's own
// tokenizer (or --tokenizer DIR), and its output is printed as text, streamed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backend/cpu/ops.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "model/model_tokenizer.h"
#include "nlohmann/json.hpp"
#include "spdlog/spdlog.h"
#include "strata/chat_template.h"
#include "strata/detokenizer.h"
#include "sampling/sampler.h"
#include "strata/kv_pool.h"
#include "strata/model_card.h"
#include "strata/model.h"
#include "strata/status_macros.h"
#include "strata/tokenizer.h"

namespace strata::cli {
namespace {

const std::vector<FlagSpec>& GenerateFlags() {
  static const std::vector<FlagSpec> specs = {
      {"model", "model path: a Hugging Face directory or a .gguf file"},
      {"card", "YAML model card (configs/models/*.yaml); --model and --threads override it"},
      {"prompt", "prompt text, encoded with the model's tokenizer (BOS etc. added)"},
      {"chat", "with --prompt: send it as one user message through the chat template", true},
      {"tokenizer", "tokenizer directory for --prompt (default: the model's own tokenizer)"},
      {"prompt-ids", "prompt token ids, comma separated"},
      {"prompt-ids-file", "JSON file holding an array of prompts, each an array of token ids"},
      {"max-tokens", "tokens to generate per prompt", false, "16"},
      {"temperature", "sampling temperature; 0 = greedy", false, "0"},
      {"seed", "sampling seed", false, "0"},
      {"threads", "CPU threads; 0 = all cores", false, "0"},
      {"prefill-chunk", "prompt tokens per forward pass", false, "512"},
      {"top-logprobs", "top logprobs reported per step with --json", false, "5"},
      {"json", "print one JSON object with ids and top logprobs", true},
      {"prompt-logprobs", "with --json, also report top logprobs at every prompt position", true},
      {"ignore-eos", "keep generating after an end-of-sequence token", true},
      {"plant-bug", "testing only: run with a deliberate bug (rope_off, swap_kv, ...)"},
      {"help", "show this help", true},
  };
  return specs;
}

absl::StatusOr<std::vector<int32_t>> ParseIdList(const std::string& text) {
  std::vector<int32_t> ids;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    int32_t id;
    if (!absl::SimpleAtoi(part, &id)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--prompt-ids: '", std::string(part), "' is not a token id"));
    }
    ids.push_back(id);
  }
  return ids;
}

// --prompt as token ids: encoded with the post-processor's special tokens, or with --chat rendered
// as one user message (generation prompt added) and encoded without them (the template writes
// BOS and the role markers itself), as HF's apply_chat_template(tokenize=True) does.
absl::StatusOr<std::vector<int32_t>> EncodeTextPrompt(const Flags& flags,
                                                      const Tokenizer& tokenizer) {
  const std::string prompt = flags.String("prompt");
  EncodeOptions options;
  if (!flags.Bool("chat")) return tokenizer.Encode(prompt, options);
  if (tokenizer.chat_template().empty()) {
    return absl::FailedPreconditionError("--chat: the model's tokenizer has no chat template");
  }
  ASSIGN_OR_RETURN(const ChatTemplate tmpl, ChatTemplate::Compile(tokenizer.chat_template()));
  ChatTemplateInputs inputs;
  inputs.messages.push_back({{"role", "user"}, {"content", prompt}});
  inputs.add_generation_prompt = true;
  if (tokenizer.bos_id() >= 0) inputs.bos_token = tokenizer.TokenToPiece(tokenizer.bos_id());
  if (tokenizer.eos_id() >= 0) inputs.eos_token = tokenizer.TokenToPiece(tokenizer.eos_id());
  ASSIGN_OR_RETURN(const std::string text, tmpl.Render(inputs));
  spdlog::debug("chat prompt: {}", text);
  options.add_special_tokens = false;
  return tokenizer.Encode(text, options);
}

absl::StatusOr<std::vector<std::vector<int32_t>>> ReadPrompts(const Flags& flags,
                                                              const Tokenizer* tokenizer) {
  std::vector<std::vector<int32_t>> prompts;
  if (flags.Has("prompt")) {
    ASSIGN_OR_RETURN(auto ids, EncodeTextPrompt(flags, *tokenizer));
    prompts.push_back(std::move(ids));
  } else if (flags.Bool("chat")) {
    return absl::InvalidArgumentError("--chat needs --prompt");
  }
  if (flags.Has("prompt-ids")) {
    ASSIGN_OR_RETURN(auto ids, ParseIdList(flags.String("prompt-ids")));
    prompts.push_back(std::move(ids));
  }
  if (flags.Has("prompt-ids-file")) {
    const std::string path = flags.String("prompt-ids-file");
    std::ifstream in(path);
    if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
    nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!doc.is_array()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": expected a JSON array of token-id arrays"));
    }
    for (const auto& prompt : doc) {
      std::vector<int32_t> ids;
      if (!prompt.is_array()) {
        return absl::InvalidArgumentError(absl::StrCat(path, ": every prompt must be an array"));
      }
      for (const auto& id : prompt) {
        if (!id.is_number_integer()) {
          return absl::InvalidArgumentError(absl::StrCat(path, ": token ids must be integers"));
        }
        ids.push_back(id.get<int32_t>());
      }
      prompts.push_back(std::move(ids));
    }
  }
  if (prompts.empty()) {
    return absl::InvalidArgumentError("give a prompt: --prompt, --prompt-ids or --prompt-ids-file");
  }
  for (const auto& p : prompts) {
    if (p.empty()) return absl::InvalidArgumentError("a prompt has no tokens");
  }
  return prompts;
}

// Top-k (id, logprob) pairs of one logits row, highest first; ties by lower id.
nlohmann::json TopLogprobs(const float* logits, int vocab, int k, std::vector<float>& scratch) {
  scratch.resize(vocab);
  cpu::LogSoftmax(logits, vocab, scratch.data());
  std::vector<int> ids(vocab);
  for (int i = 0; i < vocab; ++i) ids[i] = i;
  k = std::min(k, vocab);
  std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), [&](int a, int b) {
    return scratch[a] > scratch[b] || (scratch[a] == scratch[b] && a < b);
  });
  nlohmann::json out = nlohmann::json::array();
  for (int i = 0; i < k; ++i) out.push_back({ids[i], static_cast<double>(scratch[ids[i]])});
  return out;
}

struct Totals {
  int64_t prompt_tokens = 0;
  int64_t output_tokens = 0;
  double prefill_seconds = 0;
  double decode_seconds = 0;
};

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// With a `tokenizer` (text prompts) the output is detokenized: streamed as text instead of ids,
// and reported as "output_text" with --json. Special tokens are skipped, as servers do.
absl::StatusOr<nlohmann::json> RunPrompt(Model& model, KvPool& pool, const Flags& flags,
                                         const std::vector<int32_t>& prompt, int max_tokens,
                                         const Tokenizer* tokenizer, uint64_t seed,
                                         Totals& totals) {
  const ModelSpec& spec = model.spec();
  const int vocab = spec.vocab_size;
  const bool json = flags.Bool("json");
  const bool prompt_logprobs = json && flags.Bool("prompt-logprobs");
  ASSIGN_OR_RETURN(const int top_k, flags.Int("top-logprobs", 5));
  ASSIGN_OR_RETURN(const int chunk, flags.Int("prefill-chunk", 512));
  ASSIGN_OR_RETURN(const double temperature, flags.Double("temperature", 0));
  if (chunk <= 0) return absl::InvalidArgumentError("--prefill-chunk must be positive");
  absl::flat_hash_set<int32_t> eos(spec.eos_token_ids.begin(), spec.eos_token_ids.end());
  for (int id : model.weights().generation.eos_token_ids) eos.insert(id);
  // The engine's sampler, so `generate` draws exactly as a served request with this seed would.
  SamplingParams params;
  params.temperature = static_cast<float>(temperature);
  params.ignore_eos = flags.Bool("ignore-eos");
  params.max_tokens = std::max(1, max_tokens);
  RETURN_IF_ERROR(ValidateSamplingParams(params, vocab));
  SequenceSampler sampler(params, seed, prompt, std::vector<int32_t>(eos.begin(), eos.end()));

  BlockTable table;
  const int total = static_cast<int>(prompt.size()) + max_tokens;
  if (absl::Status s = table.EnsureCapacity(pool, total); !s.ok()) return s;
  const int bs = pool.block_size();

  nlohmann::json result = {{"prompt_ids", prompt}};
  nlohmann::json prompt_lp = nlohmann::json::array();
  std::vector<float> logits;
  std::vector<float> scratch;
  ForwardBatch batch;
  auto run = [&](int start, int count, bool all_rows) -> absl::Status {
    batch = ForwardBatch();
    for (int i = 0; i < count; ++i) {
      const int pos = start + i;
      batch.tokens.push_back(pos < static_cast<int>(prompt.size()) ? prompt[pos] : 0);
      batch.positions.push_back(pos);
      batch.slots.push_back(table.Slot(pos, bs));
      if (all_rows || i == count - 1) batch.logit_rows.push_back(i);
    }
    batch.sequences.push_back({0, count, start + count, table.blocks().data()});
    logits.resize(batch.logit_rows.size() * static_cast<size_t>(vocab));
    return model.Forward(batch, pool.view(), logits.data());
  };

  auto prefill_start = std::chrono::steady_clock::now();
  const int n = static_cast<int>(prompt.size());
  for (int start = 0; start < n; start += chunk) {
    const int count = std::min(chunk, n - start);
    RETURN_IF_ERROR(run(start, count, prompt_logprobs));
    if (prompt_logprobs) {
      for (int r = 0; r < count; ++r) {
        prompt_lp.push_back(TopLogprobs(logits.data() + r * static_cast<size_t>(vocab), vocab, top_k, scratch));
      }
    }
  }
  totals.prefill_seconds += Since(prefill_start);
  totals.prompt_tokens += n;
  const float* last = logits.data() + (batch.logit_rows.size() - 1) * static_cast<size_t>(vocab);
  std::vector<float> next(last, last + vocab);

  std::vector<int32_t> output;
  nlohmann::json output_lp = nlohmann::json::array();
  std::optional<IncrementalDetokenizer> detok;
  if (tokenizer != nullptr) detok.emplace(*tokenizer, /*skip_special_tokens=*/true, prompt);
  std::string output_text;
  auto decode_start = std::chrono::steady_clock::now();
  for (int step = 0; step < max_tokens; ++step) {
    const SequenceSampler::Result sampled = sampler.Sample(next.data(), vocab);
    const int32_t token = sampled.token;
    output.push_back(token);
    if (json) output_lp.push_back(TopLogprobs(next.data(), vocab, top_k, scratch));
    if (detok) {
      const std::string piece = detok->Step(token);
      output_text += piece;
      if (!json) std::fwrite(piece.data(), 1, piece.size(), stdout);
    } else if (!json) {
      std::printf("%d ", token);
    }
    if (!json) std::fflush(stdout);
    if (sampled.is_stop || step + 1 == max_tokens) break;
    batch = ForwardBatch();
    const int pos = n + step;
    batch.tokens = {token};
    batch.positions = {pos};
    batch.slots = {table.Slot(pos, bs)};
    batch.logit_rows = {0};
    batch.sequences.push_back({0, 1, pos + 1, table.blocks().data()});
    logits.resize(vocab);
    RETURN_IF_ERROR(model.Forward(batch, pool.view(), logits.data()));
    next.assign(logits.begin(), logits.begin() + vocab);
  }
  totals.decode_seconds += Since(decode_start);
  // The first output token comes from the prefill; decode speed counts the forward passes.
  totals.output_tokens += std::max<int64_t>(0, static_cast<int64_t>(output.size()) - 1);
  table.Release(pool);
  if (detok) {
    const std::string rest = detok->Flush();
    output_text += rest;
    if (!json) std::fwrite(rest.data(), 1, rest.size(), stdout);
  }
  if (!json) std::printf("\n");
  result["output_ids"] = output;
  if (detok) result["output_text"] = output_text;
  result["logprobs"] = output_lp;
  if (prompt_logprobs) result["prompt_logprobs"] = prompt_lp;
  return result;
}

absl::Status Generate(const Flags& flags) {
  std::string model_path = flags.String("model");
  int card_threads = 0;
  int block_size = 16;
  if (flags.Has("card")) {
    ASSIGN_OR_RETURN(const ModelCard card, LoadModelCard(flags.String("card")));
    if (model_path.empty()) model_path = card.source.path;
    card_threads = card.runtime.threads;
    block_size = card.kv_cache.block_size;
  }
  if (model_path.empty()) return absl::InvalidArgumentError("give --model or --card");
  std::unique_ptr<Tokenizer> tokenizer;
  if (flags.Has("prompt")) {
    auto loaded = flags.Has("tokenizer") ? Tokenizer::FromDirectory(flags.String("tokenizer"))
                                         : LoadModelTokenizer(model_path);
    if (absl::IsFailedPrecondition(loaded.status())) {
      return absl::FailedPreconditionError(
          absl::StrCat(loaded.status().message(), "; pass --tokenizer DIR or --prompt-ids"));
    }
    ASSIGN_OR_RETURN(tokenizer, std::move(loaded));
  }
  ASSIGN_OR_RETURN(auto prompts, ReadPrompts(flags, tokenizer.get()));
  ASSIGN_OR_RETURN(const int max_tokens, flags.Int("max-tokens", 16));
  ASSIGN_OR_RETURN(const int threads, flags.Int("threads", card_threads));
  ASSIGN_OR_RETURN(const int seed, flags.Int("seed", 0));
  if (max_tokens < 0) return absl::InvalidArgumentError("--max-tokens must be >= 0");
  ModelOptions options;
  options.threads = threads;
  ASSIGN_OR_RETURN(options.planted_bug, ParsePlantedBug(flags.String("plant-bug")));
  ASSIGN_OR_RETURN(auto model, Model::Load(model_path, options));

  size_t longest = 0;
  for (const auto& p : prompts) longest = std::max(longest, p.size());
  const int blocks = static_cast<int>((longest + max_tokens) / block_size + 1);
  ASSIGN_OR_RETURN(auto pool, KvPool::Create(model->spec(), block_size, blocks));

  Totals totals;
  nlohmann::json results = nlohmann::json::array();
  for (const auto& prompt : prompts) {
    // Only the text prompt (the first one) is detokenized; id prompts keep printing ids.
    const Tokenizer* detok = results.empty() ? tokenizer.get() : nullptr;
    // Prompt i samples with seed + i, as the engine seeds the i-th completion of a request.
    const uint64_t prompt_seed = static_cast<uint64_t>(seed) + results.size();
    ASSIGN_OR_RETURN(auto result, RunPrompt(*model, *pool, flags, prompt, max_tokens, detok,
                                            prompt_seed, totals));
    results.push_back(std::move(result));
  }
  const double prefill_tps = totals.prompt_tokens / std::max(totals.prefill_seconds, 1e-9);
  const double decode_tps = totals.output_tokens / std::max(totals.decode_seconds, 1e-9);
  if (flags.Bool("json")) {
    nlohmann::json out = {{"model", model_path},
                          {"threads", model->threads()},
                          {"weight_bytes_per_token", model->weights().WeightBytesPerToken()},
                          {"results", results},
                          {"prompt_tokens_per_second", prefill_tps},
                          {"decode_tokens_per_second", decode_tps}};
    std::printf("%s\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  }
  spdlog::info("prompt: {} tokens, {:.1f} tok/s; decode: {} tokens, {:.1f} tok/s; threads {}",
               totals.prompt_tokens, prefill_tps, totals.output_tokens, decode_tps,
               model->threads());
  return absl::OkStatus();
}

}  // namespace

int GenerateCommand(int argc, char** argv) {
  auto flags = Flags::Parse(GenerateFlags(), argc, argv, 2);
  if (!flags.ok()) {
    std::fprintf(stderr, "strata generate: %s\n", std::string(flags.status().message()).c_str());
    return 2;
  }
  if (flags->Bool("help")) {
    std::printf("%s", Flags::Help("strata generate (--model PATH | --card YAML) (--prompt TEXT "
                                  "[--chat] | --prompt-ids 1,2,3 | --prompt-ids-file F) [flags]",
                                  GenerateFlags())
                          .c_str());
    return 0;
  }
  if (absl::Status s = Generate(*flags); !s.ok()) {
    spdlog::error("generate: {}", std::string(s.message()));
    return 1;
  }
  return 0;
}

}  // namespace strata::cli
