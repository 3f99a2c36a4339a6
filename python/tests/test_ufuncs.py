"""eltwise.ufunc: a real numpy.ufunc per (op, option) pair, with loops for all 12 dtypes that run
the library's kernels, compared bit for bit with the oracle of conftest.py (NumPy in float32 or
float64, exhaustive for 8- and 16-bit types), contiguous and strided, small and threaded."""

import pickle

import numpy as np
import pytest

import eltwise
from conftest import (ALL_DTYPES, BFLOAT16, OPS, all_bit_patterns, assert_bits_equal, expected,
                      special_values)

UFUNC_OF = {("sign", "zero"): "sign_nan_zero", ("sign", "propagate"): "sign_nan_propagate"}
UFUNC_OF.update({("round", m): "round_" + m for op, m in OPS if op == "round"})


def ufunc(op, param):
    return getattr(eltwise.ufunc, UFUNC_OF[(op, param)])


def test_every_option_pair_is_a_ufunc():
    assert sorted(UFUNC_OF.values()) == sorted(eltwise.ufunc.__all__)
    for name in eltwise.ufunc.__all__:
        u = getattr(eltwise.ufunc, name)
        assert isinstance(u, np.ufunc) and u.__name__ == name
        assert (u.nin, u.nout) == (1, 1)
        loops = {t.split("->")[0] for t in u.types}
        assert {"b", "B", "h", "H", "i", "I", "l", "L", "q", "Q", "e", "f", "d"} <= loops
        if BFLOAT16 is not None:  # ml_dtypes' type has its own registered loop, not a cast
            assert u(np.zeros(2, BFLOAT16)).dtype == BFLOAT16


def inputs(dtype, rng):
    if dtype.itemsize <= 2:
        return all_bit_patterns(dtype)
    return special_values(dtype, rng)


@pytest.mark.parametrize("op,param", OPS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_loops_bit_exact(op, param, dtype, rng):
    u = ufunc(op, param)
    x = inputs(dtype, rng)
    want = expected(op, x, param)
    assert_bits_equal(u(x), want)                       # contiguous
    assert_bits_equal(u(x[::3]), want[::3])             # strided input, new output
    assert_bits_equal(u(x[::-1]), want[::-1])           # negative stride
    out = np.zeros(2 * len(x), dtype)
    assert u(x, out=out[::2]) is not None               # strided output
    assert_bits_equal(out[::2], want)
    y = x.copy()
    u(y, out=y)                                         # in place
    assert_bits_equal(y, want)
    assert_bits_equal(u(x, out=(np.empty_like(x),))[()], want)  # out= as a tuple


@pytest.mark.parametrize("op,param", OPS)
@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("float16"), np.dtype("int64")],
                         ids=str)
def test_large_runs_go_through_the_library(op, param, dtype, rng):
    """From the host fast path's threshold (staging/host_run.h) the loop hands the run to a cached
    compiled operator, which splits it across threads: contiguous, strided, reversed."""
    base = special_values(dtype, rng, random_count=300_000)
    want = expected(op, base, param)
    u = ufunc(op, param)
    for threads in (0, 2, 1):
        with eltwise.num_threads(threads):
            assert_bits_equal(u(base), want)
            assert_bits_equal(u(base[::2]), want[::2])
            assert_bits_equal(u(base[::-1]), want[::-1])
            y = base.copy()
            u(y, out=y)
            assert_bits_equal(y, want)


def test_numpy_machinery(rng):
    x = special_values(np.dtype(np.float32), rng)[:4000].reshape(-1, 4)
    u = eltwise.ufunc.round_toward_infinity
    want = expected("round", x, "toward_infinity")
    # broadcasting into a larger out
    out = np.zeros((3,) + x.shape, np.float32)
    u(x, out=out)
    for i in range(3):
        assert_bits_equal(out[i], want)
    # where=: untouched elements keep out's values
    mask = np.arange(x.size).reshape(x.shape) % 3 == 0
    out = np.full(x.shape, 7, np.float32)
    u(x, out=out, where=mask)
    assert_bits_equal(out, np.where(mask, want, np.float32(7)))
    # dtype= and casting: float16 input computed in float32's loop
    h = x.astype(np.float16)
    assert_bits_equal(u(h, dtype=np.float32), expected("round", h.astype(np.float32), "toward_infinity"))
    with pytest.raises(TypeError):
        u(x, out=np.empty(x.shape, np.int8))  # same_kind casting refuses float -> int
    # .at: repeated indices apply repeatedly (round is idempotent, so once is the same)
    y = x.ravel().copy()
    idx = np.array([0, 5, 5, 17])
    u.at(y, idx)
    z = x.ravel().copy()
    z[[0, 5, 17]] = want.ravel()[[0, 5, 17]]
    assert_bits_equal(y, z)
    # Python scalars and lists, and a NumPy scalar out
    assert eltwise.ufunc.sign_nan_zero(-3.5) == -1.0
    assert isinstance(eltwise.ufunc.sign_nan_zero(np.float16(2)), np.float16)
    assert_bits_equal(eltwise.ufunc.round_down([[1.5, -1.5]]), np.array([[1.0, -2.0]]))


def test_ufuncs_pickle_by_name():
    for name in eltwise.ufunc.__all__:
        u = getattr(eltwise.ufunc, name)
        assert pickle.loads(pickle.dumps(u)) is u


def test_functions_hand_array_ufunc_objects_to_the_ufuncs():
    """An object implementing __array_ufunc__ receives the ufunc of the requested option."""

    class Recorder:
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return (ufunc.__name__, method, kwargs)

    r = Recorder()
    assert eltwise.sign(r) == ("sign_nan_zero", "__call__", {})
    assert eltwise.sign(r, nan="propagate") == ("sign_nan_propagate", "__call__", {})
    assert eltwise.round(r, mode="up") == ("round_up", "__call__", {})
    o = np.zeros(3)
    name, _, kwargs = eltwise.round(r, o, mode="down")
    assert name == "round_down" and kwargs["out"][0] is o
