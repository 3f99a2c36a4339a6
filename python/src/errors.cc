#include "errors.h"

namespace eltwise::python {
namespace {

// Module-lifetime object, created at import (never inside a call); intentionally leaked: it must
// outlive every call, including calls made while the interpreter shuts down.
PyObject* g_error_type = nullptr;
PyObject* g_out_of_memory_type = nullptr;

}  // namespace

PyObject* CreateErrorType() {
  g_error_type = PyErr_NewExceptionWithDoc(
      "eltwise.EltwiseError",
      "Raised when eltwise rejects a request (a ValueError). str(error) is the library's message, "
      "which names the field and the rule; error.code is the status code name "
      "('invalid_argument', 'unsupported', 'out_of_memory', 'device_error', 'internal').",
      PyExc_ValueError, nullptr);
  if (g_error_type == nullptr) throw nb::python_error();
  return g_error_type;
}

PyObject* CreateOutOfMemoryErrorType() {
  nb::tuple bases = nb::make_tuple(nb::handle(g_error_type), nb::handle(PyExc_MemoryError));
  g_out_of_memory_type = PyErr_NewExceptionWithDoc(
      "eltwise.OutOfMemoryError",
      "Raised when eltwise runs out of memory (both an EltwiseError with code 'out_of_memory' and "
      "a MemoryError). Nothing was written.",
      bases.ptr(), nullptr);
  if (g_out_of_memory_type == nullptr) throw nb::python_error();
  return g_out_of_memory_type;
}

void ThrowStatus(const Status& status, const std::string& note) {
  PyObject* const raw_type =
      status.code() == StatusCode::kOutOfMemory ? g_out_of_memory_type : g_error_type;
  nb::object type = nb::borrow(raw_type);
  nb::object error = type(status.message() + note);
  error.attr("code") = std::string(Name(status.code()));
  PyErr_SetObject(raw_type, error.ptr());
  throw nb::python_error();
}

void ThrowInvalid(const std::string& message) { ThrowStatus(InvalidArgument(message)); }

std::string StrOf(PyObject* o) { return nb::cast<std::string>(nb::str(nb::handle(o))); }

}  // namespace eltwise::python
