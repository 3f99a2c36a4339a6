"""NumPy's conventions for eltwise.sign/round: array_like input, scalar in -> NumPy scalar out,
out as the second positional argument, keyword-only options with clear errors, threads=."""

import numpy as np
import pytest

import eltwise
from conftest import assert_bits_equal, expected_round, expected_sign


def test_array_likes_like_numpy():
    cases = [[1.5, -2.5, 0.0], [[1, -2], [3, 0]], (4, -7), memoryview(b"\x01\x02"), range(-2, 3)]
    for obj in cases:
        want_dtype = np.sign(obj).dtype if not isinstance(obj, memoryview) else np.uint8
        r = eltwise.sign(obj)
        assert isinstance(r, np.ndarray) and r.dtype == want_dtype
        assert_bits_equal(r, expected_sign(np.asarray(obj)))
        assert_bits_equal(eltwise.round(obj, mode="up"), expected_round(np.asarray(obj), "up"))


def test_scalar_in_numpy_scalar_out():
    for x, t in [(2.5, np.float64), (-7, np.int64), (np.float16(-2.5), np.float16),
                 (np.float32(0.5), np.float32), (np.uint8(3), np.uint8)]:
        r = eltwise.round(x, mode="toward_infinity")
        assert type(r) is t, (x, type(r))
        assert_bits_equal(r, expected_round(np.asarray(x), "toward_infinity"))
        s = eltwise.sign(x)
        assert type(s) is t and s == np.sign(x)
    assert type(eltwise.sign(np.array(-2.0))) is np.ndarray  # a 0-d array stays an array


def test_out_is_the_second_positional():
    x = np.array([0.5, 1.5, -2.5], np.float32)
    o = np.empty_like(x)
    assert eltwise.round(x, o) is o
    assert_bits_equal(o, np.rint(x))
    assert eltwise.sign(x, o) is o
    with pytest.raises(TypeError, match=r"takes from 1 to 2 positional arguments .*keyword-only"):
        eltwise.round(x, o, "down")
    with pytest.raises(TypeError, match="multiple values for argument 'out'"):
        eltwise.round(x, o, out=o)
    with pytest.raises(TypeError, match="missing required argument 'x'"):
        eltwise.sign()
    with pytest.raises(TypeError, match="unexpected keyword argument 'mode'"):
        eltwise.sign(x, mode="down")
    assert_bits_equal(eltwise.sign(x=x), np.sign(x))


@pytest.mark.parametrize("call,error,message", [
    (lambda x: eltwise.round(x, mode=0), TypeError,
     "mode must be a str, 'halves_to_nearest_even', 'toward_zero', 'toward_infinity', 'down' or "
     "'up'; got int"),
    (lambda x: eltwise.round(x, mode="ceil"), ValueError,
     "mode is 'ceil'; it must be 'halves_to_nearest_even', 'toward_zero', 'toward_infinity', "
     "'down' or 'up'"),
    (lambda x: eltwise.sign(x, nan=None), TypeError,
     "nan must be a str, 'zero' or 'propagate'; got NoneType"),
    (lambda x: eltwise.sign(x, nan=float("nan")), TypeError,
     "nan must be a str, 'zero' or 'propagate'; got float"),
    (lambda x: eltwise.sign(x, feature_level=3), TypeError,
     "feature_level must be a str, 'extended' or a DirectML level such as '4_1'; got int"),
    (lambda x: eltwise.sign(x, device=0), TypeError,
     "device must be a str, 'cpu', 'cuda' or 'cuda:N'; got int"),
    (lambda x: eltwise.sign(x, threads="2"), TypeError,
     "threads must be None or an int >= 0 (0: one per hardware thread); got str"),
    (lambda x: eltwise.sign(x, threads=True), TypeError,
     "threads must be None or an int >= 0 (0: one per hardware thread); got bool"),
    (lambda x: eltwise.sign(x, threads=-1), ValueError,
     "threads is -1; it must be None or an int from 0 (one per hardware thread) to 65536"),
    (lambda x: eltwise.sign(x, stream="s", device="cuda"), TypeError,
     "stream must be None, an int (a cudaStream_t handle) or a CUDA stream object "
     "(torch.cuda.Stream, cupy.cuda.Stream, anything with __cuda_stream__); got str"),
    (lambda x: eltwise.sign(x, stream=True, device="cuda"), TypeError,
     "stream must be None, an int (a cudaStream_t handle) or a CUDA stream object "
     "(torch.cuda.Stream, cupy.cuda.Stream, anything with __cuda_stream__); got bool"),
    (lambda x: eltwise.sign(x, stream=-1, device="cuda"), ValueError,
     "stream is -1; a cudaStream_t handle is an int from 0 to 2**64 - 1"),
    (lambda x: eltwise.sign(x, stream=0), ValueError,
     "stream is given but device is 'cpu'; stream= applies to a CUDA device"),
])
def test_option_errors_name_the_option_not_the_array(call, error, message):
    x = np.arange(100_000, dtype=np.float32)  # large: its repr must not appear
    with pytest.raises(error) as info:
        call(x)
    assert str(info.value) == message


