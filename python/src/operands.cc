#include "operands.h"

#include <nanobind/stl/vector.h>  // std::vector sizes as a Python sequence (AllocateLike)

#include <string>

#include "torch_tensors.h"

namespace eltwise::python {

nb::module_* g_numpy = nullptr;

const char* const kSupportedTypes =
    "eltwise supports float32, float16, bfloat16 (ml_dtypes), float64, int8, int16, int32, "
    "int64, uint8, uint16, uint32 and uint64";

std::string Text(const Place& p) {
  return p.kind == DeviceKind::kCpu ? std::string("cpu") : "cuda:" + std::to_string(p.ordinal);
}

std::optional<DataType> TypeOfNumpyDtype(nb::handle dtype) {
  const auto kind = nb::cast<std::string>(dtype.attr("kind"));
  const auto size = nb::cast<int64_t>(dtype.attr("itemsize"));
  if (kind == "f") {
    if (size == 2) return DataType::kFloat16;
    if (size == 4) return DataType::kFloat32;
    if (size == 8) return DataType::kFloat64;
  } else if (kind == "i" || kind == "u") {
    const bool s = kind == "i";
    if (size == 1) return s ? DataType::kInt8 : DataType::kUInt8;
    if (size == 2) return s ? DataType::kInt16 : DataType::kUInt16;
    if (size == 4) return s ? DataType::kInt32 : DataType::kUInt32;
    if (size == 8) return s ? DataType::kInt64 : DataType::kUInt64;
  } else if (kind == "V" && size == 2 && dtype.attr("names").is_none() &&
             nb::cast<std::string>(nb::str(dtype.attr("name"))) == "bfloat16") {
    return DataType::kBFloat16;  // ml_dtypes.bfloat16
  }
  return std::nullopt;
}

nb::object NumpyDtype(DataType type) {
  if (type == DataType::kBFloat16) {
    try {
      return g_numpy->attr("dtype")(nb::module_::import_("ml_dtypes").attr("bfloat16"));
    } catch (nb::python_error& e) {
      if (!e.matches(PyExc_ImportError)) throw;
      throw TypeError("a bfloat16 NumPy array needs the ml_dtypes package (pip install ml_dtypes)");
    }
  }
  return g_numpy->attr("dtype")(std::string(Name(type)));
}

nb::object NativeDtype(nb::handle dtype) { return dtype.attr("newbyteorder")("="); }

Operand FromNumpy(nb::handle a, const char* name) {
  auto* array = reinterpret_cast<PyArrayObject*>(a.ptr());
  Operand o;
  o.object = nb::borrow(a);
  o.is_numpy = true;
  nb::object dtype = a.attr("dtype");
  const std::optional<DataType> type = TypeOfNumpyDtype(dtype);
  if (!type) {
    throw TypeError(std::string(name) + " has dtype " + StrOf(dtype.ptr()) + "; " +
                    kSupportedTypes);
  }
  o.type = *type;
  const auto esize = static_cast<int64_t>(o.element_size());
  o.needs_copy = !nb::cast<bool>(dtype.attr("isnative"));
  const int ndim = PyArray_NDIM(array);
  for (int i = 0; i < ndim; ++i) {
    o.sizes.push_back(static_cast<uint64_t>(PyArray_DIM(array, i)));
    const int64_t stride = PyArray_STRIDE(array, i);
    if (stride % esize != 0) o.needs_copy = true;
    o.strides.push_back(stride / esize);
  }
  o.origin = static_cast<std::byte*>(PyArray_DATA(array));
  o.writable = (PyArray_FLAGS(array) & NPY_ARRAY_WRITEABLE) != 0;
  return o;
}

namespace {

std::optional<DataType> TypeOfDLPack(const dlpack::DataType& t) {
  if (t.lanes != 1) return std::nullopt;
  switch (t.code) {
    case dlpack::kFloat:
      if (t.bits == 16) return DataType::kFloat16;
      if (t.bits == 32) return DataType::kFloat32;
      if (t.bits == 64) return DataType::kFloat64;
      break;
    case dlpack::kBfloat:
      if (t.bits == 16) return DataType::kBFloat16;
      break;
    case dlpack::kInt:
    case dlpack::kUInt: {
      const bool s = t.code == dlpack::kInt;
      if (t.bits == 8) return s ? DataType::kInt8 : DataType::kUInt8;
      if (t.bits == 16) return s ? DataType::kInt16 : DataType::kUInt16;
      if (t.bits == 32) return s ? DataType::kInt32 : DataType::kUInt32;
      if (t.bits == 64) return s ? DataType::kInt64 : DataType::kUInt64;
      break;
    }
    default:
      break;
  }
  return std::nullopt;
}

Place PlaceOfDLPackDevice(int32_t type, int32_t id, const char* name) {
  switch (type) {
    case dlpack::kCPU:
    case dlpack::kCUDAHost:
      return {DeviceKind::kCpu, 0};
    case dlpack::kCUDA:
    case dlpack::kCUDAManaged:
      return {DeviceKind::kCuda, id};
    default:
      throw TypeError(std::string(name) + " lives on DLPack device type " + std::to_string(type) +
                      "; eltwise reaches CPU (1), CUDA (2), CUDA host (3) and CUDA managed "
                      "(13) memory");
  }
}

}  // namespace

Operand FromDLPack(nb::handle object, const char* name, uintptr_t stream) {
  const std::string n = name;
  const nb::tuple device(object.attr("__dlpack_device__")());
  if (device.size() != 2) throw TypeError(n + ".__dlpack_device__() is not a (type, id) pair");
  const Place place =
      PlaceOfDLPackDevice(nb::cast<int32_t>(device[0]), nb::cast<int32_t>(device[1]), name);
  // The producer orders its pending work before the stream eltwise runs on (the legacy default
  // stream, 1 in the DLPack protocol, unless the caller named one). Host producers take no stream.
  const nb::int_ dlpack_stream(stream == 0 ? uintptr_t{1} : stream);
  nb::dict kwargs;
  if (place.kind == DeviceKind::kCuda) kwargs["stream"] = dlpack_stream;
  nb::object capsule;
  {
    nb::dict versioned;
    if (place.kind == DeviceKind::kCuda) versioned["stream"] = dlpack_stream;
    versioned["max_version"] = nb::make_tuple(1, 0);
    try {
      capsule = object.attr("__dlpack__")(**versioned);
    } catch (nb::python_error& e) {
      if (!e.matches(PyExc_TypeError)) throw;  // a producer without max_version (DLPack < 1.0)
      capsule = object.attr("__dlpack__")(**kwargs);
    }
  }
  if (!PyCapsule_CheckExact(capsule.ptr())) {
    throw TypeError(n + ".__dlpack__() did not return a DLPack capsule");
  }
  const char* capsule_name = PyCapsule_GetName(capsule.ptr());
  const std::string cname = capsule_name != nullptr ? capsule_name : "";
  Operand o;
  o.object = nb::borrow(object);
  o.dlpack = std::make_shared<DLPackOwner>();
  o.place = place;
  const dlpack::Tensor* t = nullptr;
  if (cname == "dltensor_versioned") {
    auto* m = static_cast<dlpack::ManagedTensorVersioned*>(
        PyCapsule_GetPointer(capsule.ptr(), capsule_name));
    if (m == nullptr) throw nb::python_error();
    o.dlpack->versioned = m;  // consumed: from here on eltwise calls the deleter
    PyCapsule_SetName(capsule.ptr(), "used_dltensor_versioned");
    if (m->version.major != 1) {
      throw TypeError(n + " is a DLPack " + std::to_string(m->version.major) + "." +
                      std::to_string(m->version.minor) + " tensor; eltwise reads DLPack 1.x");
    }
    o.writable = (m->flags & dlpack::kFlagReadOnly) == 0;
    t = &m->dl_tensor;
  } else if (cname == "dltensor") {
    auto* m =
        static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), capsule_name));
    if (m == nullptr) throw nb::python_error();
    o.dlpack->legacy = m;
    PyCapsule_SetName(capsule.ptr(), "used_dltensor");
    t = &m->dl_tensor;
  } else {
    throw TypeError(n + ".__dlpack__() returned a capsule named '" + cname +
                    "', not a DLPack tensor");
  }
  const Place capsule_place = PlaceOfDLPackDevice(t->device.device_type, t->device.device_id, name);
  if (!(capsule_place == place)) {
    throw TypeError(n + ".__dlpack_device__() says " + Text(place) +
                    " but its DLPack tensor is on " + Text(capsule_place));
  }
  const std::optional<DataType> type = TypeOfDLPack(t->dtype);
  if (!type) {
    throw TypeError(n + " has DLPack dtype (code " + std::to_string(t->dtype.code) + ", bits " +
                    std::to_string(t->dtype.bits) + ", lanes " + std::to_string(t->dtype.lanes) +
                    "); " + kSupportedTypes);
  }
  o.type = *type;
  if (t->ndim < 0) throw TypeError(n + " has a negative DLPack ndim");
  o.sizes.resize(t->ndim);
  o.strides.resize(t->ndim);
  int64_t packed = 1;
  for (int i = t->ndim - 1; i >= 0; --i) {
    if (t->shape[i] < 0) throw TypeError(n + " has a negative DLPack size");
    o.sizes[i] = static_cast<uint64_t>(t->shape[i]);
    o.strides[i] = t->strides != nullptr ? t->strides[i] : packed;
    packed *= t->shape[i];
  }
  o.origin = static_cast<std::byte*>(t->data) + t->byte_offset;
  return o;
}

