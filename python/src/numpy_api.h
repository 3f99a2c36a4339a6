// NumPy's C API (arrays and ufuncs) for the module's translation units. module.cc imports it
// (ELTWISE_IMPORT_NUMPY); the others use the same function tables.
#pragma once

#define NPY_NO_DEPRECATED_API NPY_1_22_API_VERSION
#define NPY_TARGET_VERSION NPY_1_22_API_VERSION  // runs with NumPy >= 1.22 (pyproject.toml)
#define PY_ARRAY_UNIQUE_SYMBOL eltwise_python_ARRAY_API
#define PY_UFUNC_UNIQUE_SYMBOL eltwise_python_UFUNC_API
#ifndef ELTWISE_IMPORT_NUMPY
#define NO_IMPORT_ARRAY
#define NO_IMPORT_UFUNC
#endif
#include <Python.h>
#include <numpy/arrayobject.h>
#include <numpy/ufuncobject.h>
