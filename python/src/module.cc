// eltwise._core: the Python binding's entry points. Operands come in through operands.h, calls
// that need descriptors run through staging.h, packed host runs and ufunc loops through runner.h.
// It holds no semantics of its own: every result and every validation message comes from the
// library.

#define ELTWISE_IMPORT_NUMPY
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/op_registry.h"
#include "dlpack.h"
#include "eltwise/eltwise.h"
#include "numpy_api.h"  // first: it includes Python.h
#include "operands.h"
#include "runner.h"
#include "staging.h"
#include "ufuncs.h"

namespace py = pybind11;

namespace eltwise::python {
namespace {

// Module-lifetime object, created at import (never inside a call); intentionally leaked: it must
// outlive every call, including calls made while the interpreter shuts down.
PyObject* g_error_type = nullptr;

// ---------------------------------------------------------------------------------------------
// Errors

// Raises eltwise.EltwiseError carrying the library's message; `code` names the status code.
[[noreturn]] void ThrowStatus(const Status& status, const std::string& note = "") {
  py::object type = py::reinterpret_borrow<py::object>(g_error_type);
  py::object error = type(status.message() + note);
  error.attr("code") = std::string(Name(status.code()));
  PyErr_SetObject(g_error_type, error.ptr());
  throw py::error_already_set();
}

// A rule the library states in terms of its descriptors, checked here on the Python objects
// because the descriptors the library would see are already merged or staged.
[[noreturn]] void ThrowInvalid(const std::string& message) {
  ThrowStatus(InvalidArgument(message));
}

std::string Repr(py::handle h) { return py::repr(h).cast<std::string>(); }

// ---------------------------------------------------------------------------------------------
// Options

Place ParseDevice(const std::string& device) {
  if (std::optional<Place> place = ParsePlace(device)) return *place;
  throw py::value_error("device is '" + device + "'; it must be 'cpu', 'cuda' or 'cuda:N'");
}

FeatureLevel ParseLevel(const std::string& name) {
  if (std::optional<FeatureLevel> level = ParseFeatureLevel(name)) return *level;
  std::string known;
  for (FeatureLevel level : AllFeatureLevels()) {
    if (!known.empty()) known += ", ";
    known += Name(level);
  }
  throw py::value_error("feature_level is '" + name + "'; it must be one of " + known);
}

const Device& GetDevice(const Place& place, FeatureLevel level, int threads) {
  Expected<const Device*> device = python::GetDevice(place.kind, place.ordinal, level, threads);
  if (!device.ok()) ThrowStatus(device.status());
  return **device;
}

// ---------------------------------------------------------------------------------------------
// The operations

struct Request {
  Op op = Op::kSign;
  int option = 0;  // the op registry's option value (0: the op's default)
  FeatureLevel level = FeatureLevel::kExtended;
  Place place;
  int threads = 0;             // for the CPU device; 0: one per hardware thread
  bool threads_given = false;  // threads= was passed (else the default of runner.h)
};

OperatorDesc MakeDesc(const Request& r, TensorDesc in, TensorDesc out) {
  return eltwise::MakeDesc(r.op, r.option, std::move(in), std::move(out));
}

py::object Run(const Request& r, py::handle x_object, py::handle out_object) {
  Operand x = Acquire(x_object, "x");
  if (x.place.kind == DeviceKind::kCuda && !(r.place == x.place)) {
    throw py::value_error("x is a tensor on " + Text(x.place) + " but device is '" + Text(r.place) +
                          "'; pass device='" + Text(x.place) + "'");
  }
  const Device& device = GetDevice(r.place, r.level, r.threads);

  std::optional<Operand> out;
  py::object copy_back_to;  // a caller's out the library cannot describe: filled from a temporary
  if (!out_object.is_none()) {
    out = Acquire(out_object, "out");
    if (!out->writable) throw py::value_error("out is read-only");
    if (!(out->place == x.place)) {
      throw py::value_error("out is on " + Text(out->place) + " but x is on " + Text(x.place) +
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
    py::object dtype = NativeDtype(x.object.attr("dtype"));
    x = FromNumpy(g_numpy->attr("ascontiguousarray")(x.object, py::arg("dtype") = dtype), "x");
  }
  if (out && out->needs_copy) {
    copy_back_to = out->object;
    out.reset();
  }
  if (!out) out = Acquire(AllocateLike(x), "out");

  staging::StridedCall call;
  call.op = MakeDesc(r, TensorDesc{}, TensorDesc{});  // a prototype: its option
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
    py::gil_scoped_release release;
    status = RunCall(device, call);
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
  if (copy_back_to) {
    g_numpy->attr("copyto")(copy_back_to, out->object);
    return copy_back_to;
  }
  return out->object;
}

// ---------------------------------------------------------------------------------------------
// Entry points: sign and round as vectorcall functions. Arguments are matched by pointer against
// interned names (keywords and string literals in Python code are interned), options are parsed
// into enums once, and a contiguous NumPy array in host memory at the extended level runs straight
// into the library's kernel without descriptors, compile or staging (TryPacked).

struct Interned {
  PyObject *x, *out, *feature_level, *device, *threads;
  PyObject *extended, *cpu;
  std::vector<PyObject*> option_fields;               // by Op: "nan", "mode"
  std::vector<std::vector<PyObject*>> option_values;  // by Op, then option value
};
Interned* g_interned = nullptr;

PyObject* Intern(std::string_view text) {
  PyObject* s = PyUnicode_InternFromString(std::string(text).c_str());
  if (s == nullptr) throw py::error_already_set();
  return s;  // a new reference, kept for the module's lifetime
}

void InitInterned() {
  auto* n = new Interned();
  n->x = Intern("x");
  n->out = Intern("out");
  n->feature_level = Intern("feature_level");
  n->device = Intern("device");
  n->threads = Intern("threads");
  n->extended = Intern(Name(FeatureLevel::kExtended));
  n->cpu = Intern("cpu");
  for (const OpInfo& info : AllOps()) {
    n->option_fields.push_back(Intern(info.option.field));
    std::vector<PyObject*>& values = n->option_values.emplace_back();
    for (std::string_view name : info.option.names) values.push_back(Intern(name));
  }
  g_interned = n;
}

bool SameName(PyObject* name, PyObject* interned) {
  return name == interned || PyUnicode_Compare(name, interned) == 0;
}

std::string TypeName(PyObject* o) { return Py_TYPE(o)->tp_name; }

// "'a', 'b' or 'c'"
std::string Choices(std::span<const std::string_view> names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += "'" + std::string(names[i]) + "'";
  }
  return text;
}

// An option's text; TypeError naming the option and its accepted values for anything not a str.
std::string OptionText(PyObject* value, const char* option, const std::string& accepted) {
  if (!PyUnicode_Check(value)) {
    throw py::type_error(std::string(option) + " must be a str, " + accepted + "; got " +
                         TypeName(value));
  }
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(value, &size);
  if (text == nullptr) throw py::error_already_set();
  return std::string(text, static_cast<size_t>(size));
}

// The value of `op`'s option (nan=, mode=); absent: value 0, the op's default.
int OptionArgument(Op op, PyObject* value) {
  if (value == nullptr) return 0;
  const std::vector<PyObject*>& interned = g_interned->option_values[static_cast<size_t>(op)];
  for (size_t i = 0; i < interned.size(); ++i) {
    if (value == interned[i]) return static_cast<int>(i);
  }
  const OptionInfo& option = Info(op).option;
  const std::string field(option.field);
  const std::string accepted = Choices(option.names);
  const std::string text = OptionText(value, field.c_str(), accepted);
  for (size_t i = 0; i < option.names.size(); ++i) {
    if (text == option.names[i]) return static_cast<int>(i);
  }
  throw py::value_error(field + " is '" + text + "'; it must be " + accepted);
}

FeatureLevel LevelArgument(PyObject* value) {
  if (value == nullptr || value == g_interned->extended) return FeatureLevel::kExtended;
  return ParseLevel(
      OptionText(value, "feature_level", "'extended' or a DirectML level such as '4_1'"));
}

Place DeviceArgument(PyObject* value) {
  if (value == nullptr || value == g_interned->cpu) return {DeviceKind::kCpu, 0};
  return ParseDevice(OptionText(value, "device", "'cpu', 'cuda' or 'cuda:N'"));
}

// threads=: None (the default of runner.h) or an int >= 0 (0: one per hardware thread).
int ThreadsArgument(PyObject* value, bool* given) {
  *given = value != nullptr && value != Py_None;
  if (!*given) return DefaultThreads();
  if (!PyLong_Check(value) || PyBool_Check(value)) {
    throw py::type_error("threads must be None or an int >= 0 (0: one per hardware thread); got " +
                         TypeName(value));
  }
  const long long threads = PyLong_AsLongLong(value);
  if (threads == -1 && PyErr_Occurred()) PyErr_Clear();
  if (threads < 0 || threads > 65536) {
    throw py::value_error("threads is " + py::str(value).cast<std::string>() +
                          "; it must be None or an int from 0 (one per hardware thread) to 65536");
  }
  return static_cast<int>(threads);
}

struct Arguments {
  PyObject* x = nullptr;
  PyObject* out = Py_None;
  PyObject* option = nullptr;  // nan for sign, mode for round
  PyObject* feature_level = nullptr;
  PyObject* device = nullptr;
  PyObject* threads = nullptr;
};

// Python's rules for f(x, out=None, *, <option>=..., feature_level=..., device=..., threads=None).
Arguments ParseArguments(const char* function, PyObject* option_name, PyObject* const* args,
                         Py_ssize_t nargs, PyObject* kwnames) {
  Arguments a;
  const std::string f = function;
  if (nargs > 2) {
    throw py::type_error(f + "() takes from 1 to 2 positional arguments (x, out) but " +
                         std::to_string(nargs) + " were given; options are keyword-only");
  }
  if (nargs >= 1) a.x = args[0];
  if (nargs >= 2) a.out = args[1];
  bool out_given = nargs >= 2;
  const Py_ssize_t nkw = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, i);
    PyObject* value = args[nargs + i];
    PyObject** slot = nullptr;
    if (SameName(name, g_interned->x)) {
      if (a.x != nullptr) throw py::type_error(f + "() got multiple values for argument 'x'");
      a.x = value;
      continue;
    }
    if (SameName(name, g_interned->out)) {
      if (out_given) throw py::type_error(f + "() got multiple values for argument 'out'");
      a.out = value;
      out_given = true;
      continue;
    }
    if (SameName(name, option_name)) {
      slot = &a.option;
    } else if (SameName(name, g_interned->feature_level)) {
      slot = &a.feature_level;
    } else if (SameName(name, g_interned->device)) {
      slot = &a.device;
    } else if (SameName(name, g_interned->threads)) {
      slot = &a.threads;
    } else {
      throw py::type_error(f + "() got an unexpected keyword argument '" +
                           py::str(name).cast<std::string>() + "'");
    }
    *slot = value;  // a keyword appears at most once (Python checks)
  }
  if (a.x == nullptr) throw py::type_error(f + "() missing required argument 'x'");
  return a;
}

// A contiguous NumPy array (C or Fortran order) on the host at the extended level, and an out
// that is absent or a contiguous array of the same dtype, shape and order that is x or shares no
// byte with it: every element of out is its element of x, so the library's kernel runs over the
// whole run (runner.h). Returns nullptr (no error set) when the call does not qualify.
PyObject* TryPacked(const Request& r, PyObject* x_object, PyObject* out_object) {
  if (r.level != FeatureLevel::kExtended || r.place.kind != DeviceKind::kCpu) return nullptr;
  auto* x = reinterpret_cast<PyArrayObject*>(x_object);
  const PyArray_Descr* descr = PyArray_DESCR(x);
  if (PyArray_ISBYTESWAPPED(x)) return nullptr;
  const std::optional<DataType> type = TypeOfDescr(descr);
  if (!type) return nullptr;
  const int flags = PyArray_FLAGS(x);
  const bool c_order = (flags & NPY_ARRAY_C_CONTIGUOUS) != 0;
  const bool f_order = (flags & NPY_ARRAY_F_CONTIGUOUS) != 0;
  if (!c_order && !f_order) return nullptr;
  const auto n = static_cast<uint64_t>(PyArray_SIZE(x));
  const uint64_t bytes = n * ElementSize(*type);
  auto* in = static_cast<const std::byte*>(PyArray_DATA(x));
  PyArrayObject* out = nullptr;
  if (out_object == Py_None) {
    out = reinterpret_cast<PyArrayObject*>(PyArray_NewLikeArray(x, NPY_KEEPORDER, nullptr, 0));
    if (out == nullptr) throw py::error_already_set();
  } else {
    if (!PyArray_CheckExact(out_object)) return nullptr;
    out = reinterpret_cast<PyArrayObject*>(out_object);
    const int out_flags = PyArray_FLAGS(out);
    if (PyArray_DESCR(out)->type_num != descr->type_num || PyArray_ISBYTESWAPPED(out) ||
        (out_flags & NPY_ARRAY_WRITEABLE) == 0 || PyArray_NDIM(out) != PyArray_NDIM(x) ||
        !PyArray_CompareLists(PyArray_DIMS(out), PyArray_DIMS(x), PyArray_NDIM(x)) ||
        !((c_order && (out_flags & NPY_ARRAY_C_CONTIGUOUS) != 0) ||
          (f_order && (out_flags & NPY_ARRAY_F_CONTIGUOUS) != 0))) {
      return nullptr;
    }
    const auto* o = static_cast<const std::byte*>(PyArray_DATA(out));
    if (o != in && bytes != 0 && o < in + bytes && in < o + bytes) return nullptr;  // partial
    Py_INCREF(out);
  }
  const Function function = FunctionFor(r.op, r.option, *type);
  auto* o = static_cast<std::byte*>(PyArray_DATA(out));
  const auto esize = static_cast<ptrdiff_t>(ElementSize(*type));
  if (2 * bytes >= kReleaseGilBytes) {
    Py_BEGIN_ALLOW_THREADS RunHost(function, *type, in, esize, o, esize, n, r.threads);
    Py_END_ALLOW_THREADS
  } else {
    RunHost(function, *type, in, esize, o, esize, n, r.threads);
  }
  return reinterpret_cast<PyObject*>(out);
}

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

py::object ViaUfunc(const Request& r, PyObject* x, PyObject* out) {
  py::handle ufunc = UfuncFor(r.op, r.option);
  ThreadScope scope(r.threads_given, r.threads);
  if (out == Py_None) return ufunc(py::handle(x));
  return ufunc(py::handle(x), py::arg("out") = py::handle(out));
}

// Any other layout of a host array at the extended level (strided, reversed, broadcast; up to
// 8 dimensions), with no out or an out of the same dtype and shape: NumPy's iterator walks it
// and the ufunc's loop runs the library's kernels on each run (runner.h); NumPy copies operands
// that overlap other than exactly, which gives the "x read whole" result. Much cheaper per call
// than describing and compiling the layout. Not for 0-d arrays (a ufunc returns a scalar for them),
// more than kMaxRank dimensions (the library's rank rule, after merging, applies),
// non-native byte order or an out eltwise must check itself (another dtype or shape, a strided
// out: EltwiseError).
// Whether two non-empty arrays' byte ranges meet (overlapping operands go to the library, which
// reads x whole before writing out).
bool SharesBytes(PyArrayObject* a, PyArrayObject* b);

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

bool SharesBytes(PyArrayObject* a, PyArrayObject* b) {
  const auto [a_first, a_last] = ByteBounds(a);
  const auto [b_first, b_last] = ByteBounds(b);
  return a_first < b_last && b_first < a_last;
}

bool UfuncFits(const Request& r, PyObject* x_object, PyObject* out_object) {
  if (r.level != FeatureLevel::kExtended || r.place.kind != DeviceKind::kCpu) return false;
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

py::object Dispatch(const Request& r, PyObject* x, PyObject* out) {
  if (PyArray_CheckExact(x)) {
    if (PyObject* result = TryPacked(r, x, out)) return py::reinterpret_steal<py::object>(result);
    if (UfuncFits(r, x, out)) return ViaUfunc(r, x, out);
    return Run(r, x, out);
  }
  const bool plain = r.level == FeatureLevel::kExtended && r.place.kind == DeviceKind::kCpu;
  const bool scalar = PyArray_IsAnyScalar(x);
  if (!scalar && !PyArray_Check(x) && HasDLPack(x)) return Run(r, x, out);
  if (!scalar && HasArrayUfunc(x) && plain) return ViaUfunc(r, x, out);  // Dask, xarray, pandas...
  // Lists, Python and NumPy scalars, buffers, objects with __array__: read as NumPy does.
  // ENSUREARRAY: an ndarray subclass becomes a base-class view (the call above comes back here).
  py::object array = py::reinterpret_steal<py::object>(
      PyArray_FromAny(x, nullptr, 0, 0, NPY_ARRAY_ENSUREARRAY, nullptr));
  if (!array) throw py::error_already_set();
  const auto* a = reinterpret_cast<PyArrayObject*>(array.ptr());
  if (!TypeOfDescr(PyArray_DESCR(a)) && !PyArray_Check(x)) {
    throw py::type_error("x is a " + TypeName(x) + " (NumPy reads it as dtype " +
                         py::str(array.attr("dtype")).cast<std::string>() +
                         "); eltwise takes NumPy arrays, array_likes and objects with __dlpack__ "
                         "(PyTorch tensors, ...) of type " +
                         std::string(kSupportedTypes + sizeof("eltwise supports ") - 1));
  }
  py::object result = Dispatch(r, array.ptr(), out);
  if (out == Py_None && !PyArray_Check(x) && PyArray_NDIM(a) == 0) {
    return py::reinterpret_steal<py::object>(
        PyArray_Return(reinterpret_cast<PyArrayObject*>(result.release().ptr())));
  }
  return result;
}

// Runs a C++ body as a Python function: Python errors pass through, C++ exceptions become the
// matching Python ones.
template <class Body>
PyObject* Guarded(const Body& body) {
  try {
    return body().release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

// The first lines are the signature CPython shows (__text_signature__, inspect.signature).
constexpr const char* kSignDoc =
    R"doc(sign($module, x, out=None, *, nan='zero', feature_level='extended', device='cpu', threads=None)
--

Elementwise sign: +1 for x > 0, -1 for x < 0, +0 for +0 and -0 (DirectML ELEMENT_WISE_SIGN,
ONNX Sign). Unsigned integers give 0 or 1; signed integers -1, 0 or 1 (INT_MIN gives -1).

Parameters
----------
x : array_like
    A NumPy array, anything NumPy reads as one (lists, Python and NumPy scalars), an object with
    __dlpack__ (PyTorch, ...) or one that implements __array_ufunc__ (Dask arrays, xarray,
    pandas: they get eltwise.ufunc.sign_nan_<nan> and keep their kind). float32, float16,
    bfloat16 (ml_dtypes), float64, int8/16/32/64 or uint8/16/32/64, any layout.
out : array, optional
    Where to write the result: same shape and dtype as x. It may be x itself (in place) or
    overlap x in any way; the result is as if x were read whole before out is written.
nan : {'zero', 'propagate'}
    Result for NaN: 'zero' gives +0 (DirectML, PyTorch, ONNX Runtime CUDA); 'propagate' gives NaN
    (NumPy's np.sign, the ONNX reference).
feature_level : str
    'extended' (default) or a DirectML feature level ('2_0' ... '6_4'): the request is then
    validated exactly as DirectML would validate it (x's shape and strides are the tensor
    description; rank, dtype, size and stride rules apply).
device : {'cpu', 'cuda', 'cuda:N'}
    Where to run. CUDA tensors (DLPack) must use a CUDA device; host arrays on a CUDA device are
    copied there and back.
threads : int, optional
    CPU threads for this call (0: one per hardware thread); default: eltwise.num_threads /
    eltwise.set_num_threads.

Returns
-------
out, or a new array of x's shape and dtype (a NumPy scalar for a scalar x, a tensor of the same
library for DLPack input, the container's own kind for __array_ufunc__ containers).

Raises
------
EltwiseError (a ValueError) for a request eltwise rejects, with the library's message; TypeError
for an unsupported object, dtype or option type; ValueError for an unknown option value or a
read-only out.)doc";

constexpr const char* kRoundDoc =
    R"doc(round($module, x, out=None, *, mode='halves_to_nearest_even', feature_level='extended', device='cpu', threads=None)
--

Elementwise rounding to an integral value of the same dtype (DirectML ELEMENT_WISE_ROUND,
ONNX Round). The sign of zero is kept, infinities pass through, NaN stays NaN; integer dtypes
are copied unchanged (extended level only). As in np.rint, the second positional argument is out.

Parameters
----------
x : array_like
    As for sign (containers with __array_ufunc__ get eltwise.ufunc.round_<mode>).
out : array, optional
    As for sign: same shape and dtype; may be x or overlap it.
mode : str
    'halves_to_nearest_even' (np.rint, ONNX Round), 'toward_zero' (np.trunc), 'toward_infinity'
    (to nearest, halves away from zero: 2.5 -> 3, -2.5 -> -3; NOT ceil), 'down' (np.floor),
    'up' (np.ceil). 'down' and 'up' exist at the extended level only.
feature_level, device, threads :
    As for sign. Round needs DirectML feature level 2_1 or higher.

Returns
-------
out, or a new array of x's shape and dtype (a NumPy scalar for a scalar x).

Raises
------
EltwiseError (a ValueError) for a request eltwise rejects; TypeError for an unsupported object,
dtype or option type; ValueError for an unknown option value or a read-only out.)doc";

// Each op's docstring. A new op without a specialization does not compile here.
template <class Desc>
struct OpDoc;
template <>
struct OpDoc<SignDesc> {
  static constexpr const char* text = kSignDoc;
};
template <>
struct OpDoc<RoundDesc> {
  static constexpr const char* text = kRoundDoc;
};

// The entry point of `op`: Name(op)(x, out=None, *, <option field>=..., feature_level=...,
// device=..., threads=None).
template <Op op>
PyObject* OpEntry(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return Guarded([&] {
    const auto index = static_cast<size_t>(op);
    const Arguments a = ParseArguments(std::string(Info(op).name).c_str(),
                                       g_interned->option_fields[index], args, nargs, kwnames);
    Request r;
    r.op = op;
    r.option = OptionArgument(op, a.option);
    r.level = LevelArgument(a.feature_level);
    r.place = DeviceArgument(a.device);
    r.threads = ThreadsArgument(a.threads, &r.threads_given);
    return Dispatch(r, a.x, a.out);
  });
}

// `dtype` as eltwise's DataType; nullopt for a NumPy dtype eltwise has no type for. TypeError for
// something that is not a dtype at all.
std::optional<DataType> DataTypeArgument(py::handle dtype) {
  if (py::isinstance<py::str>(dtype)) {
    if (std::optional<DataType> t = ParseDataType(dtype.cast<std::string>())) return t;
  }
  py::object numpy_dtype;
  try {
    numpy_dtype = g_numpy->attr("dtype")(dtype);
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    throw py::type_error("dtype " + Repr(dtype) + " is not a data type; " + kSupportedTypes);
  }
  return TypeOfNumpyDtype(numpy_dtype);
}

bool SupportsPy(const std::string& op, py::handle dtype, int64_t ndim,
                const std::string& feature_level) {
  const std::optional<Op> o = ParseOp(op);
  if (!o) throw py::value_error("op is '" + op + "'; it must be 'sign' or 'round'");
  if (ndim < 0) throw py::value_error("ndim is " + std::to_string(ndim) + "; it must be >= 0");
  const FeatureLevel level = ParseLevel(feature_level);
  const std::optional<DataType> type = DataTypeArgument(dtype);
  if (!type || ndim > kMaxRank) return false;
  return Supports(level, *o, *type, static_cast<int>(ndim));
}

py::dict InfoPy() {
  const SystemInfo info = GetSystemInfo();
  py::dict d;
  d["version"] = info.version;
  d["cpu_targets"] = info.cpu_targets;
  d["simd_targets"] = info.simd_targets;
  d["hardware_threads"] = info.hardware_threads;
  d["cuda_backend_built"] = info.cuda_backend_built;
  d["cuda_devices"] = info.cuda_devices;
  py::list levels, types, modes;
  for (FeatureLevel level : AllFeatureLevels()) levels.append(std::string(Name(level)));
  for (int t = 0; t < kDataTypeCount; ++t)
    types.append(std::string(Name(static_cast<DataType>(t))));
  for (int m = 0; m < kRoundingModeCount; ++m) {
    modes.append(std::string(Name(static_cast<RoundingMode>(m))));
  }
  d["feature_levels"] = levels;
  d["dtypes"] = types;
  d["rounding_modes"] = modes;
  d["nan_policies"] = py::make_tuple("zero", "propagate");
  return d;
}

}  // namespace
}  // namespace eltwise::python

PYBIND11_MODULE(_core, m) {
  using namespace eltwise::python;
  namespace ew = eltwise;
  g_numpy = new py::module_(py::module_::import("numpy"));
  if (_import_array() < 0 || _import_umath() < 0) throw py::error_already_set();
  // pybind11's own NumPy table is a function-local static whose initialiser imports NumPy (which
  // may release the GIL): initialise it here, not in whichever threads first call in at once.
  py::detail::npy_api::get();
  m.doc() = "eltwise's compiled core; use the eltwise package.";
  // Each docstring starts with its Python signature (pybind11's would show C++ handle types).
  py::options options;
  options.disable_function_signatures();

  g_error_type = PyErr_NewExceptionWithDoc(
      "eltwise.EltwiseError",
      "Raised when eltwise rejects a request (a ValueError). str(error) is the library's message, "
      "which names the field and the rule; error.code is the status code name "
      "('invalid_argument', 'unsupported', 'out_of_memory', 'device_error', 'internal').",
      PyExc_ValueError, nullptr);
  if (g_error_type == nullptr) throw py::error_already_set();
  m.attr("EltwiseError") = py::handle(g_error_type);  // the module holds the reference we made
  m.attr("__version__") = std::string(ew::Version());

  InitInterned();
  // One entry point per op of the registry, named Name(op).
#define ELTWISE_ENTRY_POINT(e, Desc)                                                 \
  {ew::Info(ew::Op::e).name.data(),                                                  \
   reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&OpEntry<ew::Op::e>)), \
   METH_FASTCALL | METH_KEYWORDS, OpDoc<ew::Desc>::text},
  static PyMethodDef entry_points[] = {ELTWISE_FOR_EACH_OP(ELTWISE_ENTRY_POINT)};
