// A Hugging Face BPE tokenizer directory (tokenizer.json + tokenizer_config.json) described the
// way llama.cpp's convert_hf_to_gguf.py writes it into GGUF (_set_vocab_gpt2 + SpecialVocab):
// tokens by id padded with "[PAD{i}]", token types, merges, special ids, add_bos, chat template.
// Used by the random-model writer. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/gguf_writer.h"

namespace strata {

// llama.cpp token types (llama_token_type / gguf.TokenType).
enum GgufTokenType : int32_t {
  kTokenNormal = 1,
  kTokenUnknown = 2,
  kTokenControl = 3,
  kTokenUserDefined = 4,
  kTokenUnused = 5,
  kTokenByte = 6,
};

struct HfTokenizerInfo {
  std::string dir;
  int size = 0;                      // highest token id + 1
  std::vector<std::string> tokens;   // [size]; empty where the id is unused
  std::vector<int32_t> token_types;  // [size]
  std::vector<std::string> merges;   // "left right"
  std::string pre;                   // llama.cpp pre-tokenizer name: "qwen2", "llama-bpe"
  int bos_id = -1, eos_id = -1, pad_id = -1, unk_id = -1;
  std::optional<bool> add_bos;
  std::string chat_template;
};

absl::StatusOr<HfTokenizerInfo> ReadHfTokenizer(const std::string& dir);

// Adds the tokenizer.ggml.* keys (and tokenizer.chat_template) for `tok` with the token list
// padded to `vocab_size`. `bos_id` is used when the tokenizer names no bos token (as the
// converter falls back to config.json). REQUIRES: vocab_size >= tok.size.
void AddGgufTokenizer(const HfTokenizerInfo& tok, int vocab_size, int bos_id, GgufWriter* w);

}  // namespace strata
