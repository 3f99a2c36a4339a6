#include "errors.h"

namespace eltwise::python {
namespace {

// Module-lifetime object, created at import (never inside a call); intentionally leaked: it must
// outlive every call, including calls made while the interpreter shuts down.
PyObject* g_error_type = nullptr;

}  // namespace

PyObject* CreateErrorType() {
  g_error_type = PyErr_NewExceptionWithDoc(
      "eltwise.EltwiseError",
      "Raised when eltwise rejects a request (a ValueError). str(error) is the library's message, "
      "which names the field and the rule; error.code is the status code name "
      "('invalid_argument', 'unsupported', 'out_of_memory', 'device_error', 'internal').",
      PyExc_ValueError, nullptr);
  if (g_error_type == nullptr) throw py::error_already_set();
  return g_error_type;
}

void ThrowStatus(const Status& status, const std::string& note) {
  py::object type = py::reinterpret_borrow<py::object>(g_error_type);
  py::object error = type(status.message() + note);
  error.attr("code") = std::string(Name(status.code()));
  PyErr_SetObject(g_error_type, error.ptr());
  throw py::error_already_set();
}

void ThrowInvalid(const std::string& message) { ThrowStatus(InvalidArgument(message)); }

}  // namespace eltwise::python
