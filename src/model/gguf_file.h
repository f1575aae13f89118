// GgufFile: a parsed GGUF (version 2 or 3) file over a read-only mapping.
//
// Layout: magic "GGUF", u32 version, u64 tensor count, u64 metadata count, the metadata
// key/value pairs (typed; arrays may nest), the tensor infos (name, dims innermost first, ggml
// type, offset), padding to `general.alignment` (default 32), then the tensor data. Parse()
// bounds-checks every read, so garbage or a truncated file is an error naming the file (and the
// tensor or key), never a crash or a huge allocation. Only F32, F16, BF16 and Q8_0 tensors can
// be viewed; tensors of other ggml types parse but fail in GetTensor().
// Immutable after Parse; safe to share across threads. Does not own the mapping.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "strata/mapped_file.h"
#include "strata/tensor.h"

namespace strata {

enum class GgufType : uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};
std::string_view GgufTypeName(GgufType type);

// ggml tensor types Strata reads and writes (the numbering is ggml's).
enum class GgmlType : uint32_t { kF32 = 0, kF16 = 1, kQ8_0 = 8, kBF16 = 30 };
std::string GgmlTypeName(uint32_t type);  // "q4_K", "bf16", ... or "type 99"
absl::StatusOr<GgmlType> GgmlTypeFromDType(DType dtype);
// The llama.cpp file type (general.file_type) of a model whose matrices are `dtype`.
uint32_t GgufFileType(DType dtype);

// One metadata value. Integers (and bools) live in `i` (u64 as its bit pattern), floats in `f`,
// strings in `s`; an array keeps its element type and elements in `array`.
struct GgufValue {
  GgufType type = GgufType::kUint32;
  int64_t i = 0;
  double f = 0;
  std::string s;
  GgufType array_type = GgufType::kUint8;
  std::vector<GgufValue> array;

  bool IsInteger() const;
  bool IsFloat() const { return type == GgufType::kFloat32 || type == GgufType::kFloat64; }

  static GgufValue U32(uint32_t v);
  static GgufValue I32(int32_t v);
  static GgufValue U64(uint64_t v);
  static GgufValue F32(float v);
  static GgufValue Bool(bool v);
  static GgufValue Str(std::string v);
  static GgufValue Array(GgufType elem, std::vector<GgufValue> values);
  static GgufValue StrArray(const std::vector<std::string>& values);
  static GgufValue I32Array(const std::vector<int32_t>& values);
  static GgufValue F32Array(const std::vector<float>& values);
};

class GgufFile {
 public:
  struct TensorInfo {
    std::string name;
    std::vector<int64_t> shape;  // outermost first (GGUF lists dims innermost first)
    uint32_t type = 0;           // ggml type id
    uint64_t offset = 0;         // absolute byte offset in the file
    uint64_t bytes = 0;          // 0 when the type is unsupported (size unknown)
  };

  // REQUIRES: `file` outlives the returned object.
  static absl::StatusOr<std::unique_ptr<GgufFile>> Parse(const MappedFile& file);

  const std::string& path() const { return path_; }
  uint32_t version() const { return version_; }
  uint64_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }
  const std::vector<std::pair<std::string, GgufValue>>& metadata() const { return metadata_; }
  const std::vector<TensorInfo>& tensors() const { return tensors_; }

  const GgufValue* Find(std::string_view key) const;
  // Typed accessors; NotFound when absent, InvalidArgument (naming file and key) on a type
  // mismatch. Integer accessors accept every integer type that fits.
  absl::StatusOr<int64_t> GetInt(std::string_view key) const;
  absl::StatusOr<double> GetFloat(std::string_view key) const;  // floats or integers
  absl::StatusOr<std::string> GetString(std::string_view key) const;
  absl::StatusOr<bool> GetBool(std::string_view key) const;

  const TensorInfo* FindTensor(std::string_view name) const;
  // A view of tensor `name`: NotFound when absent, InvalidArgument for unsupported types.
  absl::StatusOr<Tensor> GetTensor(std::string_view name) const;

 private:
  GgufFile() = default;
  std::string path_;
  const uint8_t* data_ = nullptr;
  uint32_t version_ = 0;
  uint64_t alignment_ = 32;
  uint64_t data_offset_ = 0;
  std::vector<std::pair<std::string, GgufValue>> metadata_;
  std::map<std::string, size_t, std::less<>> metadata_index_;
  std::vector<TensorInfo> tensors_;
  std::map<std::string, size_t, std::less<>> tensor_index_;
};

}  // namespace strata
