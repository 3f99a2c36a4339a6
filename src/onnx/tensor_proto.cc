// TensorProto and .npy decoding/encoding for the ONNX front end.
#include <bit>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "core/out_of_memory.h"
#include "onnx/internal.h"

#if defined(ELTWISE_ONNX_HAVE_NPY)
#include "npy/npy.h"
#endif

namespace eltwise::onnx_frontend {

static_assert(std::endian::native == std::endian::little,
              "TensorProto raw_data and HostTensor are little-endian; add byte swapping here");

namespace {

using ::onnx::TensorProto;

using internal::Quoted;

Status IoError(std::string message) { return Status(StatusCode::kIoError, std::move(message)); }

// Multiplies with overflow detection.
bool MulOverflow(uint64_t a, uint64_t b, uint64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}

template <class T>
void Store(std::byte* dst, T value) {
  std::memcpy(dst, &value, sizeof value);
}

// Which TensorProto fields may hold `type` (besides raw_data), per onnx.proto.
enum class Field { kFloat, kInt32, kInt64, kDouble, kUInt64 };

Field FieldFor(DataType type) {
  switch (type) {
    case DataType::kFloat32:
      return Field::kFloat;
    case DataType::kFloat64:
      return Field::kDouble;
    case DataType::kInt64:
      return Field::kInt64;
    case DataType::kUInt32:
    case DataType::kUInt64:
      return Field::kUInt64;
    default:  // int8/16/32, uint8/16, float16, bfloat16
      return Field::kInt32;
  }
}

const char* FieldName(Field f) {
  switch (f) {
    case Field::kFloat:
      return "float_data";
    case Field::kInt32:
      return "int32_data";
    case Field::kInt64:
      return "int64_data";
    case Field::kDouble:
      return "double_data";
    case Field::kUInt64:
      return "uint64_data";
  }
  return "?";
}

// The range int32_data values may take for a type stored in it. float16/bfloat16 bit patterns
// are accepted both as uint16 (what onnx.helper writes) and as sign-extended int16.
void Int32Range(DataType type, int64_t* lo, int64_t* hi) {
  switch (type) {
    case DataType::kInt8:
      *lo = INT8_MIN, *hi = INT8_MAX;
      return;
    case DataType::kUInt8:
      *lo = 0, *hi = UINT8_MAX;
      return;
    case DataType::kInt16:
      *lo = INT16_MIN, *hi = INT16_MAX;
      return;
    case DataType::kUInt16:
      *lo = 0, *hi = UINT16_MAX;
      return;
    case DataType::kFloat16:
    case DataType::kBFloat16:
      *lo = INT16_MIN, *hi = UINT16_MAX;
      return;
    default:
      *lo = INT32_MIN, *hi = INT32_MAX;
      return;
  }
}

template <class T>
T FromBits(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else {  // subnormal: value = man * 2^-24, exact in float
    const float v = static_cast<float>(man) * 0x1p-24f;
    return sign ? -v : v;
  }
  return std::bit_cast<float>(bits);
}

}  // namespace

uint64_t HostTensor::element_count() const {
  uint64_t n = 1;
  for (uint64_t d : shape) {
    if (MulOverflow(n, d, &n)) return UINT64_MAX;
  }
  return n;
}

std::string ShapeString(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

int OnnxDataType(DataType type) {
  switch (type) {
    case DataType::kFloat32:
      return TensorProto::FLOAT;
    case DataType::kFloat16:
      return TensorProto::FLOAT16;
    case DataType::kBFloat16:
      return TensorProto::BFLOAT16;
    case DataType::kFloat64:
      return TensorProto::DOUBLE;
    case DataType::kInt8:
      return TensorProto::INT8;
    case DataType::kInt16:
      return TensorProto::INT16;
    case DataType::kInt32:
      return TensorProto::INT32;
    case DataType::kInt64:
      return TensorProto::INT64;
    case DataType::kUInt8:
      return TensorProto::UINT8;
    case DataType::kUInt16:
      return TensorProto::UINT16;
    case DataType::kUInt32:
      return TensorProto::UINT32;
    case DataType::kUInt64:
      return TensorProto::UINT64;
  }
  return TensorProto::UNDEFINED;
}

std::optional<DataType> FromOnnxDataType(int onnx_type) {
#define ELTWISE_FROM_ONNX(e, T, name) \
  if (OnnxDataType(DataType::e) == onnx_type) return DataType::e;
  ELTWISE_FOR_EACH_DATA_TYPE(ELTWISE_FROM_ONNX)
#undef ELTWISE_FROM_ONNX
  return std::nullopt;
}

std::string OnnxDataTypeName(int onnx_type) {
  // TensorProto.DataType names up to ONNX 1.20 (the linked ONNX 1.12 knows up to BFLOAT16).
  static constexpr const char* kNames[] = {
      "UNDEFINED",      "FLOAT",    "UINT8",        "INT8",           "UINT16",
      "INT16",          "INT32",    "INT64",        "STRING",         "BOOL",
      "FLOAT16",        "DOUBLE",   "UINT32",       "UINT64",         "COMPLEX64",
      "COMPLEX128",     "BFLOAT16", "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
      "FLOAT8E5M2FNUZ", "UINT4",    "INT4",         "FLOAT4E2M1",     "FLOAT8E8M0"};
  if (onnx_type >= 0 && onnx_type < static_cast<int>(std::size(kNames))) return kNames[onnx_type];
  return "code " + std::to_string(onnx_type);
}

namespace internal {

Expected<HostTensor> DecodeTensor(const TensorProto& proto, const std::string& what) {
  HostTensor t;
  t.name = proto.name();
  if (proto.has_data_location() && proto.data_location() == TensorProto::EXTERNAL) {
    return InvalidArgument(what +
                           ": data_location is EXTERNAL; eltwise reads only tensors whose "
                           "data is stored in the TensorProto");
  }
  if (proto.external_data_size() != 0) {
    return InvalidArgument(what + ": has external_data entries; external data is not supported");
  }
  if (proto.has_segment()) {
    return InvalidArgument(what + ": has a segment; segmented tensors are not supported");
  }
  if (!proto.has_data_type() || proto.data_type() == TensorProto::UNDEFINED) {
    return InvalidArgument(what + ": data_type is not set");
  }
  const std::optional<DataType> type = FromOnnxDataType(proto.data_type());
  if (!type) {
    return InvalidArgument(what + ": data_type " + OnnxDataTypeName(proto.data_type()) + " (" +
                           std::to_string(proto.data_type()) +
                           ") is not supported; eltwise tensors are FLOAT, FLOAT16, BFLOAT16, "
                           "DOUBLE, INT8/16/32/64 or UINT8/16/32/64");
  }
  t.type = *type;
  if (proto.dims_size() > 64) {
    return InvalidArgument(what + ": has " + std::to_string(proto.dims_size()) +
                           " dims; at most 64 are accepted");
  }
  uint64_t count = 1;
  for (int i = 0; i < proto.dims_size(); ++i) {
    const int64_t d = proto.dims(i);
    if (d < 0) {
      return InvalidArgument(what + ": dims[" + std::to_string(i) + "] is " + std::to_string(d) +
                             "; dims must be >= 0");
    }
    t.shape.push_back(static_cast<uint64_t>(d));
    if (MulOverflow(count, static_cast<uint64_t>(d), &count)) {
      return InvalidArgument(what + ": dims " + ShapeString(t.shape) +
                             "... have more than 2^64 elements");
    }
  }
  const uint64_t esize = ElementSize(t.type);
  uint64_t bytes = 0;
  if (MulOverflow(count, esize, &bytes)) {
    return InvalidArgument(what + ": dims " + ShapeString(t.shape) + " are too large (" +
                           std::to_string(count) + " elements)");
  }
  const std::string shape = "dims " + ShapeString(t.shape) + " (" + std::to_string(count) +
                            " element" + (count == 1 ? "" : "s") + ")";

  // Exactly one storage field may hold data.
  struct Present {
    const char* name;
    uint64_t size;
  };
  std::vector<Present> present;
  if (proto.has_raw_data()) present.push_back({"raw_data", proto.raw_data().size()});
  if (proto.float_data_size()) present.push_back({"float_data", uint64_t(proto.float_data_size())});
  if (proto.int32_data_size()) present.push_back({"int32_data", uint64_t(proto.int32_data_size())});
  if (proto.int64_data_size()) present.push_back({"int64_data", uint64_t(proto.int64_data_size())});
  if (proto.double_data_size()) {
    present.push_back({"double_data", uint64_t(proto.double_data_size())});
  }
  if (proto.uint64_data_size()) {
    present.push_back({"uint64_data", uint64_t(proto.uint64_data_size())});
  }
  if (proto.string_data_size()) {
    present.push_back({"string_data", uint64_t(proto.string_data_size())});
  }
  if (present.size() > 1) {
    return InvalidArgument(what + ": has both " + present[0].name + " and " + present[1].name +
                           "; a tensor's data must be in exactly one field");
  }
  if (present.empty()) {
    if (count != 0) {
      return InvalidArgument(what + ": has no data; " + shape +
                             " need raw_data or a typed data field");
    }
    return t;
  }

  const std::string field = present[0].name;
  if (field == "raw_data") {
    if (present[0].size != bytes) {
      return InvalidArgument(what + ": raw_data has " + std::to_string(present[0].size) +
                             " bytes; " + shape + " of " + OnnxDataTypeName(proto.data_type()) +
                             " need " + std::to_string(bytes));
    }
    const std::string& raw = proto.raw_data();
    t.data.resize(bytes);
    if (bytes) std::memcpy(t.data.data(), raw.data(), bytes);
    return t;
  }
  const Field expected = FieldFor(t.type);
  if (field != FieldName(expected)) {
    return InvalidArgument(what + ": data is in " + field + ", which cannot hold " +
                           OnnxDataTypeName(proto.data_type()) + "; use raw_data or " +
                           FieldName(expected));
  }
  if (present[0].size != count) {
    return InvalidArgument(what + ": " + field + " has " + std::to_string(present[0].size) +
                           " value" + (present[0].size == 1 ? "" : "s") + "; " + shape + " need " +
                           std::to_string(count));
  }
  t.data.resize(bytes);
  std::byte* out = t.data.data();
  const int n = static_cast<int>(count);  // fits: it equals a repeated field's size
  switch (expected) {
    case Field::kFloat:
      for (int i = 0; i < n; ++i) Store(out + 4 * i, proto.float_data(i));
      break;
    case Field::kDouble:
      for (int i = 0; i < n; ++i) Store(out + 8 * i, proto.double_data(i));
      break;
    case Field::kInt64:
      for (int i = 0; i < n; ++i) Store(out + 8 * i, proto.int64_data(i));
      break;
    case Field::kUInt64:
      for (int i = 0; i < n; ++i) {
        const uint64_t v = proto.uint64_data(i);
        if (t.type == DataType::kUInt32) {
          if (v > UINT32_MAX) {
            return InvalidArgument(what + ": uint64_data[" + std::to_string(i) + "] is " +
                                   std::to_string(v) + ", out of range for UINT32");
          }
          Store(out + 4 * i, static_cast<uint32_t>(v));
        } else {
          Store(out + 8 * i, v);
        }
      }
      break;
    case Field::kInt32: {
      int64_t lo, hi;
      Int32Range(t.type, &lo, &hi);
      for (int i = 0; i < n; ++i) {
        const int32_t v = proto.int32_data(i);
        if (v < lo || v > hi) {
          return InvalidArgument(what + ": int32_data[" + std::to_string(i) + "] is " +
                                 std::to_string(v) + ", out of range for " +
                                 OnnxDataTypeName(proto.data_type()) + " [" + std::to_string(lo) +
                                 ", " + std::to_string(hi) + "]");
        }
        switch (esize) {
          case 1:
            Store(out + i, static_cast<uint8_t>(v));
            break;
          case 2:
            Store(out + 2 * i, static_cast<uint16_t>(v));
            break;
          default:
            Store(out + 4 * i, v);
            break;
        }
      }
      break;
    }
  }
  return t;
}

Expected<std::vector<std::byte>> ReadFileBytes(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return IoError(path + ": cannot open: " + std::strerror(errno));
  std::vector<std::byte> bytes;
  std::byte buffer[1 << 16];
  size_t got;
  while ((got = std::fread(buffer, 1, sizeof buffer, f)) > 0) {
    bytes.insert(bytes.end(), buffer, buffer + got);
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return IoError(path + ": read error");
  return bytes;
}

std::string FormatElement(const HostTensor& t, uint64_t index) {
  const std::byte* p = t.data.data() + index * ElementSize(t.type);
  char buffer[96];
  auto with_bits = [&](double value, uint64_t bits, int hex_digits) {
    if (std::isnan(value)) {
      std::snprintf(buffer, sizeof buffer, "nan (0x%0*llx)", hex_digits,
                    static_cast<unsigned long long>(bits));
    } else {
      std::snprintf(buffer, sizeof buffer, "%.17g (0x%0*llx)", value, hex_digits,
                    static_cast<unsigned long long>(bits));
    }
    return std::string(buffer);
  };
  switch (t.type) {
    case DataType::kFloat32: {
      const uint32_t b = FromBits<uint32_t>(p);
      return with_bits(std::bit_cast<float>(b), b, 8);
    }
    case DataType::kFloat64: {
      const uint64_t b = FromBits<uint64_t>(p);
      return with_bits(std::bit_cast<double>(b), b, 16);
    }
    case DataType::kFloat16: {
      const uint16_t b = FromBits<uint16_t>(p);
      return with_bits(HalfToFloat(b), b, 4);
    }
    case DataType::kBFloat16: {
      const uint16_t b = FromBits<uint16_t>(p);
      return with_bits(std::bit_cast<float>(uint32_t{b} << 16), b, 4);
    }
    case DataType::kInt8:
      return std::to_string(FromBits<int8_t>(p));
    case DataType::kInt16:
      return std::to_string(FromBits<int16_t>(p));
    case DataType::kInt32:
      return std::to_string(FromBits<int32_t>(p));
    case DataType::kInt64:
      return std::to_string(FromBits<int64_t>(p));
    case DataType::kUInt8:
      return std::to_string(FromBits<uint8_t>(p));
    case DataType::kUInt16:
      return std::to_string(FromBits<uint16_t>(p));
    case DataType::kUInt32:
      return std::to_string(FromBits<uint32_t>(p));
    case DataType::kUInt64:
      return std::to_string(FromBits<uint64_t>(p));
  }
  return "?";
}

}  // namespace internal

Expected<HostTensor> DecodeTensorProto(std::span<const std::byte> bytes) {
  return GuardAllocation("DecodeTensorProto", [&]() -> Expected<HostTensor> {
    if (bytes.size() > static_cast<size_t>(INT_MAX)) {
      return InvalidArgument("TensorProto is " + std::to_string(bytes.size()) +
                             " bytes; protobuf messages are limited to 2 GiB");
    }
    TensorProto proto;
    if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return InvalidArgument(
          "not a valid TensorProto (protobuf parse failed: the file is truncated "
          "or corrupt)");
    }
    std::string what = "TensorProto";  // appended piecewise: GCC 12 warns falsely on "x" + string
    if (!proto.name().empty()) {
      what += ' ';
      what += Quoted(proto.name());
    }
    return internal::DecodeTensor(proto, what);
  });
}

std::vector<std::byte> EncodeTensorProto(const HostTensor& tensor) {
  TensorProto proto;
  proto.set_name(tensor.name);
  proto.set_data_type(OnnxDataType(tensor.type));
  for (uint64_t d : tensor.shape) proto.add_dims(static_cast<int64_t>(d));
  proto.set_raw_data(tensor.data.data(), tensor.data.size());
  const std::string s = proto.SerializeAsString();
  std::vector<std::byte> out(s.size());
  if (!s.empty()) std::memcpy(out.data(), s.data(), s.size());
  return out;
}

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsNpyPath(const std::string& path) { return EndsWith(path, ".npy") || EndsWith(path, ".NPY"); }

Status WriteBytes(const std::string& path, std::span<const std::byte> bytes) {
  // Write beside the target and rename, so `path` is either untouched or replaced whole.
  const std::string temp = path + ".tmp";
  std::FILE* f = std::fopen(temp.c_str(), "wb");
  if (f == nullptr) return IoError(path + ": cannot create: " + std::strerror(errno));
  const bool wrote = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const bool closed = std::fclose(f) == 0;
  if (!wrote || !closed) {
    std::remove(temp.c_str());
    return IoError(path + ": write failed");
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temp.c_str());
    return IoError(path + ": cannot replace: " + reason);
  }
  return Status::Ok();
}

#if defined(ELTWISE_ONNX_HAVE_NPY)
// Reorders a Fortran-order (column-major) array into C order.
std::vector<std::byte> FortranToC(const std::vector<std::byte>& data,
                                  const std::vector<uint64_t>& shape, size_t esize) {
  const size_t rank = shape.size();
  uint64_t count = 1;
  for (uint64_t d : shape) count *= d;
  std::vector<std::byte> out(data.size());
  if (count == 0) return out;
  std::vector<uint64_t> fstride(rank, 1);  // column-major strides in elements
  for (size_t i = 1; i < rank; ++i) fstride[i] = fstride[i - 1] * shape[i - 1];
  std::vector<uint64_t> index(rank, 0);
  for (uint64_t c = 0; c < count; ++c) {
    uint64_t f = 0;
    for (size_t i = 0; i < rank; ++i) f += index[i] * fstride[i];
    std::memcpy(out.data() + c * esize, data.data() + f * esize, esize);
    for (size_t i = rank; i-- > 0;) {  // next C-order index: last dimension fastest
      if (++index[i] < shape[i]) break;
      index[i] = 0;
    }
  }
  return out;
}
#endif

}  // namespace

