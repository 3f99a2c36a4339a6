"""Shared helpers for the eltwise Python tests.

Expected values come from NumPy (np.sign, np.rint, np.trunc, np.floor, np.ceil) or from the
independent formula in `round_half_away`; never from eltwise. Results are compared bit for bit,
NaN as NaN (NumPy, the oracle here, does not keep NaN payloads; the C++ tests check that eltwise does).
"""

import numpy as np
import pytest

try:
    from hypothesis import settings

    # No example database in the source tree; failures print their example.
    settings.register_profile("eltwise", database=None, deadline=None)
    settings.load_profile("eltwise")
except ImportError:
    pass

try:
    import ml_dtypes

    BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # bfloat16 tests are skipped without ml_dtypes
    ml_dtypes = None
    BFLOAT16 = None

FLOAT_DTYPES = [np.dtype(t) for t in ("float16", "float32", "float64")] + (
    [BFLOAT16] if BFLOAT16 is not None else []
)
INT_DTYPES = [np.dtype(t) for t in ("int8", "int16", "int32", "int64")]
UINT_DTYPES = [np.dtype(t) for t in ("uint8", "uint16", "uint32", "uint64")]
ALL_DTYPES = FLOAT_DTYPES + INT_DTYPES + UINT_DTYPES
MODES = ["halves_to_nearest_even", "toward_zero", "toward_infinity", "down", "up"]

BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def is_float(dtype):
    return dtype.kind == "f" or dtype == BFLOAT16


def compute_dtype(dtype):
    """float16 and bfloat16 are computed in float32, which holds every value and result exactly."""
    return np.dtype(np.float32) if dtype.itemsize == 2 and is_float(dtype) else dtype


def round_half_away(x):
    """Nearest integer, halves away from zero, sign of zero kept; written without np.round."""
    t = np.trunc(x)
    with np.errstate(invalid="ignore"):
        frac = np.abs(x - t)  # exact: x and trunc(x) share the exponent; NaN for +-inf
        r = np.where(frac >= 0.5, t + np.copysign(1.0, x).astype(x.dtype), t)
    return np.copysign(r, x)


def expected_sign(x, nan="zero"):
    x = np.asarray(x)
    if not is_float(x.dtype):
        return np.sign(x)
    c = x.astype(compute_dtype(x.dtype))
    r = np.sign(c)
    if nan == "zero":
        r = np.where(np.isnan(c), np.zeros_like(c), r)
    return r.astype(x.dtype)


def expected_round(x, mode="halves_to_nearest_even"):
    x = np.asarray(x)
    if not is_float(x.dtype):
        return x.copy()
    c = x.astype(compute_dtype(x.dtype))
    f = {
        "halves_to_nearest_even": np.rint,
        "toward_zero": np.trunc,
        "toward_infinity": round_half_away,
        "down": np.floor,
        "up": np.ceil,
    }[mode]
    return f(c).astype(x.dtype)


def expected(op, x, param):
    return expected_sign(x, param) if op == "sign" else expected_round(x, param)


def call(op, x, param, **kwargs):
    import eltwise

    if op == "sign":
        return eltwise.sign(x, nan=param, **kwargs)
    return eltwise.round(x, mode=param, **kwargs)


OPS = [("sign", "zero"), ("sign", "propagate")] + [("round", m) for m in MODES]


def assert_bits_equal(actual, expected):
    """Same dtype, shape and bit patterns; any NaN matches any NaN."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    a = np.ascontiguousarray(actual).view(BITS[actual.dtype.itemsize])
    e = np.ascontiguousarray(expected).view(BITS[expected.dtype.itemsize])
    if is_float(actual.dtype):
        nan_a = np.isnan(np.ascontiguousarray(actual).astype(np.float64))
        nan_e = np.isnan(np.ascontiguousarray(expected).astype(np.float64))
        bad = (nan_a != nan_e) | (~nan_a & (a != e))
    else:
        bad = a != e
    if bad.any():
        i = np.argwhere(bad)[:5]
        details = [
            (tuple(int(v) for v in ix), hex(int(a[tuple(ix)])), hex(int(e[tuple(ix)])))
            for ix in i
        ]
        raise AssertionError(f"{int(bad.sum())} elements differ (index, got, expected): {details}")


def all_bit_patterns(dtype):
    """Every value of a 1- or 2-byte dtype."""
    return np.arange(1 << (8 * dtype.itemsize), dtype=np.uint64).astype(BITS[dtype.itemsize]).view(dtype)


def special_values(dtype, rng, random_count=20000):
    """Edge values plus random bit patterns and random near-halves for float32/float64 and the
    wide integer types."""
    if is_float(dtype):
        c = compute_dtype(dtype)
        big = {2: 2.0**10, 4: 2.0**23, 8: 2.0**52}[dtype.itemsize] if dtype != BFLOAT16 else 2.0**7
        base = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
                0.49999997, -0.49999997, 1.25, -1.75, big, -big, big + 1, big - 0.5, -(big - 0.5),
                big * 2 - 1, 1e-40, -1e-40, 5e-324, -5e-324, 3.4e38, -3.4e38]
        with np.errstate(over="ignore"):
            vals = np.array(base, np.float64).astype(c)
        info = np.finfo(c) if c != BFLOAT16 else None
        extra = [info.tiny, -info.tiny, info.max, -info.max, info.smallest_subnormal,
                 -info.smallest_subnormal] if info is not None else []
        bits = rng.integers(0, 1 << (8 * dtype.itemsize), size=random_count, dtype=np.uint64)
        rand_bits = bits.astype(BITS[dtype.itemsize]).view(dtype).astype(c)
        halves = (rng.integers(-(2**24), 2**24, size=random_count) / 4.0).astype(c)
        out = np.concatenate([vals, np.array(extra, c), rand_bits, halves])
        return out.astype(dtype)
    info = np.iinfo(dtype)
    edge = [info.min, info.min + 1, -1 if info.min < 0 else 0, 0, 1, info.max - 1, info.max]
    rand = rng.integers(info.min, info.max, size=random_count, dtype=dtype, endpoint=True)
    return np.concatenate([np.array(edge, dtype), rand])


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture(autouse=True)
def _quiet_numpy():
    """NumPy's own functions warn on NaN and infinity inputs, which the tests feed on purpose."""
    with np.errstate(invalid="ignore", over="ignore"):
        yield
