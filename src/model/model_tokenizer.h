// LoadModelTokenizer: the tokenizer that belongs to a model path, whichever form the model is in.
//
// A directory is a Hugging Face model: its tokenizer.json (+ tokenizer_config.json) is loaded with
// Tokenizer::FromDirectory. A file is a GGUF: its `tokenizer.ggml.*` metadata (the keys llama.cpp's
// convert_hf_to_gguf.py writes, see gguf_vocab.h for the writer) and `tokenizer.chat_template`
// become a GgufVocab for Tokenizer::FromGgufVocab. Errors name the file and, for bad metadata,
// the key. Stateless; thread-safe.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "strata/tokenizer.h"

namespace strata {

class GgufFile;

// NotFound when `model_path` does not exist; FailedPrecondition when a GGUF has no tokenizer
// (no `tokenizer.ggml.model` key, or the model "none").
absl::StatusOr<std::unique_ptr<Tokenizer>> LoadModelTokenizer(const std::string& model_path);

// The GgufVocab of an already parsed GGUF (what LoadModelTokenizer builds the tokenizer from).
absl::StatusOr<GgufVocab> ReadGgufVocab(const GgufFile& gguf);

}  // namespace strata
