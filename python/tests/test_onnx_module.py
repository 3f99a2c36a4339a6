"""eltwise._onnx.Model.run without needless copies: C-contiguous, aligned, native-order inputs are
read in place, any other input is converted once, and every output is a new array the run writes.
Results are compared with NumPy's np.rint (halves to even) and np.sign (NaN propagates), the
meanings of ONNX Round and Sign, bit for bit (NaN matched as NaN)."""

import gc

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
_onnx = pytest.importorskip("eltwise._onnx", reason="eltwise built without its ONNX front end")
from onnx import TensorProto, helper  # noqa: E402

ELEM = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE,
        np.dtype(np.int32): TensorProto.INT32}


def graph(nodes, inputs, outputs, dtype=np.float32, rank=1):
    """A model of (op, input, output) nodes on values of dtype and symbolic shape."""
    dims = [f"d{i}" for i in range(rank)]
    made = helper.make_graph(
        [helper.make_node(op, [i], [o], name=f"n{k}") for k, (op, i, o) in enumerate(nodes)], "g",
        [helper.make_tensor_value_info(n, ELEM[np.dtype(dtype)], dims) for n in inputs],
        [helper.make_tensor_value_info(n, ELEM[np.dtype(dtype)], dims) for n in outputs])
    model = helper.make_model(made, opset_imports=[helper.make_opsetid("", 22)])
    model.ir_version = 10
    return _onnx.Model.parse(model.SerializeToString())


CHAIN = [("Round", "X", "a"), ("Sign", "a", "b"), ("Round", "b", "Y")]


def chain_reference(x):
    return np.rint(np.sign(np.rint(x)))


def values(n=1000):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(n) * 4).astype(np.float32)
    x[::5] = np.round(x[::5]) + 0.5  # halves
    x[1::50] = np.nan
    x[2::50] = -0.0
    x[3::50] = np.inf
    return x


def assert_same(got, want):
    """Bit for bit, NaN matched as NaN whatever its payload."""
    assert got.dtype == want.dtype and got.shape == want.shape
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    bits = np.dtype(f"u{want.dtype.itemsize}")
    assert np.array_equal(got[~nan].view(bits), want[~nan].view(bits))


@pytest.mark.parametrize("n", [1000, 100_000])  # below and above the size run without the GIL
def test_chain_matches_numpy_and_leaves_the_input_alone(n):
    model = graph(CHAIN, ["X"], ["Y"])
    x = values(n)
    before = x.copy()
    (y,) = model.run({"X": x})
    assert_same(y, chain_reference(before))
    assert np.array_equal(x.view(np.uint32), before.view(np.uint32))


def unaligned(x):
    raw = np.zeros(x.nbytes + 1, np.uint8)
    u = raw[1:].view(x.dtype).reshape(x.shape)
    u[...] = x
    assert not u.flags.aligned
    return u


@pytest.mark.parametrize("layout", ["strided", "fortran", "byteswapped", "unaligned", "readonly"])
def test_inputs_that_cannot_be_read_in_place_give_the_same_results(layout):
    model = graph(CHAIN, ["X"], ["Y"], rank=2)
    x = values(1200).reshape(30, 40)
    want = chain_reference(x)
    if layout == "strided":
        big = np.zeros((60, 40), np.float32)
        big[::2] = x
        given = big[::2]
    elif layout == "fortran":
        given = np.asfortranarray(x)
    elif layout == "byteswapped":
        given = x.astype(x.dtype.newbyteorder())
    elif layout == "unaligned":
        given = unaligned(x)
    else:
        given = x.copy()
        given.flags.writeable = False
    (y,) = model.run({"X": given})
    assert_same(y, want)


def test_dtype_errors_keep_their_messages():
    model = graph(CHAIN, ["X"], ["Y"])
    with pytest.raises(ValueError, match="input 'X' has dtype complex64, which no ONNX Sign or "
                                         "Round model takes"):
        model.run({"X": np.zeros(4, np.complex64)})
    with pytest.raises(ValueError, match="input 'X' is DOUBLE; the model declares FLOAT"):
        model.run({"X": np.zeros(4, np.float64)})
    with pytest.raises(ValueError, match="input 'X' is DOUBLE; the model declares FLOAT"):
        model.run({"X": np.zeros(4, np.dtype(">f8"))})  # converted first, then the same rule
    with pytest.raises(ValueError, match="the model has no input 'Z'"):
        model.run({"X": np.zeros(4, np.float32), "Z": np.zeros(4, np.float32)})


def test_outputs_are_new_arrays_that_own_their_memory():
    # Y from the chain, X passed through, Y listed twice, and an intermediate also read by a node.
    model = graph([("Round", "X", "r"), ("Sign", "r", "Y")], ["X"], ["Y", "X", "Y", "r"])
    x = values()
    y, passed, y2, r = model.run({"X": x})
    arrays = [y, passed, y2, r]
    for a in arrays:
        assert isinstance(a, np.ndarray) and a.flags.owndata and a.flags.c_contiguous
        assert a.flags.writeable and not np.shares_memory(a, x)
    for i in range(4):
        for j in range(i + 1, 4):
            assert not np.shares_memory(arrays[i], arrays[j])
    assert_same(y, np.sign(np.rint(x)))
    assert_same(y2, y)
    assert_same(r, np.rint(x))
    assert np.array_equal(passed.view(np.uint32), x.view(np.uint32))
    passed[0] = 123.0  # a copy: the caller's array is unchanged
    assert x[0] != 123.0
    expected = y.copy()
    del model, x, passed, y2, r
    gc.collect()
    assert np.array_equal(y, expected, equal_nan=True)  # y keeps its memory alive


def test_scalars_empty_arrays_and_integers():
    scalar = graph([("Sign", "X", "Y")], ["X"], ["Y"], dtype=np.int32, rank=0)
    (y,) = scalar.run({"X": np.array(-5, np.int32)})
    assert y.shape == () and y.dtype == np.int32 and y == -1
    with pytest.raises(ValueError, match="input 'X' is INT64; the model declares INT32"):
        scalar.run({"X": -7})  # a Python int becomes an int64 array
    empty = graph(CHAIN, ["X"], ["Y"])
    (y,) = empty.run({"X": np.zeros(0, np.float32)})
    assert y.shape == (0,) and y.dtype == np.float32


def test_runs_reuse_compiled_operators():
    model = graph(CHAIN, ["X"], ["Y"])
    x = values()
    model.run({"X": x})
    count = model.compile_count
    assert count == 3
    for _ in range(5):
        (y,) = model.run({"X": x})
        assert_same(y, chain_reference(x))
    assert model.compile_count == count


def test_bfloat16_is_read_and_written():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    made = helper.make_graph([helper.make_node("Round", ["X"], ["Y"])], "g",
                             [helper.make_tensor_value_info("X", TensorProto.BFLOAT16, [4])],
                             [helper.make_tensor_value_info("Y", TensorProto.BFLOAT16, [4])])
    proto = helper.make_model(made, opset_imports=[helper.make_opsetid("", 22)])
    proto.ir_version = 10
    model = _onnx.Model.parse(proto.SerializeToString())
    x = np.array([0.5, 1.5, -2.5, 3.25], ml_dtypes.bfloat16)
    (y,) = model.run({"X": x})
    assert y.dtype == x.dtype
    assert np.array_equal(y.astype(np.float32), np.array([0, 2, -2, 3], np.float32))
