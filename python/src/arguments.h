// The arguments of the entry points (eltwise.sign, eltwise.round, one per registry op), read with
// Python's calling rules: keywords are matched by pointer against names interned at import
// (keywords and string literals in Python code are interned), option values are parsed into the
// registry's values and the library's enums once, and every message is the module's own.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "binding_rules.h"  // first: it includes Python.h
#include "eltwise/eltwise.h"

namespace eltwise::python {

// One call's parsed options.
struct Request {
  Op op = Op::kSign;
  int option = 0;  // the op registry's option value (0: the op's default)
  FeatureLevel level = FeatureLevel::kExtended;
  Place place;
  int threads = 0;             // for the CPU device; 0: one per hardware thread
  bool threads_given = false;  // threads= was passed (else the default of runner.h)
  // stream= for a CUDA device, as a DLPack stream value: 1 the legacy default stream, 2 the
  // per-thread default stream, else a cudaStream_t. 0: not passed (the legacy default stream,
  // and the call waits for its work).
  uintptr_t stream = 0;
};

// A parsed call: its operands (borrowed from the caller; `out` is Py_None when absent) and options.
struct Call {
  PyObject* x = nullptr;
  PyObject* out = nullptr;
  Request request;
};

// `text` as an interned str: a new reference, kept by the caller for the module's lifetime.
// Python's own attribute and keyword names are interned, so lookups with one compare pointers.
PyObject* Intern(std::string_view text);

// Interns the argument and option names of every registry op; once, at import.
void InternNames();

// Python's rules for Name(op)(x, out=None, *, <option field>=..., feature_level='extended',
// device='cpu', threads=None, stream=None): TypeError for a wrong argument or option type,
// ValueError for an unknown option value. An op without an option (HasOption) takes no option
// keyword.
Call ParseCall(Op op, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

// A feature level's name ("extended", "4_1"); ValueError listing the known ones otherwise.
FeatureLevel ParseLevel(const std::string& name);

std::string TypeName(PyObject* o);  // the Python type's name, for messages
std::string Choices(std::span<const std::string_view> names);  // "'a', 'b' or 'c'"

}  // namespace eltwise::python
