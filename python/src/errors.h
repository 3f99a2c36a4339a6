// eltwise.EltwiseError: how the module reports a request the library rejects. The exception type is
// created once, at import (CreateErrorType), and raised with the library's message and status code.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "eltwise/eltwise.h"

namespace eltwise::python {

namespace py = pybind11;

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
