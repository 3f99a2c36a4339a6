"""Every error path: EltwiseError (a ValueError) with the library's message for requests eltwise
rejects, TypeError for unsupported objects and dtypes, ValueError for unknown option values."""

import numpy as np
import pytest

import eltwise


def f32(*shape):
    return np.zeros(shape, np.float32)


def test_eltwise_error_is_a_value_error():
    assert issubclass(eltwise.EltwiseError, ValueError)
    assert eltwise.EltwiseError.__module__ == "eltwise"
    with pytest.raises(eltwise.EltwiseError) as info:
        eltwise.sign(f32(2, 3), feature_level="2_0")
    assert str(info.value) == "input.sizes has 2 dimensions; Sign at feature level 2_0 requires exactly 4"
    assert info.value.code == "invalid_argument"


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: eltwise.round(f32(1, 1, 1, 1), feature_level="2_0"),
         "Round is not available at feature level 2_0; it requires feature level 2_1 or higher"),
        (lambda: eltwise.sign(f32(1, 1, 1, 1), feature_level="1_0"),
         "Sign is not available at feature level 1_0; it requires feature level 2_0 or higher"),
        (lambda: eltwise.sign(np.zeros((1, 1, 1, 2), np.int8), feature_level="2_0"),
         "input.type is int8; Sign at feature level 2_0 accepts float32, float16"),
        (lambda: eltwise.sign(np.zeros((1, 2), np.int64), feature_level="4_0"),
         "input.type is int64; Sign at feature level 4_0 accepts float32, float16, int8, int16, int32, uint8, uint16, uint32"),
        (lambda: eltwise.round(np.zeros(3, np.float64), feature_level="6_4"),
         "input.type is float64; Round at feature level 6_4 accepts float32, float16"),
        (lambda: eltwise.round(np.zeros(3, np.int32), feature_level="3_0"),
         "input.type is int32; Round at feature level 3_0 accepts float32, float16"),
        (lambda: eltwise.round(f32(2), mode="down", feature_level="3_0"),
         "mode is down (3); feature level 3_0 accepts DML_ROUNDING_MODE 0-2 only (down and up are extended)"),
        (lambda: eltwise.sign(f32(2, 0), feature_level="3_0"),
         "input.sizes[1] is 0; DirectML requires every size >= 1"),
        (lambda: eltwise.sign(np.float32(1), feature_level="3_0"),
         "input.sizes has 0 dimensions; Sign at feature level 3_0 requires 1 to 8"),
        (lambda: eltwise.sign(f32(*(1,) * 9), feature_level="6_4"),
         "input.sizes has 9 dimensions; Sign at feature level 6_4 requires 1 to 8"),
        (lambda: eltwise.sign(f32(3, 2)[::-1], feature_level="5_0"),
         "input.strides[0] is -2; DirectML requires non-negative strides"),
        (lambda: eltwise.sign(f32(3), np.zeros(3, np.float64)),
         "out has type float64 but x has type float32; input and output must have the same type"),
        (lambda: eltwise.sign(f32(3), f32(4)),
         "out has shape (4,) but x has shape (3,); input and output must have the same sizes"),
        (lambda: eltwise.round(f32(2, 3), out=f32(3, 2)),
         "out has shape (3, 2) but x has shape (2, 3); input and output must have the same sizes"),
        (lambda: eltwise.sign(f32(3), np.lib.stride_tricks.as_strided(f32(3), (3,), (0,), writeable=True)),
         "output.strides[0] is 0 while output.sizes[0] is 3; output elements must not share an address"),
        (lambda: eltwise.round(f32(4), out=np.lib.stride_tricks.as_strided(f32(8), (2, 2), (4, 4), writeable=True)),
         "out has shape (2, 2) but x has shape (4,); input and output must have the same sizes"),
        (lambda: eltwise.round(f32(2, 2), out=np.lib.stride_tricks.as_strided(f32(8), (2, 2), (4, 4), writeable=True)),
         "output.strides map two output elements to the same address; output elements must not share an address"),
    ],
)
def test_library_messages(call, message):
    with pytest.raises(eltwise.EltwiseError) as info:
        call()
    assert str(info.value) == message


