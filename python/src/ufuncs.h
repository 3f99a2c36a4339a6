// NumPy ufuncs for every (op, option) pair: eltwise.ufunc.sign_nan_zero, ..., round_up (names from
// the op registry's ufunc_prefix). Their inner loops run the library's kernels (runner.h), so NumPy
// supplies broadcasting, where=, out= tuples, dtype=/casting, .at and __array_ufunc__ dispatch
// (Dask, xarray, pandas).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "eltwise/eltwise.h"
#include "numpy_api.h"

namespace eltwise::python {

struct Ufunc {
  std::string name;  // the registry's ufunc_prefix + option value name: "round_down"
  Op op;
  int option;        // the op registry's option value
  PyObject* object;  // the numpy.ufunc (module lifetime)
};

// Creates the ufuncs (once, at import, after NumPy's C API is imported). `bfloat16_type_num` is
// ml_dtypes.bfloat16's NumPy type number, or -1 when ml_dtypes is not installed (no bfloat16 loop).
const std::vector<Ufunc>& CreateUfuncs(int bfloat16_type_num);
// The ufunc of `op` with option value `option` (borrowed reference).
PyObject* UfuncFor(Op op, int option);

// eltwise's type for a NumPy dtype (native byte order assumed); nullopt for any other dtype.
std::optional<DataType> TypeOfDescr(const PyArray_Descr* descr);

}  // namespace eltwise::python
