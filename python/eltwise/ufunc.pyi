# Type stubs for eltwise.ufunc: the operations as NumPy ufuncs (created by eltwise._core).
import numpy as np

sign_nan_zero: np.ufunc
sign_nan_propagate: np.ufunc
round_halves_to_nearest_even: np.ufunc
round_toward_zero: np.ufunc
round_toward_infinity: np.ufunc
round_down: np.ufunc
round_up: np.ufunc

__all__ = [
    "round_down",
    "round_halves_to_nearest_even",
    "round_toward_infinity",
    "round_toward_zero",
    "round_up",
    "sign_nan_propagate",
    "sign_nan_zero",
]
