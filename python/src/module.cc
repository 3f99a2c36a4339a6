// eltwise._core: the Python binding's module definition: the entry points (one vectorcall
// function per registry op, its docstring from the registry), the ufuncs and the other functions.
// A call is parsed by arguments.h and run by dispatch.h; operands come in through operands.h.
// Nothing here holds semantics of its own: every result and every validation message comes from
// the library.

#define ELTWISE_IMPORT_NUMPY  // NumPy's C API tables are defined in this translation unit
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arguments.h"
#include "core/op_registry.h"
#include "dispatch.h"
#include "eltwise/eltwise.h"
#include "errors.h"
#include "numpy_api.h"
#include "operands.h"
#include "runner.h"
#include "runtime_identity.h"
#include "staging/host_run.h"
#include "staging/operator_cache.h"
#include "ufuncs.h"

namespace py = pybind11;

namespace eltwise::python {
namespace {

std::string Repr(py::handle h) { return py::repr(h).cast<std::string>(); }

// "'sign' or 'round'": every registry op's name.
std::string OpChoices() {
  std::vector<std::string_view> names;
  for (const OpInfo& info : AllOps()) names.push_back(info.name);
  return Choices(names);
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

// The entry point of `op`: Name(op)(x, out=None, *, <option field>=..., feature_level=...,
// device=..., threads=None), its docstring Info(op).python_doc.
template <Op op>
PyObject* OpEntry(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return Guarded([&] {
    const Call call = ParseCall(op, args, nargs, kwnames);
    return Dispatch(call.request, call.x, call.out);
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
  if (!o) throw py::value_error("op is '" + op + "'; it must be " + OpChoices());
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
  d["cpu_model"] = info.cpu_model;
  d["l1d_cache_bytes"] = info.l1d_cache_bytes;
  d["l2_cache_bytes"] = info.l2_cache_bytes;
  d["l3_cache_bytes"] = info.l3_cache_bytes;
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
  // What every host run uses, opened here (with the GIL, where a failure can be raised): the
  // ufunc loops run without it and cannot report one.
  if (ew::Status s = ew::staging::PrepareHostRuns(); !s.ok()) ThrowStatus(s);
  m.doc() = "eltwise's compiled core; use the eltwise package.";
  // Each docstring starts with its Python signature (pybind11's would show C++ handle types).
  py::options options;
  options.disable_function_signatures();

  // The module holds the reference CreateErrorType made.
  m.attr("EltwiseError") = py::handle(CreateErrorType());
  m.attr("OutOfMemoryError") = py::handle(CreateOutOfMemoryErrorType());
  m.attr("__version__") = std::string(ew::Version());

  InternNames();
  // One entry point per op of the registry, named Name(op). The registry's names and docstrings
  // are string literals, so their data() is NUL-terminated.
#define ELTWISE_ENTRY_POINT(e, Desc)                                                 \
  {ew::Info(ew::Op::e).name.data(),                                                  \
   reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&OpEntry<ew::Op::e>)), \
   METH_FASTCALL | METH_KEYWORDS, ew::Info(ew::Op::e).python_doc.data()},
  static PyMethodDef entry_points[] = {ELTWISE_FOR_EACH_OP(ELTWISE_ENTRY_POINT)};
#undef ELTWISE_ENTRY_POINT
  py::list op_names;  // _ops: what eltwise/__init__.py exports from here
  for (PyMethodDef& def : entry_points) {
    py::object function = py::reinterpret_steal<py::object>(
        PyCFunction_NewEx(&def, m.ptr(), m.attr("__name__").ptr()));
    if (!function) throw py::error_already_set();
    m.attr(def.ml_name) = function;
    op_names.append(py::str(def.ml_name));
  }
  m.attr("_ops") = py::tuple(op_names);

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
  m.def(
      "_operator_cache_size", [] { return ew::staging::OperatorCache::Global().size(); },
      "How many compiled operators the library's cache holds (at most 256).");
  m.def("_runtime_identity", &RuntimeIdentity,
        "(operator cache address, host backend address) of the library this module runs on.");

  m.def("supports", &SupportsPy, py::arg("op"), py::arg("dtype"), py::arg("ndim"),
        py::arg("feature_level") = "extended",
        R"doc(supports(op, dtype, ndim, feature_level="extended") -> bool

Whether `op` ("sign" or "round") accepts tensors of `dtype` (a NumPy dtype, a dtype name such as
"float16" or "bfloat16", or a NumPy short name such as "f2") with `ndim` dimensions at
`feature_level`, like DirectML's CheckFeatureSupport. False for a NumPy dtype eltwise does not
handle (complex, bool, ...); TypeError for something that is not a dtype.)doc");

  m.def("info", &InfoPy, R"doc(info() -> dict

What this build and machine offer: version, cpu_targets (best first), simd_targets (the SIMD
ones among them; empty: scalar kernels only), hardware_threads, cpu_model,
l1d_cache_bytes, l2_cache_bytes, l3_cache_bytes (one instance of each; 0: not reported),
cuda_backend_built, cuda_devices, feature_levels, dtypes, rounding_modes, nan_policies.)doc");
}
