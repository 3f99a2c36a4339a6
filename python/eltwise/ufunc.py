"""eltwise's operations as NumPy ufuncs, one per (op, option) pair.

    sign_nan_zero, sign_nan_propagate               eltwise.sign(x, nan=...)
    round_halves_to_nearest_even, round_toward_zero, round_toward_infinity, round_down, round_up
                                                    eltwise.round(x, mode=...)

Their loops (float16, float32, float64, bfloat16 from ml_dtypes, int8/16/32/64, uint8/16/32/64) run
the library's kernels, so NumPy adds broadcasting, out=, where=, dtype=/casting, .at and
__array_ufunc__ dispatch: `eltwise.ufunc.round_down(dask_array)` stays lazy, an xarray DataArray
keeps its coordinates, a pandas Series its index. eltwise.sign and eltwise.round hand such
containers to these ufuncs themselves.
"""

from ._core import ufuncs as _ufuncs

# One module attribute per ufunc the library made (one per op and option value, from its op
# registry); ufunc.pyi types each (the stub test fails until a new op's ufuncs are there).
globals().update(_ufuncs)

__all__ = sorted(_ufuncs)
