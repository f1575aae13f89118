// GgufWriter: writes a GGUF v3 file, streaming tensor data in declaration order.
//
// Add metadata (kept in insertion order; "general.alignment" is honoured if set, default 32)
// and declare every tensor, then Open() writes the header and tensor infos, AppendData()
// streams the tensors' bytes in declaration order (any piece sizes; alignment padding between
// tensors is inserted automatically), and Close() checks that exactly the declared bytes were
// written. Shapes are given outermost first and written innermost first, as GGUF wants.
// Thread-compatible.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "model/gguf_file.h"
#include "strata/tensor.h"

namespace strata {

class GgufWriter {
 public:
  GgufWriter() = default;
  ~GgufWriter();
  GgufWriter(const GgufWriter&) = delete;
  GgufWriter& operator=(const GgufWriter&) = delete;

  // REQUIRES: before Open(); keys are unique.
  void Set(const std::string& key, GgufValue value);
  // REQUIRES: before Open(); names are unique; q8_0 rows are a multiple of 32.
  void AddTensor(const std::string& name, GgmlType type, const std::vector<int64_t>& shape);

  absl::Status Open(const std::string& path);
  absl::Status AppendData(const void* data, size_t bytes);
  absl::Status Close();

 private:
  struct Decl {
    std::string name;
    GgmlType type;
    std::vector<int64_t> shape;
    uint64_t bytes;
  };
  absl::Status Pad(uint64_t to);

  std::vector<std::pair<std::string, GgufValue>> kv_;
  std::vector<Decl> decls_;
  uint64_t alignment_ = 32;
  std::string path_;
  std::FILE* f_ = nullptr;
  uint64_t pos_ = 0;         // bytes written to the file
  uint64_t data_start_ = 0;  // file offset of the data section
  size_t current_ = 0;       // tensor receiving data
  uint64_t current_done_ = 0;
};

}  // namespace strata
