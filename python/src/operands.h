// Operand intake for the Python module: what the caller passed (a NumPy array, a DLPack tensor) as
// the library sees it (type, sizes, element strides, origin, memory), and new outputs like it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binding_rules.h"
#include "dlpack.h"
#include "eltwise/eltwise.h"
#include "errors.h"

namespace eltwise::python {

// NumPy, imported once at module import (never inside a call, where an import could release the
// GIL in the middle of a static initialisation). Intentionally leaked: it must outlive every call.
extern nb::module_* g_numpy;

extern const char* const kSupportedTypes;  // "eltwise supports float32, ..."

std::string Text(const Place& p);  // "cpu", "cuda:N"

// Calls a DLPack producer's deleter when the consumer is done (with the GIL held: producers such
// as NumPy release Python references in it).
struct DLPackOwner {
  dlpack::ManagedTensor* legacy = nullptr;
  dlpack::ManagedTensorVersioned* versioned = nullptr;
  DLPackOwner() = default;
  DLPackOwner(const DLPackOwner&) = delete;
  DLPackOwner& operator=(const DLPackOwner&) = delete;
  ~DLPackOwner() {
    if (legacy != nullptr && legacy->deleter != nullptr) legacy->deleter(legacy);
    if (versioned != nullptr && versioned->deleter != nullptr) versioned->deleter(versioned);
  }
};

// One array as the library sees it.
struct Operand {
  nb::object object;                    // what the caller handed in (or what was allocated)
  std::shared_ptr<DLPackOwner> dlpack;  // keeps a DLPack producer's memory alive
  DataType type = DataType::kFloat32;
  std::vector<uint64_t> sizes;
  std::vector<int64_t> strides;  // in elements
  std::byte* origin = nullptr;   // element (0, ..., 0)
  Place place;                   // host memory is {kCpu, 0}
  bool writable = true;
  bool is_numpy = false;
  // A NumPy array the library cannot describe in native elements (non-native byte order, or a
  // stride that is not a multiple of the item size). Such arrays go through a native copy.
  bool needs_copy = false;

  size_t element_size() const { return ElementSize(type); }
};

// eltwise's type for a NumPy dtype; nullopt for a dtype eltwise has no type for.
std::optional<DataType> TypeOfNumpyDtype(nb::handle dtype);
// The NumPy dtype of an eltwise type (bfloat16: ml_dtypes'; TypeError without it).
nb::object NumpyDtype(DataType type);
nb::object NativeDtype(nb::handle dtype);  // dtype in native byte order

// A NumPy array (`name` is "x" or "out", for messages).
Operand FromNumpy(nb::handle a, const char* name);  // PyArray_Check(a)
// A NumPy array or scalar, or an object with __dlpack__ and __dlpack_device__; TypeError otherwise.
// A CUDA producer is asked to order its pending work before `stream` (a DLPack stream value; 0:
// the legacy default stream).
Operand Acquire(nb::handle object, const char* name, uintptr_t stream = 0);

std::string ShapeText(const std::vector<uint64_t>& sizes);  // "(2, 3)"
// A new output like x: same shape and type, host or device like x.
nb::object AllocateLike(const Operand& x);

}  // namespace eltwise::python
