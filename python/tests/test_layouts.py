"""Every layout NumPy can produce: orders, views, negative and zero strides, 0-d, empty, ndim > 8,
unaligned and byte-swapped arrays, in-place and overlapping out, DirectML-level staging."""

import numpy as np
import pytest

import eltwise
from conftest import (ALL_DTYPES, MODES, OPS, assert_bits_equal, call, expected, expected_round,
                      expected_sign, special_values)


def values(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    v = special_values(np.dtype(dtype), rng, random_count=max(n, 1))
    return rng.permutation(v)[:n].reshape(shape)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_c_and_fortran_order(dtype):
    x = values(dtype, (5, 6, 7))
    for a in (x, np.asfortranarray(x)):
        for op, param in OPS:
            r = call(op, a, param)
            assert_bits_equal(r, expected(op, a, param))
    f = np.asfortranarray(x)
    assert eltwise.round(f).flags.f_contiguous  # the new output follows x's layout


@pytest.mark.parametrize("dtype", ["float32", "float16", "int16", "uint8", "float64"])
def test_views(dtype):
    x = values(dtype, (6, 7, 8), seed=3)
    views = [
        x[::-1],
        x[:, ::-1, ::-2],
        x[::-1, ::-1, ::-1],
        x[1:5, 2:7:2, ::3],
        x.transpose(2, 0, 1),
        x.transpose(1, 2, 0)[::-1, :, 1::2],
        x[:, 3],
        x[2, :, 5],
        x[..., np.newaxis, :],
        x[:, :, :1],
    ]
    for v in views:
        for op, param in OPS:
            assert_bits_equal(call(op, v, param), expected(op, np.ascontiguousarray(v), param))


@pytest.mark.parametrize("dtype", ["int8", "float16", "float32", "float64"])
def test_large_permuted_views_into_out(dtype):
    # 256 KiB and more into a given out: the library plans the whole layout (tiled transposes),
    # not NumPy's iterator; the results are the same either way.
    side = int((1 << 19) // np.dtype(dtype).itemsize) ** 0.5
    x = values(dtype, (int(side) + 3, int(side) - 5), seed=5)
    a = values(dtype, (1, 16, 37, 29), seed=6)
    b = np.ascontiguousarray(np.broadcast_to(a, (40, 16, 37, 29)))
    views = [x.T, x[::-1].T, b.transpose(0, 2, 3, 1), b.transpose(0, 3, 1, 2), b[:, ::2].swapaxes(2, 3)]
    for v in views:
        assert v.nbytes >= 1 << 18
        for op, param in OPS:
            out = np.empty(v.shape, v.dtype)
            r = call(op, v, param, out=out)
            assert r is out
            assert_bits_equal(out, expected(op, np.ascontiguousarray(v), param))


def test_zero_strides():
    base = np.array([1.5, -2.5, np.nan, -0.0], np.float32)
    for x in (np.broadcast_to(base, (3, 4)), np.broadcast_to(base[:, None], (4, 5)),
              np.broadcast_to(np.float32(-7.5), (2, 3, 4))):
        assert_bits_equal(eltwise.round(x, mode="toward_infinity"),
                          expected_round(np.ascontiguousarray(x), "toward_infinity"))
        assert_bits_equal(eltwise.sign(x), expected_sign(np.ascontiguousarray(x)))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_zero_d_and_empty(dtype):
    x = values(dtype, ())
    r = eltwise.round(x)
    assert r.shape == () and isinstance(r, np.ndarray)
    assert_bits_equal(r, expected_round(x))
    for shape in [(0,), (3, 0), (0, 4, 5)]:
        e = np.zeros(shape, dtype)
        assert eltwise.sign(e).shape == shape
        out = np.zeros(shape, dtype)
        assert eltwise.round(e, out=out) is out


def test_more_than_eight_dimensions_merged():
    x = values("float32", (2,) * 10 + (3,), seed=5)
    for v in (x, x.T, x[::-1], np.asfortranarray(x)):
        assert_bits_equal(eltwise.round(v, mode="down"), np.floor(v))
        out = np.empty_like(v)
        eltwise.sign(v, out, nan="propagate")
        assert_bits_equal(out, np.sign(v))
    # size-1 dimensions are dropped
    y = values("float16", (1, 3, 1, 1, 4, 1, 1, 1, 1, 2, 1))
    assert_bits_equal(eltwise.round(y, mode="up"), expected_round(y, "up"))
    # in place on 12 dimensions
    z = values("int8", (2,) * 12)
    want = np.sign(z)
    eltwise.sign(z, z)
    assert_bits_equal(z, want)
    # empty with many dimensions
    assert eltwise.sign(np.zeros((2,) * 9 + (0,), np.float32)).shape == (2,) * 9 + (0,)


def test_more_than_eight_unmergeable_dimensions():
    x = np.zeros((3,) * 9, np.float32)[(slice(None, None, 2),) * 9]
    with pytest.raises(eltwise.EltwiseError, match=r"input\.sizes has 9 dimensions.*x has 9 dimensions; 9 remain"):
        eltwise.sign(x)


def test_unaligned():
    n = 1000
    for dtype in ("float32", "float64", "int32", "uint64", "float16"):
        dt = np.dtype(dtype)
        raw = np.zeros(n * dt.itemsize + 1, np.uint8)
        x = raw[1:].view(dt)
        assert not x.flags.aligned
        x[...] = values(dtype, (n,), seed=2)
        raw2 = np.zeros(n * dt.itemsize + 3, np.uint8)
        out = raw2[3:].view(dt)
        assert_bits_equal(eltwise.round(x, out, mode="toward_infinity"), expected_round(x.copy(), "toward_infinity"))
        assert_bits_equal(eltwise.sign(x), expected_sign(x.copy()))


def test_byte_swapped():
    x = values("float32", (50,), seed=9)
    swapped = x.astype(">f4")
    r = eltwise.round(swapped, mode="toward_zero")
    assert r.dtype == np.dtype("=f4")
    assert_bits_equal(r, np.trunc(x))
    out = np.empty(50, ">f8")
    with pytest.raises(eltwise.EltwiseError, match="same type"):
        eltwise.sign(swapped, out)
    out = np.zeros(50, ">f4")
    assert eltwise.sign(swapped, out, nan="propagate") is out
    assert_bits_equal(out.astype("=f4"), np.sign(x))
    # in place on a byte-swapped array
    eltwise.round(swapped, swapped, mode="up")
    assert_bits_equal(swapped.astype("=f4"), np.ceil(x))
    i = np.arange(-5, 5, dtype=">i8")
    assert eltwise.sign(i).tolist() == np.sign(np.arange(-5, 5)).tolist()


def test_strides_not_a_multiple_of_the_item_size():
    rec = np.zeros(40, dtype=[("a", "u1"), ("b", "<f4")])
    rec["b"] = values("float32", (40,), seed=4)
    field = rec["b"]
    assert field.strides[0] % 4 != 0
    assert_bits_equal(eltwise.round(field, mode="toward_infinity"), expected_round(field.copy(), "toward_infinity"))
    out_rec = np.zeros(40, dtype=[("a", "u1"), ("b", "<f4")])
    eltwise.round(field, out_rec["b"], mode="down")
    assert_bits_equal(out_rec["b"], np.floor(field))
    assert (out_rec["a"] == 0).all()


@pytest.mark.parametrize("op,param", OPS)
def test_in_place(op, param):
    x = values("float16", (9, 10), seed=1)
    want = expected(op, x, param)
    r = call(op, x, param, out=x)
    assert r is x
    assert_bits_equal(x, want)


@pytest.mark.parametrize("shift", [1, 3, 64, 999])
def test_overlapping_out(shift):
    base = values("float32", (4000,), seed=2)
    src = base.copy()
    x = base[: 4000 - shift]
    out = base[shift:]
    want = expected_round(src[: 4000 - shift], "toward_infinity")
    eltwise.round(x, out, mode="toward_infinity")
    assert_bits_equal(base[shift:], want)
    assert_bits_equal(base[:shift], src[:shift])
    # and the other direction
    base = src.copy()
    eltwise.sign(base[shift:], base[: 4000 - shift])
    assert_bits_equal(base[: 4000 - shift], expected_sign(src[shift:]))


def test_overlapping_out_reversed_and_transposed():
    base = values("float64", (300,), seed=8)
    src = base.copy()
    eltwise.round(base, base[::-1], mode="down")
    assert_bits_equal(base, np.floor(src)[::-1])
    m = values("int32", (40, 40), seed=3)
    src = m.copy()
    eltwise.sign(m, m.T)
    assert_bits_equal(m, np.sign(src).T)


def test_out_keeps_padding():
    out_base = np.full((8, 10), 7.0, np.float32)
    x = values("float32", (4, 5), seed=6)
    eltwise.round(x, out_base[::2, ::2], mode="up")
    assert_bits_equal(out_base[::2, ::2], np.ceil(x))
    mask = np.ones_like(out_base, bool)
    mask[::2, ::2] = False
    assert (out_base[mask] == 7.0).all()


def test_directml_levels_stage_unaligned_and_short_buffers():
    x = values("float16", (1, 1, 1, 3), seed=1)  # 6 bytes; DMLCalcBufferTensorSize is 8
    assert_bits_equal(eltwise.sign(x, feature_level="2_0"), expected_sign(x))
    raw = np.zeros(4 * 25, np.uint8)
    xm = raw[4:].view(np.float32)[:16].reshape(1, 2, 2, 4)  # 4 bytes past 16-byte alignment
    xm[...] = values("float32", (1, 2, 2, 4), seed=3)
    out_base = np.full(4 * 40, 9, np.uint8)
    out = out_base[8:].view(np.float32)[: 32].reshape(1, 2, 4, 4)[:, :, ::2, :]
    r = eltwise.round(xm, out, mode="toward_infinity", feature_level="3_0")
    assert r is out
    assert_bits_equal(out, expected_round(xm.copy(), "toward_infinity"))
    untouched = np.ones(out_base.size, bool)
    untouched[8:8 + 128].reshape(1, 2, 4, 16)[:, :, ::2, :] = False
    assert (out_base[untouched] == 9).all()
    # zero strides are valid DirectML input strides
    b = np.broadcast_to(np.array([1.5, -2.5], np.float16), (1, 3, 2, 2))
    assert_bits_equal(eltwise.round(b, feature_level="2_1"), expected_round(np.ascontiguousarray(b)))
    # the highest DirectML level accepts what the lower ones do
    assert_bits_equal(eltwise.sign(xm, feature_level="6_4"), expected_sign(xm.copy()))


def test_directml_levels_take_the_array_layout_as_is():
    x = values("float32", (2, 3), seed=1)
    with pytest.raises(eltwise.EltwiseError, match=r"^input\.strides\[0\] is -3; DirectML requires non-negative strides$"):
        eltwise.sign(x[::-1], feature_level="3_0")
    assert_bits_equal(eltwise.sign(np.ascontiguousarray(x[::-1]), feature_level="3_0"),
                      expected_sign(x[::-1]))
    # Fortran order is a positive-strided layout: accepted
    assert_bits_equal(eltwise.sign(np.asfortranarray(x), feature_level="3_0"), expected_sign(x))


@pytest.mark.parametrize("level", ["2_1", "3_0", "4_1", "5_0", "6_4"])
def test_directml_level_results(level):
    x = values("float16", (1, 2, 3, 4), seed=2)
    for mode in MODES[:3]:
        assert_bits_equal(eltwise.round(x, mode=mode, feature_level=level), expected_round(x, mode))
    i = values("int16", (1, 2, 3, 4), seed=2)
    assert_bits_equal(eltwise.sign(i, feature_level=level), np.sign(i))