bool NpySupported() {
#if defined(ELTWISE_ONNX_HAVE_NPY)
  return true;
#else
  return false;
#endif
}

Expected<HostTensor> ReadTensorFile(const std::string& path) {
  return GuardAllocation("ReadTensorFile", [&]() -> Expected<HostTensor> {
    if (IsNpyPath(path)) {
#if defined(ELTWISE_ONNX_HAVE_NPY)
      Expected<npy::Array> array = npy::Read(path);
      if (!array.ok()) {
        const Status s = array.status();
        const std::string& m = s.message();
        return Status(s.code(), m.rfind(path, 0) == 0 ? m : path + ": " + m);
      }
      HostTensor t;
      t.type = array->type;
      t.shape = array->shape;
      if (array->element_count() * ElementSize(t.type) != array->data.size()) {
        return InvalidArgument(path + ": .npy data size does not match its shape");
      }
      t.data = array->fortran_order && t.shape.size() > 1
                   ? FortranToC(array->data, t.shape, ElementSize(t.type))
                   : std::move(array->data);
      return t;
#else
    return Unsupported(path +
                       ": this build reads no .npy files (the eltwise_npy library was not "
                       "built); use a TensorProto .pb file");
#endif
    }
    Expected<std::vector<std::byte>> bytes = internal::ReadFileBytes(path);
    if (!bytes.ok()) return bytes.status();
    Expected<HostTensor> t = DecodeTensorProto(*bytes);
    if (!t.ok()) return Status(t.status().code(), path + ": " + t.status().message());
    return t;
  });
}

Status WriteTensorFile(const std::string& path, const HostTensor& tensor) {
  return GuardAllocation("WriteTensorFile", [&]() -> Status {
    if (IsNpyPath(path)) {
#if defined(ELTWISE_ONNX_HAVE_NPY)
      npy::Array array;
      array.type = tensor.type;
      array.shape = tensor.shape;
      array.data = tensor.data;
      return npy::Write(path, array);
#else
    return Unsupported(path +
                       ": this build writes no .npy files (the eltwise_npy library was not "
                       "built); use a .pb file");
#endif
    }
    return WriteBytes(path, EncodeTensorProto(tensor));
  });
}

}  // namespace eltwise::onnx_frontend