def test_options_accept_any_str():
    x = np.array([2.5, -0.5], np.float32)
    mode = "".join(["toward", "_", "infinity"])  # not interned
    assert_bits_equal(eltwise.round(x, mode=mode), np.array([3.0, -1.0], np.float32))
    nan = "".join(["prop", "agate"])
    assert np.isnan(eltwise.sign(np.array([np.nan]), nan=nan)[0])


def test_threads_option_and_settings():
    x = np.linspace(-1000, 1000, 1 << 20, dtype=np.float32)
    want = np.rint(x)
    assert eltwise.get_num_threads() == 0
    for threads in (None, 0, 1, 2, 3):
        assert_bits_equal(eltwise.round(x, threads=threads), want)
        assert_bits_equal(eltwise.round(x[::-3], threads=threads), want[::-3])
    eltwise.set_num_threads(1)
    try:
        assert eltwise.get_num_threads() == 1
        assert_bits_equal(eltwise.round(x), want)
    finally:
        eltwise.set_num_threads(0)
    with pytest.raises(ValueError):
        eltwise.set_num_threads(-2)
    with eltwise.num_threads(1):
        assert_bits_equal(eltwise.ufunc.round_halves_to_nearest_even(x), want)
        assert eltwise.get_num_threads() == 0  # the context is per thread, not process-wide
    with pytest.raises(ValueError):
        with eltwise.num_threads(-1):
            pass


def test_operator_cache_is_bounded():
    x = np.zeros((3, 5, 7), np.float32)
    for i in range(300):  # more distinct layouts than the cache holds
        v = np.lib.stride_tricks.as_strided(x, shape=(3, 5), strides=(4 * (i % 35 + 1), 4))
        eltwise.round(v, mode="down")
    assert 0 < eltwise._core._operator_cache_size() <= 256


def test_ndarray_subclasses():
    x = np.ma.masked_array([1.5, -2.5, 3.0], mask=[False, True, False])
    r = eltwise.round(x, mode="toward_infinity")  # through the ufunc: the mask is kept
    assert isinstance(r, np.ma.MaskedArray) and list(r.mask) == [False, True, False]
    assert r[0] == 2.0 and r[2] == 3.0
    v = np.array([1.5, -2.5], np.float32).reshape(1, 1, 1, 2).view(type("Sub", (np.ndarray,), {}))
    got = eltwise.round(v, mode="toward_zero", feature_level="2_1")  # not a ufunc: a base ndarray
    assert_bits_equal(got, np.array([[[[1.0, -2.0]]]], np.float32))


def test_stream_objects_are_read_by_their_protocol():
    """stream= reads __cuda_stream__, .cuda_stream or .ptr; on the CPU any stream is refused."""
    class Protocol:
        def __cuda_stream__(self):
            return (0, 7)

    class Torchlike:
        cuda_stream = 7

    class Cupylike:
        ptr = 7

    class Broken:
        def __cuda_stream__(self):
            return 7

    x = np.zeros(3, np.float32)
    for stream in (Protocol(), Torchlike(), Cupylike()):
        with pytest.raises(ValueError, match="stream is given but device is 'cpu'"):
            eltwise.sign(x, stream=stream)
    with pytest.raises(TypeError, match=r"__cuda_stream__\(\) did not return a \(version, handle\) pair"):
        eltwise.sign(x, stream=Broken())
    with pytest.raises(TypeError, match="got float"):
        eltwise.round(x, stream=1.5)

    class TextPointer:
        ptr = "7"

    with pytest.raises(TypeError, match="CUDA stream object .*; got str$"):
        eltwise.round(x, stream=TextPointer())


def test_numpy_scalars_on_the_library_route():
    """A NumPy scalar is read as a 0-d array: it runs at the extended level and, like any 0-d
    tensor, is refused at a DirectML level, whose tensors have 1 to 8 dimensions."""
    assert_bits_equal(eltwise.sign(np.float32(-2.5), device="cpu"), np.float32(-1))
    with pytest.raises(eltwise.EltwiseError,
                       match="^input.sizes has 0 dimensions; Sign at feature level 4_1 requires 1 to 8"):
        eltwise.sign(np.float32(-2.5), feature_level="4_1")
    assert_bits_equal(eltwise.sign(np.array([-2.5], np.float32), feature_level="4_1"),
                      np.array([-1], np.float32))

