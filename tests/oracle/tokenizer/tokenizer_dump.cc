// tokenizer_dump: runs Strata's tokenizer over the oracle corpus and writes one JSON object per
// corpus line, for compare.mjs to check against Hugging Face `tokenizers`.
//
//   tokenizer_dump TOKENIZER_DIR CORPUS.jsonl OUT.jsonl
//
// Per line: "s" ids with special tokens added and parsed in the text, "n" ids without added
// special tokens, "p" ids with special tokens added but not parsed in the text (plain text),
// "d"/"k" Decode("s") without / with skip_special_tokens, "r" Decode("n"), "stream" whether the incremental
// detokenizer's pieces concatenate to Decode (for "s", with and without skipping specials),
// "stop" whether a stop string cut the streamed text at the exact byte.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "nlohmann/json.hpp"
#include "strata/detokenizer.h"
#include "strata/tokenizer.h"

namespace {

using strata::EncodeOptions;
using strata::Tokenizer;

bool StreamMatches(const Tokenizer& tok, const std::vector<int32_t>& ids, bool skip) {
  strata::IncrementalDetokenizer detok(tok, skip);
  std::string text;
  for (int32_t id : ids) text += detok.Step(id);
  text += detok.Flush();
  return text == tok.Decode(ids, skip);
}

// Picks a stop string from the middle of the decoded text and checks that streaming through
// StopStringMatcher yields exactly the text before its first occurrence.
bool StopMatches(const Tokenizer& tok, const std::vector<int32_t>& ids) {
  std::string full = tok.Decode(ids, true);
  if (full.size() < 4) return true;
  size_t a = full.size() / 2;
  while (a > 0 && (static_cast<uint8_t>(full[a]) & 0xC0) == 0x80) --a;
  size_t b = a + 1;
  for (int chars = 0; b < full.size() && chars < 2; ++b) {
    if ((static_cast<uint8_t>(full[b]) & 0xC0) != 0x80) ++chars;
  }
  while (b < full.size() && (static_cast<uint8_t>(full[b]) & 0xC0) == 0x80) ++b;
  std::string stop = full.substr(a, b - a);
  std::string expected = full.substr(0, full.find(stop));
  strata::IncrementalDetokenizer detok(tok, true);
  strata::StopStringMatcher matcher({"\x01never\x02", stop});
  std::string out;
  bool stopped = false;
  for (int32_t id : ids) {
    auto r = matcher.Feed(detok.Step(id));
    out += r.text;
    if (r.stopped) {
      stopped = true;
      break;
    }
  }
  if (!stopped) {
    auto r = matcher.Feed(detok.Flush());
    out += r.text;
    stopped = r.stopped;
  }
  return stopped && out == expected;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: tokenizer_dump TOKENIZER_DIR CORPUS.jsonl OUT.jsonl\n");
    return 2;
  }
  auto tok = Tokenizer::FromDirectory(argv[1]);
  if (!tok.ok()) {
    std::fprintf(stderr, "%s\n", std::string(tok.status().message()).c_str());
    return 1;
  }
  std::ifstream in(argv[2]);
  std::ofstream out(argv[3]);
  std::string line;
  while (std::getline(in, line)) {
    auto text = nlohmann::json::parse(line, nullptr, false);
    if (!text.is_string()) {
      std::fprintf(stderr, "bad corpus line\n");
      return 1;
    }
    const std::string s = text.get<std::string>();
    nlohmann::json o;
    auto ids = (*tok)->Encode(s, EncodeOptions{true, true});
    o["s"] = ids;
    o["n"] = (*tok)->Encode(s, EncodeOptions{false, true});
    o["p"] = (*tok)->Encode(s, EncodeOptions{true, false});
    o["d"] = (*tok)->Decode(ids, false);
    o["k"] = (*tok)->Decode(ids, true);
    o["r"] = (*tok)->Decode(o["n"].get<std::vector<int32_t>>(), false);
    o["stream"] = StreamMatches(**tok, ids, false) && StreamMatches(**tok, ids, true);
    o["stop"] = StopMatches(**tok, ids);
    out << o.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
  return 0;
}
