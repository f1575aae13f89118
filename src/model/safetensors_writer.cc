#include "model/safetensors_writer.h"

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "model/safetensors_file.h"
#include "nlohmann/json.hpp"

namespace strata {

SafetensorsWriter::~SafetensorsWriter() {
  if (f_ != nullptr) std::fclose(f_);
}

void SafetensorsWriter::AddTensor(const std::string& name, DType dtype,
                                  const std::vector<int64_t>& shape) {
  Tensor t;
  t.dtype = dtype;
  t.shape = shape;
  decls_.push_back({name, dtype, shape, t.NumBytes()});
}

absl::Status SafetensorsWriter::Open(const std::string& path) {
  path_ = path;
  // nlohmann::ordered_json keeps the declaration order, so offsets grow monotonically.
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata_.empty()) {
    nlohmann::ordered_json meta = nlohmann::ordered_json::object();
    for (const auto& [k, v] : metadata_) meta[k] = v;
    header["__metadata__"] = meta;
  }
  uint64_t offset = 0;
  for (const Decl& d : decls_) {
    if (d.dtype != DType::kF32 && d.dtype != DType::kF16 && d.dtype != DType::kBF16) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": tensor '", d.name, "': dtype ",
                                                     std::string(DTypeName(d.dtype)),
                                                     " cannot be stored in safetensors"));
    }
    header[d.name] = {{"dtype", std::string(SafetensorsDTypeName(d.dtype))},
                      {"shape", d.shape},
                      {"data_offsets", {offset, offset + d.bytes}}};
    offset += d.bytes;
  }
  total_ = offset;
  std::string text = header.dump();
  while (text.size() % 8 != 0) text.push_back(' ');
  f_ = std::fopen(path.c_str(), "wb");
  if (f_ == nullptr) {
    return absl::InternalError(absl::StrCat(path, ": cannot create: ", std::strerror(errno)));
  }
  const uint64_t n = text.size();
  if (std::fwrite(&n, 8, 1, f_) != 1 || std::fwrite(text.data(), 1, n, f_) != n) {
    return absl::InternalError(absl::StrCat(path, ": write failed: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status SafetensorsWriter::AppendData(const void* data, size_t bytes) {
  if (f_ == nullptr) return absl::FailedPreconditionError(absl::StrCat(path_, ": not open"));
  if (written_ + bytes > total_) {
    return absl::InvalidArgumentError(
        absl::StrCat(path_, ": more tensor data than declared (", total_, " bytes)"));
  }
  if (bytes > 0 && std::fwrite(data, 1, bytes, f_) != bytes) {
    return absl::InternalError(absl::StrCat(path_, ": write failed: ", std::strerror(errno)));
  }
  written_ += bytes;
  return absl::OkStatus();
}

absl::Status SafetensorsWriter::Close() {
  if (f_ == nullptr) return absl::FailedPreconditionError(absl::StrCat(path_, ": not open"));
  const bool flushed = std::fclose(f_) == 0;
  f_ = nullptr;
  if (!flushed) return absl::InternalError(absl::StrCat(path_, ": close failed"));
  if (written_ != total_) {
    return absl::InvalidArgumentError(
        absl::StrCat(path_, ": wrote ", written_, " bytes of tensor data, declared ", total_));
  }
  return absl::OkStatus();
}

absl::Status SafetensorsWriter::WriteFile(
    const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors) {
  SafetensorsWriter w;
  for (const auto& [name, t] : tensors) w.AddTensor(name, t.dtype, t.shape);
  absl::Status s = w.Open(path);
  if (!s.ok()) return s;
  for (const auto& [name, t] : tensors) {
    s = w.AppendData(t.data, t.NumBytes());
    if (!s.ok()) return s;
  }
  return w.Close();
}

}  // namespace strata
