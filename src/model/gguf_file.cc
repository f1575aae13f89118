#include "model/gguf_file.h"

#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"

namespace strata {
namespace {

constexpr uint32_t kGgufMagic = 0x46554747;  // "GGUF" little-endian
constexpr int kMaxDims = 4;                  // GGML_MAX_DIMS
constexpr int kMaxArrayDepth = 8;

// A bounds-checked little-endian cursor over the mapping.
class Reader {
 public:
  Reader(const uint8_t* data, uint64_t size) : data_(data), size_(size) {}
  uint64_t pos() const { return pos_; }
  uint64_t remaining() const { return size_ - pos_; }
  template <typename T>
  bool Read(T* out) {
    if (remaining() < sizeof(T)) return false;
    std::memcpy(out, data_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool ReadString(std::string* out) {
    uint64_t n;
    if (!Read(&n) || n > remaining()) return false;
    out->assign(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return true;
  }

 private:
  const uint8_t* data_;
  uint64_t size_;
  uint64_t pos_ = 0;
};

// Bytes of one scalar of `type` on disk, 0 for string/array (variable) or unknown types.
uint64_t ScalarBytes(GgufType type) {
  switch (type) {
    case GgufType::kUint8:
    case GgufType::kInt8:
    case GgufType::kBool:
      return 1;
    case GgufType::kUint16:
    case GgufType::kInt16:
      return 2;
    case GgufType::kUint32:
    case GgufType::kInt32:
    case GgufType::kFloat32:
      return 4;
    case GgufType::kUint64:
    case GgufType::kInt64:
    case GgufType::kFloat64:
      return 8;
    default:
      return 0;
  }
}

bool ValidType(uint32_t t) { return t <= static_cast<uint32_t>(GgufType::kFloat64); }

// Reads a value of `type`; `error` says why on failure.
bool ReadValue(Reader& r, GgufType type, int depth, GgufValue* v, std::string* error) {
  v->type = type;
  switch (type) {
    case GgufType::kUint8: {
      uint8_t x;
      if (!r.Read(&x)) break;
      v->i = x;
      return true;
    }
    case GgufType::kInt8: {
      int8_t x;
      if (!r.Read(&x)) break;
      v->i = x;
      return true;
    }
    case GgufType::kUint16: {
      uint16_t x;
      if (!r.Read(&x)) break;
      v->i = x;
      return true;
    }
    case GgufType::kInt16: {
      int16_t x;
      if (!r.Read(&x)) break;
      v->i = x;
      return true;
    }
    case GgufType::kUint32: {
      uint32_t x;
      if (!r.Read(&x)) break;
      v->i = x;
      return true;
    }
    case GgufType::kInt32: {
      int32_t x;
      if (!r.Read(&x)) break;
      v->i = x;
      return true;
    }
    case GgufType::kUint64: {
      uint64_t x;
      if (!r.Read(&x)) break;
      v->i = static_cast<int64_t>(x);
      return true;
    }
    case GgufType::kInt64: {
      int64_t x;
      if (!r.Read(&x)) break;
      v->i = x;
      return true;
    }
    case GgufType::kFloat32: {
      float x;
      if (!r.Read(&x)) break;
      v->f = x;
      return true;
    }
    case GgufType::kFloat64: {
      double x;
      if (!r.Read(&x)) break;
      v->f = x;
      return true;
    }
    case GgufType::kBool: {
      uint8_t x;
      if (!r.Read(&x)) break;
      if (x > 1) {
        *error = absl::StrCat("bad bool value ", x);
        return false;
      }
      v->i = x;
      return true;
    }
    case GgufType::kString:
      if (!r.ReadString(&v->s)) break;
      return true;
    case GgufType::kArray: {
      uint32_t elem;
      uint64_t n;
      if (!r.Read(&elem) || !r.Read(&n)) break;
      if (!ValidType(elem)) {
        *error = absl::StrCat("bad array element type ", elem);
        return false;
      }
      if (depth >= kMaxArrayDepth) {
        *error = "arrays nested too deeply";
        return false;
      }
      v->array_type = static_cast<GgufType>(elem);
      // Every element takes at least one byte (strings and arrays at least 8): a garbage count
      // fails here instead of allocating.
      const uint64_t min_bytes = ScalarBytes(v->array_type) == 0 ? 8 : ScalarBytes(v->array_type);
      if (n > r.remaining() / min_bytes) break;
      v->array.resize(n);
      for (uint64_t k = 0; k < n; ++k) {
        if (!ReadValue(r, v->array_type, depth + 1, &v->array[k], error)) return false;
      }
      return true;
    }
  }
  if (error->empty()) *error = "value runs past the end of the file (truncated)";
  return false;
}

// Bytes of `elements` values of ggml type `type`; 0 when Strata does not know the type.
uint64_t GgmlBytes(uint32_t type, uint64_t elements, int64_t row) {
  switch (static_cast<GgmlType>(type)) {
    case GgmlType::kF32:
      return elements * 4;
    case GgmlType::kF16:
    case GgmlType::kBF16:
      return elements * 2;
    case GgmlType::kQ8_0:
      if (row % kQ8BlockSize != 0) return 0;
      return elements / kQ8BlockSize * sizeof(BlockQ8_0);
  }
  return 0;
}

}  // namespace

std::string_view GgufTypeName(GgufType type) {
  static constexpr const char* kNames[] = {"uint8",  "int8",    "uint16", "int16",  "uint32",
                                           "int32",  "float32", "bool",   "string", "array",
                                           "uint64", "int64",   "float64"};
  const uint32_t t = static_cast<uint32_t>(type);
  return t < 13 ? kNames[t] : "?";
}

std::string GgmlTypeName(uint32_t type) {
  static constexpr const char* kNames[] = {
      "f32",   "f16",        "q4_0",       "q4_1",       "q4_2",     "q4_3",     "q5_0",
      "q5_1",  "q8_0",       "q8_1",       "q2_K",       "q3_K",     "q4_K",     "q5_K",
      "q6_K",  "q8_K",       "iq2_xxs",    "iq2_xs",     "iq3_xxs",  "iq1_s",    "iq4_nl",
      "iq3_s", "iq2_s",      "iq4_xs",     "i8",         "i16",      "i32",      "i64",
      "f64",   "iq1_m",      "bf16",       "q4_0_4_4",   "q4_0_4_8", "q4_0_8_8", "tq1_0",
      "tq2_0", "iq4_nl_4_4", "iq4_nl_4_8", "iq4_nl_8_8", "mxfp4"};
  if (type < sizeof(kNames) / sizeof(kNames[0])) return kNames[type];
  return absl::StrCat("type ", type);
}

absl::StatusOr<GgmlType> GgmlTypeFromDType(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return GgmlType::kF32;
    case DType::kF16:
      return GgmlType::kF16;
    case DType::kBF16:
      return GgmlType::kBF16;
    case DType::kQ8_0:
      return GgmlType::kQ8_0;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("dtype ", std::string(DTypeName(dtype)), " cannot be stored in GGUF"));
  }
}

uint32_t GgufFileType(DType dtype) {
  switch (dtype) {
    case DType::kF16:
      return 1;  // LLAMA_FTYPE_MOSTLY_F16
    case DType::kQ8_0:
      return 7;  // LLAMA_FTYPE_MOSTLY_Q8_0
    case DType::kBF16:
      return 32;  // LLAMA_FTYPE_MOSTLY_BF16
    default:
      return 0;  // LLAMA_FTYPE_ALL_F32
  }
}

bool GgufValue::IsInteger() const {
  switch (type) {
    case GgufType::kUint8:
    case GgufType::kInt8:
    case GgufType::kUint16:
    case GgufType::kInt16:
    case GgufType::kUint32:
    case GgufType::kInt32:
    case GgufType::kUint64:
    case GgufType::kInt64:
      return true;
    default:
      return false;
  }
}

GgufValue GgufValue::U32(uint32_t v) {
  GgufValue x;
  x.type = GgufType::kUint32;
  x.i = v;
  return x;
}
GgufValue GgufValue::I32(int32_t v) {
  GgufValue x;
  x.type = GgufType::kInt32;
  x.i = v;
  return x;
}
GgufValue GgufValue::U64(uint64_t v) {
  GgufValue x;
  x.type = GgufType::kUint64;
  x.i = static_cast<int64_t>(v);
  return x;
}
GgufValue GgufValue::F32(float v) {
  GgufValue x;
  x.type = GgufType::kFloat32;
  x.f = v;
  return x;
}
GgufValue GgufValue::Bool(bool v) {
  GgufValue x;
  x.type = GgufType::kBool;
  x.i = v;
  return x;
}
GgufValue GgufValue::Str(std::string v) {
  GgufValue x;
  x.type = GgufType::kString;
  x.s = std::move(v);
  return x;
}
GgufValue GgufValue::Array(GgufType elem, std::vector<GgufValue> values) {
  GgufValue x;
  x.type = GgufType::kArray;
  x.array_type = elem;
  x.array = std::move(values);
  return x;
}
GgufValue GgufValue::StrArray(const std::vector<std::string>& values) {
  std::vector<GgufValue> a;
  a.reserve(values.size());
  for (const auto& s : values) a.push_back(Str(s));
  return Array(GgufType::kString, std::move(a));
}
GgufValue GgufValue::I32Array(const std::vector<int32_t>& values) {
  std::vector<GgufValue> a;
  a.reserve(values.size());
  for (int32_t v : values) a.push_back(I32(v));
  return Array(GgufType::kInt32, std::move(a));
}
GgufValue GgufValue::F32Array(const std::vector<float>& values) {
  std::vector<GgufValue> a;
  a.reserve(values.size());
  for (float v : values) a.push_back(F32(v));
  return Array(GgufType::kFloat32, std::move(a));
}

absl::StatusOr<std::unique_ptr<GgufFile>> GgufFile::Parse(const MappedFile& file) {
  const std::string& path = file.path();
  auto error = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
  };
  Reader r(file.data(), file.size());
  uint32_t magic = 0, version = 0;
  uint64_t n_tensors = 0, n_kv = 0;
  if (!r.Read(&magic) || magic != kGgufMagic) return error("not a GGUF file (bad magic)");
  if (!r.Read(&version)) return error("truncated GGUF header");
  if (version != 2 && version != 3) {
    return error(absl::StrCat("unsupported GGUF version ", version, " (supported: 2, 3)"));
  }
  if (!r.Read(&n_tensors) || !r.Read(&n_kv)) return error("truncated GGUF header");
  // A key/value pair takes at least 8 + 4 + 1 bytes, a tensor info at least 8 + 4 + 4 + 8.
  if (n_kv > r.remaining() / 13 || n_tensors > r.remaining() / 24) {
    return error(absl::StrCat("bad GGUF header: ", n_kv, " metadata entries and ", n_tensors,
                              " tensors cannot fit in ", file.size(), " bytes (truncated?)"));
  }
  auto g = std::unique_ptr<GgufFile>(new GgufFile());
  g->path_ = path;
  g->data_ = file.data();
  g->version_ = version;
  g->metadata_.reserve(n_kv);
  for (uint64_t k = 0; k < n_kv; ++k) {
    std::string key;
    uint32_t type;
    if (!r.ReadString(&key) || !r.Read(&type)) {
      return error(absl::StrCat("truncated metadata (entry ", k, " of ", n_kv, ")"));
    }
    if (!ValidType(type)) {
      return error(absl::StrCat("metadata key '", std::string(key), "' has bad value type ", type));
    }
    GgufValue v;
    std::string why;
    if (!ReadValue(r, static_cast<GgufType>(type), 0, &v, &why)) {
      return error(absl::StrCat("metadata key '", std::string(key), "': ", why));
    }
    if (g->metadata_index_.count(key) > 0) {
      return error(absl::StrCat("duplicate metadata key '", std::string(key), "'"));
    }
    g->metadata_index_.emplace(key, g->metadata_.size());
    g->metadata_.emplace_back(std::move(key), std::move(v));
  }
  if (const GgufValue* a = g->Find("general.alignment")) {
    if (!a->IsInteger() || a->i <= 0 || (a->i & (a->i - 1)) != 0 || a->i > (1 << 20)) {
      return error("general.alignment must be a power of two");
    }
    g->alignment_ = static_cast<uint64_t>(a->i);
  }
  g->tensors_.reserve(n_tensors);
  for (uint64_t k = 0; k < n_tensors; ++k) {
    TensorInfo t;
    uint32_t n_dims;
    if (!r.ReadString(&t.name) || !r.Read(&n_dims)) {
      return error(absl::StrCat("truncated tensor info (tensor ", k, " of ", n_tensors, ")"));
    }
    auto bad = [&](const std::string& what) {
      return error(absl::StrCat("tensor '", t.name, "': ", what));
    };
    if (n_dims == 0 || n_dims > kMaxDims) return bad(absl::StrCat("bad dimension count ", n_dims));
    std::vector<int64_t> dims(n_dims);
    uint64_t elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      uint64_t dim;
      if (!r.Read(&dim)) return bad("truncated tensor info");
      if (dim > (1ull << 40) || (dim != 0 && elements > (1ull << 50) / dim)) {
        return bad(absl::StrCat("dimension ", dim, " is too large"));
      }
      elements *= dim;
      dims[d] = static_cast<int64_t>(dim);
    }
    t.shape.assign(dims.rbegin(), dims.rend());
    uint64_t rel_offset;
    if (!r.Read(&t.type) || !r.Read(&rel_offset)) return bad("truncated tensor info");
    if (rel_offset % g->alignment_ != 0) {
      return bad(absl::StrCat("offset ", rel_offset, " is not a multiple of the alignment ",
                              g->alignment_));
    }
    if (rel_offset > file.size()) return bad("offset is past the end of the file (truncated)");
    t.offset = rel_offset;  // made absolute below, once the data offset is known
    t.bytes = GgmlBytes(t.type, elements, dims[0]);
    if (g->tensor_index_.count(t.name) > 0) return bad("duplicate tensor name");
    g->tensor_index_.emplace(t.name, g->tensors_.size());
    g->tensors_.push_back(std::move(t));
  }
  const uint64_t data_offset = (r.pos() + g->alignment_ - 1) / g->alignment_ * g->alignment_;
  g->data_offset_ = data_offset;
  for (TensorInfo& t : g->tensors_) {
    t.offset += data_offset;
    if (t.offset > file.size() || t.bytes > file.size() - t.offset) {
      return error(absl::StrCat("tensor '", t.name, "': data [", t.offset, ", ", t.offset + t.bytes,
                                ") runs past the end of the file (", file.size(),
                                " bytes): the file is truncated"));
    }
  }
  return g;
}

