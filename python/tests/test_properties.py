"""Property tests: random dtypes, shapes and strided views of x and out, compared with NumPy."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ALL_DTYPES, BITS, OPS, assert_bits_equal, call, expected, is_float


def filled(dtype, shape, rng):
    """Random bit patterns mixed with values near integers and halves."""
    n = int(np.prod(shape))
    bits = rng.integers(0, 1 << (8 * dtype.itemsize), size=n, dtype=np.uint64, endpoint=False)
    a = bits.astype(BITS[dtype.itemsize]).view(dtype)
    if is_float(dtype) and n:
        near = (rng.integers(-64, 64, size=n) / 4.0).astype(np.float32).astype(dtype)
        pick = rng.random(n) < 0.5
        a = np.where(pick, near, a).astype(dtype)
    return a.reshape(shape)


@st.composite
def strided_view(draw, dtype, shape_hint=None):
    """A view of a fresh base array: random slices (steps -3..3), a random axis order."""
    ndim = draw(st.integers(0, 5)) if shape_hint is None else len(shape_hint)
    if shape_hint is None:
        base_shape = draw(st.lists(st.integers(0, 7), min_size=ndim, max_size=ndim))
    else:
        base_shape = [s * 3 + 2 for s in shape_hint]
    seed = draw(st.integers(0, 2**32 - 1))
    base = filled(dtype, tuple(base_shape), np.random.default_rng(seed))
    index = []
    for axis, size in enumerate(base_shape):
        step = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
        if shape_hint is None:
            start = draw(st.integers(0, max(size - 1, 0)))
            stop = draw(st.integers(0, size))
            index.append(slice(start, stop, step) if step > 0 else slice(stop, start, step))
        else:
            n = shape_hint[axis]
            if step > 0:
                start = draw(st.integers(0, size - (n - 1) * step - 1 if n else size))
                index.append(slice(start, start + n * step if n else start, step))
            else:
                start = draw(st.integers((n - 1) * -step if n else 0, size - 1))
                index.append(slice(start, start + n * step if n else start, step) if start + n * step >= 0 else slice(start, None, step))
    view = base[tuple(index) + (Ellipsis,)]
    perm = draw(st.permutations(range(view.ndim)))
    return view.transpose(perm) if shape_hint is None else view


@st.composite
def case(draw):
    dtype = draw(st.sampled_from(ALL_DTYPES))
    op, param = draw(st.sampled_from(OPS))
    x = draw(strided_view(dtype))
    return dtype, op, param, x


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case())
def test_new_output(c):
    dtype, op, param, x = c
    assert_bits_equal(call(op, x, param), expected(op, np.array(x, copy=True), param))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_strided_out(data):
    dtype = data.draw(st.sampled_from(ALL_DTYPES))
    op, param = data.draw(st.sampled_from(OPS))
    x = data.draw(strided_view(dtype))
    out = data.draw(strided_view(dtype, shape_hint=x.shape))
    assert out.shape == x.shape
    base = out.base if out.base is not None else out
    before = base.copy()
    want = expected(op, np.array(x, copy=True), param)
    assert call(op, x, param, out=out) is out
    assert_bits_equal(out, want)
    # nothing outside the view was written
    idx = np.arange(base.size)
    origin = (out.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // dtype.itemsize
    addressed = np.ndarray(out.shape, idx.dtype, buffer=idx, offset=origin * idx.itemsize,
                           strides=tuple(st_ // dtype.itemsize * idx.itemsize for st_ in out.strides))
    written = np.zeros(base.size, bool)
    written[addressed.ravel()] = True
    b_bits = np.ascontiguousarray(base).view(BITS[dtype.itemsize]).reshape(-1)
    before_bits = before.view(BITS[dtype.itemsize]).reshape(-1)
    assert (b_bits[~written] == before_bits[~written]).all()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case())
def test_in_place_property(c):
    dtype, op, param, x = c
    want = expected(op, np.array(x, copy=True), param)
    assert call(op, x, param, out=x) is x
    assert_bits_equal(x, want)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_overlapping_property(data):
    """x and out are two views of one buffer (shifted or reversed)."""
    dtype = data.draw(st.sampled_from(ALL_DTYPES))
    op, param = data.draw(st.sampled_from(OPS))
    n = data.draw(st.integers(1, 300))
    shift = data.draw(st.integers(0, n))
    base = filled(dtype, (n + shift,), np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))))
    x = base[:n]
    out = base[shift:shift + n]
    if data.draw(st.booleans()):
        out = out[::-1]
    if data.draw(st.booleans()):
        x, out = out, x
    want = expected(op, x.copy(), param)
    call(op, x, param, out=out)
    assert_bits_equal(out, want)
