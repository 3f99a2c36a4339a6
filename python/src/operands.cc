#include "operands.h"

#include <pybind11/stl.h>  // std::vector sizes as a Python sequence (AllocateLike)

#include <string>

#include "torch_tensors.h"

namespace eltwise::python {

py::module_* g_numpy = nullptr;

const char* const kSupportedTypes =
    "eltwise supports float32, float16, bfloat16 (ml_dtypes), float64, int8, int16, int32, "
    "int64, uint8, uint16, uint32 and uint64";

std::string Text(const Place& p) {
  return p.kind == DeviceKind::kCpu ? std::string("cpu") : "cuda:" + std::to_string(p.ordinal);
}

std::optional<DataType> TypeOfNumpyDtype(py::handle dtype) {
  const std::string kind = py::str(dtype.attr("kind"));
  const auto size = dtype.attr("itemsize").cast<int64_t>();
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
             py::str(dtype.attr("name")).cast<std::string>() == "bfloat16") {
    return DataType::kBFloat16;  // ml_dtypes.bfloat16
  }
  return std::nullopt;
}

py::object NumpyDtype(DataType type) {
  if (type == DataType::kBFloat16) {
    try {
      return g_numpy->attr("dtype")(py::module_::import("ml_dtypes").attr("bfloat16"));
    } catch (py::error_already_set& e) {
      if (!e.matches(PyExc_ImportError)) throw;
      throw py::type_error(
          "a bfloat16 NumPy array needs the ml_dtypes package (pip install ml_dtypes)");
    }
  }
  return g_numpy->attr("dtype")(std::string(Name(type)));
}

py::object NativeDtype(py::handle dtype) { return dtype.attr("newbyteorder")("="); }

Operand FromNumpy(const py::array& a, const char* name) {
  Operand o;
  o.object = a;
  o.is_numpy = true;
  py::object dtype = a.attr("dtype");
  const std::optional<DataType> type = TypeOfNumpyDtype(dtype);
  if (!type) {
    throw py::type_error(std::string(name) + " has dtype " + py::str(dtype).cast<std::string>() +
                         "; " + kSupportedTypes);
  }
  o.type = *type;
  const auto esize = static_cast<int64_t>(o.element_size());
  o.needs_copy = !dtype.attr("isnative").cast<bool>();
  const int ndim = static_cast<int>(a.ndim());
  for (int i = 0; i < ndim; ++i) {
    o.sizes.push_back(static_cast<uint64_t>(a.shape(i)));
    const int64_t stride = a.strides(i);
    if (stride % esize != 0) o.needs_copy = true;
    o.strides.push_back(stride / esize);
  }
  o.origin = static_cast<std::byte*>(const_cast<void*>(a.data()));
  o.writable = a.writeable();
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
      throw py::type_error(std::string(name) + " lives on DLPack device type " +
                           std::to_string(type) +
                           "; eltwise reaches CPU (1), CUDA (2), CUDA host (3) and CUDA managed "
                           "(13) memory");
  }
}

}  // namespace

