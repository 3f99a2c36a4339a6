// eltwise._core: the Python binding's module definition: the entry points (one vectorcall
// function per registry op, its docstring from the registry), the ufuncs and the other functions.
// A call is parsed by arguments.h and run by dispatch.h; operands come in through operands.h.
// Nothing here holds semantics of its own: every result and every validation message comes from
// the library.

#define ELTWISE_IMPORT_NUMPY  // NumPy's C API tables are defined in this translation unit
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>    // _runtime_identity
#include <nanobind/stl/string.h>  // std::string arguments
#include <nanobind/stl/vector.h>  // info()

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

namespace nb = nanobind;

namespace eltwise::python {
namespace {

std::string Repr(nb::handle h) { return nb::cast<std::string>(nb::repr(h)); }

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
  } catch (nb::python_error& e) {
    e.restore();
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
std::optional<DataType> DataTypeArgument(nb::handle dtype) {
  if (nb::isinstance<nb::str>(dtype)) {
    if (std::optional<DataType> t = ParseDataType(nb::cast<std::string>(dtype))) return t;
  }
  nb::object numpy_dtype;
  try {
    numpy_dtype = g_numpy->attr("dtype")(dtype);
  } catch (nb::python_error& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    throw TypeError("dtype " + Repr(dtype) + " is not a data type; " + kSupportedTypes);
  }
  return TypeOfNumpyDtype(numpy_dtype);
}

bool SupportsPy(const std::string& op, nb::handle dtype, int64_t ndim,
                const std::string& feature_level) {
  const std::optional<Op> o = ParseOp(op);
  if (!o) throw ValueError("op is '" + op + "'; it must be " + OpChoices());
  if (ndim < 0) throw ValueError("ndim is " + std::to_string(ndim) + "; it must be >= 0");
  const FeatureLevel level = ParseLevel(feature_level);
  const std::optional<DataType> type = DataTypeArgument(dtype);
  if (!type || ndim > kMaxRank) return false;
  return Supports(level, *o, *type, static_cast<int>(ndim));
}

nb::dict InfoPy() {
  const SystemInfo info = GetSystemInfo();
  nb::dict d;
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
  nb::list levels, types, modes;
  for (FeatureLevel level : AllFeatureLevels()) levels.append(std::string(Name(level)));
  for (int t = 0; t < kDataTypeCount; ++t)
    types.append(std::string(Name(static_cast<DataType>(t))));
  for (int m = 0; m < kRoundingModeCount; ++m) {
    modes.append(std::string(Name(static_cast<RoundingMode>(m))));
  }
  d["feature_levels"] = levels;
  d["dtypes"] = types;
  d["rounding_modes"] = modes;
  d["nan_policies"] = nb::make_tuple("zero", "propagate");
  return d;
}

}  // namespace
}  // namespace eltwise::python

NB_MODULE(_core, m) {
  using namespace eltwise::python;
  namespace ew = eltwise;
  g_numpy = new nb::module_(nb::module_::import_("numpy"));
  if (_import_array() < 0 || _import_umath() < 0) throw nb::python_error();
  // What every host run uses, opened here (with the GIL, where a failure can be raised): the
  // ufunc loops run without it and cannot report one.
  if (ew::Status s = ew::staging::PrepareHostRuns(); !s.ok()) ThrowStatus(s);
  m.doc() = "eltwise's compiled core; use the eltwise package.";

  // The module holds the reference CreateErrorType made.
  m.attr("EltwiseError") = nb::handle(CreateErrorType());
  m.attr("OutOfMemoryError") = nb::handle(CreateOutOfMemoryErrorType());
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
  nb::list op_names;  // _ops: what eltwise/__init__.py exports from here
  for (PyMethodDef& def : entry_points) {
    nb::object function =
        nb::steal(PyCFunction_NewEx(&def, m.ptr(), nb::object(m.attr("__name__")).ptr()));
    if (!function.is_valid()) throw nb::python_error();
    m.attr(def.ml_name) = function;
    op_names.append(nb::str(def.ml_name));
  }
  m.attr("_ops") = nb::tuple(op_names);

  int bfloat16_type_num = -1;
  try {
    bfloat16_type_num = nb::cast<int>(
        g_numpy->attr("dtype")(nb::module_::import_("ml_dtypes").attr("bfloat16")).attr("num"));
  } catch (nb::python_error& e) {
    if (!e.matches(PyExc_ImportError)) throw;  // no ml_dtypes: no bfloat16 loops
  }
  nb::dict ufuncs;
  for (const Ufunc& u : CreateUfuncs(bfloat16_type_num)) {
    ufuncs[nb::str(u.name.c_str(), u.name.size())] = nb::handle(u.object);
  }
  m.attr("ufuncs") = ufuncs;

  // The package's public functions are Python functions (eltwise/__init__.py, with their
  // docstrings) over these: type checkers and inspect see them as functions, which nanobind's
  // function objects are not.
  m.def(
      "_set_num_threads",
      [](int threads) {
        if (threads < 0) {
          throw ValueError("threads is " + std::to_string(threads) +
                           "; it must be 0 (one per hardware thread) or positive");
        }
        SetProcessThreads(threads);
      },
      nb::arg("threads"), "eltwise.set_num_threads.");
  m.def("_get_num_threads", &ProcessThreads, "eltwise.get_num_threads.");
  m.def("_set_thread_override", &SetThreadOverride, nb::arg("threads"),
        "Sets the calling thread's default thread count (-1: none); returns the previous one.");
  m.def(
      "_operator_cache_size", [] { return ew::staging::OperatorCache::Global().size(); },
      "How many compiled operators the library's cache holds (at most 256).");
  m.def("_runtime_identity", &RuntimeIdentity,
        "(operator cache address, host backend address) of the library this module runs on.");

  m.def("_supports", &SupportsPy, nb::arg("op"), nb::arg("dtype").none(), nb::arg("ndim"),
        nb::arg("feature_level"), "eltwise.supports.");
  m.def("_info", &InfoPy, "eltwise.info.");
}
