#include "strata/model_weights.h"

#include <chrono>
#include <filesystem>

#include "absl/strings/match.h"
#include "model/gguf_loader.h"
#include "model/hf_loader.h"
#include "spdlog/spdlog.h"
#include "strata/status_macros.h"

namespace strata {

size_t ModelWeights::WeightBytesPerToken() const {
  size_t bytes = 0;
  for (const LayerWeights& l : layers) {
    bytes += l.wq.NumBytes() + l.wk.NumBytes() + l.wv.NumBytes() + l.wo.NumBytes() +
             l.w_gate.NumBytes() + l.w_up.NumBytes() + l.w_down.NumBytes();
  }
  bytes += lm_head.NumBytes();
  if (!embedding.shape.empty() && embedding.shape[0] > 0) {
    bytes += embedding.NumBytes() / embedding.shape[0];
  }
  return bytes;
}

absl::StatusOr<std::unique_ptr<ModelWeights>> LoadModelWeights(const std::string& path) {
  namespace fs = std::filesystem;
  const auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  absl::StatusOr<std::unique_ptr<ModelWeights>> w;
  if (fs::is_directory(path, ec)) {
    w = LoadHfModel(path);
  } else if (fs::exists(path, ec)) {
    w = LoadGgufModel(path);
  } else {
    return absl::NotFoundError(absl::StrCat(path, ": no such file or directory"));
  }
  if (!w.ok()) return w.status();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const ModelSpec& s = (*w)->spec;
  spdlog::info(
      "loaded {} ({}, {} layers, hidden {}, vocab {}, {:.1f} MiB of weights per token) "
      "in {:.2f}s",
      path, s.hf_architecture, s.num_layers, s.hidden_size, s.vocab_size,
      (*w)->WeightBytesPerToken() / 1048576.0, seconds);
  return w;
}

}  // namespace strata
