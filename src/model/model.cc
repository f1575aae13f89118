#include "strata/model.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "backend/cpu/ops.h"
#include "model/decoder_layer.h"
#include "strata/status_macros.h"

namespace strata {

struct Model::Workspace {
  std::vector<float> x;       // [tokens, hidden] residual stream
  std::vector<float> gather;  // [logit_rows, hidden]
  LayerScratch layer;
};

absl::StatusOr<PlantedBug> ParsePlantedBug(const std::string& name) {
  if (name.empty() || name == "none") return PlantedBug::kNone;
  if (name == "rope_off") return PlantedBug::kRopeOff;
  if (name == "swap_kv") return PlantedBug::kSwapKv;
  if (name == "ignore_norm") return PlantedBug::kIgnoreNorm;
  if (name == "no_window") return PlantedBug::kNoWindow;
  if (name == "position_off_by_one") return PlantedBug::kPositionOffByOne;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown planted bug '", name,
                   "' (expected rope_off, swap_kv, ignore_norm, no_window, position_off_by_one)"));
}

Model::Model(std::unique_ptr<ModelWeights> weights, const ModelOptions& options)
    : weights_(std::move(weights)),
      options_(options),
      pool_(options.threads),
      workspace_(std::make_unique<Workspace>()) {
  const int half = weights_->spec.head_dim / 2;
  inv_freq_.resize(half);
  if (weights_->rope_freqs.has_value()) {
    // llama3 scaling as llama.cpp applies it: base frequencies divided by per-pair factors. Both
    // loaders provide the factors, so HF and GGUF runs of one model agree bitwise.
    ModelSpec base = weights_->spec;
    base.rope_scaling.kind = RopeScaling::Kind::kNone;
    cpu::ComputeRopeInvFreq(base, inv_freq_.data());
    const float* factors = static_cast<const float*>(weights_->rope_freqs->data);
    for (int i = 0; i < half; ++i) inv_freq_[i] /= factors[i];
  } else {
    cpu::ComputeRopeInvFreq(weights_->spec, inv_freq_.data());
  }
}

Model::~Model() = default;

absl::StatusOr<std::unique_ptr<Model>> Model::Create(std::unique_ptr<ModelWeights> weights,
                                                     const ModelOptions& options) {
  if (!cpu::CpuSupportsKernels()) {
    return absl::FailedPreconditionError(
        "this CPU lacks AVX2/FMA/F16C, which Strata's CPU kernels need (x86-64-v3)");
  }
  return std::unique_ptr<Model>(new Model(std::move(weights), options));
}

absl::StatusOr<std::unique_ptr<Model>> Model::Load(const std::string& path,
                                                   const ModelOptions& options) {
  ASSIGN_OR_RETURN(auto weights, LoadModelWeights(path));
  return Create(std::move(weights), options);
}

absl::Status Model::Forward(const ForwardBatch& batch, const KvCacheView& kv, float* logits) {
  const ModelSpec& spec = weights_->spec;
  const int tokens = batch.num_tokens();
  if (tokens == 0) return absl::OkStatus();
  if (batch.positions.size() != batch.tokens.size() || batch.slots.size() != batch.tokens.size()) {
    return absl::InvalidArgumentError("forward batch: tokens, positions and slots differ in size");
  }
  if (static_cast<int>(kv.k.size()) != spec.num_layers ||
      static_cast<int>(kv.v.size()) != spec.num_layers) {
    return absl::InvalidArgumentError("KV cache view does not have one K and V per layer");
  }
  if (kv.dtype != DType::kF32 && kv.dtype != DType::kBF16 && kv.dtype != DType::kF16) {
    return absl::InvalidArgumentError(absl::StrCat("KV cache dtype must be f32, bf16 or f16, not ",
                                                   std::string(DTypeName(kv.dtype))));
  }
  for (int32_t id : batch.tokens) {
    if (id < 0 || id >= spec.vocab_size) {
      return absl::InvalidArgumentError(
          absl::StrCat("token id ", id, " is outside the vocabulary [0, ", spec.vocab_size, ")"));
    }
  }
  Workspace& ws = *workspace_;
  const size_t hidden = spec.hidden_size;
  if (ws.x.size() < tokens * hidden) ws.x.resize(tokens * hidden);
  ws.layer.Reserve(spec, tokens);

  cpu::Embedding(weights_->embedding, batch.tokens.data(), tokens, ws.x.data());
  cpu::RmsNorm(ws.x.data(), static_cast<const float*>(weights_->layers[0].attn_norm.data), tokens,
               spec.hidden_size, spec.rms_norm_eps, ws.layer.normed.data());

  const LayerInputs inputs{&batch, &kv, inv_freq_.data(), options_.planted_bug};
  for (int l = 0; l < spec.num_layers; ++l) {
    const float* next_norm;
    if (l + 1 < spec.num_layers) {
      next_norm = static_cast<const float*>(weights_->layers[l + 1].attn_norm.data);
    } else if (options_.planted_bug == PlantedBug::kIgnoreNorm) {
      next_norm = ws.layer.unit_norm.data();
    } else {
      next_norm = static_cast<const float*>(weights_->final_norm.data);
    }
    RunDecoderLayer(pool_, spec, weights_->layers[l], l, inputs, next_norm, ws.x.data(), ws.layer);
  }

  // `normed` now holds the final-normed hidden states; project only the rows asked for.
  const int rows = static_cast<int>(batch.logit_rows.size());
  if (rows == 0) return absl::OkStatus();
  if (ws.gather.size() < rows * hidden) ws.gather.resize(rows * hidden);
  for (int r = 0; r < rows; ++r) {
    const int32_t row = batch.logit_rows[r];
    if (row < 0 || row >= tokens) return absl::InvalidArgumentError("logit row out of range");
    std::memcpy(ws.gather.data() + r * hidden, ws.layer.normed.data() + row * hidden,
                hidden * sizeof(float));
  }
  cpu::MatMul(pool_, ws.gather.data(), rows, weights_->lm_head, nullptr, logits);
  return absl::OkStatus();
}

}  // namespace strata
