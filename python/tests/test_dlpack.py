"""Objects with __dlpack__: NumPy-backed producers (versioned and legacy capsules), hand-made
capsules for bfloat16, negative strides and CUDA tensors, and PyTorch when it is installed."""

import ctypes
import os
import subprocess
import sys

import numpy as np
import pytest

import eltwise
from conftest import (BFLOAT16, INT_DTYPES, MODES, UINT_DTYPES, assert_bits_equal, expected_round, expected_sign,
                      special_values)


class Producer:
    """Exports a NumPy array through the DLPack protocol only (no buffer protocol, no ndarray)."""

    def __init__(self, array, legacy=False):
        self.array = array
        self.legacy = legacy

    def __dlpack__(self, *, stream=None, max_version=None, **kwargs):
        if self.legacy and max_version is not None:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        if max_version is None:
            return self.array.__dlpack__(stream=stream)
        return self.array.__dlpack__(stream=stream, max_version=max_version)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


@pytest.mark.parametrize("legacy", [False, True])
def test_numpy_producer(legacy):
    rng = np.random.default_rng(1)
    x = special_values(np.dtype(np.float32), rng, 1000)[:1000]
    r = eltwise.round(Producer(x, legacy), mode="toward_infinity")
    assert isinstance(r, np.ndarray)
    assert_bits_equal(r, expected_round(x, "toward_infinity"))
    out = np.zeros_like(x)
    assert isinstance(eltwise.sign(Producer(x, legacy), Producer(out, legacy)), Producer)
    assert_bits_equal(out, expected_sign(x))
    v = x.reshape(10, 100)[::-1, ::3]
    assert_bits_equal(eltwise.round(Producer(v, legacy), mode="down"), np.floor(v))
    # in place through two producers of the same memory
    y = x.copy()
    eltwise.round(Producer(y, legacy), Producer(y, legacy), mode="up")
    assert_bits_equal(y, np.ceil(x))


# Every type NumPy exports through DLPack (bfloat16 it does not: see the hand-made capsule below).
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"] + [d.name for d in INT_DTYPES + UINT_DTYPES])
def test_every_numpy_type_through_dlpack(dtype):
    rng = np.random.default_rng(3)
    x = special_values(np.dtype(dtype), rng, 200)
    assert_bits_equal(eltwise.sign(Producer(x)), expected_sign(x))
    assert_bits_equal(eltwise.round(Producer(x), mode="up"), expected_round(x, "up"))


def test_read_only_producer_as_out():
    x = np.zeros(4, np.float32)
    ro = np.zeros(4, np.float32)
    ro.flags.writeable = False
    try:
        ro.__dlpack__(max_version=(1, 0))
    except (TypeError, BufferError):
        pytest.skip("this NumPy cannot export read-only arrays (DLPack 1.0 needs NumPy >= 2.1)")
    assert eltwise.sign(Producer(ro)).tolist() == [0.0] * 4  # fine as an input
    with pytest.raises(ValueError, match="^out is read-only$"):
        eltwise.sign(x, Producer(ro))


# --- hand-made DLPack capsules ---------------------------------------------------------------

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class HandMade:
    """A DLPack producer over raw memory, with a counting deleter (legacy capsule)."""

    def __init__(self, device, code, bits, shape, strides=None, data=0x10000, byte_offset=0,
                 capsule_device=None, lanes=1, keep=None):
        self.device = device
        self.keep = keep  # memory that must outlive the capsule
        self.deleted = 0
        self.streams = []
        n = len(shape)
        self.shape = (ctypes.c_int64 * max(n, 1))(*shape)
        self.strides = (ctypes.c_int64 * max(n, 1))(*strides) if strides is not None else None
        self.deleter = DELETER(self._delete)
        cd = capsule_device or device
        self.managed = DLManagedTensor(
            DLTensor(data, DLDevice(*cd), n, DLDataType(code, bits, lanes), self.shape,
                     self.strides, byte_offset), None, self.deleter)

    def _delete(self, _):
        self.deleted += 1

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return _capsule_new(ctypes.addressof(self.managed), b"dltensor", None)


