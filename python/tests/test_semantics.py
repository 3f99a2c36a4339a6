"""Results against NumPy, bit for bit: exhaustive for every 8- and 16-bit dtype, edge values and
random inputs for the 32- and 64-bit dtypes."""

import numpy as np
import pytest

import eltwise
from conftest import (ALL_DTYPES, BFLOAT16, OPS, all_bit_patterns, assert_bits_equal, call,
                      expected, expected_round, expected_sign, special_values)

SMALL = [np.dtype(t) for t in ("float16", "int8", "uint8", "int16", "uint16")] + (
    [BFLOAT16] if BFLOAT16 is not None else []
)
WIDE = [d for d in ALL_DTYPES if d.itemsize >= 4]


@pytest.mark.parametrize("dtype", SMALL, ids=str)
@pytest.mark.parametrize("op,param", OPS)
def test_exhaustive_small_types(dtype, op, param):
    x = all_bit_patterns(dtype)
    assert_bits_equal(call(op, x, param), expected(op, x, param))


@pytest.mark.parametrize("dtype", WIDE, ids=str)
@pytest.mark.parametrize("op,param", OPS)
def test_edge_and_random_values(dtype, op, param, rng):
    x = special_values(dtype, rng)
    assert_bits_equal(call(op, x, param), expected(op, x, param))


def test_numpy_functions_directly():
    """The NumPy functions the issue names, called directly on float32 and float64."""
    rng = np.random.default_rng(7)
    for dtype in (np.float32, np.float64):
        x = special_values(np.dtype(dtype), rng)
        assert_bits_equal(eltwise.sign(x, nan="propagate"), np.sign(x))
        assert_bits_equal(eltwise.round(x), np.rint(x))
        assert_bits_equal(eltwise.round(x, mode="toward_zero"), np.trunc(x))
        assert_bits_equal(eltwise.round(x, mode="down"), np.floor(x))
        assert_bits_equal(eltwise.round(x, mode="up"), np.ceil(x))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"] + (["bfloat16"] if BFLOAT16 else []))
def test_directml_rounding_table(dtype):
    """docs/semantics.md: DirectML's table holds verbatim."""
    dt = BFLOAT16 if dtype == "bfloat16" else np.dtype(dtype)
    x = np.array([-2.5, -1.75, -1.5, -1.25, 0, 1.25, 1.5, 1.75, 2.5], np.float32).astype(dt)
    table = {
        "halves_to_nearest_even": [-2, -2, -2, -1, 0, 1, 2, 2, 2],
        "toward_zero": [-2, -1, -1, -1, 0, 1, 1, 1, 2],
        "toward_infinity": [-3, -2, -2, -1, 0, 1, 2, 2, 3],
    }
    for mode, want in table.items():
        got = eltwise.round(x, mode=mode).astype(np.float32)
        assert got.tolist() == want, mode


def test_sign_of_zero_and_specials():
    x = np.array([-0.0, 0.0, -0.4, 0.4, np.inf, -np.inf, np.nan], np.float32)
    r = eltwise.round(x)
    assert np.signbit(r[:3]).tolist() == [True, False, True]
    s = eltwise.sign(x)
    assert s.tolist()[:6] == [0.0, 0.0, -1.0, 1.0, 1.0, -1.0]
    assert not np.signbit(s[:2]).any() and s[6] == 0 and not np.signbit(s[6])
    assert np.isnan(eltwise.sign(x, nan="propagate")[6])


def test_floor_plus_half_trap():
    """0.49999997f and odd integers >= 2^23 defeat floor(x + 0.5)."""
    x = np.array([0.49999997, 8388609.0, -8388609.0], np.float32)
    assert eltwise.round(x).tolist() == [0.0, 8388609.0, -8388609.0]
    assert eltwise.round(x, mode="toward_infinity").tolist() == [0.0, 8388609.0, -8388609.0]


def test_int_min_sign():
    for dtype in ("int8", "int16", "int32", "int64"):
        info = np.iinfo(dtype)
        x = np.array([info.min, info.max, 0], dtype)
        assert eltwise.sign(x).tolist() == [-1, 1, 0]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_numpy_scalar_input(dtype):
    x = np.array([-1.5 if dtype.kind != "u" else 3]).astype(dtype)[0]
    assert_bits_equal(eltwise.round(x, mode="toward_infinity"), expected_round(np.asarray(x), "toward_infinity"))
    assert_bits_equal(eltwise.sign(x), expected_sign(np.asarray(x)))