const GgufValue* GgufFile::Find(std::string_view key) const {
  auto it = metadata_index_.find(key);
  return it == metadata_index_.end() ? nullptr : &metadata_[it->second].second;
}

absl::StatusOr<int64_t> GgufFile::GetInt(std::string_view key) const {
  const GgufValue* v = Find(key);
  if (v == nullptr)
    return absl::NotFoundError(
        absl::StrCat(path_, ": missing metadata key '", std::string(key), "'"));
  if (!v->IsInteger() || (v->type == GgufType::kUint64 && v->i < 0)) {
    return absl::InvalidArgumentError(absl::StrCat(path_, ": metadata key '", std::string(key),
                                                   "' is ", std::string(GgufTypeName(v->type)),
                                                   ", expected an integer"));
  }
  return v->i;
}

absl::StatusOr<double> GgufFile::GetFloat(std::string_view key) const {
  const GgufValue* v = Find(key);
  if (v == nullptr)
    return absl::NotFoundError(
        absl::StrCat(path_, ": missing metadata key '", std::string(key), "'"));
  if (v->IsFloat()) return v->f;
  if (v->IsInteger()) return static_cast<double>(v->i);
  return absl::InvalidArgumentError(absl::StrCat(path_, ": metadata key '", std::string(key),
                                                 "' is ", std::string(GgufTypeName(v->type)),
                                                 ", expected a number"));
}

