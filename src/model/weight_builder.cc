#include "model/weight_builder.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "model/weight_convert.h"
#include "strata/logging.h"
#include "strata/status_macros.h"

namespace strata {
namespace {

bool IsVector(TensorRole r) {
  switch (r) {
    case TensorRole::kFinalNorm:
    case TensorRole::kAttnNorm:
    case TensorRole::kBq:
    case TensorRole::kBk:
    case TensorRole::kBv:
    case TensorRole::kQNorm:
    case TensorRole::kKNorm:
    case TensorRole::kFfnNorm:
      return true;
    default:
      return false;
  }
}

std::vector<int64_t> ExpectedShape(const ModelSpec& s, TensorRole r) {
  const int64_t h = s.hidden_size, q = s.QDim(), kv = s.KvDim(), i = s.intermediate_size;
  switch (r) {
    case TensorRole::kEmbedding:
    case TensorRole::kLmHead:
      return {s.vocab_size, h};
    case TensorRole::kFinalNorm:
    case TensorRole::kAttnNorm:
    case TensorRole::kFfnNorm:
      return {h};
    case TensorRole::kWq:
      return {q, h};
    case TensorRole::kWk:
    case TensorRole::kWv:
      return {kv, h};
    case TensorRole::kWo:
      return {h, q};
    case TensorRole::kBq:
      return {q};
    case TensorRole::kBk:
    case TensorRole::kBv:
      return {kv};
    case TensorRole::kQNorm:
    case TensorRole::kKNorm:
      return {s.head_dim};
    case TensorRole::kGate:
    case TensorRole::kUp:
      return {i, h};
    case TensorRole::kDown:
      return {h, i};
  }
  return {};
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  Tensor t;
  t.shape = shape;
  return t.ShapeString();
}

class Builder {
 public:
  Builder(const TensorSource& src, ModelWeights* w, Progress* progress)
      : src_(src), w_(w), progress_(progress) {}

  absl::StatusOr<Tensor> Get(TensorRole role, int layer) {
    const std::string name = src_.name(role, layer);
    ASSIGN_OR_RETURN(Tensor t, src_.get(name));
    const std::vector<int64_t> want = ExpectedShape(w_->spec, role);
    if (t.shape != want) {
      return absl::InvalidArgumentError(absl::StrCat(src_.file_of(name), ": tensor '", name,
                                                     "' has shape ", t.ShapeString(), ", expected ",
                                                     ShapeString(want), " from the model config"));
    }
    if (t.dtype == DType::kI32) {
      return absl::InvalidArgumentError(
          absl::StrCat(src_.file_of(name), ": tensor '", name, "' has unsupported dtype i32"));
    }
    const bool permute = src_.qk_permuted && (role == TensorRole::kWq || role == TensorRole::kWk ||
                                              role == TensorRole::kBq || role == TensorRole::kBk);
    if (IsVector(role)) t = OwnedF32(t, w_);
    if (permute) {
      const int64_t rows = t.shape[0];
      const size_t row_bytes = t.NumBytes() / rows;
      if (rows % w_->spec.head_dim != 0) {
        return absl::InvalidArgumentError(absl::StrCat(src_.file_of(name), ": tensor '", name,
                                                       "' rows are not a multiple of head_dim"));
      }
      std::vector<uint8_t> buf(t.NumBytes());
      UnpermuteRowsGgufToHf(t.data, rows, row_bytes, w_->spec.head_dim, buf.data());
      t.data = buf.data();
      w_->owned_buffers.push_back(std::move(buf));
    }
    progress_->Advance(1);
    return t;
  }

  absl::Status Run() {
    const ModelSpec& spec = w_->spec;
    ASSIGN_OR_RETURN(w_->embedding, Get(TensorRole::kEmbedding, 0));
    w_->layers.resize(spec.num_layers);
    for (int l = 0; l < spec.num_layers; ++l) {
      LayerWeights& lw = w_->layers[l];
      ASSIGN_OR_RETURN(lw.attn_norm, Get(TensorRole::kAttnNorm, l));
      ASSIGN_OR_RETURN(lw.wq, Get(TensorRole::kWq, l));
      ASSIGN_OR_RETURN(lw.wk, Get(TensorRole::kWk, l));
      ASSIGN_OR_RETURN(lw.wv, Get(TensorRole::kWv, l));
      ASSIGN_OR_RETURN(lw.wo, Get(TensorRole::kWo, l));
      if (spec.attention_bias) {
        ASSIGN_OR_RETURN(lw.bq, Get(TensorRole::kBq, l));
        ASSIGN_OR_RETURN(lw.bk, Get(TensorRole::kBk, l));
        ASSIGN_OR_RETURN(lw.bv, Get(TensorRole::kBv, l));
      }
      if (spec.qk_norm) {
        ASSIGN_OR_RETURN(lw.q_norm, Get(TensorRole::kQNorm, l));
        ASSIGN_OR_RETURN(lw.k_norm, Get(TensorRole::kKNorm, l));
      }
      ASSIGN_OR_RETURN(lw.ffn_norm, Get(TensorRole::kFfnNorm, l));
      ASSIGN_OR_RETURN(lw.w_gate, Get(TensorRole::kGate, l));
      ASSIGN_OR_RETURN(lw.w_up, Get(TensorRole::kUp, l));
      ASSIGN_OR_RETURN(lw.w_down, Get(TensorRole::kDown, l));
    }
    ASSIGN_OR_RETURN(w_->final_norm, Get(TensorRole::kFinalNorm, 0));
    if (spec.tie_word_embeddings) {
      w_->lm_head = w_->embedding;
    } else {
      ASSIGN_OR_RETURN(w_->lm_head, Get(TensorRole::kLmHead, 0));
    }
    return absl::OkStatus();
  }

 private:
  const TensorSource& src_;
  ModelWeights* w_;
  Progress* progress_;
};

}  // namespace

Tensor OwnedF32(const Tensor& t, ModelWeights* w) {
  std::vector<float> f = ToF32(t);
  std::vector<uint8_t> buf(f.size() * sizeof(float));
  std::memcpy(buf.data(), f.data(), buf.size());
  Tensor out;
  out.dtype = DType::kF32;
  out.shape = t.shape;
  out.data = buf.data();
  w->owned_buffers.push_back(std::move(buf));
  return out;
}

absl::Status BuildWeights(const TensorSource& src, ModelWeights* w) {
  const ModelSpec& spec = w->spec;
  const int per_layer = 9 + (spec.attention_bias ? 3 : 0) + (spec.qk_norm ? 2 : 0);
  const uint64_t total =
      2 + (spec.tie_word_embeddings ? 0 : 1) + static_cast<uint64_t>(per_layer) * spec.num_layers;
  Progress progress(absl::StrCat("Validating ", w->source_path), total);
  Builder builder(src, w, &progress);
  absl::Status s = builder.Run();
  progress.Finish();
  return s;
}

}  // namespace strata
