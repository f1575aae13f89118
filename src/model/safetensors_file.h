// SafetensorsFile: the parsed header of one .safetensors file over a read-only mapping.
//
// Format: an 8-byte little-endian header size N, N bytes of JSON ({name: {dtype, shape,
// data_offsets: [begin, end]}, "__metadata__": {str: str}}), then the data; offsets are
// relative to the end of the header. Parse() checks every entry's bounds against the file, so a
// truncated or corrupt file is an error that names the file and the tensor, never a crash.
// Only F32, F16 and BF16 tensors can be viewed; other dtypes parse but fail in Get().
// Immutable after Parse; safe to share across threads. Does not own the mapping.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "strata/mapped_file.h"
#include "strata/tensor.h"

namespace strata {

class SafetensorsFile {
 public:
  struct Entry {
    std::string name;
    std::string dtype_name;      // as written in the file: "F32", "BF16", "I64", ...
    std::vector<int64_t> shape;  // outermost first
    uint64_t begin = 0;          // absolute byte offset in the file
    uint64_t end = 0;            // one past the last byte
  };

  // Parses `file`'s header. REQUIRES: `file` outlives the returned object.
  static absl::StatusOr<std::unique_ptr<SafetensorsFile>> Parse(const MappedFile& file);

  const std::string& path() const { return path_; }
  const std::vector<Entry>& entries() const { return entries_; }  // sorted by name
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

  const Entry* Find(std::string_view name) const;
  // A view of tensor `name`; NotFound when absent, InvalidArgument for unsupported dtypes.
  absl::StatusOr<Tensor> Get(std::string_view name) const;

 private:
  SafetensorsFile() = default;
  std::string path_;
  const uint8_t* data_ = nullptr;
  std::vector<Entry> entries_;
  std::map<std::string, std::string> metadata_;
};

// Maps a safetensors dtype name ("F32", "F16", "BF16") to a DType; other names are errors.
absl::StatusOr<DType> SafetensorsDType(std::string_view name);
// The safetensors name of a DType ("F32", ...). REQUIRES: dtype is f32, f16 or bf16.
std::string_view SafetensorsDTypeName(DType dtype);

}  // namespace strata
