#include "arguments.h"

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/op_registry.h"
#include "errors.h"
#include "runner.h"

namespace eltwise::python {
namespace {

struct Interned {
  PyObject *x, *out, *feature_level, *device, *threads, *stream;
  PyObject *extended, *cpu;
  std::vector<PyObject*> option_fields;               // by Op: "nan", "mode"; nullptr: no option
  std::vector<std::vector<PyObject*>> option_values;  // by Op, then option value
};
Interned* g_interned = nullptr;  // created at import, kept for the process

bool SameName(PyObject* name, PyObject* interned) {
  return name == interned || PyUnicode_Compare(name, interned) == 0;
}

Place ParseDevice(const std::string& device) {
  if (std::optional<Place> place = ParsePlace(device)) return *place;
  throw ValueError("device is '" + device + "'; it must be 'cpu', 'cuda' or 'cuda:N'");
}

// An option's text; TypeError naming the option and its accepted values for anything not a str.
std::string OptionText(PyObject* value, const char* option, const std::string& accepted) {
  if (!PyUnicode_Check(value)) {
    throw TypeError(std::string(option) + " must be a str, " + accepted + "; got " +
                    TypeName(value));
  }
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(value, &size);
  if (text == nullptr) throw nb::python_error();
  return std::string(text, static_cast<size_t>(size));
}

// The value of `op`'s option (nan=, mode=); absent (always, for an op without an option): value
// 0, the op's default.
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
  throw ValueError(field + " is '" + text + "'; it must be " + accepted);
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
    throw TypeError("threads must be None or an int >= 0 (0: one per hardware thread); got " +
                    TypeName(value));
  }
  const long long threads = PyLong_AsLongLong(value);
  if (threads == -1 && PyErr_Occurred()) PyErr_Clear();
  if (threads < 0 || threads > 65536) {
    throw ValueError("threads is " + StrOf(value) +
                     "; it must be None or an int from 0 (one per hardware thread) to 65536");
  }
  return static_cast<int>(threads);
}

// stream=: None, a cudaStream_t handle as an int, or a stream object: __cuda_stream__() (the CUDA
// stream protocol: (version, handle)), .cuda_stream (PyTorch) or .ptr (CuPy). Returns the DLPack
// stream value (0 for None).
uintptr_t StreamArgument(PyObject* value) {
  if (value == nullptr || value == Py_None) return 0;
  const char* accepted =
      "stream must be None, an int (a cudaStream_t handle) or a CUDA stream object "
      "(torch.cuda.Stream, cupy.cuda.Stream, anything with __cuda_stream__); got ";
  nb::object handle = nb::borrow(value);
  if (!PyLong_Check(value)) {
    nb::handle object(value);
    if (nb::hasattr(object, "__cuda_stream__")) {
      nb::object pair = object.attr("__cuda_stream__")();
      if (!nb::isinstance<nb::tuple>(pair) || nb::len(pair) != 2) {
        throw TypeError("stream.__cuda_stream__() did not return a (version, handle) pair");
      }
      handle = pair[1];
    } else if (nb::hasattr(object, "cuda_stream")) {
      handle = object.attr("cuda_stream");
    } else if (nb::hasattr(object, "ptr")) {
      handle = object.attr("ptr");
    } else {
      throw TypeError(accepted + TypeName(value));
    }
  }
  if (!PyLong_Check(handle.ptr()) || PyBool_Check(handle.ptr())) {
    throw TypeError(accepted + TypeName(handle.ptr()));
  }
  const unsigned long long raw = PyLong_AsUnsignedLongLong(handle.ptr());
  if (PyErr_Occurred() != nullptr) {
    PyErr_Clear();
    throw ValueError("stream is " + StrOf(handle.ptr()) +
                     "; a cudaStream_t handle is an int from 0 to 2**64 - 1");
  }
  return raw == 0 ? 1 : static_cast<uintptr_t>(raw);  // CUDA's 0 is DLPack's 1: legacy default
}

// The arguments as passed, each nullptr when absent (out: Py_None).
struct Arguments {
  PyObject* x = nullptr;
  PyObject* out = Py_None;
  PyObject* option = nullptr;  // nan for sign, mode for round
  PyObject* feature_level = nullptr;
  PyObject* device = nullptr;
  PyObject* threads = nullptr;
  PyObject* stream = nullptr;
};

