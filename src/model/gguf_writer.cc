#include "model/gguf_writer.h"

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace strata {
namespace {

constexpr uint32_t kGgufMagic = 0x46554747;

uint64_t TensorBytes(GgmlType type, const std::vector<int64_t>& shape) {
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);
  switch (type) {
    case GgmlType::kF32:
      return n * 4;
    case GgmlType::kF16:
    case GgmlType::kBF16:
      return n * 2;
    case GgmlType::kQ8_0:
      return n / kQ8BlockSize * sizeof(BlockQ8_0);
  }
  return 0;
}

void PutRaw(std::string& out, const void* p, size_t n) {
  out.append(static_cast<const char*>(p), n);
}
template <typename T>
void Put(std::string& out, T v) {
  PutRaw(out, &v, sizeof(T));
}
void PutString(std::string& out, const std::string& s) {
  Put<uint64_t>(out, s.size());
  out.append(s);
}

void PutValue(std::string& out, const GgufValue& v) {
  switch (v.type) {
    case GgufType::kUint8:
      Put<uint8_t>(out, v.i);
      break;
    case GgufType::kInt8:
      Put<int8_t>(out, v.i);
      break;
    case GgufType::kUint16:
      Put<uint16_t>(out, v.i);
      break;
    case GgufType::kInt16:
      Put<int16_t>(out, v.i);
      break;
    case GgufType::kUint32:
      Put<uint32_t>(out, v.i);
      break;
    case GgufType::kInt32:
      Put<int32_t>(out, v.i);
      break;
    case GgufType::kUint64:
      Put<uint64_t>(out, v.i);
      break;
    case GgufType::kInt64:
      Put<int64_t>(out, v.i);
      break;
    case GgufType::kFloat32:
      Put<float>(out, static_cast<float>(v.f));
      break;
    case GgufType::kFloat64:
      Put<double>(out, v.f);
      break;
    case GgufType::kBool:
      Put<uint8_t>(out, v.i != 0);
      break;
    case GgufType::kString:
      PutString(out, v.s);
      break;
    case GgufType::kArray:
      Put<uint32_t>(out, static_cast<uint32_t>(v.array_type));
      Put<uint64_t>(out, v.array.size());
      for (const GgufValue& e : v.array) PutValue(out, e);
      break;
  }
}

}  // namespace

GgufWriter::~GgufWriter() {
  if (f_ != nullptr) std::fclose(f_);
}

void GgufWriter::Set(const std::string& key, GgufValue value) {
  if (key == "general.alignment" && value.IsInteger() && value.i > 0) alignment_ = value.i;
  kv_.emplace_back(key, std::move(value));
}

void GgufWriter::AddTensor(const std::string& name, GgmlType type,
                           const std::vector<int64_t>& shape) {
  decls_.push_back({name, type, shape, TensorBytes(type, shape)});
}

absl::Status GgufWriter::Open(const std::string& path) {
  path_ = path;
  std::string head;
  Put<uint32_t>(head, kGgufMagic);
  Put<uint32_t>(head, 3);
  Put<uint64_t>(head, decls_.size());
  Put<uint64_t>(head, kv_.size());
  for (const auto& [key, value] : kv_) {
    PutString(head, key);
    Put<uint32_t>(head, static_cast<uint32_t>(value.type));
    PutValue(head, value);
  }
  uint64_t offset = 0;
  for (const Decl& d : decls_) {
    if (d.type == GgmlType::kQ8_0 && (d.shape.empty() || d.shape.back() % kQ8BlockSize != 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": tensor '", d.name, "': q8_0 rows must be a multiple of 32 elements"));
    }
    PutString(head, d.name);
    Put<uint32_t>(head, d.shape.size());
    for (auto it = d.shape.rbegin(); it != d.shape.rend(); ++it) Put<uint64_t>(head, *it);
    Put<uint32_t>(head, static_cast<uint32_t>(d.type));
    Put<uint64_t>(head, offset);
    offset += (d.bytes + alignment_ - 1) / alignment_ * alignment_;
  }
  f_ = std::fopen(path.c_str(), "wb");
  if (f_ == nullptr) {
    return absl::InternalError(absl::StrCat(path, ": cannot create: ", std::strerror(errno)));
  }
  if (std::fwrite(head.data(), 1, head.size(), f_) != head.size()) {
    return absl::InternalError(absl::StrCat(path, ": write failed: ", std::strerror(errno)));
  }
  pos_ = head.size();
  data_start_ = (pos_ + alignment_ - 1) / alignment_ * alignment_;
  absl::Status s = Pad(data_start_);
  if (!s.ok()) return s;
  current_ = 0;
  current_done_ = 0;
  // Skip leading empty tensors.
  while (current_ < decls_.size() && decls_[current_].bytes == 0) ++current_;
  return absl::OkStatus();
}

absl::Status GgufWriter::Pad(uint64_t to) {
  static const char kZeros[64] = {};
  while (pos_ < to) {
    const size_t n = std::min<uint64_t>(sizeof(kZeros), to - pos_);
    if (std::fwrite(kZeros, 1, n, f_) != n) {
      return absl::InternalError(absl::StrCat(path_, ": write failed: ", std::strerror(errno)));
    }
    pos_ += n;
  }
  return absl::OkStatus();
}

absl::Status GgufWriter::AppendData(const void* data, size_t bytes) {
  if (f_ == nullptr) return absl::FailedPreconditionError(absl::StrCat(path_, ": not open"));
  const uint8_t* p = static_cast<const uint8_t*>(data);
  while (bytes > 0) {
    if (current_ >= decls_.size()) {
      return absl::InvalidArgumentError(absl::StrCat(path_, ": more tensor data than declared"));
    }
    const Decl& d = decls_[current_];
    const uint64_t n = std::min<uint64_t>(bytes, d.bytes - current_done_);
    if (std::fwrite(p, 1, n, f_) != n) {
      return absl::InternalError(absl::StrCat(path_, ": write failed: ", std::strerror(errno)));
    }
    pos_ += n;
    p += n;
    bytes -= n;
    current_done_ += n;
    if (current_done_ == d.bytes) {
      absl::Status s = Pad((pos_ + alignment_ - 1) / alignment_ * alignment_);
      if (!s.ok()) return s;
      ++current_;
      current_done_ = 0;
      while (current_ < decls_.size() && decls_[current_].bytes == 0) ++current_;
    }
  }
  return absl::OkStatus();
}

absl::Status GgufWriter::Close() {
  if (f_ == nullptr) return absl::FailedPreconditionError(absl::StrCat(path_, ": not open"));
  const bool flushed = std::fclose(f_) == 0;
  f_ = nullptr;
  if (!flushed) return absl::InternalError(absl::StrCat(path_, ": close failed"));
  if (current_ != decls_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path_, ": tensor '", decls_[current_].name, "' did not receive all its data"));
  }
  return absl::OkStatus();
}

}  // namespace strata