#undef ELTWISE_ENTRY_POINT
  for (PyMethodDef& def : entry_points) {
    py::object function = py::reinterpret_steal<py::object>(
        PyCFunction_NewEx(&def, m.ptr(), m.attr("__name__").ptr()));
    if (!function) throw py::error_already_set();
    m.attr(def.ml_name) = function;
  }

  int bfloat16_type_num = -1;
  try {
    bfloat16_type_num = g_numpy->attr("dtype")(py::module_::import("ml_dtypes").attr("bfloat16"))
                            .attr("num")
                            .cast<int>();
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_ImportError)) throw;  // no ml_dtypes: no bfloat16 loops
  }
  py::dict ufuncs;
  for (const Ufunc& u : CreateUfuncs(bfloat16_type_num)) {
    ufuncs[py::str(u.name)] = py::handle(u.object);
  }
  m.attr("ufuncs") = ufuncs;

  m.def(
      "set_num_threads",
      [](int threads) {
        if (threads < 0) {
          throw py::value_error("threads is " + std::to_string(threads) +
                                "; it must be 0 (one per hardware thread) or positive");
        }
        SetProcessThreads(threads);
      },
      py::arg("threads"),
      R"doc(set_num_threads(threads) -> None

Sets how many threads a call uses by default, for the whole process (0: one per hardware thread,
the initial setting). A call's threads= and the num_threads context take precedence.)doc");
  m.def("get_num_threads", &ProcessThreads, R"doc(get_num_threads() -> int

The process-wide default of set_num_threads (0: one per hardware thread).)doc");
  m.def("_set_thread_override", &SetThreadOverride, py::arg("threads"),
        "Sets the calling thread's default thread count (-1: none); returns the previous one.");
  m.def("_operator_cache_size", &OperatorCacheSize,
        "How many compiled operators the module's cache holds (at most 256).");

  m.def("supports", &SupportsPy, py::arg("op"), py::arg("dtype"), py::arg("ndim"),
        py::arg("feature_level") = "extended",
        R"doc(supports(op, dtype, ndim, feature_level="extended") -> bool

Whether `op` ("sign" or "round") accepts tensors of `dtype` (a NumPy dtype, a dtype name such as
"float16" or "bfloat16", or a NumPy short name such as "f2") with `ndim` dimensions at
`feature_level`, like DirectML's CheckFeatureSupport. False for a NumPy dtype eltwise does not
handle (complex, bool, ...); TypeError for something that is not a dtype.)doc");

  m.def("info", &InfoPy, R"doc(info() -> dict

What this build and machine offer: version, cpu_targets (best first), simd_targets (the SIMD
ones among them; empty: scalar kernels only), hardware_threads,
cuda_backend_built, cuda_devices, feature_levels, dtypes, rounding_modes, nan_policies.)doc");
}