Operand FromDLPack(py::handle object, const char* name, uintptr_t stream) {
  const std::string n = name;
  py::tuple device = object.attr("__dlpack_device__")();
  if (device.size() != 2) throw py::type_error(n + ".__dlpack_device__() is not a (type, id) pair");
  const Place place =
      PlaceOfDLPackDevice(device[0].cast<int32_t>(), device[1].cast<int32_t>(), name);
  py::dict kwargs;
  // The producer orders its pending work before the stream eltwise runs on (the legacy default
  // stream, 1 in the DLPack protocol, unless the caller named one). Host producers take no stream.
  const py::int_ dlpack_stream(stream == 0 ? uintptr_t{1} : stream);
  if (place.kind == DeviceKind::kCuda) kwargs["stream"] = dlpack_stream;
  py::object capsule;
  {
    py::dict versioned;  // a new dict: copying a py::dict shares it
    if (place.kind == DeviceKind::kCuda) versioned["stream"] = dlpack_stream;
    versioned["max_version"] = py::make_tuple(1, 0);
    try {
      capsule = object.attr("__dlpack__")(**versioned);
    } catch (py::error_already_set& e) {
      if (!e.matches(PyExc_TypeError)) throw;  // a producer without max_version (DLPack < 1.0)
      capsule = object.attr("__dlpack__")(**kwargs);
    }
  }
  if (!PyCapsule_CheckExact(capsule.ptr())) {
    throw py::type_error(n + ".__dlpack__() did not return a DLPack capsule");
  }
  const char* capsule_name = PyCapsule_GetName(capsule.ptr());
  const std::string cname = capsule_name != nullptr ? capsule_name : "";
  Operand o;
  o.object = py::reinterpret_borrow<py::object>(object);
  o.dlpack = std::make_shared<DLPackOwner>();
  o.place = place;
  const dlpack::Tensor* t = nullptr;
  if (cname == "dltensor_versioned") {
    auto* m = static_cast<dlpack::ManagedTensorVersioned*>(
        PyCapsule_GetPointer(capsule.ptr(), capsule_name));
    if (m == nullptr) throw py::error_already_set();
    o.dlpack->versioned = m;  // consumed: from here on eltwise calls the deleter
    PyCapsule_SetName(capsule.ptr(), "used_dltensor_versioned");
    if (m->version.major != 1) {
      throw py::type_error(n + " is a DLPack " + std::to_string(m->version.major) + "." +
                           std::to_string(m->version.minor) + " tensor; eltwise reads DLPack 1.x");
    }
    o.writable = (m->flags & dlpack::kFlagReadOnly) == 0;
    t = &m->dl_tensor;
  } else if (cname == "dltensor") {
    auto* m =
        static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), capsule_name));
    if (m == nullptr) throw py::error_already_set();
    o.dlpack->legacy = m;
    PyCapsule_SetName(capsule.ptr(), "used_dltensor");
    t = &m->dl_tensor;
  } else {
    throw py::type_error(n + ".__dlpack__() returned a capsule named '" + cname +
                         "', not a DLPack tensor");
  }
  const Place capsule_place = PlaceOfDLPackDevice(t->device.device_type, t->device.device_id, name);
  if (!(capsule_place == place)) {
    throw py::type_error(n + ".__dlpack_device__() says " + Text(place) +
                         " but its DLPack tensor is on " + Text(capsule_place));
  }
  const std::optional<DataType> type = TypeOfDLPack(t->dtype);
  if (!type) {
    throw py::type_error(n + " has DLPack dtype (code " + std::to_string(t->dtype.code) +
                         ", bits " + std::to_string(t->dtype.bits) + ", lanes " +
                         std::to_string(t->dtype.lanes) + "); " + kSupportedTypes);
  }
  o.type = *type;
  if (t->ndim < 0) throw py::type_error(n + " has a negative DLPack ndim");
  o.sizes.resize(t->ndim);
  o.strides.resize(t->ndim);
  int64_t packed = 1;
  for (int i = t->ndim - 1; i >= 0; --i) {
    if (t->shape[i] < 0) throw py::type_error(n + " has a negative DLPack size");
    o.sizes[i] = static_cast<uint64_t>(t->shape[i]);
    o.strides[i] = t->strides != nullptr ? t->strides[i] : packed;
    packed *= t->shape[i];
  }
  o.origin = static_cast<std::byte*>(t->data) + t->byte_offset;
  return o;
}

Operand Acquire(py::handle object, const char* name, uintptr_t stream) {
  if (py::array::check_(object)) return FromNumpy(py::reinterpret_borrow<py::array>(object), name);
  if (py::isinstance(object, g_numpy->attr("generic"))) {
    // Only `out` can be one here: Dispatch reads a scalar x as a 0-d array first (RunAsArray).
    throw py::type_error(std::string(name) +
                         " is a NumPy scalar, which is immutable; pass an array");
  }
  if (std::optional<Operand> tensor = FromTorchHost(object.ptr(), name)) return std::move(*tensor);
  if (py::hasattr(object, "__dlpack__") && py::hasattr(object, "__dlpack_device__")) {
    return FromDLPack(object, name, stream);
  }
  throw py::type_error(std::string(name) + " is a " +
                       py::str(py::type::handle_of(object).attr("__name__")).cast<std::string>() +
                       "; eltwise takes NumPy arrays and objects with __dlpack__ (PyTorch tensors, "
                       "...)");
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
py::object AllocateLike(const Operand& x) {
  if (x.is_numpy) {
    py::object dtype = NativeDtype(x.object.attr("dtype"));
    return g_numpy->attr("empty_like")(x.object, py::arg("dtype") = dtype, py::arg("order") = "K");
  }
  const std::string module =
      py::str(py::type::handle_of(x.object).attr("__module__")).cast<std::string>();
  if (module.rfind("torch", 0) == 0) return TorchEmptyLike(x.object);
  if (py::hasattr(x.object, "__array_namespace__")) {
    return x.object.attr("__array_namespace__")().attr("empty_like")(x.object);
  }
  // A NumPy-like library without the array API's namespace (CuPy): its top-level empty_like.
  py::object package;
  try {
    package = py::module_::import(module.substr(0, module.find('.')).c_str());
  } catch (py::error_already_set&) {
  }
  if (package && py::hasattr(package, "empty_like")) return package.attr("empty_like")(x.object);
  if (x.place.kind == DeviceKind::kCpu) {
    return g_numpy->attr("empty")(py::cast(x.sizes), py::arg("dtype") = NumpyDtype(x.type));
  }
  throw py::type_error(
      "x is a " + py::str(py::type::handle_of(x.object).attr("__name__")).cast<std::string>() +
      " on " + Text(x.place) + " and eltwise does not know how to allocate one like it; pass out=");
}

}  // namespace eltwise::python
