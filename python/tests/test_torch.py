"""PyTorch CPU tensors, which the module reads through their own accessors instead of __dlpack__
(python/src/torch_tensors.h): every dtype against the NumPy oracle, bit for bit, through each
route a tensor can take (packed, the library's layouts, the DLPack route for what the direct read
declines), and the errors. Skipped without PyTorch."""

import numpy as np
import pytest

import eltwise
from conftest import (ALL_DTYPES, BFLOAT16, OPS, all_bit_patterns, assert_bits_equal, call, expected,
                      expected_sign, special_values)

torch = pytest.importorskip("torch")

# Same-size integer types through which a NumPy array's bits become a tensor's and back (torch
# reads neither bfloat16 nor, in older versions, the wider unsigned types from NumPy).
TORCH_BITS = {1: (np.uint8, torch.uint8), 2: (np.int16, torch.int16), 4: (np.int32, torch.int32),
              8: (np.int64, torch.int64)}


def torch_dtype(dtype):
    return getattr(torch, "bfloat16" if dtype == BFLOAT16 else dtype.name, None)


def to_torch(a):
    """A NumPy array as a CPU tensor with the same bits and shape (a copy)."""
    np_bits, torch_bits = TORCH_BITS[a.dtype.itemsize]
    t = torch.from_numpy(np.ascontiguousarray(a).view(np_bits).copy())
    return t.view(torch_dtype(a.dtype))


def to_numpy(t, dtype):
    """A tensor's values as a NumPy array of dtype, bit for bit."""
    return t.contiguous().view(TORCH_BITS[dtype.itemsize][1]).numpy().view(dtype)


def inputs(dtype, rng):
    """Every value of an 8- or 16-bit dtype; edge, random and near-half values otherwise."""
    if dtype.itemsize <= 2:
        return all_bit_patterns(dtype)
    return special_values(dtype, rng, 20000)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_every_dtype_and_op_packed(dtype, rng):
    if torch_dtype(dtype) is None:
        pytest.skip(f"this PyTorch has no {dtype}")
    x = inputs(dtype, rng)
    t = to_torch(x)
    for op, param in OPS:
        r = call(op, t, param)
        assert type(r) is torch.Tensor and r.dtype == t.dtype and r.shape == t.shape
        assert_bits_equal(to_numpy(r, dtype), expected(op, x, param))
        out = torch.empty_like(t)
        assert call(op, t, param, out=out) is out
        assert_bits_equal(to_numpy(out, dtype), expected(op, x, param))
    y = t.clone()
    assert eltwise.round(y, out=y, mode="toward_infinity") is y  # in place
    assert_bits_equal(to_numpy(y, dtype), expected("round", x, "toward_infinity"))


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.int8)], ids=str)
def test_layouts(dtype, rng):
    """Views the packed fast path does not take: the library runs them where they lie."""
    base = np.resize(inputs(dtype, rng), 4096).reshape(64, 64)
    t = to_torch(base)
    views = {
        "transposed": (t.t(), base.T),
        "sliced": (t[3:40:2, 5:], base[3:40:2, 5:]),  # a storage offset and a row stride
        "offset": (t[1:], base[1:]),
        "expanded": (t[0].expand(8, 64), np.broadcast_to(base[0], (8, 64))),
        "channels_last": (t.reshape(1, 4, 32, 32).to(memory_format=torch.channels_last),
                          base.reshape(1, 4, 32, 32)),
        "0-d": (t[2, 3], base[2, 3]),
        "empty": (t[:0], base[:0]),
    }
    for name, (view, want) in views.items():
        for op, param in OPS:
            r = call(op, view, param)
            assert type(r) is torch.Tensor and r.shape == view.shape, name
            assert_bits_equal(to_numpy(r, dtype).reshape(want.shape), expected(op, want, param))
            out = torch.empty_like(view).t() if view.dim() == 2 and view.numel() else None
            if out is not None:  # a transposed out
                out = out.contiguous().t()
                assert call(op, view, param, out=out) is out
                assert_bits_equal(to_numpy(out, dtype), expected(op, want, param))


