// eltwise.EltwiseError: how the module reports a request the library rejects. The exception type is
// created once, at import (CreateErrorType), and raised with the library's message and status code.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>  // std::string to and from str

#include <string>

#include "eltwise/eltwise.h"

namespace eltwise::python {

namespace nb = nanobind;

// TypeError and ValueError with a composed message, thrown as C++ exceptions and raised in Python
// where the call returns (nanobind's builtin exceptions take a C string, which they copy).
inline nb::builtin_exception TypeError(const std::string& message) {
  return nb::type_error(message.c_str());
}
inline nb::builtin_exception ValueError(const std::string& message) {
  return nb::value_error(message.c_str());
}
// str(o).
std::string StrOf(PyObject* o);

// Sets the Python error that `e` stands for (for entry points that are not nanobind's functions).
void SetPythonError(const nb::builtin_exception& e);

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
