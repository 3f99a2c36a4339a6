"""eltwise: exact, fast DirectML/ONNX Sign and Round on NumPy arrays and DLPack tensors.

    >>> import numpy as np, eltwise
    >>> eltwise.round(np.array([-2.5, -1.5, 0.5, 2.5], np.float16))
    array([-2., -2.,  0.,  2.], dtype=float16)
    >>> eltwise.round(np.array([-2.5, 2.5]), "toward_infinity")
    array([-3.,  3.])
    >>> eltwise.sign(np.array([-3, 0, 7], np.int8))
    array([-1,  0,  1], dtype=int8)

Functions: sign, round, supports, info. Errors: EltwiseError (a ValueError) carries the library's
message. See docs/python.md.
"""

import warnings

from ._core import EltwiseError, __version__, info, round, sign, supports

__all__ = ["EltwiseError", "__version__", "info", "round", "sign", "supports"]

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