@pytest.mark.skipif(BFLOAT16 is None, reason="needs ml_dtypes")
def test_hand_made_bfloat16_capsule():
    bits = np.arange(65536, dtype=np.uint16)
    x = bits.view(BFLOAT16)
    t = HandMade((1, 0), 4, 16, (65536,), data=bits.ctypes.data, keep=bits)
    r = eltwise.round(t, mode="toward_infinity")
    assert t.deleted == 1 and t.streams == [None]
    assert r.dtype == BFLOAT16
    assert_bits_equal(r, expected_round(x, "toward_infinity"))
    out_bits = np.zeros(65536, np.uint16)
    out = HandMade((1, 0), 4, 16, (65536,), data=out_bits.ctypes.data, keep=out_bits)
    t = HandMade((1, 0), 4, 16, (65536,), data=bits.ctypes.data, keep=bits)
    assert eltwise.sign(t, out, nan="propagate") is out
    assert out.deleted == 1 and t.deleted == 1
    assert_bits_equal(out_bits.view(BFLOAT16), expected_sign(x, "propagate"))


def test_hand_made_negative_strides_and_byte_offset():
    a = np.arange(-12, 12, dtype=np.float64).reshape(4, 6) / 4
    # element (0, 0) is a[3, 5]: strides (-6, -1) walk back to a[0, 0]
    t = HandMade((1, 0), 2, 64, (4, 6), strides=(-6, -1), data=a.ctypes.data,
                 byte_offset=23 * 8, keep=a)
    assert_bits_equal(eltwise.round(t, mode="toward_zero"), np.trunc(a[::-1, ::-1]))
    # a zero stride (broadcast) and compact strides (None)
    t = HandMade((1, 0), 2, 64, (3, 6), strides=(0, 1), data=a.ctypes.data, keep=a)
    assert_bits_equal(eltwise.sign(t), np.sign(np.broadcast_to(a[0], (3, 6))))
    t = HandMade((1, 0), 2, 64, (4, 6), data=a.ctypes.data, keep=a)
    assert_bits_equal(eltwise.round(t, mode="up"), np.ceil(a))


def test_cuda_tensor_needs_a_cuda_device():
    t = HandMade((2, 0), 2, 32, (8,))
    with pytest.raises(ValueError, match=r"^x is a tensor on cuda:0 but device is 'cpu'; pass device='cuda:0'$"):
        eltwise.sign(t)
    assert t.deleted == 1 and t.streams == [1]  # legacy default stream
    t = HandMade((2, 1), 2, 32, (8,))
    with pytest.raises(ValueError, match="x is a tensor on cuda:1 but device is 'cuda:0'"):
        eltwise.round(t, device="cuda")
    assert t.deleted == 1


def test_cuda_tensor_on_an_unavailable_cuda_device():
    if eltwise.info()["cuda_devices"]:
        pytest.skip("this machine has a GPU eltwise can use")
    t = HandMade((2, 0), 2, 32, (8,))
    with pytest.raises(eltwise.EltwiseError) as info:
        eltwise.round(t, device="cuda")
    assert info.value.code == "unsupported"
    assert t.deleted == 1


def test_out_in_other_memory_than_x():
    x = np.ones(8, np.float32)
    out = HandMade((2, 0), 2, 32, (8,))
    with pytest.raises(ValueError, match=r"^out is on cuda:0 but x is on cpu; they must be in the same memory$"):
        eltwise.sign(x, out)
    assert out.deleted == 1
    assert_bits_equal(x, np.ones(8, np.float32))


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