def test_partial_overlap_reads_x_whole():
    """x and out share part of one buffer: the result is as if x were read before any write."""
    values = np.arange(-300, 300, dtype=np.float32) / 4
    buffer = torch.from_numpy(values.copy())
    eltwise.round(buffer[:-7], out=buffer[7:], mode="toward_infinity")
    want = values.copy()
    want[7:] = expected("round", values[:-7], "toward_infinity")
    assert_bits_equal(buffer.numpy(), want)


def test_threads_and_large_tensors():
    """A tensor large enough to be run without the GIL and on more than one thread."""
    x = (torch.arange(-(1 << 21), 1 << 21, dtype=torch.float32) / 8).reshape(1 << 11, 1 << 11)
    for threads in (1, 2):
        assert_bits_equal(eltwise.round(x, threads=threads).numpy(), expected("round", x.numpy(),
                                                                           "halves_to_nearest_even"))
        assert_bits_equal(eltwise.sign(x.t(), threads=threads).numpy(), expected_sign(x.numpy().T))


def test_negative_views():
    """A negative view's memory holds the negated values: as x it is read through a copy of its
    values, as out it is refused with nothing written."""
    x = torch.tensor([-2.5, -0.5, 0.0, 0.5, 2.5])
    negative = torch._neg_view(x)
    assert negative.is_neg()
    assert_bits_equal(eltwise.sign(negative).numpy(), expected_sign(-x.numpy()))
    out = torch.zeros(5)
    assert eltwise.sign(negative, out=out) is out
    assert_bits_equal(out.numpy(), expected_sign(-x.numpy()))
    imag = torch.tensor([1 + 2j, 3 - 4j]).conj().imag  # a negative view PyTorch itself makes
    if imag.is_neg():
        assert_bits_equal(eltwise.sign(imag).numpy(), np.array([-1, 1], np.float32))
    target = torch._neg_view(torch.zeros(5))
    with pytest.raises(ValueError, match="out is a PyTorch tensor with the negative bit set"):
        eltwise.sign(x, out=target)
    assert_bits_equal(target.resolve_neg().numpy(), np.full(5, -0.0, np.float32))  # nothing written


def test_what_the_direct_read_declines():
    """A subclass, a sparse tensor and tensors that require grad take the DLPack route."""
    x = torch.tensor([-2.5, -0.5, 0.0, 0.5, 2.5])
    grad = x.clone().requires_grad_()
    with pytest.raises(BufferError, match="require gradient"):  # PyTorch's own refusal to export it
        eltwise.sign(grad)
    assert_bits_equal(eltwise.sign(grad.detach()).numpy(), expected_sign(x.numpy()))

    with pytest.raises(BufferError, match="require gradient"):
        eltwise.sign(x, out=torch.zeros(5, requires_grad=True))
    with pytest.raises(BufferError, match="layout other than torch.strided"):
        eltwise.sign(x.to_sparse())

    class Sub(torch.Tensor):
        pass

    sub = x.as_subclass(Sub)
    assert_bits_equal(np.asarray(eltwise.sign(sub)), expected_sign(x.numpy()))


def test_errors_name_the_operand():
    x = torch.zeros(4, 5)
    with pytest.raises(eltwise.EltwiseError, match="out has type float64 but x has type float32"):
        eltwise.sign(x, out=torch.zeros(4, 5, dtype=torch.float64))
    with pytest.raises(eltwise.EltwiseError, match=r"out has shape \(5, 4\) but x has shape \(4, 5\)"):
        eltwise.sign(x, out=torch.zeros(5, 4))
    with pytest.raises(TypeError, match="x has DLPack dtype"):
        eltwise.sign(torch.zeros(3, dtype=torch.complex64))
    with pytest.raises(TypeError, match="x has DLPack dtype"):
        eltwise.sign(torch.zeros(3, dtype=torch.bool))
    before = x.clone()
    with pytest.raises(eltwise.EltwiseError):
        eltwise.sign(torch.ones(4, 5), out=x[0].expand(4, 5))  # an out that writes one element twice
    assert torch.equal(x, before)