def test_cuda_device_unavailable():
    """Without the CUDA backend or without a GPU, device="cuda" is refused with code unsupported."""
    if eltwise.info()["cuda_devices"]:
        pytest.skip("this machine has a GPU eltwise can use")
    for device in ("cuda", "cuda:1"):
        with pytest.raises(eltwise.EltwiseError) as info:
            eltwise.sign(f32(3), device=device)
        assert info.value.code == "unsupported"
        if not eltwise.info()["cuda_backend_built"]:
            assert "no CUDA backend" in str(info.value)


needs_gpu = pytest.mark.skipif(not eltwise.info()["cuda_devices"], reason="no GPU eltwise can use")


@needs_gpu
def test_host_arrays_on_cuda_device():
    from conftest import ALL_DTYPES, OPS, assert_bits_equal, call, expected, special_values

    rng = np.random.default_rng(4)
    for dtype in ALL_DTYPES:
        x = special_values(dtype, rng, 5000)[:5000].reshape(50, 100)
        for v in (x, x[::-1, ::3], x.T):
            for op, param in OPS:
                assert_bits_equal(call(op, v, param, device="cuda"), expected(op, np.array(v), param))
        out = np.zeros_like(x)
        eltwise.round(x, out[::-1], mode="toward_infinity", device="cuda")
        assert_bits_equal(out[::-1], expected(op="round", x=x, param="toward_infinity"))
    with pytest.raises(eltwise.EltwiseError, match="exactly 4"):
        eltwise.sign(f32(2, 3), device="cuda", feature_level="2_0")
    assert eltwise.sign(np.zeros((0, 3), np.float32), device="cuda").shape == (0, 3)


@pytest.mark.parametrize("dtype", [np.bool_, np.complex64, np.complex128, np.longdouble, object,
                                   "datetime64[s]", "U3", [("a", "f4")]])
def test_unsupported_dtypes(dtype):
    x = np.zeros(3, dtype)
    with pytest.raises(TypeError, match=r"^x has dtype .*; eltwise supports float32, float16, bfloat16"):
        eltwise.sign(x)
    with pytest.raises(TypeError, match=r"^out has dtype"):
        eltwise.round(f32(3), out=x)


@pytest.mark.parametrize("obj", [None, "abc", object(), [1 + 2j], [True, False], {"a": 1}])
def test_unsupported_objects(obj):
    """What NumPy reads as an unsupported dtype (object, str, complex, bool) is refused, naming the
    object's type and never its value."""
    with pytest.raises(TypeError, match="eltwise takes NumPy arrays, array_likes and objects with __dlpack__"):
        eltwise.sign(obj)
    with pytest.raises(TypeError, match="^x is a "):
        eltwise.round(obj)


def test_out_errors():
    x = f32(3)
    with pytest.raises(TypeError, match="^out is a list"):
        eltwise.sign(x, [0.0, 0.0, 0.0])
    with pytest.raises(TypeError, match="^out is a NumPy scalar, which is immutable"):
        eltwise.sign(np.float32(1), np.float32(0))
    ro = f32(3)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="^out is read-only$"):
        eltwise.sign(x, ro)
    with pytest.raises(ValueError, match="^out is read-only$"):
        eltwise.round(x, out=np.broadcast_to(np.float32(0), (3,)))
    # a read-only input is fine
    assert eltwise.sign(ro).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(nan="nan"), "nan is 'nan'; it must be 'zero' or 'propagate'"),
        (dict(feature_level="7_0"), "feature_level is '7_0'; it must be one of 1_0, 2_0, 2_1"),
        (dict(feature_level=""), "feature_level is ''; it must be one of"),
        (dict(device="tpu"), "device is 'tpu'; it must be 'cpu', 'cuda' or 'cuda:N'"),
        (dict(device="cuda:x"), "device is 'cuda:x'"),
        (dict(device="CPU"), "device is 'CPU'"),
        (dict(device="cuda:"), "device is 'cuda:'"),
        (dict(device="cuda:12345"), "device is 'cuda:12345'"),
        (dict(device="cuda:+1"), "device is 'cuda:+1'"),
    ],
)
def test_bad_sign_options(kwargs, message):
    with pytest.raises(ValueError) as info:
        eltwise.sign(f32(3), **kwargs)
    assert not isinstance(info.value, eltwise.EltwiseError)
    assert str(info.value).startswith(message)


