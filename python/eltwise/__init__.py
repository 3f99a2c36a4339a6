"""eltwise: exact, fast DirectML/ONNX Sign and Round on NumPy arrays and DLPack tensors.

    >>> import numpy as np, eltwise
    >>> eltwise.round(np.array([-2.5, -1.5, 0.5, 2.5], np.float16))
    array([-2., -2.,  0.,  2.], dtype=float16)
    >>> eltwise.round(np.array([-2.5, 2.5]), mode="toward_infinity")
    array([-3.,  3.])
    >>> eltwise.sign(np.array([-3, 0, 7], np.int8))
    array([-1,  0,  1], dtype=int8)

Functions: sign, round, supports, info, set_num_threads, get_num_threads, num_threads (a context
manager). eltwise.ufunc holds the operations as NumPy ufuncs. Errors: EltwiseError (a ValueError)
carries the library's message; OutOfMemoryError is both an EltwiseError and a MemoryError. See
docs/python.md.
"""

import contextlib
import warnings
from collections.abc import Iterator

from . import _core, ufunc
from ._core import EltwiseError, OutOfMemoryError, __version__
from ._core import _set_thread_override

# One function per op of the library's op registry (sign, round, ...), named as the registry
# names it; __init__.pyi types each (the stub test fails until a new op's signature is there).
for _op in _core._ops:
    globals()[_op] = getattr(_core, _op)
del _op

__all__ = [
    "EltwiseError",
    "OutOfMemoryError",
    "__version__",
    "get_num_threads",
    "info",
    "num_threads",
    "set_num_threads",
    "supports",
    "ufunc",
]
__all__ += _core._ops
__all__.sort()


def supports(op, dtype, ndim, feature_level="extended"):
    """Whether `op` ("sign" or "round") accepts tensors of `dtype` (a NumPy dtype, a dtype name such
    as "float16" or "bfloat16", or a NumPy short name such as "f2") with `ndim` dimensions at
    `feature_level`, like DirectML's CheckFeatureSupport. False for a NumPy dtype eltwise does not
    handle (complex, bool, ...); TypeError for something that is not a dtype."""
    return _core._supports(op, dtype, ndim, feature_level)


def info():
    """What this build and machine offer: version, cpu_targets (best first), simd_targets (the SIMD
    ones among them; empty: scalar kernels only), hardware_threads, cpu_model, l1d_cache_bytes,
    l2_cache_bytes, l3_cache_bytes (one instance of each; 0: not reported), cuda_backend_built,
    cuda_devices, feature_levels, dtypes, rounding_modes, nan_policies."""
    return _core._info()


def set_num_threads(threads):
    """Sets how many threads a call uses by default, for the whole process (0: one per hardware
    thread, the initial setting). A call's threads= and the num_threads context take precedence."""
    _core._set_num_threads(threads)


def get_num_threads():
    """The process-wide default of set_num_threads (0: one per hardware thread)."""
    return _core._get_num_threads()


@contextlib.contextmanager
def num_threads(threads: int) -> Iterator[None]:
    """Within the block, calls made by this thread use `threads` CPU threads (0: one per hardware
    thread) unless they pass threads=. Other Python threads keep their own setting; in a Dask worker
    use eltwise.set_num_threads (process-wide) instead."""
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise (TypeError if not isinstance(threads, int) or isinstance(threads, bool)
               else ValueError)(f"threads must be an int >= 0 (0: one per hardware thread); got {threads!r}")
    previous = _set_thread_override(threads)
    try:
        yield
    finally:
        _set_thread_override(previous)


if not info()["simd_targets"]:
    # A scalar-only build (configured with ELTWISE_SIMD=OFF, without Highway) or a CPU that has none
    # of the compiled SIMD targets: results are exact, but several times slower than they should be.
    warnings.warn(
        "eltwise runs without SIMD kernels here (CPU targets: "
        + " ".join(info()["cpu_targets"])
        + "): results are exact but slow; build with Highway (libhwy-dev) for SIMD kernels",
        RuntimeWarning,
        stacklevel=2,
    )
