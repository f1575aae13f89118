// Tokenizer: text <-> token ids, exact against Hugging Face `tokenizers`.
//
// A Tokenizer is loaded from a Hugging Face directory (tokenizer.json, plus tokenizer_config.json
// and special_tokens_map.json when present) or from the vocabulary stored in a GGUF file. It runs
// the same pipeline as HF `tokenizers`: added-token extraction (AddedVocabulary) → normalizer →
// pre-tokenizer → BPE model → post-processor, and decoders for the way back. Supported models are
// byte-level BPE (GPT-2, Llama 3, Qwen 2/3, GPT-OSS, DeepSeek V3) and SentencePiece-style BPE with
// byte fallback (Llama 2, Mistral, Gemma); Unigram and WordPiece are rejected with a clear error.
//
// Thread safety: a Tokenizer is immutable after loading; all const methods may be called from any
// number of threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace strata {

// The tokenizer part of a GGUF file's metadata (`tokenizer.ggml.*`), filled by the GGUF reader.
struct GgufVocab {
  std::string model;                // "gpt2" (byte-level BPE) or "llama" (SentencePiece)
  std::string pre;                  // pre-tokenizer name: "llama-bpe", "qwen2", "gpt-4o", ...
  std::vector<std::string> tokens;  // [vocab_size]
  std::vector<float> scores;        // [vocab_size] or empty
  std::vector<int32_t> token_types;  // [vocab_size] or empty; 1 normal, 2 unknown, 3 control,
                                     // 4 user defined, 5 unused, 6 byte
  std::vector<std::string> merges;  // "a b" pairs in rank order (gpt2 model only)
  int32_t bos_id = -1;
  int32_t eos_id = -1;
  int32_t unk_id = -1;
  int32_t pad_id = -1;
  bool add_bos = false;
  bool add_eos = false;
  bool add_space_prefix = true;  // llama model: prepend "▁" to the text
  std::string chat_template;     // `tokenizer.chat_template`; empty when absent
};

struct EncodeOptions {
  // Run the post-processor's template (e.g. add BOS). Same as HF `add_special_tokens`.
  bool add_special_tokens = true;
  // Recognise special tokens (`<|im_end|>`, `<s>`, ...) written in the text. When false they are
  // tokenized as plain text (HF `encode_special_tokens = true`); non-special added tokens are
  // still recognised, as in HF.
  bool parse_special = true;
};

class TokenizerImpl;

class Tokenizer {
 public:
  // Loads `dir`/tokenizer.json (required), `dir`/tokenizer_config.json and
  // `dir`/special_tokens_map.json (optional).
  static absl::StatusOr<std::unique_ptr<Tokenizer>> FromDirectory(const std::string& dir);
  // Loads a tokenizer.json document from memory; `config_json` is tokenizer_config.json or empty.
  static absl::StatusOr<std::unique_ptr<Tokenizer>> FromJson(const std::string& tokenizer_json,
                                                             const std::string& config_json = "");
  static absl::StatusOr<std::unique_ptr<Tokenizer>> FromGgufVocab(const GgufVocab& vocab);

  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  std::vector<int32_t> Encode(std::string_view text, const EncodeOptions& options = {}) const;
  // Ids out of range are skipped. Invalid UTF-8 produced by byte tokens becomes U+FFFD exactly
  // as HF does.
  std::string Decode(const std::vector<int32_t>& ids, bool skip_special_tokens = false) const;

  // The vocabulary string of `id` (e.g. "Ġhello", "▁the", "<0x0A>"); empty when out of range.
  std::string TokenToPiece(int32_t id) const;
  // The id of a vocabulary or added token string, if any.
  std::optional<int32_t> PieceToId(std::string_view piece) const;
  bool IsSpecial(int32_t id) const;

  // Largest id + 1, added tokens included.
  int32_t vocab_size() const;
  // -1 when the tokenizer has none.
  int32_t bos_id() const;
  int32_t eos_id() const;
  int32_t pad_id() const;
  int32_t unk_id() const;
  // From tokenizer_config.json (or GGUF); informational: Encode follows tokenizer.json's
  // post-processor, which is what HF `tokenizers` does.
  bool add_bos_token() const;
  bool add_eos_token() const;
  // The Jinja chat template from tokenizer_config.json (or GGUF); empty when absent.
  const std::string& chat_template() const;

 private:
  explicit Tokenizer(std::unique_ptr<TokenizerImpl> impl);
  std::unique_ptr<TokenizerImpl> impl_;
};

}  // namespace strata
