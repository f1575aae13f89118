// Synthetic tokenizer.json documents shared by the tokenizer unit tests.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "nlohmann/json.hpp"

namespace strata::testing {

// GPT-2's byte → character table (the same as src/tokenizer/unicode.cc, written out again so the
// tests do not depend on the code under test).
inline std::string ByteChar(int b) {
  bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
  int cp = b;
  if (!printable) {
    int extra = 0;
    for (int x = 0; x < b; ++x) {
      bool p = (x >= '!' && x <= '~') || (x >= 0xA1 && x <= 0xAC) || (x >= 0xAE);
      if (!p) ++extra;
    }
    cp = 256 + extra;
  }
  std::string out;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
  return out;
}

// Byte-level BPE: ids 0..255 are the bytes, then merges he, ll, hell, hello, Ġw, Ġwo.
// Added: <|end|> (300, special), <tool> (301, not special).
inline nlohmann::json ByteLevelJson() {
  nlohmann::json vocab = nlohmann::json::object();
  for (int b = 0; b < 256; ++b) vocab[ByteChar(b)] = b;
  std::vector<std::pair<std::string, std::string>> merges = {
      {"h", "e"}, {"l", "l"}, {"he", "ll"}, {"hell", "o"}, {"Ġ", "w"}, {"Ġw", "o"}};
  int id = 256;
  nlohmann::json merge_list = nlohmann::json::array();
  for (auto& [a, b] : merges) {
    vocab[a + b] = id++;
    merge_list.push_back(a + " " + b);
  }
  nlohmann::json j;
  j["model"] = {{"type", "BPE"}, {"dropout", nullptr}, {"vocab", vocab}, {"merges", merge_list}};
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
  j["post_processor"] = {{"type", "ByteLevel"}};
  j["decoder"] = {{"type", "ByteLevel"}};
  j["added_tokens"] = nlohmann::json::array(
      {{{"id", 300}, {"content", "<|end|>"}, {"special", true}, {"normalized", false}},
       {{"id", 301}, {"content", "<tool>"}, {"special", false}, {"normalized", false}}});
  return j;
}

// SentencePiece-style BPE (Llama 2 layout): <unk> <s> </s>, 256 byte tokens, then pieces.
inline nlohmann::json SentencePieceJson() {
  nlohmann::json vocab = nlohmann::json::object();
  vocab["<unk>"] = 0;
  vocab["<s>"] = 1;
  vocab["</s>"] = 2;
  for (int b = 0; b < 256; ++b) {
    char buf[8];
    std::snprintf(buf, sizeof(buf), "<0x%02X>", b);
    vocab[buf] = 3 + b;
  }
  std::vector<std::string> pieces = {"▁", "a", "b", "c", "▁a", "ab", "▁ab", "é"};
  int id = 259;
  for (const auto& p : pieces) vocab[p] = id++;
  nlohmann::json j;
  j["model"] = {{"type", "BPE"},         {"dropout", nullptr},   {"vocab", vocab},
                {"unk_token", "<unk>"},  {"byte_fallback", true}, {"fuse_unk", true},
                {"merges", {"▁ a", "a b", "▁a b"}}};
  j["normalizer"] = {{"type", "Sequence"},
                     {"normalizers",
                      {{{"type", "Prepend"}, {"prepend", "▁"}},
                       {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "▁"}}}}};
  j["pre_tokenizer"] = nullptr;
  j["post_processor"] = {
      {"type", "TemplateProcessing"},
      {"single", {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
                  {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
      {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}};
  j["decoder"] = {{"type", "Sequence"},
                  {"decoders",
                   {{{"type", "Replace"}, {"pattern", {{"String", "▁"}}}, {"content", " "}},
                    {{"type", "ByteFallback"}},
                    {{"type", "Fuse"}},
                    {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}};
  j["added_tokens"] = nlohmann::json::array(
      {{{"id", 0}, {"content", "<unk>"}, {"special", true}, {"normalized", false}},
       {{"id", 1}, {"content", "<s>"}, {"special", true}, {"normalized", false}},
       {{"id", 2}, {"content", "</s>"}, {"special", true}, {"normalized", false}}});
  return j;
}

}  // namespace strata::testing