absl::StatusOr<std::string> GgufFile::GetString(std::string_view key) const {
  const GgufValue* v = Find(key);
  if (v == nullptr)
    return absl::NotFoundError(
        absl::StrCat(path_, ": missing metadata key '", std::string(key), "'"));
  if (v->type != GgufType::kString) {
    return absl::InvalidArgumentError(absl::StrCat(path_, ": metadata key '", std::string(key),
                                                   "' is ", std::string(GgufTypeName(v->type)),
                                                   ", expected a string"));
  }
  return v->s;
}

absl::StatusOr<bool> GgufFile::GetBool(std::string_view key) const {
  const GgufValue* v = Find(key);
  if (v == nullptr)
    return absl::NotFoundError(
        absl::StrCat(path_, ": missing metadata key '", std::string(key), "'"));
  if (v->type != GgufType::kBool) {
    return absl::InvalidArgumentError(absl::StrCat(path_, ": metadata key '", std::string(key),
                                                   "' is ", std::string(GgufTypeName(v->type)),
                                                   ", expected a bool"));
  }
  return v->i != 0;
}

const GgufFile::TensorInfo* GgufFile::FindTensor(std::string_view name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

absl::StatusOr<Tensor> GgufFile::GetTensor(std::string_view name) const {
  const TensorInfo* t = FindTensor(name);
  if (t == nullptr) {
    return absl::NotFoundError(
        absl::StrCat(path_, ": tensor '", std::string(name), "' is missing"));
  }
  if (t->bytes == 0 && !t->shape.empty()) {
    bool empty = false;
    for (int64_t d : t->shape) empty |= d == 0;
    if (!empty) {
      std::string why = absl::StrCat("has unsupported type ", GgmlTypeName(t->type),
                                     " (supported: f32, f16, bf16, q8_0)");
      if (t->type == static_cast<uint32_t>(GgmlType::kQ8_0)) {
        why = "is q8_0 but its rows are not a multiple of 32 elements";
      }
      return absl::InvalidArgumentError(
          absl::StrCat(path_, ": tensor '", std::string(name), "' ", why));
    }
  }
  Tensor out;
  switch (static_cast<GgmlType>(t->type)) {
    case GgmlType::kF32:
      out.dtype = DType::kF32;
      break;
    case GgmlType::kF16:
      out.dtype = DType::kF16;
      break;
    case GgmlType::kBF16:
      out.dtype = DType::kBF16;
      break;
    case GgmlType::kQ8_0:
      out.dtype = DType::kQ8_0;
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat(path_, ": tensor '", std::string(name),
                                                     "' has unsupported type ",
                                                     GgmlTypeName(t->type)));
  }
  out.shape = t->shape;
  out.data = data_ + t->offset;
  return out;
}

}  // namespace strata