// The name of object's type, for messages.
std::string TypeNameOf(nb::handle object) {
  return nb::cast<std::string>(nb::str(object.type().attr("__name__")));
}

Operand Acquire(nb::handle object, const char* name, uintptr_t stream) {
  if (PyArray_Check(object.ptr())) return FromNumpy(object, name);
  if (nb::isinstance(object, g_numpy->attr("generic"))) {
    // Only `out` can be one here: Dispatch reads a scalar x as a 0-d array first (RunAsArray).
    throw TypeError(std::string(name) + " is a NumPy scalar, which is immutable; pass an array");
  }
  if (std::optional<Operand> tensor = FromTorchHost(object.ptr(), name)) return std::move(*tensor);
  if (nb::hasattr(object, "__dlpack__") && nb::hasattr(object, "__dlpack_device__")) {
    return FromDLPack(object, name, stream);
  }
  throw TypeError(
      std::string(name) + " is a " + TypeNameOf(object) +
      "; eltwise takes NumPy arrays and objects with __dlpack__ (PyTorch tensors, ...)");
}

std::string ShapeText(const std::vector<uint64_t>& sizes) {
  std::string s = "(";
  for (size_t i = 0; i < sizes.size(); ++i) {
    s += std::to_string(sizes[i]);
    s += sizes.size() == 1 ? "," : (i + 1 < sizes.size() ? ", " : "");
  }
  return s + ")";
}