def test_bad_round_options():
    with pytest.raises(ValueError, match="^mode is 'ceil'; it must be 'halves_to_nearest_even'"):
        eltwise.round(f32(3), mode="ceil")
    with pytest.raises(TypeError):
        eltwise.round(f32(3), mode=2)
    with pytest.raises(TypeError):
        eltwise.sign(f32(3), f32(3), "propagate")  # nan is keyword-only
    with pytest.raises(TypeError):
        eltwise.sign(x=f32(3), bogus=1)


def test_feature_level_spellings():
    x = f32(1, 1, 1, 2)
    for level in ("2_0", "2.0", "DML_FEATURE_LEVEL_2_0", "extended"):
        assert eltwise.sign(x, feature_level=level).shape == x.shape


def test_supports():
    assert eltwise.supports("sign", np.float16, 4, "2_0")
    assert not eltwise.supports("sign", np.float16, 3, "2_0")
    assert not eltwise.supports("sign", "int8", 4, "2_0")
    assert eltwise.supports("sign", "int8", 4, "2_1")
    assert not eltwise.supports("sign", "i8", 2, "4_0")
    assert eltwise.supports("sign", "uint64", 2, "4_1")
    assert not eltwise.supports("round", "float32", 4, "2_0")
    assert eltwise.supports("round", "f4", 4, "2_1")
    assert eltwise.supports("round", "half", 8, "3_0")
    assert not eltwise.supports("round", np.float64, 1, "6_4")
    assert eltwise.supports("round", np.float64, 0)
    assert eltwise.supports("round", "bfloat16", 8)
    assert not eltwise.supports("round", "bfloat16", 9)
    assert eltwise.supports("sign", np.dtype(">i2"), 3)
    assert not eltwise.supports("sign", np.complex64, 1)
    assert not eltwise.supports("sign", bool, 1)
    with pytest.raises(ValueError, match="^op is 'abs'; it must be 'sign' or 'round'"):
        eltwise.supports("abs", np.float32, 1)
    with pytest.raises(ValueError, match="^ndim is -1"):
        eltwise.supports("sign", np.float32, -1)
    with pytest.raises(TypeError, match="is not a data type"):
        eltwise.supports("sign", "floaty", 1)
    with pytest.raises(ValueError, match="^feature_level is"):
        eltwise.supports("sign", np.float32, 1, "9_9")


def test_info():
    info = eltwise.info()
    assert info["version"] == eltwise.__version__
    assert "reference" in info["cpu_targets"]
    assert info["hardware_threads"] >= 1
    assert isinstance(info["cpu_model"], str) and info["cpu_model"]
    caches = [info[f"{level}_cache_bytes"] for level in ("l1d", "l2", "l3")]
    assert all(isinstance(c, int) and c >= 0 for c in caches) and max(caches) > 0
    assert isinstance(info["cuda_backend_built"], bool)
    assert info["dtypes"][:3] == ["float32", "float16", "bfloat16"] and len(info["dtypes"]) == 12
    assert info["rounding_modes"] == ["halves_to_nearest_even", "toward_zero", "toward_infinity", "down", "up"]
    assert info["feature_levels"][-1] == "extended" and "2_0" in info["feature_levels"]


def test_docstrings():
    for f in (eltwise.sign, eltwise.round, eltwise.supports, eltwise.info):
        assert f.__doc__ and len(f.__doc__) > 100
    assert "toward_infinity" in eltwise.round.__doc__
    assert eltwise.EltwiseError.__doc__
