#include "torch_tensors.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "arguments.h"
#include "errors.h"

namespace eltwise::python {
namespace {

// What the reads compare against and the attribute names they use (interned: a name made for
// each read would be most of a read's cost), from the torch module; set once under the GIL and
// leaked like g_numpy (it must outlive every call).
struct TorchObjects {
  PyObject* tensor_type = nullptr;
  PyObject* strided = nullptr;
  PyObject* empty_like = nullptr;
  std::vector<std::pair<PyObject*, DataType>> dtypes;  // torch.float32 -> kFloat32, ...
  PyObject* is_cpu = nullptr;
  PyObject* layout = nullptr;
  PyObject* requires_grad = nullptr;
  PyObject* is_nested = nullptr;
  PyObject* is_neg = nullptr;
  PyObject* resolve_neg = nullptr;
  PyObject* dtype = nullptr;
  PyObject* shape = nullptr;
  PyObject* stride = nullptr;
  PyObject* data_ptr = nullptr;
};
TorchObjects* g_torch = nullptr;

// The torch module's objects, or nullptr when torch is not in sys.modules.
const TorchObjects* LoadedTorch() {
  if (g_torch != nullptr) return g_torch;
  const nb::str name("torch");
  PyObject* found = PyImport_GetModule(name.ptr());
  if (found == nullptr) {
    if (PyErr_Occurred() != nullptr) throw nb::python_error();
    return nullptr;
  }
  const auto torch = nb::steal(found);
  auto* t = new TorchObjects;
  const auto attribute = [&](const char* a) { return nb::object(torch.attr(a)).release().ptr(); };
  t->tensor_type = attribute("Tensor");
  t->strided = attribute("strided");
  t->empty_like = attribute("empty_like");
  constexpr std::pair<const char*, DataType> kTypes[] = {
      {"float16", DataType::kFloat16}, {"bfloat16", DataType::kBFloat16},
      {"float32", DataType::kFloat32}, {"float64", DataType::kFloat64},
      {"int8", DataType::kInt8},       {"int16", DataType::kInt16},
      {"int32", DataType::kInt32},     {"int64", DataType::kInt64},
      {"uint8", DataType::kUInt8},     {"uint16", DataType::kUInt16},
      {"uint32", DataType::kUInt32},   {"uint64", DataType::kUInt64}};
  for (const auto& [type_name, type] : kTypes) {
    if (nb::hasattr(torch, type_name)) t->dtypes.emplace_back(attribute(type_name), type);
  }
  t->is_cpu = Intern("is_cpu");
  t->layout = Intern("layout");
  t->requires_grad = Intern("requires_grad");
  t->is_nested = Intern("is_nested");
  t->is_neg = Intern("is_neg");
  t->resolve_neg = Intern("resolve_neg");
  t->dtype = Intern("dtype");
  t->shape = Intern("shape");
  t->stride = Intern("stride");
  t->data_ptr = Intern("data_ptr");
  g_torch = t;
  return g_torch;
}

nb::object Get(PyObject* x, PyObject* name) {
  PyObject* value = PyObject_GetAttr(x, name);
  if (value == nullptr) throw nb::python_error();
  return nb::steal(value);
}

nb::object CallMethod(PyObject* x, PyObject* name) {
  PyObject* self[] = {x};  // the stable ABI's form of PyObject_CallMethodNoArgs
  PyObject* value = PyObject_VectorcallMethod(name, self, 1, nullptr);
  if (value == nullptr) throw nb::python_error();
  return nb::steal(value);
}

int64_t Int(PyObject* x) {
  const long long value = PyLong_AsLongLong(x);
  if (value == -1 && PyErr_Occurred() != nullptr) throw nb::python_error();
  return value;
}

std::byte* DataPointer(PyObject* tensor) {
  const nb::object p = CallMethod(tensor, g_torch->data_ptr);
  const unsigned long long address = PyLong_AsUnsignedLongLong(p.ptr());
  if (address == static_cast<unsigned long long>(-1) && PyErr_Occurred() != nullptr) {
    throw nb::python_error();
  }
  return reinterpret_cast<std::byte*>(static_cast<uintptr_t>(address));
}

// Whether x's type is named `name`: a test cheaper than any lookup in sys.modules.
bool TypeNamed(PyObject* x, const char* name) {
#ifdef Py_LIMITED_API
  PyObject* type_name = PyType_GetName(Py_TYPE(x));  // tp_name is not in the stable ABI
  if (type_name == nullptr) throw nb::python_error();
  const bool same = PyUnicode_CompareWithASCIIString(type_name, name) == 0;
  Py_DECREF(type_name);
  return same;
#else
  return std::strcmp(Py_TYPE(x)->tp_name, name) == 0;
#endif
}

}  // namespace

bool IsTorchTensor(PyObject* x) {
  if (!TypeNamed(x, "Tensor")) return false;
  const TorchObjects* torch = LoadedTorch();
  return torch != nullptr && reinterpret_cast<PyObject*>(Py_TYPE(x)) == torch->tensor_type;
}

std::optional<Operand> FromTorchHost(PyObject* x, const char* name) {
  if (!IsTorchTensor(x)) return std::nullopt;
  const TorchObjects& t = *g_torch;
  const bool on_cpu = Get(x, t.is_cpu).ptr() == Py_True;
  if (CallMethod(x, t.is_neg).ptr() != Py_False) {
    // A negative view's memory holds the negated values; PyTorch's __dlpack__ exports that memory
    // as it lies (2.15), so nothing may read or write such a tensor's bytes as its values.
    const std::string n = name;
    if (n == "x" && on_cpu) {
      const nb::object values = CallMethod(x, t.resolve_neg);  // a copy holding the values
      std::optional<Operand> o = FromTorchHost(values.ptr(), name);
      if (o) return o;
    }
    throw ValueError(
        n + " is a PyTorch tensor with the negative bit set (is_neg(): a view whose memory holds " +
        "the negated values); eltwise reads and writes memory as it lies: pass " +
        (n == "x" ? n + ".resolve_neg()" : std::string("a tensor without it")));
  }
  if (!on_cpu || Get(x, t.layout).ptr() != t.strided || Get(x, t.requires_grad).ptr() != Py_False ||
      Get(x, t.is_nested).ptr() != Py_False) {
    return std::nullopt;
  }
  Operand o;
  const nb::object dtype = Get(x, t.dtype);
  const auto known = std::find_if(t.dtypes.begin(), t.dtypes.end(),
                                  [&](const auto& entry) { return entry.first == dtype.ptr(); });
  if (known == t.dtypes.end()) return std::nullopt;
  o.type = known->second;
  const nb::object shape = Get(x, t.shape);
  const nb::object strides = CallMethod(x, t.stride);
  if (!PyTuple_Check(shape.ptr()) || !PyTuple_Check(strides.ptr()) ||
      PyTuple_Size(shape.ptr()) != PyTuple_Size(strides.ptr())) {
    return std::nullopt;
  }
  const auto rank = static_cast<size_t>(PyTuple_Size(shape.ptr()));
  o.sizes.resize(rank);
  o.strides.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t size = Int(PyTuple_GetItem(shape.ptr(), static_cast<Py_ssize_t>(i)));
    if (size < 0) return std::nullopt;
    o.sizes[i] = static_cast<uint64_t>(size);
    o.strides[i] = Int(PyTuple_GetItem(strides.ptr(), static_cast<Py_ssize_t>(i)));
  }
  o.object = nb::borrow(x);
  o.origin = DataPointer(x);  // element (0, ..., 0): the storage's address plus the offset
  o.place = {DeviceKind::kCpu, 0};
  o.writable = true;
  return o;
}

nb::object TorchEmptyLike(nb::handle x) {
  const TorchObjects* torch = LoadedTorch();
  if (torch == nullptr) return nb::module_::import_("torch").attr("empty_like")(x);
  PyObject* args[] = {x.ptr()};  // the stable ABI's form of PyObject_CallOneArg
  PyObject* result = PyObject_Vectorcall(torch->empty_like, args, 1, nullptr);
  if (result == nullptr) throw nb::python_error();
  return nb::steal(result);
}

std::byte* TorchDataPointer(nb::handle tensor) { return DataPointer(tensor.ptr()); }

}  // namespace eltwise::python
