#include "dispatch.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>

#include "core/op_registry.h"
#include "errors.h"
#include "numpy_api.h"
#include "operands.h"
#include "runner.h"
#include "staging/host_run.h"
#include "staging/operator_cache.h"
#include "staging/staging.h"
#include "torch_tensors.h"
#include "ufuncs.h"

namespace eltwise::python {
namespace {

// ---------------------------------------------------------------------------------------------
// What the routes need to know about the operands.

bool OnHostAtExtendedLevel(const Request& r) {
  return r.level == FeatureLevel::kExtended && r.place.kind == DeviceKind::kCpu;
}

bool HasArrayUfunc(PyObject* x) {
  PyObject* method =
      PyObject_GetAttrString(reinterpret_cast<PyObject*>(Py_TYPE(x)), "__array_ufunc__");
  if (method == nullptr) {
    PyErr_Clear();
    return false;
  }
  const bool has = method != Py_None;
  Py_DECREF(method);
  return has;
}

bool HasDLPack(PyObject* x) {
  return PyObject_HasAttrString(x, "__dlpack__") && PyObject_HasAttrString(x, "__dlpack_device__");
}

// The bytes [first, last) an array's elements can touch.
std::pair<const char*, const char*> ByteBounds(PyArrayObject* a) {
  const char* first = PyArray_BYTES(a);
  const char* last = first + PyArray_ITEMSIZE(a);
  for (int i = 0; i < PyArray_NDIM(a); ++i) {
    const npy_intp extent = (PyArray_DIM(a, i) - 1) * PyArray_STRIDE(a, i);
    (extent < 0 ? first : last) += extent;
  }
  return {first, last};
}

// Whether two non-empty arrays' byte ranges meet (overlapping operands go to the library, which
// reads x whole before writing out).
bool SharesBytes(PyArrayObject* a, PyArrayObject* b) {
  const auto [a_first, a_last] = ByteBounds(a);
  const auto [b_first, b_last] = ByteBounds(b);
  return a_first < b_last && b_first < a_last;
}

// Whether `bytes` bytes at a and at b are the same bytes or share none: the packed routes' rule
// for x and out (a partial overlap goes to the library, which reads x whole before writing out).
// Compared as addresses: the two are in general different objects.
bool SameOrDisjoint(const std::byte* a, const std::byte* b, uint64_t bytes) {
  const auto x = reinterpret_cast<uintptr_t>(a);
  const auto y = reinterpret_cast<uintptr_t>(b);
  return x == y || bytes == 0 || x >= y + bytes || y >= x + bytes;
}

// The packed route's condition, for an exact NumPy array x: a contiguous array (C or Fortran
// order) of an eltwise type on the host at the extended level, and an out that is absent or a
// contiguous array of the same dtype, shape and order that is x or shares no byte with it: every
// element of out is its element of x, so the library's kernel runs over the whole run. Returns
// x's type when the call qualifies.
std::optional<DataType> PackedType(const Request& r, PyObject* x_object, PyObject* out_object) {
  if (!OnHostAtExtendedLevel(r)) return std::nullopt;
  auto* x = reinterpret_cast<PyArrayObject*>(x_object);
  const PyArray_Descr* descr = PyArray_DESCR(x);
  if (PyArray_ISBYTESWAPPED(x)) return std::nullopt;
  const std::optional<DataType> type = TypeOfDescr(descr);
  if (!type) return std::nullopt;
  const int flags = PyArray_FLAGS(x);
  const bool c_order = (flags & NPY_ARRAY_C_CONTIGUOUS) != 0;
  const bool f_order = (flags & NPY_ARRAY_F_CONTIGUOUS) != 0;
  if (!c_order && !f_order) return std::nullopt;
  if (out_object == Py_None) return type;
  if (!PyArray_CheckExact(out_object)) return std::nullopt;
  auto* out = reinterpret_cast<PyArrayObject*>(out_object);
  const int out_flags = PyArray_FLAGS(out);
  if (PyArray_DESCR(out)->type_num != descr->type_num || PyArray_ISBYTESWAPPED(out) ||
      (out_flags & NPY_ARRAY_WRITEABLE) == 0 || PyArray_NDIM(out) != PyArray_NDIM(x) ||
      !PyArray_CompareLists(PyArray_DIMS(out), PyArray_DIMS(x), PyArray_NDIM(x)) ||
      !((c_order && (out_flags & NPY_ARRAY_C_CONTIGUOUS) != 0) ||
        (f_order && (out_flags & NPY_ARRAY_F_CONTIGUOUS) != 0))) {
    return std::nullopt;
  }
  const auto* in = static_cast<const std::byte*>(PyArray_DATA(x));
  const auto* o = static_cast<const std::byte*>(PyArray_DATA(out));
  const uint64_t bytes = static_cast<uint64_t>(PyArray_SIZE(x)) * ElementSize(*type);
  if (!SameOrDisjoint(in, o, bytes)) return std::nullopt;
  return type;
}

// The ufunc route's condition, for an exact NumPy array x: any other layout of a host array at the
// extended level (strided, reversed, broadcast; up to 8 dimensions), with no out or an out of the
// same dtype and shape: NumPy's iterator walks it and the ufunc's loop runs the library's kernels
// on each run (staging/host_run.h); NumPy copies operands that overlap other than exactly, which
// gives the "x read whole" result. Much cheaper per call than describing and compiling the layout.
// Not for 0-d arrays (a ufunc returns a scalar for them), more than kMaxRank dimensions (the
// library's rank rule, after merging, applies), non-native byte order or an out eltwise must check
// itself (another dtype or shape, a strided out: EltwiseError).
bool UfuncFits(const Request& r, PyObject* x_object, PyObject* out_object) {
  if (!OnHostAtExtendedLevel(r)) return false;
  auto* x = reinterpret_cast<PyArrayObject*>(x_object);
  if (PyArray_NDIM(x) == 0 || PyArray_NDIM(x) > kMaxRank || PyArray_ISBYTESWAPPED(x) ||
      !TypeOfDescr(PyArray_DESCR(x))) {
    return false;
  }
  if (out_object == Py_None) return true;
  if (!PyArray_CheckExact(out_object)) return false;
  auto* out = reinterpret_cast<PyArrayObject*>(out_object);
  // A contiguous out cannot map two elements to one address (the library refuses such outs).
  const int flags = PyArray_FLAGS(out);
  return PyArray_DESCR(out)->type_num == PyArray_DESCR(x)->type_num &&
         !PyArray_ISBYTESWAPPED(out) && (flags & NPY_ARRAY_WRITEABLE) != 0 &&
         (flags & (NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_F_CONTIGUOUS)) != 0 &&
         PyArray_NDIM(out) == PyArray_NDIM(x) &&
         PyArray_CompareLists(PyArray_DIMS(out), PyArray_DIMS(x), PyArray_NDIM(x)) &&
         PyArray_SIZE(x) > 0 && !SharesBytes(x, out);
}

// ---------------------------------------------------------------------------------------------
// The decision.

struct Route {
  enum Kind { kPacked, kUfunc, kTorch, kLibrary, kAsArray } kind;
  DataType type = DataType::kFloat32;  // x's type, for kPacked
};

Route ChooseRoute(const Request& r, PyObject* x, PyObject* out) {
  if (PyArray_CheckExact(x)) {
    if (const std::optional<DataType> type = PackedType(r, x, out)) {
      return {Route::kPacked, *type};
    }
    if (UfuncFits(r, x, out)) {
      // Into a given out, from x's size reaching the host fast path's threshold
      // (staging::HostInlineBytes), the library plans the whole layout (a transposed or permuted
      // x: tiles that read and write whole lines), where NumPy's iterator would hand the loop one
      // strided row at a time (a transposed float32 x of 64 MiB: about as slow as np.copyto).
      // Without an out, NumPy allocates one in x's memory order, which its iterator walks
      // contiguously.
      const auto* array = reinterpret_cast<PyArrayObject*>(x);
      const auto bytes = static_cast<uint64_t>(PyArray_NBYTES(array));
      if (out != Py_None && bytes >= staging::HostInlineBytes()) return {Route::kLibrary};
      return {Route::kUfunc};
    }
    return {Route::kLibrary};
  }
  if (IsTorchTensor(x)) return {Route::kTorch};
  const bool scalar = PyArray_IsAnyScalar(x);
  if (!scalar && !PyArray_Check(x) && HasDLPack(x)) return {Route::kLibrary};
  // Dask, xarray, pandas...: the ufunc keeps the container's kind.
  if (!scalar && HasArrayUfunc(x) && OnHostAtExtendedLevel(r)) return {Route::kUfunc};
  return {Route::kAsArray};
}

// ---------------------------------------------------------------------------------------------
// The packed route.

// n packed elements of `type` from in to out (the same or disjoint bytes) through the library's
// host fast path, without the GIL from kReleaseGilBytes moved.
void RunPackedElements(const Request& r, DataType type, const std::byte* in, std::byte* out,
                       uint64_t n) {
  const Function function = FunctionFor(r.op, r.option, type);
  const auto esize = static_cast<ptrdiff_t>(ElementSize(type));
  if (2 * n * ElementSize(type) >= kReleaseGilBytes) {
    Py_BEGIN_ALLOW_THREADS staging::RunHost(function, type, in, esize, out, esize, n, r.threads);
    Py_END_ALLOW_THREADS
  } else {
    staging::RunHost(function, type, in, esize, out, esize, n, r.threads);
  }
}

PyObject* RunPacked(const Request& r, DataType type, PyObject* x_object, PyObject* out_object) {
  auto* x = reinterpret_cast<PyArrayObject*>(x_object);
  PyArrayObject* out = nullptr;
  if (out_object == Py_None) {
    out = reinterpret_cast<PyArrayObject*>(PyArray_NewLikeArray(x, NPY_KEEPORDER, nullptr, 0));
    if (out == nullptr) throw nb::python_error();
  } else {
    out = reinterpret_cast<PyArrayObject*>(out_object);
    Py_INCREF(out_object);
  }
  RunPackedElements(r, type, static_cast<const std::byte*>(PyArray_DATA(x)),
                    static_cast<std::byte*>(PyArray_DATA(out)),
                    static_cast<uint64_t>(PyArray_SIZE(x)));
  return reinterpret_cast<PyObject*>(out);
}

// ---------------------------------------------------------------------------------------------
// The ufunc route.

// Sets the calling thread's default thread count for the scope of one call.
struct ThreadScope {
  bool active;
  int previous = -1;
  ThreadScope(bool given, int threads) : active(given) {
    if (active) previous = SetThreadOverride(threads);
  }
  ~ThreadScope() {
    if (active) SetThreadOverride(previous);
  }
};

nb::object RunUfunc(const Request& r, PyObject* x, PyObject* out) {
  nb::handle ufunc = UfuncFor(r.op, r.option);
  ThreadScope scope(r.threads_given, r.threads);
  if (out == Py_None) return ufunc(nb::handle(x));
  return ufunc(nb::handle(x), nb::arg("out") = nb::handle(out));
}

// ---------------------------------------------------------------------------------------------
// The library route.

const Device& GetDevice(const Place& place, FeatureLevel level, int threads, uintptr_t stream) {
  Expected<const Device*> device =
      python::GetDevice(place.kind, place.ordinal, level, threads, stream);
  if (!device.ok()) ThrowStatus(device.status());
  return **device;
}

// Runs `call` on `device` (without the GIL: it touches no Python object). At the extended level,
// operands in the device's own memory are bound where they lie, so the compiled operator can be
// kept (CompileCached); anything that needs staging (DirectML's binding rules on the host, host
// arrays on a CUDA device) takes the library's one staging path, which waits for its work. With
// `wait` false, work on a CUDA device's own memory is left queued on the device's stream.
Status RunOnDevice(const Device& device, const staging::StridedCall& call, bool wait) {
  const FeatureLevel level = device.feature_level();
  const bool in_device_memory =
      call.memory == staging::Memory::kDevice || device.kind() == DeviceKind::kCpu;
  if (level != FeatureLevel::kExtended || !in_device_memory) {
    return staging::RunStrided(device, call);
  }
  const staging::Geometry g = staging::DescribedGeometry(device, call);
  const OperatorDesc desc =
      WithTensors(call.op, staging::Describe(call.type, g.sizes, g.in_strides, level),
                  staging::Describe(call.type, g.sizes, g.out_strides, level));
  Expected<CompiledOperator> op = staging::CompileCached(device, desc);
  if (!op.ok()) return op.status();
  const staging::Region in = staging::RegionOf(call.input, call.type, g.sizes, g.in_strides);
  const staging::Region out = staging::RegionOf(call.output, call.type, g.sizes, g.out_strides);
  // RegionOf works on const bytes; the output region starts inside the caller's writable output.
  auto* out_lowest = call.output - (reinterpret_cast<const std::byte*>(call.output) - out.lowest);
  Status s = op->Execute(ConstBinding{in.lowest, in.span}, Binding{out_lowest, out.span});
  if (s.ok() && wait && device.kind() != DeviceKind::kCpu) s = Synchronize(device);
  return s;
}

nb::object RunOperands(const Request& r, Operand x, std::optional<Operand> out);

nb::object RunLibrary(const Request& r, nb::handle x_object, nb::handle out_object) {
  Operand x = Acquire(x_object, "x", r.stream);
  std::optional<Operand> out;
  if (!out_object.is_none()) out = Acquire(out_object, "out", r.stream);
  return RunOperands(r, std::move(x), std::move(out));
}

// The library route on operands already read (`out` nullopt for none).
nb::object RunOperands(const Request& r, Operand x, std::optional<Operand> out) {
  if (x.place.kind == DeviceKind::kCuda && !(r.place == x.place)) {
    throw ValueError("x is a tensor on " + Text(x.place) + " but device is '" + Text(r.place) +
                     "'; pass device='" + Text(x.place) + "'");
  }
  const Device& device = GetDevice(r.place, r.level, r.threads, r.stream);

  nb::object copy_back_to;  // a caller's out the library cannot describe: filled from a temporary
  if (out) {
    if (!out->writable) throw ValueError("out is read-only");
    if (!(out->place == x.place)) {
      throw ValueError("out is on " + Text(out->place) + " but x is on " + Text(x.place) +
                       "; they must be in the same memory");
    }
    if (out->type != x.type) {
      ThrowInvalid("out has type " + std::string(Name(out->type)) + " but x has type " +
                   std::string(Name(x.type)) + "; input and output must have the same type");
    }
    if (out->sizes != x.sizes) {
      ThrowInvalid("out has shape " + ShapeText(out->sizes) + " but x has shape " +
                   ShapeText(x.sizes) + "; input and output must have the same sizes");
    }
  }
  if (x.needs_copy) {  // only NumPy arrays: non-native byte order or byte strides
    nb::object dtype = NativeDtype(x.object.attr("dtype"));
    x = FromNumpy(g_numpy->attr("ascontiguousarray")(x.object, nb::arg("dtype") = dtype), "x");
  }
  if (out && out->needs_copy) {
    copy_back_to = out->object;
    out.reset();
  }
  if (!out) out = Acquire(AllocateLike(x), "out", r.stream);

  staging::StridedCall call;
  call.op = MakeDesc(r.op, r.option, TensorDesc{}, TensorDesc{});  // a prototype: its option
  call.type = x.type;
  call.geometry = staging::Geometry{x.sizes, x.strides, out->strides};
  if (std::find(x.sizes.begin(), x.sizes.end(), uint64_t{0}) != x.sizes.end()) {
    // No elements: strides address nothing. NumPy gives zero strides to some empty arrays, which
    // the output self-overlap rule would otherwise see before the zero size.
    call.geometry.in_strides = call.geometry.out_strides = PackedStrides(x.sizes);
  }
  call.input = x.origin;
  call.output = out->origin;
  call.memory = x.place.kind == r.place.kind ? staging::Memory::kDevice : staging::Memory::kHost;

  Status status;
  {
    nb::gil_scoped_release release;
    status = RunOnDevice(device, call, /*wait=*/r.stream == 0);
  }
  if (!status.ok()) {
    std::string note;
    if (r.level == FeatureLevel::kExtended && x.sizes.size() > kMaxRank) {
      note = " (x has " + std::to_string(x.sizes.size()) + " dimensions; " +
             std::to_string(staging::DescribedGeometry(device, call).sizes.size()) +
             " remain after merging the dimensions that are contiguous in both x and out)";
    }
    ThrowStatus(status, note);
  }
  if (copy_back_to.is_valid()) {
    g_numpy->attr("copyto")(copy_back_to, out->object);
    return copy_back_to;
  }
  return out->object;
}

// ---------------------------------------------------------------------------------------------
// The torch route.

bool IsPacked(const Operand& o) {
  int64_t expected = 1;
  for (size_t i = o.sizes.size(); i-- > 0;) {
    if (o.sizes[i] == 0) return true;
    if (o.sizes[i] != 1 && o.strides[i] != expected) return false;
    expected *= static_cast<int64_t>(o.sizes[i]);
  }
  return true;
}

// An exact torch.Tensor x, read directly on the host (torch_tensors.h): when x and out (absent or
// read the same way) are packed, of one type and shape, and the same or disjoint bytes, the
// packed route's fast path runs them; other host tensors take the library route with the operands
// already read, and anything FromTorchHost declines (CUDA tensors, ...) the DLPack route: x
// through the library route, an out beside an x read here through Acquire.
nb::object RunTorch(const Request& r, PyObject* x_object, PyObject* out_object) {
  std::optional<Operand> x = FromTorchHost(x_object, "x");
  if (!x) return RunLibrary(r, x_object, out_object);
  std::optional<Operand> out;
  if (out_object != Py_None) {
    out = FromTorchHost(out_object, "out");
    if (!out) return RunOperands(r, std::move(*x), Acquire(out_object, "out", r.stream));
  }
  if (OnHostAtExtendedLevel(r) && IsPacked(*x) &&
      (!out || (out->type == x->type && out->sizes == x->sizes && IsPacked(*out)))) {
    const uint64_t n = staging::ElementCount(x->sizes);
    const std::byte* in = x->origin;
    if (!out || SameOrDisjoint(in, out->origin, n * x->element_size())) {
      nb::object result = out ? nb::borrow(out_object) : TorchEmptyLike(x->object);
      std::byte* o = out ? out->origin : TorchDataPointer(result);
      RunPackedElements(r, x->type, in, o, n);
      return result;
    }
  }
  return RunOperands(r, std::move(*x), std::move(out));
}

// ---------------------------------------------------------------------------------------------
// The as-array route.

nb::object RunAsArray(const Request& r, PyObject* x, PyObject* out) {
  // Lists, Python and NumPy scalars, buffers, objects with __array__: read as NumPy does.
  // ENSUREARRAY: an ndarray subclass becomes a base-class view (decided again as such).
  nb::object array = nb::steal(PyArray_FromAny(x, nullptr, 0, 0, NPY_ARRAY_ENSUREARRAY, nullptr));
  if (!array.is_valid()) throw nb::python_error();
  const auto* a = reinterpret_cast<PyArrayObject*>(array.ptr());
  if (!TypeOfDescr(PyArray_DESCR(a)) && !PyArray_Check(x)) {
    throw TypeError("x is a " + TypeName(x) + " (NumPy reads it as dtype " +
                    StrOf(array.attr("dtype").ptr()) +
                    "); eltwise takes NumPy arrays, array_likes and objects with __dlpack__ "
                    "(PyTorch tensors, ...) of type " +
                    std::string(kSupportedTypes + sizeof("eltwise supports ") - 1));
  }
  nb::object result = Dispatch(r, array.ptr(), out);
  if (out == Py_None && !PyArray_Check(x) && PyArray_NDIM(a) == 0) {
    return nb::steal(PyArray_Return(reinterpret_cast<PyArrayObject*>(result.release().ptr())));
  }
  return result;
}

}  // namespace

nb::object Dispatch(const Request& r, PyObject* x, PyObject* out) {
  const Route route = ChooseRoute(r, x, out);
  switch (route.kind) {
    case Route::kPacked:
      return nb::steal(RunPacked(r, route.type, x, out));
    case Route::kUfunc:
      return RunUfunc(r, x, out);
    case Route::kTorch:
      return RunTorch(r, x, out);
    case Route::kLibrary:
      return RunLibrary(r, x, out);
    case Route::kAsArray:
      break;
  }
  return RunAsArray(r, x, out);
}

}  // namespace eltwise::python
