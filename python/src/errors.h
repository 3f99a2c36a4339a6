// eltwise.EltwiseError: how the module reports a request the library rejects. The exception type is
// created once, at import (CreateErrorType), and raised with the library's message and status code.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>  // std::string to and from str

#include <string>

#include "eltwise/eltwise.h"

namespace eltwise::python {

namespace nb = nanobind;

// `throw TypeError(message)`: sets Python's error and returns it as the C++ exception that carries
// it to where the call returns (nanobind's functions and the entry points restore it there).
inline nb::python_error TypeError(const std::string& message) {
  PyErr_SetString(PyExc_TypeError, message.c_str());
  return nb::python_error();
}
inline nb::python_error ValueError(const std::string& message) {
  PyErr_SetString(PyExc_ValueError, message.c_str());
  return nb::python_error();
}
// str(o).
std::string StrOf(PyObject* o);

// Creates eltwise.EltwiseError (a ValueError) and returns it (a new reference, kept by the module
// for its lifetime).
PyObject* CreateErrorType();
// Creates eltwise.OutOfMemoryError (an EltwiseError and a MemoryError), after CreateErrorType; a
// new reference, kept by the module.
PyObject* CreateOutOfMemoryErrorType();

// Raises eltwise.EltwiseError (eltwise.OutOfMemoryError for kOutOfMemory) carrying the library's
// message followed by `note`; its `code` attribute names the status code.
[[noreturn]] void ThrowStatus(const Status& status, const std::string& note = "");

// A rule the library states in terms of its descriptors, checked here on the Python objects
// because the descriptors the library would see are already merged or staged.
[[noreturn]] void ThrowInvalid(const std::string& message);

}  // namespace eltwise::python
