"""eltwise on a GPU through PyTorch, CuPy and JAX tensors (DLPack, no host copy) and on NumPy
arrays with device="cuda": every dtype the framework has, every op and option, exhaustive for
8- and 16-bit dtypes, against the NumPy oracle of conftest.py. Each test skips without a GPU
that eltwise can use or without the framework.
"""

import numpy as np
import pytest

import eltwise
from conftest import (ALL_DTYPES, BFLOAT16, OPS, all_bit_patterns, assert_bits_equal, call, expected,
                      special_values)

needs_gpu = pytest.mark.skipif(not eltwise.info()["cuda_devices"], reason="no GPU eltwise can use")

try:
    import torch
except ImportError:
    torch = None
try:
    import cupy
except ImportError:
    cupy = None
try:
    import jax
    import jax.numpy as jnp
except ImportError:
    jax = None


def inputs(dtype, rng):
    """Every value of an 8- or 16-bit dtype; edge, random and near-half values otherwise."""
    if dtype.itemsize <= 2:
        return all_bit_patterns(dtype)
    return special_values(dtype, rng, 50000)


def torch_gpu():
    if torch is None or not torch.cuda.is_available():
        pytest.skip("no PyTorch with CUDA")


def torch_dtype(dtype):
    name = "bfloat16" if dtype == BFLOAT16 else dtype.name
    return getattr(torch, name, None)


def to_torch(a):
    """A NumPy array as a CUDA tensor with the same bits (bfloat16 and the unsigned types through
    a same-size integer view: torch reads neither from NumPy directly)."""
    bits = {1: (np.uint8, torch.uint8), 2: (np.int16, torch.int16), 4: (np.int32, torch.int32),
            8: (np.int64, torch.int64)}[a.dtype.itemsize]
    t = torch.from_numpy(np.ascontiguousarray(a).view(bits[0]).copy()).cuda()
    return t.view(torch_dtype(a.dtype))


def from_torch(t, dtype):
    bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[dtype.itemsize]
    return t.view(bits).contiguous().cpu().numpy().view(dtype)


@needs_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_numpy_arrays_on_the_gpu(dtype, rng):
    x = inputs(dtype, rng)
    for op, param in OPS:
        assert_bits_equal(call(op, x, param, device="cuda"), expected(op, x, param))


@needs_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_torch_tensors(dtype, rng):
    torch_gpu()
    if torch_dtype(dtype) is None:
        pytest.skip(f"PyTorch has no {dtype}")
    x = inputs(dtype, rng)
    t = to_torch(x)
    for op, param in OPS:
        r = call(op, t, param, device="cuda")
        assert isinstance(r, torch.Tensor) and r.device == t.device and r.dtype == t.dtype
        assert_bits_equal(from_torch(r, dtype), expected(op, x, param))
    # Layouts a framework hands over: a transposed view, a strided slice, broadcast, in place.
    n = x.size - x.size % 64
    m = t[:n].reshape(-1, 64)
    host = x[:n].reshape(-1, 64)
    for view, want in ((m.t(), host.T), (m[::3, 1::2], host[::3, 1::2]),
                       (m[:1].expand(5, 64), np.broadcast_to(host[:1], (5, 64)))):
        r = eltwise.round(view, mode="toward_infinity", device="cuda")
        assert_bits_equal(from_torch(r, dtype), expected("round", np.array(want), "toward_infinity"))
    y = m.t()
    before = y.data_ptr()
    assert eltwise.sign(y, y, nan="propagate", device="cuda") is y
    assert y.data_ptr() == before
    assert_bits_equal(from_torch(y, dtype), expected("sign", np.array(host.T), "propagate"))


@needs_gpu
def test_torch_on_the_callers_stream():
    """stream=: the producer's work is ordered before the call, the call returns without waiting,
    and the result is there once the stream has run."""
    torch_gpu()
    if not hasattr(torch.cuda, "_sleep"):
        pytest.skip("no torch.cuda._sleep")
    stream = torch.cuda.Stream()
    x = torch.arange(-(1 << 22), 1 << 22, dtype=torch.float32, device="cuda") / 4
    eltwise.round(x, mode="toward_infinity", device="cuda", stream=stream)  # set-up costs out of the way
    torch.cuda.synchronize()
    with torch.cuda.stream(stream):
        # About 1 s of GPU cycles queued ahead on the stream: longer than the call takes even on a
        # loaded host (0.1 s was not, once, with 8 test processes sharing the machine).
        torch.cuda._sleep(2_000_000_000)
        y = x * 1  # the producer's pending work: eltwise must read y after it
        r = eltwise.round(y, mode="toward_infinity", device="cuda", stream=stream)
        queued = not stream.query()
    stream.synchronize()
    assert queued, "the call waited for the stream"
    assert_bits_equal(r.cpu().numpy(), expected("round", x.cpu().numpy(), "toward_infinity"))
    for handle in (stream.cuda_stream, 0, 1):  # a raw handle; the legacy default stream
        r = eltwise.sign(x, device="cuda", stream=handle)
        torch.cuda.synchronize()
        assert_bits_equal(r.cpu().numpy(), expected("sign", x.cpu().numpy(), "zero"))


@needs_gpu
@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d != BFLOAT16], ids=str)
def test_cupy_arrays(dtype, rng):
    if cupy is None:
        pytest.skip("no CuPy")
    x = inputs(dtype, rng)
    c = cupy.asarray(x)
    for op, param in OPS:
        r = call(op, c, param, device="cuda")
        assert isinstance(r, cupy.ndarray)
        assert_bits_equal(cupy.asnumpy(r), expected(op, x, param))
    # A strided view, on a stream of CuPy's. (Not a reversed one: CuPy 14 exports negative strides
    # through DLPack as huge positive ones, which eltwise refuses and PyTorch aborts on.)
    stream = cupy.cuda.Stream(non_blocking=True)
    view = c[1::3]
    out = cupy.empty_like(view)
    with stream:
        assert eltwise.sign(view, out, device="cuda", stream=stream) is out
    stream.synchronize()
    assert_bits_equal(cupy.asnumpy(out), expected("sign", x[1::3], "zero"))


@needs_gpu
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "int8", "int16", "int32", "uint8"])
def test_jax_arrays(dtype, rng):
    if jax is None or not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("no JAX with a GPU")
    d = np.dtype(BFLOAT16 if dtype == "bfloat16" else dtype)
    x = inputs(d, rng)
    j = jax.device_put(jnp.asarray(x), jax.devices("gpu")[0])
    for op, param in OPS:
        r = call(op, j, param, device="cuda")
        assert isinstance(r, jax.Array)
        assert_bits_equal(np.asarray(r), expected(op, x, param))
