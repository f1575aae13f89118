#include "strata/tensor.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace strata {

std::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "f32";
    case DType::kF16: return "f16";
    case DType::kBF16: return "bf16";
    case DType::kQ8_0: return "q8_0";
    case DType::kI32: return "i32";
  }
  return "?";
}

absl::StatusOr<DType> ParseDType(std::string_view name) {
  const std::string lower = absl::AsciiStrToLower(std::string(name));
  if (lower == "f32" || lower == "float32") return DType::kF32;
  if (lower == "f16" || lower == "float16") return DType::kF16;
  if (lower == "bf16" || lower == "bfloat16") return DType::kBF16;
  if (lower == "q8_0") return DType::kQ8_0;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown dtype '", std::string(name), "' (expected one of f32, f16, bf16, q8_0)"));
}

size_t DTypeBytes(DType dtype, int64_t elements) {
  switch (dtype) {
    case DType::kF32: case DType::kI32: return elements * 4;
    case DType::kF16: case DType::kBF16: return elements * 2;
    case DType::kQ8_0: return (elements / kQ8BlockSize) * sizeof(BlockQ8_0);
  }
  return 0;
}

int64_t Tensor::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string Tensor::ShapeString() const { return absl::StrCat("[", absl::StrJoin(shape, ", "), "]"); }

}  // namespace strata