// A new output like x: same shape and type, host or device like x.
nb::object AllocateLike(const Operand& x) {
  if (x.is_numpy) {
    nb::object dtype = NativeDtype(x.object.attr("dtype"));
    return g_numpy->attr("empty_like")(x.object, nb::arg("dtype") = dtype, nb::arg("order") = "K");
  }
  const auto module = nb::cast<std::string>(nb::str(x.object.type().attr("__module__")));
  if (module.rfind("torch", 0) == 0) return TorchEmptyLike(x.object);
  if (nb::hasattr(x.object, "__array_namespace__")) {
    return x.object.attr("__array_namespace__")().attr("empty_like")(x.object);
  }
  // A NumPy-like library without the array API's namespace (CuPy): its top-level empty_like.
  nb::object package;
  try {
    package = nb::module_::import_(module.substr(0, module.find('.')).c_str());
  } catch (nb::python_error&) {
  }
  if (package && nb::hasattr(package, "empty_like")) return package.attr("empty_like")(x.object);
  if (x.place.kind == DeviceKind::kCpu) {
    return g_numpy->attr("empty")(nb::cast(x.sizes), nb::arg("dtype") = NumpyDtype(x.type));
  }
  throw TypeError("x is a " + TypeNameOf(x.object) + " on " + Text(x.place) +
                  " and eltwise does not know how to allocate one like it; pass out=");
}

}  // namespace eltwise::python