// Python's rules for f(x, out=None, *, <option>=..., feature_level=..., device=..., threads=None);
// `option_name` is nullptr for an op without an option.
Arguments ParseArguments(const char* function, PyObject* option_name, PyObject* const* args,
                         Py_ssize_t nargs, PyObject* kwnames) {
  Arguments a;
  const std::string f = function;
  if (nargs > 2) {
    throw TypeError(f + "() takes from 1 to 2 positional arguments (x, out) but " +
                    std::to_string(nargs) + " were given; options are keyword-only");
  }
  if (nargs >= 1) a.x = args[0];
  if (nargs >= 2) a.out = args[1];
  bool out_given = nargs >= 2;
  const Py_ssize_t nkw = kwnames == nullptr ? 0 : PyTuple_Size(kwnames);
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject* name = PyTuple_GetItem(kwnames, i);  // borrowed
    PyObject* value = args[nargs + i];
    PyObject** slot = nullptr;
    if (SameName(name, g_interned->x)) {
      if (a.x != nullptr) throw TypeError(f + "() got multiple values for argument 'x'");
      a.x = value;
      continue;
    }
    if (SameName(name, g_interned->out)) {
      if (out_given) throw TypeError(f + "() got multiple values for argument 'out'");
      a.out = value;
      out_given = true;
      continue;
    }
    if (option_name != nullptr && SameName(name, option_name)) {
      slot = &a.option;
    } else if (SameName(name, g_interned->feature_level)) {
      slot = &a.feature_level;
    } else if (SameName(name, g_interned->device)) {
      slot = &a.device;
    } else if (SameName(name, g_interned->threads)) {
      slot = &a.threads;
    } else if (SameName(name, g_interned->stream)) {
      slot = &a.stream;
    } else {
      throw TypeError(f + "() got an unexpected keyword argument '" + StrOf(name) + "'");
    }
    *slot = value;  // a keyword appears at most once (Python checks)
  }
  if (a.x == nullptr) throw TypeError(f + "() missing required argument 'x'");
  return a;
}

}  // namespace

PyObject* Intern(std::string_view text) {
  PyObject* s = PyUnicode_InternFromString(std::string(text).c_str());
  if (s == nullptr) throw nb::python_error();
  return s;  // a new reference, kept for the module's lifetime
}

void InternNames() {
  auto* n = new Interned();
  n->x = Intern("x");
  n->out = Intern("out");
  n->feature_level = Intern("feature_level");
  n->device = Intern("device");
  n->threads = Intern("threads");
  n->stream = Intern("stream");
  n->extended = Intern(Name(FeatureLevel::kExtended));
  n->cpu = Intern("cpu");
  for (const OpInfo& info : AllOps()) {
    n->option_fields.push_back(HasOption(info) ? Intern(info.option.field) : nullptr);
    std::vector<PyObject*>& values = n->option_values.emplace_back();
    for (std::string_view name : info.option.names) values.push_back(Intern(name));
  }
  g_interned = n;
}

Call ParseCall(Op op, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  const Arguments a =
      ParseArguments(std::string(Info(op).name).c_str(),
                     g_interned->option_fields[static_cast<size_t>(op)], args, nargs, kwnames);
  Call call;
  call.x = a.x;
  call.out = a.out;
  Request& r = call.request;
  r.op = op;
  r.option = OptionArgument(op, a.option);
  r.level = LevelArgument(a.feature_level);
  r.place = DeviceArgument(a.device);
  r.threads = ThreadsArgument(a.threads, &r.threads_given);
  r.stream = StreamArgument(a.stream);
  if (r.stream != 0 && r.place.kind != DeviceKind::kCuda) {
    throw ValueError("stream is given but device is 'cpu'; stream= applies to a CUDA device");
  }
  return call;
}

FeatureLevel ParseLevel(const std::string& name) {
  if (std::optional<FeatureLevel> level = ParseFeatureLevel(name)) return *level;
  std::string known;
  for (FeatureLevel level : AllFeatureLevels()) {
    if (!known.empty()) known += ", ";
    known += Name(level);
  }
  throw ValueError("feature_level is '" + name + "'; it must be one of " + known);
}

std::string TypeName(PyObject* o) {
#ifdef Py_LIMITED_API
  // tp_name, which the stable ABI does not expose, from what it does: a class made at run time
  // (Python code) has its __name__ there, a static one (C) its dotted name, module first
  // (builtins' have none).
  PyTypeObject* type = Py_TYPE(o);
  nb::handle t(reinterpret_cast<PyObject*>(type));
  const std::string name = nb::cast<std::string>(t.attr("__name__"));
  if ((PyType_GetFlags(type) & Py_TPFLAGS_HEAPTYPE) != 0) return name;
  const std::string module = nb::cast<std::string>(nb::str(t.attr("__module__")));
  return module == "builtins" ? name : module + "." + name;
#else
  return Py_TYPE(o)->tp_name;
#endif
}

std::string Choices(std::span<const std::string_view> names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += "'" + std::string(names[i]) + "'";
  }
  return text;
}

}  // namespace eltwise::python
