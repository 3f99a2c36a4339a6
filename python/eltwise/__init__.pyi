# Type stubs for eltwise (sign, round, supports and info are implemented in eltwise._core).
# `python -m mypy.stubtest eltwise` checks them against the module (python/tests/test_stubs.py).
from contextlib import AbstractContextManager
from typing import Any, Literal, Protocol, TypedDict, TypeVar, overload

import numpy as np
import numpy.typing as npt

from . import ufunc as ufunc

__version__: str

class _DLPackTensor(Protocol):
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...

_A = TypeVar("_A", bound=np.ndarray[Any, Any])
_T = TypeVar("_T", bound=_DLPackTensor)

# Literal types for checkers only (not names of the module): any str is accepted at run time and
# checked there.
_NanPolicy = Literal["zero", "propagate"]
_RoundingMode = Literal["halves_to_nearest_even", "toward_zero", "toward_infinity", "down", "up"]
_FeatureLevel = Literal[
    "extended", "1_0", "2_0", "2_1", "3_0", "3_1", "4_0", "4_1", "5_0", "5_1", "5_2",
    "6_0", "6_1", "6_2", "6_3", "6_4",
]
_Op = Literal["sign", "round"]
# stream=: a cudaStream_t handle or a stream object (torch.cuda.Stream, cupy.cuda.Stream,
# anything with __cuda_stream__); None: the legacy default stream, and the call waits.
_Stream = int | object | None

class EltwiseError(ValueError):
    """A request eltwise rejects; str(error) is the library's message."""

    code: str

class OutOfMemoryError(EltwiseError, MemoryError):
    """eltwise ran out of memory (code 'out_of_memory'); nothing was written."""

class _Info(TypedDict):
    version: str
    cpu_targets: list[str]
    simd_targets: list[str]
    hardware_threads: int
    cpu_model: str
    l1d_cache_bytes: int
    l2_cache_bytes: int
    l3_cache_bytes: int
    cuda_backend_built: bool
    cuda_devices: list[str]
    feature_levels: list[str]
    dtypes: list[str]
    rounding_modes: list[str]
    nan_policies: tuple[str, str]

@overload
def sign(
    x: _A, out: None = None, *, nan: _NanPolicy | str = "zero",
    feature_level: _FeatureLevel | str = "extended", device: str = "cpu", threads: int | None = None,
    stream: _Stream = None,
) -> _A: ...
@overload
def sign(
    x: np.generic | complex | bool, out: None = None, *, nan: _NanPolicy | str = "zero",
    feature_level: _FeatureLevel | str = "extended", device: str = "cpu", threads: int | None = None,
    stream: _Stream = None,
) -> Any: ...
@overload
def sign(
    x: _T, out: None = None, *, nan: _NanPolicy | str = "zero",
    feature_level: _FeatureLevel | str = "extended", device: str = "cpu", threads: int | None = None,
    stream: _Stream = None,
) -> _T: ...
@overload
def sign(
    x: Any, out: _A, *, nan: _NanPolicy | str = "zero",
    feature_level: _FeatureLevel | str = "extended", device: str = "cpu", threads: int | None = None,
    stream: _Stream = None,
) -> _A: ...
@overload
def sign(
    x: Any, out: _T, *, nan: _NanPolicy | str = "zero",
    feature_level: _FeatureLevel | str = "extended", device: str = "cpu", threads: int | None = None,
    stream: _Stream = None,
) -> _T: ...
@overload
def sign(
    x: Any, out: Any = None, *, nan: _NanPolicy | str = "zero",
    feature_level: _FeatureLevel | str = "extended", device: str = "cpu", threads: int | None = None,
    stream: _Stream = None,
) -> Any: ...
@overload
def round(
    x: _A, out: None = None, *, mode: _RoundingMode | str = "halves_to_nearest_even",
    feature_level: _FeatureLevel | str = "extended", device: str = "cpu", threads: int | None = None,
    stream: _Stream = None,
) -> _A: ...
@overload
def round(
    x: np.generic | complex | bool, out: None = None, *,
    mode: _RoundingMode | str = "halves_to_nearest_even",
    feature_level: _FeatureLevel | str = "extended", device: str = "cpu", threads: int | None = None,
    stream: _Stream = None,
) -> Any: ...
@overload
def round(
    x: _T, out: None = None, *, mode: _RoundingMode | str = "halves_to_nearest_even",
    feature_level: _FeatureLevel | str = "extended", device: str = "cpu", threads: int | None = None,
    stream: _Stream = None,
) -> _T: ...
@overload
def round(
    x: Any, out: _A, *, mode: _RoundingMode | str = "halves_to_nearest_even",
    feature_level: _FeatureLevel | str = "extended", device: str = "cpu", threads: int | None = None,
    stream: _Stream = None,
) -> _A: ...
@overload
def round(
    x: Any, out: _T, *, mode: _RoundingMode | str = "halves_to_nearest_even",
    feature_level: _FeatureLevel | str = "extended", device: str = "cpu", threads: int | None = None,
    stream: _Stream = None,
) -> _T: ...
@overload
def round(
    x: Any, out: Any = None, *, mode: _RoundingMode | str = "halves_to_nearest_even",
    feature_level: _FeatureLevel | str = "extended", device: str = "cpu", threads: int | None = None,
    stream: _Stream = None,
) -> Any: ...
def supports(
    op: _Op | str, dtype: npt.DTypeLike, ndim: int, feature_level: _FeatureLevel | str = "extended"
) -> bool: ...
def info() -> _Info: ...
def set_num_threads(threads: int) -> None: ...
def get_num_threads() -> int: ...
def num_threads(threads: int) -> AbstractContextManager[None]: ...

__all__ = [
    "EltwiseError",
    "OutOfMemoryError",
    "__version__",
    "get_num_threads",
    "info",
    "num_threads",
    "round",
    "set_num_threads",
    "sign",
    "supports",
    "ufunc",
]
