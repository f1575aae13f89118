// tokenizer_encode_throughput: single-thread encode speed of Strata's tokenizer over a JSONL
// corpus (one JSON string per line), as encode_vs_hf.mjs compares it with HF tokenizers.
//
//   tokenizer_encode_throughput TOKENIZER_DIR CORPUS.jsonl [REPEATS]
//
// Prints one JSON object: {"bytes": N, "tokens": N, "seconds": S, "mb_per_s": X}.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "strata/tokenizer.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: tokenizer_encode_throughput DIR CORPUS.jsonl [REPEATS]\n");
    return 2;
  }
  int repeats = argc > 3 ? std::atoi(argv[3]) : 3;
  auto tok = strata::Tokenizer::FromDirectory(argv[1]);
  if (!tok.ok()) {
    std::fprintf(stderr, "%s\n", std::string(tok.status().message()).c_str());
    return 1;
  }
  std::vector<std::string> lines;
  std::ifstream in(argv[2]);
  std::string line;
  size_t bytes = 0;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_string()) continue;
    lines.push_back(j.get<std::string>());
    bytes += lines.back().size();
  }
  strata::EncodeOptions options{/*add_special_tokens=*/true, /*parse_special=*/true};
  size_t tokens = 0;
  for (const auto& l : lines) tokens += (*tok)->Encode(l, options).size();  // warm-up
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    size_t n = 0;
    for (const auto& l : lines) n += (*tok)->Encode(l, options).size();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
    if (n != tokens) return 3;
  }
  std::printf("{\"bytes\": %zu, \"tokens\": %zu, \"seconds\": %.6f, \"mb_per_s\": %.3f}\n", bytes,
              tokens, best, bytes / best / 1e6);
  return 0;
}
