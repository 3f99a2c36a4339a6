# Type stubs for eltwise (the functions are implemented in eltwise._core).
from typing import Any, Literal, Protocol, TypedDict, TypeVar, overload

import numpy as np
import numpy.typing as npt

__version__: str

class _DLPackTensor(Protocol):
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...

_A = TypeVar("_A", bound=np.ndarray[Any, Any])
_T = TypeVar("_T", bound=_DLPackTensor)

NanPolicy = Literal["zero", "propagate"]
RoundingMode = Literal["halves_to_nearest_even", "toward_zero", "toward_infinity", "down", "up"]
FeatureLevel = Literal[
    "extended", "1_0", "2_0", "2_1", "3_0", "3_1", "4_0", "4_1", "5_0", "5_1", "5_2",
    "6_0", "6_1", "6_2", "6_3", "6_4",
]
Op = Literal["sign", "round"]

class EltwiseError(ValueError):
    """A request eltwise rejects; str(error) is the library's message."""

    code: str

class Info(TypedDict):
    version: str
    cpu_targets: list[str]
    simd_targets: list[str]
    hardware_threads: int
    cuda_backend_built: bool
    cuda_devices: list[str]
    feature_levels: list[str]
    dtypes: list[str]
    rounding_modes: list[str]
    nan_policies: tuple[str, str]

@overload
def sign(
    x: _A, out: None = None, *, nan: NanPolicy = "zero",
    feature_level: FeatureLevel | str = "extended", device: str = "cpu",
) -> _A: ...
@overload
def sign(
    x: np.generic, out: None = None, *, nan: NanPolicy = "zero",
    feature_level: FeatureLevel | str = "extended", device: str = "cpu",
) -> npt.NDArray[Any]: ...
@overload
def sign(
    x: _T, out: None = None, *, nan: NanPolicy = "zero",
    feature_level: FeatureLevel | str = "extended", device: str = "cpu",
) -> _T: ...
@overload
def sign(
    x: np.ndarray[Any, Any] | np.generic | _DLPackTensor, out: _A, *, nan: NanPolicy = "zero",
    feature_level: FeatureLevel | str = "extended", device: str = "cpu",
) -> _A: ...
@overload
def sign(
    x: np.ndarray[Any, Any] | np.generic | _DLPackTensor, out: _T, *, nan: NanPolicy = "zero",
    feature_level: FeatureLevel | str = "extended", device: str = "cpu",
) -> _T: ...
@overload
def round(
    x: _A, mode: RoundingMode = "halves_to_nearest_even", out: None = None, *,
    feature_level: FeatureLevel | str = "extended", device: str = "cpu",
) -> _A: ...
@overload
def round(
    x: np.generic, mode: RoundingMode = "halves_to_nearest_even", out: None = None, *,
    feature_level: FeatureLevel | str = "extended", device: str = "cpu",
) -> npt.NDArray[Any]: ...
@overload
def round(
    x: _T, mode: RoundingMode = "halves_to_nearest_even", out: None = None, *,
    feature_level: FeatureLevel | str = "extended", device: str = "cpu",
) -> _T: ...
@overload
def round(
    x: np.ndarray[Any, Any] | np.generic | _DLPackTensor, mode: RoundingMode, out: _A, *,
    feature_level: FeatureLevel | str = "extended", device: str = "cpu",
) -> _A: ...
@overload
def round(
    x: np.ndarray[Any, Any] | np.generic | _DLPackTensor, mode: RoundingMode = ..., *, out: _A,
    feature_level: FeatureLevel | str = "extended", device: str = "cpu",
) -> _A: ...
@overload
def round(
    x: np.ndarray[Any, Any] | np.generic | _DLPackTensor, mode: RoundingMode, out: _T, *,
    feature_level: FeatureLevel | str = "extended", device: str = "cpu",
) -> _T: ...
@overload
def round(
    x: np.ndarray[Any, Any] | np.generic | _DLPackTensor, mode: RoundingMode = ..., *, out: _T,
    feature_level: FeatureLevel | str = "extended", device: str = "cpu",
) -> _T: ...
def supports(
    op: Op, dtype: npt.DTypeLike, ndim: int, feature_level: FeatureLevel | str = "extended"
) -> bool: ...
def info() -> Info: ...

__all__ = ["EltwiseError", "__version__", "info", "round", "sign", "supports"]
