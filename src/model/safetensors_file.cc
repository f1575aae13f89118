#include "model/safetensors_file.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace strata {
namespace {

// safetensors itself refuses headers above 100 MB; so do we (a garbage size must not allocate).
constexpr uint64_t kMaxHeaderBytes = 100ull << 20;

// Element size of a safetensors dtype, 0 when unknown.
size_t ElementBytes(std::string_view dtype) {
  if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16") return 2;
  if (dtype == "I8" || dtype == "U8" || dtype == "BOOL" || dtype == "F8_E4M3" || dtype == "F8_E5M2")
    return 1;
  return 0;
}

}  // namespace

absl::StatusOr<DType> SafetensorsDType(std::string_view name) {
  if (name == "F32") return DType::kF32;
  if (name == "F16") return DType::kF16;
  if (name == "BF16") return DType::kBF16;
  return absl::InvalidArgumentError(
      absl::StrCat("unsupported dtype '", std::string(name), "' (supported: F32, F16, BF16)"));
}

std::string_view SafetensorsDTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "F32";
    case DType::kF16:
      return "F16";
    case DType::kBF16:
      return "BF16";
    default:
      return "?";
  }
}

absl::StatusOr<std::unique_ptr<SafetensorsFile>> SafetensorsFile::Parse(const MappedFile& file) {
  const std::string& path = file.path();
  auto error = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
  };
  if (file.size() < 8) {
    return error(absl::StrCat("truncated safetensors file (", file.size(),
                              " bytes; the 8-byte header size is missing)"));
  }
  uint64_t header_size = 0;
  std::memcpy(&header_size, file.data(), 8);  // little-endian on every supported host
  if (header_size > kMaxHeaderBytes || header_size > file.size() - 8) {
    return error(absl::StrCat("bad or truncated safetensors header: header size ", header_size,
                              " but the file has ", file.size(), " bytes"));
  }
  const char* header_begin = reinterpret_cast<const char*>(file.data() + 8);
  nlohmann::json header =
      nlohmann::json::parse(header_begin, header_begin + header_size, nullptr, false);
  if (header.is_discarded() || !header.is_object()) {
    return error("safetensors header is not a JSON object");
  }
  auto st = std::unique_ptr<SafetensorsFile>(new SafetensorsFile());
  st->path_ = path;
  st->data_ = file.data();
  const uint64_t data_start = 8 + header_size;
  const uint64_t data_size = file.size() - data_start;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const nlohmann::json& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) return error("__metadata__ is not an object");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (m.value().is_string()) st->metadata_[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    auto bad = [&](const std::string& what) {
      return error(absl::StrCat("tensor '", name, "': ", what));
    };
    if (!v.is_object()) return bad("header entry is not an object");
    Entry e;
    e.name = name;
    auto dt = v.find("dtype");
    if (dt == v.end() || !dt->is_string()) return bad("missing dtype");
    e.dtype_name = dt->get<std::string>();
    auto sh = v.find("shape");
    if (sh == v.end() || !sh->is_array()) return bad("missing shape");
    uint64_t elements = 1;
    bool overflow = false;
    for (const auto& d : *sh) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) return bad("shape has a bad dimension");
      const uint64_t dim = d.get<uint64_t>();
      if (dim != 0 && elements > std::numeric_limits<uint64_t>::max() / 8 / dim) overflow = true;
      elements *= dim;
      e.shape.push_back(static_cast<int64_t>(dim));
    }
    if (overflow || e.shape.size() > 8) return bad("shape is too large");
    auto off = v.find("data_offsets");
    if (off == v.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
        !(*off)[1].is_number_unsigned()) {
      return bad("missing or bad data_offsets");
    }
    const uint64_t b = (*off)[0].get<uint64_t>(), en = (*off)[1].get<uint64_t>();
    if (b > en) return bad(absl::StrCat("data_offsets [", b, ", ", en, "] are reversed"));
    if (en > data_size) {
      return bad(absl::StrCat("data [", b, ", ", en, ") runs past the end of the data (", data_size,
                              " bytes): the file is truncated"));
    }
    const size_t elem = ElementBytes(e.dtype_name);
    if (elem != 0 && en - b != elements * elem) {
      return bad(absl::StrCat("data_offsets span ", en - b, " bytes but dtype ", e.dtype_name,
                              " and shape need ", elements * elem));
    }
    e.begin = data_start + b;
    e.end = data_start + en;
    st->entries_.push_back(std::move(e));
  }
  std::sort(st->entries_.begin(), st->entries_.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  return st;
}

const SafetensorsFile::Entry* SafetensorsFile::Find(std::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, std::string_view n) { return e.name < n; });
  if (it == entries_.end() || it->name != name) return nullptr;
  return &*it;
}

absl::StatusOr<Tensor> SafetensorsFile::Get(std::string_view name) const {
  const Entry* e = Find(name);
  if (e == nullptr) {
    return absl::NotFoundError(
        absl::StrCat(path_, ": tensor '", std::string(name), "' is missing"));
  }
  auto dtype = SafetensorsDType(e->dtype_name);
  if (!dtype.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path_, ": tensor '", std::string(name), "' has ", dtype.status().message()));
  }
  Tensor t;
  t.dtype = *dtype;
  t.shape = e->shape;
  t.data = data_ + e->begin;
  return t;
}

}  // namespace strata
