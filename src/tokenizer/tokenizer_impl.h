// TokenizerImpl: the assembled pipeline behind strata::Tokenizer (see include/strata/
// tokenizer.h). Loaders (tokenizer_json.cc, gguf_vocab.cc) fill it; tokenizer.cc runs it.
//
// Immutable after loading; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/tokenizer.h"
#include "tokenizer/added_vocabulary.h"
#include "tokenizer/bpe_model.h"
#include "tokenizer/decoders.h"
#include "tokenizer/normalizers.h"
#include "tokenizer/post_processors.h"
#include "tokenizer/pre_tokenizers.h"

namespace strata {

class TokenizerImpl {
 public:
  std::vector<int32_t> Encode(std::string_view text, const EncodeOptions& options) const;
  std::string Decode(const std::vector<int32_t>& ids, bool skip_special_tokens) const;
  std::string TokenToPiece(int32_t id) const;
  std::optional<int32_t> PieceToId(std::string_view piece) const;

  // Pipeline (any of these but the model may be null).
  std::unique_ptr<tokenizer::Normalizer> normalizer;
  std::unique_ptr<tokenizer::PreTokenizer> pre_tokenizer;
  std::unique_ptr<tokenizer::BpeModel> model;
  std::unique_ptr<tokenizer::PostProcessor> post_processor;
  std::unique_ptr<tokenizer::Decoder> decoder;
  tokenizer::AddedVocabulary added;
  bool byte_level = false;

  // Special ids and tokenizer_config.json facts.
  int32_t vocab_size = 0;
  int32_t bos_id = -1;
  int32_t eos_id = -1;
  int32_t pad_id = -1;
  int32_t unk_id = -1;
  bool add_bos_token = false;
  bool add_eos_token = false;
  std::string chat_template;

 private:
  void EncodeText(const std::string& text, bool at_start, std::vector<int32_t>* ids) const;
};

// tokenizer_json.cc
absl::StatusOr<std::unique_ptr<TokenizerImpl>> LoadTokenizerJson(
    const std::string& tokenizer_json, const std::string& config_json,
    const std::string& special_tokens_map_json);
// gguf_vocab.cc
absl::StatusOr<std::unique_ptr<TokenizerImpl>> LoadGgufVocab(const GgufVocab& vocab);

}  // namespace strata
