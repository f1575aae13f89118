// SafetensorsWriter: writes a .safetensors file, streaming tensor data in declaration order.
//
// Declare every tensor (AddTensor), then Open() writes the header, then AppendData() streams
// the bytes of the tensors in the order they were declared (in as many pieces as convenient),
// then Close() checks that exactly the declared bytes were written. The header is padded with
// spaces to a multiple of 8 bytes, as the reference implementation does. Thread-compatible.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "strata/tensor.h"

namespace strata {

class SafetensorsWriter {
 public:
  SafetensorsWriter() = default;
  ~SafetensorsWriter();
  SafetensorsWriter(const SafetensorsWriter&) = delete;
  SafetensorsWriter& operator=(const SafetensorsWriter&) = delete;

  // REQUIRES: before Open(); dtype is f32, f16 or bf16; names are unique.
  void AddTensor(const std::string& name, DType dtype, const std::vector<int64_t>& shape);
  void SetMetadata(const std::string& key, const std::string& value) { metadata_[key] = value; }

  absl::Status Open(const std::string& path);
  absl::Status AppendData(const void* data, size_t bytes);
  absl::Status Close();

  // Writes `tensors` (name → view) to `path` in one call.
  static absl::Status WriteFile(const std::string& path,
                                const std::vector<std::pair<std::string, Tensor>>& tensors);

 private:
  struct Decl {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
    uint64_t bytes;
  };
  std::vector<Decl> decls_;
  std::map<std::string, std::string> metadata_;
  std::string path_;
  std::FILE* f_ = nullptr;
  uint64_t total_ = 0;
  uint64_t written_ = 0;
};

}  // namespace strata