class HandMadeVersioned(HandMade):
    """A versioned capsule (DLPack 1.x's form) that claims the given DLPack version."""

    def __init__(self, version, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.versioned = DLManagedTensorVersioned(DLPackVersion(*version), None, self.deleter, 0,
                                                  self.managed.dl_tensor)

    def __dlpack__(self, stream=None, max_version=None):
        self.streams.append(stream)
        return _capsule_new(ctypes.addressof(self.versioned), b"dltensor_versioned", None)


def test_versioned_capsule_of_another_major_version():
    a = np.arange(8, dtype=np.float32) - 4
    t = HandMadeVersioned((1, 3), (1, 0), 2, 32, (8,), data=a.ctypes.data, keep=a)
    assert_bits_equal(eltwise.sign(t), np.sign(a))
    assert t.deleted == 1
    t = HandMadeVersioned((2, 0), (1, 0), 2, 32, (8,), data=a.ctypes.data, keep=a)
    with pytest.raises(TypeError, match=r"^x is a DLPack 2\.0 tensor; eltwise reads DLPack 1\.x$"):
        eltwise.sign(t)
    assert t.deleted == 1  # consumed, so deleted by eltwise


def test_hand_made_unsupported_dtypes():
    for code, bits, text in [(5, 64, "code 5, bits 64, lanes 1"), (6, 8, "code 6, bits 8, lanes 1"),
                             (2, 128, "code 2, bits 128"), (0, 4, "code 0, bits 4"), (2, 8, "code 2, bits 8"),
                             (4, 32, "code 4, bits 32"), (1, 128, "code 1, bits 128")]:
        t = HandMade((1, 0), code, bits, (3,))
        with pytest.raises(TypeError, match=r"^x has DLPack dtype \(" + text):
            eltwise.sign(t)
        assert t.deleted == 1


def test_hand_made_errors():
    t = HandMade((4, 0), 2, 32, (8,))  # OpenCL
    with pytest.raises(TypeError, match=r"^x lives on DLPack device type 4; eltwise reaches CPU"):
        eltwise.sign(t)
    assert t.streams == []  # refused before consuming
    t = HandMade((1, 0), 2, 32, (8,), capsule_device=(2, 0))
    with pytest.raises(TypeError, match=r"__dlpack_device__\(\) says cpu but its DLPack tensor is on cuda:0"):
        eltwise.sign(t)
    assert t.deleted == 1
    t = HandMade((1, 0), 2, 32, (8,), lanes=4)
    with pytest.raises(TypeError, match="lanes 4"):
        eltwise.sign(t)
    assert t.deleted == 1
    t = HandMade((1, 0), 2, 32, (2, -3))
    with pytest.raises(TypeError, match="^x has a negative DLPack size$"):
        eltwise.sign(t)
    assert t.deleted == 1
    t = HandMade((1, 0), 2, 32, (8,))
    t.managed.dl_tensor.ndim = -1
    with pytest.raises(TypeError, match="^x has a negative DLPack ndim$"):
        eltwise.sign(t)
    assert t.deleted == 1

    class BadDevice(HandMade):
        def __dlpack_device__(self):
            return (1, 0, 0)

    with pytest.raises(TypeError, match=r"^x\.__dlpack_device__\(\) is not a \(type, id\) pair$"):
        eltwise.sign(BadDevice((1, 0), 2, 32, (8,)))


class NamedCapsule(HandMade):
    """A capsule of another name than DLPack's over a valid tensor."""

    def __dlpack__(self, stream=None):
        return _capsule_new(ctypes.addressof(self.managed), b"not_a_dltensor", None)


class NotACapsule:
    def __dlpack_device__(self):
        return (1, 0)

    def __dlpack__(self, stream=None):
        return 42


def test_hand_made_capsule_faults():
    with pytest.raises(TypeError, match=r"^x\.__dlpack__\(\) did not return a DLPack capsule$"):
        eltwise.sign(NotACapsule())
    t = NamedCapsule((1, 0), 2, 32, (8,))
    with pytest.raises(TypeError, match=r"^x\.__dlpack__\(\) returned a capsule named 'not_a_dltensor', "
                                        r"not a DLPack tensor$"):
        eltwise.sign(t)
    assert t.deleted == 0  # not eltwise's to delete


def test_bfloat16_result_without_ml_dtypes(monkeypatch):
    """A bfloat16 DLPack tensor's NumPy result needs ml_dtypes' dtype: without the package, a
    TypeError that says so (an import of a None entry in sys.modules fails)."""
    bits = np.arange(16, dtype=np.uint16)
    monkeypatch.setitem(__import__("sys").modules, "ml_dtypes", None)
    t = HandMade((1, 0), 4, 16, (16,), data=bits.ctypes.data, keep=bits)
    with pytest.raises(TypeError, match=r"^a bfloat16 NumPy array needs the ml_dtypes package"):
        eltwise.sign(t)


def test_import_without_ml_dtypes():
    """ml_dtypes is optional: without it eltwise imports (no bfloat16 ufunc loops) and the other
    types run; a bfloat16 DLPack tensor still gets the TypeError above. In a fresh interpreter,
    since the module registers its ufunc loops once, at import."""
    code = ("import sys; sys.modules['ml_dtypes'] = None\n"
            "import numpy as np, eltwise, test_dlpack as t\n"
            "assert eltwise.sign(np.array([-2.5, 0.0], np.float32)).tolist() == [-1.0, 0.0]\n"
            "assert eltwise.ufunc.round_up(np.array([2.5], np.float16)).tolist() == [3.0]\n"
            "bits = np.arange(4, dtype=np.uint16)\n"
            "try:\n"
            "    eltwise.sign(t.HandMade((1, 0), 4, 16, (4,), data=bits.ctypes.data, keep=bits))\n"
            "except TypeError as e:\n"
            "    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       cwd=os.path.dirname(__file__))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("a bfloat16 NumPy array needs the ml_dtypes package"), r.stdout


class FromNowhere(Producer):
    """A producer whose module cannot be imported: its result is a NumPy array."""


FromNowhere.__module__ = "eltwise_test_module_that_does_not_exist"


class WithNamespace(Producer):
    """A producer with an array-API namespace: the result is made by the namespace's empty_like."""

    class Namespace:
        @staticmethod
        def empty_like(x):
            return WithNamespace(np.empty_like(x.array))

    def __array_namespace__(self, api_version=None):
        return WithNamespace.Namespace


def test_results_like_their_producers():
    x = np.array([-2.5, -0.5, 0.5, 1.5, 2.5], np.float32)
    r = eltwise.round(FromNowhere(x))
    assert isinstance(r, np.ndarray)
    assert_bits_equal(r, np.round(x))
    r = eltwise.round(WithNamespace(x), mode="up")
    assert isinstance(r, WithNamespace)
    assert_bits_equal(r.array, np.ceil(x))


class DLPackWithoutDevice:
    def __dlpack__(self, stream=None):
        raise AssertionError("not called")


def test_dlpack_without_device_method():
    with pytest.raises(TypeError, match="eltwise takes NumPy arrays, array_likes and objects with __dlpack__"):
        eltwise.sign(DLPackWithoutDevice())


# --- PyTorch, when installed ---------------------------------------------------------------

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64", "int8", "int32", "int64", "uint8"])
def test_torch_cpu(dtype):
    tdtype = getattr(torch, dtype)
    x = (torch.arange(-50, 50, dtype=torch.float64) / 4).to(tdtype).reshape(10, 10)
    for v in (x, x.t(), x.flip(0), x[:, ::3]):
        r = eltwise.round(v, mode="toward_infinity")
        assert isinstance(r, torch.Tensor) and r.dtype == tdtype and r.shape == v.shape
        if dtype == "bfloat16":
            x_np = v.to(torch.float32).numpy().astype(BFLOAT16)
            want = expected_round(x_np, "toward_infinity").astype(np.float32)
            got = r.to(torch.float32).numpy()
        else:
            want = expected_round(v.numpy(), "toward_infinity")
            got = r.numpy()
        assert_bits_equal(got, want)
    out = torch.empty_like(x)
    assert eltwise.sign(x, out) is out
    eltwise.sign(x, x)  # in place


@needs_torch
@pytest.mark.skipif(torch is None or not torch.cuda.is_available(), reason="no CUDA GPU for PyTorch")
def test_torch_cuda():
    x = (torch.arange(-50, 50, dtype=torch.float32, device="cuda") / 4)
    if not eltwise.info()["cuda_devices"]:
        with pytest.raises(eltwise.EltwiseError) as info:
            eltwise.round(x, device="cuda")
        assert info.value.code == "unsupported"
        return
    for mode in MODES:
        r = eltwise.round(x, mode=mode, device="cuda")
        assert r.is_cuda
        assert_bits_equal(r.cpu().numpy(), expected_round(x.cpu().numpy(), mode))
    y = x.clone().reshape(10, 10).t()
    eltwise.sign(y, y, device="cuda")  # in place on a transposed view
    assert_bits_equal(y.cpu().numpy(), expected_sign(x.cpu().numpy().reshape(10, 10).T))
