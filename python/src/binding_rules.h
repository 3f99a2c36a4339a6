// Rules both extension modules (eltwise._core and eltwise._onnx) apply, kept in one place: which
// built-in NumPy dtypes map to which eltwise types, how a device name reads, and when a call
// releases the GIL. Needs Python.h and NumPy's type numbers, included here; nothing from nanobind.
#pragma once

// Since NumPy 2.5 <numpy/ndarraytypes.h> declares NumPy's C API table too, so the translation
// unit's first NumPy header fixes which table it uses: eltwise._core's shared one (numpy_api.h)
// unless the unit named its own first (onnx_module.cc). A unit that got neither would read a
// private table that is never imported.
#ifndef PY_ARRAY_UNIQUE_SYMBOL
#include "numpy_api.h"
#endif
#include <Python.h>
#include <numpy/ndarraytypes.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "eltwise/device.h"
#include "eltwise/types.h"

namespace eltwise::python {

// Where an operand's memory is, or which device a call names: host memory is {kCpu, 0}.
struct Place {
  DeviceKind kind = DeviceKind::kCpu;
  int ordinal = 0;
  bool operator==(const Place& o) const { return kind == o.kind && ordinal == o.ordinal; }
};

// "cpu", "cuda" (ordinal 0) or "cuda:N" with N of 1 to 4 digits; nullopt for anything else (each
// front end words its own error).
inline std::optional<Place> ParsePlace(std::string_view name) {
  if (name == "cpu") return Place{DeviceKind::kCpu, 0};
  if (name == "cuda") return Place{DeviceKind::kCuda, 0};
  constexpr std::string_view kPrefix = "cuda:";
  if (name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const std::string_view digits = name.substr(kPrefix.size());
  if (digits.empty() || digits.size() > 4) return std::nullopt;
  int ordinal = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    ordinal = ordinal * 10 + (c - '0');
  }
  return Place{DeviceKind::kCuda, ordinal};
}

// The built-in NumPy types eltwise has loops for, in NumPy's usual order (a ufunc picks the first
// loop an input casts to safely). long and long long are distinct type numbers of the same size;
// bfloat16 is ml_dtypes' and has a type number only at run time.
struct BuiltinType {
  int type_num;
  DataType type;
};
constexpr DataType SignedOfSize(size_t size) {
  return size == 8 ? DataType::kInt64 : size == 4 ? DataType::kInt32 : DataType::kInt16;
}
constexpr DataType UnsignedOfSize(size_t size) {
  return size == 8 ? DataType::kUInt64 : size == 4 ? DataType::kUInt32 : DataType::kUInt16;
}
inline constexpr std::array<BuiltinType, 13> kBuiltinTypes = {{
    {NPY_BYTE, DataType::kInt8},
    {NPY_UBYTE, DataType::kUInt8},
    {NPY_SHORT, DataType::kInt16},
    {NPY_USHORT, DataType::kUInt16},
    {NPY_INT, SignedOfSize(sizeof(int))},
    {NPY_UINT, UnsignedOfSize(sizeof(unsigned))},
    {NPY_LONG, SignedOfSize(sizeof(long))},
    {NPY_ULONG, UnsignedOfSize(sizeof(unsigned long))},
    {NPY_LONGLONG, SignedOfSize(sizeof(long long))},
    {NPY_ULONGLONG, UnsignedOfSize(sizeof(unsigned long long))},
    {NPY_HALF, DataType::kFloat16},
    {NPY_FLOAT, DataType::kFloat32},
    {NPY_DOUBLE, DataType::kFloat64},
}};

// The eltwise type of a built-in NumPy type number; nullopt for any other.
inline std::optional<DataType> BuiltinDataType(int type_num) {
  for (const BuiltinType& t : kBuiltinTypes) {
    if (t.type_num == type_num) return t.type;
  }
  return std::nullopt;
}

// The first built-in NumPy type number of an eltwise type; -1 for bfloat16 (ml_dtypes).
inline int BuiltinTypeNum(DataType type) {
  for (const BuiltinType& t : kBuiltinTypes) {
    if (t.type == type) return t.type_num;
  }
  return -1;
}

// Below this many bytes moved (read + written) a call keeps the GIL: releasing and taking it back
// (~0.3 us) costs more than other threads could gain (bench/python_vs_numpy.py, 1 Ki elements).
inline constexpr uint64_t kReleaseGilBytes = uint64_t{64} << 10;

}  // namespace eltwise::python
