"""eltwise.onnx_backend: ONNX's own backend test runner on the official Sign and Round tests, and
direct tests of the backend (chained graphs, rejected models, bit-exact agreement with ONNX's
reference implementation). Skipped when onnx is not installed or eltwise was built without its
C++ ONNX front end (eltwise._onnx)."""

import os
import re
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
# The backend wraps the C++ front end; a build with ELTWISE_BUILD_ONNX=OFF has neither.
pytest.importorskip("eltwise._onnx", reason="eltwise built without its ONNX front end")

import onnx.backend.test  # noqa: E402, F811 (the submodule, under the name importorskip bound)
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import eltwise  # noqa: E402
from conftest import BFLOAT16, all_bit_patterns, assert_bits_equal, special_values  # noqa: E402
from eltwise.onnx_backend import (  # noqa: E402
    MAX_OPSET, EltwiseBackend, EltwiseBackendRep, InputError, UnsupportedModelError)

# ---------------------------------------------------------------------------------------------
# ONNX's backend test runner. Its official tests for these operators are the node tests
# test_sign and test_round (onnx/backend/test/case/node/{sign,round}.py, generated in memory by
# onnx >= 1.16) and the model test test_sign_model (onnx/backend/test/data/simple); each exists
# for the devices CPU and CUDA (CUDA is skipped unless eltwise reports a CUDA device).
OFFICIAL = re.compile(r"^test_(sign|round|sign_model)_(cpu|cuda)$")


def sign_and_round_node_cases():
    """ONNX's in-memory node cases for Sign and Round (test_sign, test_round), made by ONNX's own
    case modules. ONNX's loader imports all ~190 modules of onnx.backend.test.case.node, each
    generating its cases as it is imported: ~1,900 cases, 13 s of pure Python on x86-64 and 210 s
    under qemu-user, for two. Importing the two modules runs only their generators."""
    from onnx.backend.test.case import node  # noqa: PLC0415

    for op in ("sign", "round"):
        __import__(f"onnx.backend.test.case.node.{op}")
    return list(node._NodeTestCases)


# BackendTest with its loader's node cases limited to those (the other kinds, the model test
# test_sign_model among them, load as before). Where ONNX's runner no longer takes its loader from
# this name, every node case is generated, as before.
_runner = sys.modules[onnx.backend.test.BackendTest.__module__]
_stock_loader = getattr(_runner, "load_model_tests", None)
if _stock_loader is not None:
    _runner.load_model_tests = lambda *args, kind=None, **kwargs: (
        sign_and_round_node_cases() if kind == "node" else _stock_loader(*args, kind=kind, **kwargs))
try:
    with warnings.catch_warnings():  # ONNX's case generators may warn on purpose
        warnings.simplefilter("ignore")
        backend_test = onnx.backend.test.BackendTest(EltwiseBackend, __name__)
finally:
    if _stock_loader is not None:
        _runner.load_model_tests = _stock_loader
backend_test.include(OFFICIAL.pattern)

# BackendTest marks every other test (about 4,000) as skipped; drop them so that pytest reports
# what really runs. (enable_report() is not used: it adds the onnx_coverage marker, which only
# ONNX's own conftest registers.)
OFFICIAL_RUN = {}
for _name, _case in backend_test.test_cases.items():
    for _attr in [a for a in vars(_case) if a.startswith("test_")]:
        if not OFFICIAL.search(_attr):
            delattr(_case, _attr)
    _tests = sorted(a for a in vars(_case) if a.startswith("test_"))
    if _tests:
        OFFICIAL_RUN[_name] = _tests
        globals()[_name] = _case


def test_official_tests_are_collected_and_not_skipped_on_cpu():
    names = {t for tests in OFFICIAL_RUN.values() for t in tests}
    assert {"test_sign_cpu", "test_round_cpu"} <= set(OFFICIAL_RUN["OnnxBackendNodeModelTest"])
    assert "test_sign_model_cpu" in names
    for case, tests in OFFICIAL_RUN.items():
        for t in tests:
            if t.endswith("_cpu"):
                assert not getattr(getattr(globals()[case], t), "__unittest_skip__", False), t


# ---------------------------------------------------------------------------------------------
# helpers

ONNX_TYPE = {np.dtype(t): getattr(TensorProto, n) for t, n in [
    ("float16", "FLOAT16"), ("float32", "FLOAT"), ("float64", "DOUBLE"),
    ("int8", "INT8"), ("int16", "INT16"), ("int32", "INT32"), ("int64", "INT64"),
    ("uint8", "UINT8"), ("uint16", "UINT16"), ("uint32", "UINT32"), ("uint64", "UINT64")]}
if BFLOAT16 is not None:
    ONNX_TYPE[BFLOAT16] = TensorProto.BFLOAT16


def make_model(nodes, inputs, outputs, opset=MAX_OPSET, initializers=(), value_info=()):
    """nodes: (op, input, output) or NodeProto; inputs/outputs: (name, elem_type, shape)."""
    nodes = [n if isinstance(n, onnx.NodeProto) else helper.make_node(n[0], [n[1]], [n[2]],
                                                                       name=f"n{i}")
             for i, n in enumerate(nodes)]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(*i) for i in inputs],
        [helper.make_tensor_value_info(*o) for o in outputs], initializer=list(initializers),
        value_info=[helper.make_tensor_value_info(*v) for v in value_info])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def one_node(op, dtype, opset=MAX_OPSET, shape=(None,)):
    t = ONNX_TYPE[np.dtype(dtype)]
    return make_model([(op, "x", "y")], [("x", t, list(shape))], [("y", t, list(shape))], opset)


def reference(model, feeds):
    return ReferenceEvaluator(model).run(None, feeds)


def rejects(model, *fragments):
    """The front end's message for a model given as a ModelProto starts with "model: "."""
    with pytest.raises(UnsupportedModelError, match="^model: ") as e:
        EltwiseBackend.prepare(model)
    for f in fragments:
        assert f in str(e.value), str(e.value)
    return str(e.value)


# ---------------------------------------------------------------------------------------------
# bit-exact agreement with onnx.reference, NaN and signed zeros included

SIGN_TYPES = [d for d in ONNX_TYPE]
ROUND_TYPES = [d for d in ONNX_TYPE if d.kind == "f" or d == BFLOAT16]


def values_for(dtype):
    dtype = np.dtype(dtype)
    if dtype.itemsize <= 2:
        return all_bit_patterns(dtype)
    return special_values(dtype, np.random.default_rng(2024), random_count=2000)


@pytest.mark.parametrize("dtype,opset", [(d, o) for o in (12, MAX_OPSET) for d in SIGN_TYPES
                                          if o >= 13 or d != BFLOAT16], ids=str)
def test_sign_matches_onnx_reference(dtype, opset):
    model = one_node("Sign", dtype, opset)
    x = values_for(dtype)
    (got,) = EltwiseBackend.prepare(model).run([x])
    (ref,) = reference(model, {"x": x})
    if dtype == BFLOAT16:
        # The one documented difference (docs/onnx.md): the reference's np.sign on ml_dtypes'
        # bfloat16 keeps the sign of -0.0; eltwise (docs/semantics.md) gives +0.0, as NumPy's own
        # types do.
        negzero = x.view(np.uint16) == 0x8000
        assert ref[negzero].view(np.uint16).tolist() == [0x8000]
        assert got[negzero].view(np.uint16).tolist() == [0x0000]
        ref = ref.copy()
        ref[negzero] = 0
    assert_bits_equal(got, ref)
    if dtype.kind == "f" or dtype == BFLOAT16:  # NaN propagates (ONNX reference), -0 gives +0
        assert np.isnan(got[np.isnan(x.astype(np.float32))].astype(np.float32)).all()


@pytest.mark.parametrize("dtype,opset", [(d, o) for o in (11, MAX_OPSET) for d in ROUND_TYPES
                                          if o >= 22 or d != BFLOAT16], ids=str)
def test_round_matches_onnx_reference(dtype, opset):
    model = one_node("Round", dtype, opset)
    x = values_for(dtype)
    (got,) = EltwiseBackend.prepare(model).run([x])
    (ref,) = reference(model, {"x": x})
    assert_bits_equal(got, ref)


def test_nan_and_signed_zero_explicitly():
    x = np.array([np.nan, -np.nan, 0.0, -0.0, -0.4, 0.5, -0.5, 1.5, 2.5, -2.5, np.inf, -np.inf],
                 np.float32)
    for op in ("Sign", "Round"):
        model = one_node(op, np.float32)
        (got,) = EltwiseBackend.run_model(model, [x])
        assert_bits_equal(got, reference(model, {"x": x})[0])
    (s,) = EltwiseBackend.run_model(one_node("Sign", np.float32), [x])
    assert np.isnan(s[:2]).all() and np.signbit(s[2:4]).tolist() == [False, False]
    (r,) = EltwiseBackend.run_model(one_node("Round", np.float32), [x])
    assert np.signbit(r[3]) and np.signbit(r[4]) and r[5:10].tolist() == [0, -0.0, 2, 2, -2]


# ---------------------------------------------------------------------------------------------
# graphs


def test_chained_sign_round_with_intermediate_output():
    t = TensorProto.FLOAT16
    model = make_model([("Sign", "x", "s"), ("Round", "s", "r"), ("Round", "x", "q")],
                       [("x", t, ["N", 3])], [("r", t, ["N", 3]), ("q", t, ["N", 3]),
                                              ("s", t, ["N", 3])],
                       opset=13, value_info=[("s", t, ["N", 3])])
    rep = EltwiseBackend.prepare(model)
    assert isinstance(rep, EltwiseBackendRep)
    assert rep.output_names == ["r", "q", "s"]
    x = np.array([[np.nan, -0.0, 2.5], [-2.5, 0.4, -7.0]], np.float16)
    out = rep.run([x])
    assert out._fields == ("r", "q", "s")
    for got, ref in zip(out, reference(model, {"x": x})):
        assert_bits_equal(got, ref)
    assert_bits_equal(out["q"], np.array([[np.nan, -0.0, 2], [-2, 0, -7]], np.float16))
    assert_bits_equal(out.r, np.array([[np.nan, 0, 1], [-1, 1, -1]], np.float16))


def test_unsorted_nodes_run_in_topological_order():
    t = TensorProto.FLOAT
    model = make_model([("Round", "b", "c"), ("Sign", "a", "b"), ("Round", "x", "a")],
                       [("x", t, [4])], [("c", t, [4])])
    x = np.array([-0.5, 0.5, 1.5, -3.2], np.float32)
    (c,) = EltwiseBackend.run_model(model, [x])
    assert_bits_equal(c, np.array([0.0, 0.0, 1, -1], np.float32))  # Sign(-0) is +0


def test_initializers_optional_inputs_and_pass_through():
    t = TensorProto.DOUBLE
    w = numpy_helper.from_array(np.array([1.5, -2.5], np.float64), "w")
    model = make_model([("Round", "w", "rw"), ("Sign", "x", "sx")],
                       [("x", t, [2]), ("w", t, [2])], [("rw", t, [2]), ("sx", t, [2]),
                                                         ("x", t, [2])],
                       initializers=[w])
    rep = EltwiseBackend.prepare(model)
    assert rep.required_input_names == ["x"] and rep.input_names == ["x", "w"]
    x = np.array([-3.0, 0.0])
    rw, sx, px = rep.run([x])
    assert rw.tolist() == [2, -2] and sx.tolist() == [-1, 0]
    assert px.tolist() == x.tolist() and px is not x
    rw, _, _ = rep.run({"x": x, "w": np.array([0.5, 3.5])})  # the initializer is a default
    assert rw.tolist() == [0, 4]
    rw, _, _ = rep.run([x, np.array([-0.5, 4.5])])           # all inputs, positionally
    assert rw.tolist() == [-0.0, 4]


def test_run_checks_inputs():
    rep = EltwiseBackend.prepare(make_model(
        [("Sign", "a", "sa"), ("Sign", "b", "sb")],
        [("a", TensorProto.INT8, ["N"]), ("b", TensorProto.INT32, ["N", 2])],
        [("sa", TensorProto.INT8, ["N"]), ("sb", TensorProto.INT32, ["N", 2])]))
    a, b = np.array([-5, 0, 9], np.int8), np.zeros((3, 2), np.int32)
    assert rep.run({"a": a, "b": b}).sa.tolist() == [-1, 0, 1]
    with pytest.raises(TypeError, match="^input 'a' is INT16; the model declares INT8$"):
        rep.run([a.astype(np.int16), b])
    with pytest.raises(ValueError, match=re.escape(
            "input 'b' has shape [4,2]: dimension 0 ('N') is 4 but another tensor bound 'N' to 3")):
        rep.run([a, np.zeros((4, 2), np.int32)])
    with pytest.raises(ValueError, match=re.escape(
            "input 'b' has shape [3] (rank 1); the model declares [N,2] (rank 2)")):
        rep.run([a, np.zeros(3, np.int32)])
    with pytest.raises(ValueError, match=re.escape("graph input 'b' (INT32 [N,2]) has no value")):
        rep.run({"a": a})
    with pytest.raises(ValueError, match=re.escape("the model has no input 'c' (its inputs: a, b)")):
        rep.run({"a": a, "b": b, "c": b})
    with pytest.raises(InputError, match="3 input"):
        rep.run([a, b, b])


def test_rank_0_empty_and_byte_swapped():
    model = one_node("Round", np.float32, shape=())
    (y,) = EltwiseBackend.run_model(model, [np.array(2.5, np.float32)])
    assert y.shape == () and y == 2
    model = one_node("Sign", np.float32, shape=(2, 0, 3))
    (y,) = EltwiseBackend.run_model(model, [np.zeros((2, 0, 3), np.float32)])
    assert y.shape == (2, 0, 3)
    (y,) = EltwiseBackend.run_model(one_node("Round", np.float32),
                                    [np.array([0.5, 1.5], ">f4")])
    assert y.tolist() == [0, 2]


# ---------------------------------------------------------------------------------------------
# rejected models


def test_unsupported_operator_is_rejected_with_its_name():
    t = TensorProto.FLOAT
    model = make_model([("Sign", "x", "s"), ("Abs", "s", "y")], [("x", t, [2])], [("y", t, [2])])
    msg = rejects(model, "node 'n1' (Abs): operator 'Abs' is not supported",
                  "Sign (opsets 9, 13) and Round (opsets 11, 22)")
    assert isinstance(UnsupportedModelError(msg), ValueError)
    assert isinstance(UnsupportedModelError(msg), onnx.checker.ValidationError)
    node = helper.make_node("Sign", ["x"], ["y"], domain="com.example")
    rejects(make_model([node], [("x", t, [2])], [("y", t, [2])]),
            "node #0 (Sign): domain 'com.example' is not supported")


def test_types_and_versions_are_checked():
    rejects(one_node("Round", np.int32), "node 'n0' (Round): input 'x' is INT32",
            f"Round-22 (selected by opset {MAX_OPSET}) does not allow", "FLOAT16, FLOAT, DOUBLE")
    if BFLOAT16 is not None:
        rejects(one_node("Round", BFLOAT16, 21), "input 'x' is BFLOAT16",
                "Round-11 (selected by opset 21)", "(Round-22, from opset 22, adds BFLOAT16)")
        rejects(one_node("Sign", BFLOAT16, 12), "Sign-9 (selected by opset 12)",
                "(Sign-13, from opset 13, adds BFLOAT16)")
        EltwiseBackend.prepare(one_node("Round", BFLOAT16, 22))
    rejects(one_node("Sign", np.float32, 8),
            "node 'n0' (Sign): Sign needs ai.onnx opset 9 or later; the model imports opset 8")
    rejects(one_node("Round", np.float32, 10),
            "node 'n0' (Round): Round needs ai.onnx opset 11 or later; the model imports opset 10")
    rejects(one_node("Sign", np.float32, MAX_OPSET + 1),
            f"ai.onnx opset {MAX_OPSET + 1} is not supported; eltwise knows opsets 1-{MAX_OPSET}")
    b = TensorProto.BOOL
    rejects(make_model([("Sign", "x", "y")], [("x", b, [1])], [("y", b, [1])]),
            "graph input 'x' has element type BOOL, which eltwise does not support; it supports "
            "FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, "
            "UINT64")


def test_malformed_graphs_are_rejected():
    t = TensorProto.FLOAT
    rejects(make_model([helper.make_node("Sign", ["x"], ["y"], alpha=1.0)],
                       [("x", t, [1])], [("y", t, [1])]),
            "node #0 (Sign) has attribute 'alpha'; Sign has no attributes")
    rejects(make_model([("Sign", "x", "y"), ("Round", "x", "y")], [("x", t, [1])],
                       [("y", t, [1])]),
            "node 'n1' (Round): output 'y' is also produced by node 'n0' (Sign); every value must "
            "be defined once")
    rejects(make_model([("Sign", "z", "y")], [("x", t, [1])], [("y", t, [1])]),
            "node 'n0' (Sign): input 'z' is not a graph input, an initializer or any node's "
            "output")
    rejects(make_model([("Sign", "b", "a"), ("Sign", "a", "b")], [("x", t, [1])],
                       [("a", t, [1])]), "the graph has a cycle through node 'n0' (Sign)")
    rejects(make_model([("Sign", "x", "y")], [("x", t, [1])], [("y", TensorProto.INT8, [1])]),
            "graph output 'y' is declared INT8 but the graph computes FLOAT")
    rejects(make_model([("Sign", "x", "y")], [("x", t, [2])], [("y", t, [3])]),
            "graph output 'y' declares shape [3] but the graph's value has shape [2]")
    seq = helper.make_tensor_sequence_value_info("x", t, [1])
    graph = helper.make_graph([helper.make_node("Sign", ["x"], ["y"])], "g", [seq],
                              [helper.make_tensor_value_info("y", t, [1])])
    rejects(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
            "graph input 'x' is a sequence, not a tensor")


def test_onnx_checker_runs():
    model = one_node("Sign", np.float32)
    model.ir_version = 99  # the checker's rule, not one eltwise checks itself
    with pytest.raises(onnx.checker.ValidationError, match="ir_version 99 is newer than eltwise"):
        EltwiseBackend.prepare(model)
    model = one_node("Sign", np.float32)
    model.graph.node[0].input[0] = ""  # an empty input name: the checker's rule (front end too)
    rejects(model, "node 'n0' (Sign): input 0 is missing (empty name)")


# ---------------------------------------------------------------------------------------------
# backend API


def test_run_node():
    node = helper.make_node("Round", ["x"], ["y"])
    (y,) = EltwiseBackend.run_node(node, [np.array([0.5, 1.5, -0.2], np.float64)])
    assert_bits_equal(y, np.array([0.0, 2.0, -0.0]))
    (y,) = EltwiseBackend.run_node(helper.make_node("Sign", ["x"], ["y"]),
                                   [np.array([255, 0, 7], np.uint8)], opset_version=9)
    assert y.dtype == np.uint8 and y.tolist() == [1, 0, 1]
    with pytest.raises(UnsupportedModelError,
                       match="node #0 \\(Floor\\): operator 'Floor' is not supported"):
        EltwiseBackend.run_node(helper.make_node("Floor", ["x"], ["y"]), [np.ones(1)])


def test_run_node_arguments():
    sign = helper.make_node("Sign", ["x"], ["y"])
    x = np.array([-2, 0, 3], np.int8)
    # inputs as a dict, a lone array, or a lone NumPy scalar (a 0-d input)
    assert EltwiseBackend.run_node(sign, {"x": x})[0].tolist() == [-1, 0, 1]
    assert EltwiseBackend.run_node(sign, x)[0].tolist() == [-1, 0, 1]
    (y,) = EltwiseBackend.run_node(sign, np.float64(-0.5))
    assert_bits_equal(y, np.array(-1.0))
    with pytest.raises(InputError, match="^2 input\\(s\\) given; the node has 1$"):
        EltwiseBackend.run_node(sign, [x, x])
    # opset_version is the model's opset: Round exists from opset 11
    with pytest.raises(UnsupportedModelError, match="^model: node #0 \\(Round\\): Round needs "
                       "ai.onnx opset 11 or later; the model imports opset 10$"):
        EltwiseBackend.run_node(helper.make_node("Round", ["x"], ["y"]),
                                [np.ones(2, np.float32)], opset_version=10)
    # outputs_info declares the graph outputs, which the front end checks
    f = np.array([-2.5, 0.0], np.float32)
    (y,) = EltwiseBackend.run_node(sign, [f], outputs_info=[(np.float32, (2,))])
    assert_bits_equal(y, np.array([-1.0, 0.0], np.float32))
    with pytest.raises(UnsupportedModelError,
                       match="^model: graph output 'y' is declared INT32 but the graph computes "
                             "FLOAT$"):
        EltwiseBackend.run_node(sign, [f], outputs_info=[(np.int32, (2,))])
    with pytest.raises(UnsupportedModelError,
                       match="^model: graph output 'y' declares shape \\[3\\] but the graph's "
                             "value has shape \\[2\\]$"):
        EltwiseBackend.run_node(sign, [f], outputs_info=[(np.float32, (3,))])
    with pytest.raises(UnsupportedModelError,
                       match="^model: node #0 \\(Sign\\) has 0 inputs; Sign takes exactly 1$"):
        EltwiseBackend.run_node(helper.make_node("Sign", [], ["y"]), [])
    unknown = "^unknown device 'TPU'; eltwise's ONNX backend takes 'CPU'"
    with pytest.raises(ValueError, match=unknown):
        EltwiseBackend.run_node(sign, [x], device="TPU")
    with pytest.raises(ValueError, match=unknown):
        EltwiseBackend.run_model(one_node("Sign", np.int8), [x], "TPU")


def test_rep_attributes_and_input_forms():
    model = one_node("Sign", np.float32, opset=13, shape=())
    with pytest.raises(TypeError, match="^expected an onnx.ModelProto, got int$"):
        EltwiseBackendRep(123)
    rep = EltwiseBackendRep(model)  # device "CPU" and source "model" by default
    assert rep.model is model and rep.opset == 13
    out = rep.run(np.float32(-2.5))  # a lone NumPy scalar binds to the one input
    assert type(out).__name__ == "Outputs" and out._fields == ("y",)
    assert_bits_equal(out.y, np.array(-1.0, np.float32))
    # any Mapping, not only a dict
    assert_bits_equal(rep.run(types.MappingProxyType({"x": np.float32(3)}))[0],
                      np.array(1.0, np.float32))
    # a lone array binds to the one input, whatever its length
    (y,) = EltwiseBackendRep(one_node("Sign", np.float32, shape=(3,))).run(
        np.array([-1, 0, 2], np.float32))
    assert_bits_equal(y, np.array([-1, 0, 1], np.float32))
    abs_model = make_model([("Abs", "x", "y")], [("x", TensorProto.FLOAT, [2])],
                           [("y", TensorProto.FLOAT, [2])])
    with pytest.raises(UnsupportedModelError, match="^model: node 'n0' \\(Abs\\): operator"):
        EltwiseBackendRep(abs_model)


def test_prepare_accepts_bytes_and_paths(tmp_path):
    model = one_node("Sign", np.float32)
    x = np.array([-2.0, 3.0], np.float32)
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    for m in (model.SerializeToString(), str(path), path):
        assert EltwiseBackend.run_model(m, [x])[0].tolist() == [-1, 1]
    onnx.save(one_node("Sign", np.float32, 8), str(path))  # messages name the file
    with pytest.raises(UnsupportedModelError,
                       match=f"^{re.escape(str(path))}: node 'n0' \\(Sign\\): Sign needs"):
        EltwiseBackend.prepare(path)


def test_devices():
    assert EltwiseBackend.supports_device("CPU")
    assert not EltwiseBackend.supports_device("TPU")
    has_cuda = len(eltwise.info()["cuda_devices"]) > 0
    assert EltwiseBackend.supports_device("CUDA") == has_cuda
    with pytest.raises(ValueError, match="unknown device"):
        EltwiseBackend.prepare(one_node("Sign", np.float32), "TPU")
    if not has_cuda:
        with pytest.raises(ValueError, match="CUDA"):
            EltwiseBackend.prepare(one_node("Sign", np.float32), "CUDA")
        return
    x = values_for(np.float16)
    for op in ("Sign", "Round"):
        model = one_node(op, np.float16)
        assert_bits_equal(EltwiseBackend.run_model(model, [x], "CUDA")[0],
                          EltwiseBackend.run_model(model, [x], "CPU")[0])


# ---------------------------------------------------------------------------------------------
# ONNX's on-disk node tests (Debian's libonnx-testdata; onnx's wheels generate them in memory),
# compared bit for bit rather than with the runner's tolerance.

TESTDATA = os.environ.get("ELTWISE_ONNX_TESTDATA", "/usr/share/libonnx-testdata/data/node")


@pytest.mark.parametrize("name", ["test_sign", "test_round"])
def test_official_node_test_data_on_disk_bit_exact(name):
    case = os.path.join(TESTDATA, name)
    if not os.path.exists(os.path.join(case, "model.onnx")):
        pytest.skip(f"{case} not found (set ELTWISE_ONNX_TESTDATA)")
    rep = EltwiseBackend.prepare(onnx.load(os.path.join(case, "model.onnx")))
    sets = sorted(d for d in os.listdir(case) if d.startswith("test_data_set"))
    assert sets
    for d in sets:
        def load(kind):
            files = sorted(f for f in os.listdir(os.path.join(case, d)) if f.startswith(kind))
            return [numpy_helper.to_array(onnx.load_tensor(os.path.join(case, d, f)))
                    for f in files]
        got, want = rep.run(load("input_")), load("output_")
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_bits_equal(g, w)


def test_generated_official_node_tests_bit_exact():
    """The in-memory official test_sign/test_round data, bit for bit."""
    cases = {c.name: c for c in sign_and_round_node_cases()}
    for name in ("test_sign", "test_round"):
        case = cases[name]
        rep = EltwiseBackend.prepare(case.model)
        assert case.data_sets
        for inputs, outputs in case.data_sets:
            got = rep.run(list(inputs))
            assert len(got) == len(outputs)
            for g, w in zip(got, outputs):
                assert_bits_equal(g, w)


def test_backend_without_the_front_end_says_why():
    # sys.modules[name] = None makes `import name` fail, as in a build with ELTWISE_BUILD_ONNX=OFF.
    code = """import sys
sys.modules["eltwise._onnx"] = None
try:
    import eltwise.onnx_backend
except ImportError as e:
    print(e)
else:
    raise SystemExit("imported")"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith(
        "eltwise.onnx_backend needs eltwise._onnx, the C++ ONNX front end, which this eltwise was "
        "built without (ELTWISE_BUILD_ONNX=OFF or no libonnx-dev); install the eltwise wheel or "
        "rebuild with ELTWISE_BUILD_ONNX=ON ("), r.stdout


def test_rep_compiles_each_node_once_per_shape():
    t = TensorProto.FLOAT
    rep = EltwiseBackend.prepare(make_model([("Round", "x", "r"), ("Sign", "r", "y")],
                                            [("x", t, ["N"])], [("y", t, ["N"])]))
    assert rep.compile_count == 0
    for _ in range(3):
        assert_bits_equal(rep.run([np.array([-2.5, 0.6], np.float32)])[0],
                          np.array([-1, 1], np.float32))
    assert rep.compile_count == 2


def test_import_eltwise_does_not_import_onnx():
    code = "import sys, eltwise; assert 'onnx' not in sys.modules, 'onnx imported'"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert os.path.exists(os.path.join(os.path.dirname(eltwise.__file__), "onnx_backend.py"))


# ---------------------------------------------------------------------------------------------
# the C++ ONNX front end (eltwise._onnx; the wheel and source builds with libonnx-dev)


def front_end():
    import eltwise._onnx
    return eltwise._onnx


def test_loaded_model_compiles_once_and_runs_many_times():
    fe = front_end()
    t = TensorProto.FLOAT
    model = fe.Model.parse(make_model([("Round", "x", "r"), ("Sign", "r", "y")],
                                      [("x", t, ["N"])], [("y", t, ["N"])],
                                      opset=13).SerializeToString())
    assert model.compile_count == 0
    x3, x2 = np.array([-2.5, 0.4, 0.6], np.float32), np.array([1.5, -0.5], np.float32)
    for _ in range(10):
        assert_bits_equal(model.run({"x": x3})[0], np.array([-1, 0, 1], np.float32))
        assert model.compile_count == 2  # one per node
    for _ in range(10):
        assert_bits_equal(model.run({"x": x2})[0], np.array([1, 0], np.float32))  # Sign(-0): +0
        assert_bits_equal(model.run({"x": x3})[0], np.array([-1, 0, 1], np.float32))
        assert model.compile_count == 4  # the new shape once, the first one still compiled


def test_front_end_reports_its_own_messages():
    fe = front_end()
    t = TensorProto.FLOAT
    abs_model = make_model([("Abs", "x", "y")], [("x", t, [2])], [("y", t, [2])])
    with pytest.raises(ValueError) as e:
        fe.Model.parse(abs_model.SerializeToString(), "m.onnx")
    assert str(e.value) == ("m.onnx: node 'n0' (Abs): operator 'Abs' is not supported; eltwise "
                            "runs Sign (opsets 9, 13) and Round (opsets 11, 22) only")
    with pytest.raises(ValueError, match="^model: not a valid ONNX model"):
        fe.Model.parse(b"\x0a\xff\xff")
    with pytest.raises(OSError, match="cannot open"):
        fe.Model.load("/nonexistent/m.onnx")
    m = fe.Model.parse(one_node("Sign", np.float32, 13, shape=[2, "N"]).SerializeToString())
    assert (m.input_names, m.output_names, m.opset) == (["x"], ["y"], 13)
    good = np.ones((2, 1), np.float32)
    for inputs, message in [
            ({}, "graph input 'x' (FLOAT [2,N]) has no value"),
            ({"z": good}, "the model has no input 'z' (its inputs: x)"),
            ({"x": good.astype(np.float64)}, "input 'x' is DOUBLE; the model declares FLOAT"),
            ({"x": np.ones(2, np.float32)},
             "input 'x' has shape [2] (rank 1); the model declares [2,N] (rank 2)"),
            ({"x": np.ones((2, 1), np.bool_)},
             "input 'x' has dtype bool, which no ONNX Sign or Round model takes")]:
        with pytest.raises(ValueError) as e:
            m.run(inputs)
        assert str(e.value) == message
    for device in ("tpu", "CPU", "cuda:", "cuda:x1", "cuda:12345", "cuda:-1"):
        with pytest.raises(ValueError, match=f"^unknown device '{device}'; use 'cpu' or 'cuda:N'$"):
            m.run({"x": good}, device)
    if not eltwise.info()["cuda_devices"]:  # a well-formed device name, but no such device here
        with pytest.raises(ValueError,
                           match="^(no usable CUDA GPU|this eltwise build has no (CUDA )?backend)"):
            m.run({"x": good}, "cuda:0")
    assert m.compile_count == 0  # nothing was compiled for rejected runs
    assert_bits_equal(m.run({"x": np.array([[-3.0], [np.nan]], ">f4")})[0],
                      np.array([[-1.0], [np.nan]], np.float32))


@pytest.mark.parametrize("first", ["onnx", "eltwise"])
def test_onnx_and_the_front_end_load_in_either_order(first):
    front_end()
    imports = {"onnx": "import onnx", "eltwise": "import eltwise._onnx"}
    # eltwise._onnx links the system's libonnx and libprotobuf; PyPI's onnx carries its own.
    code = "\n".join([imports[first], imports["eltwise" if first == "onnx" else "onnx"], """
import numpy as np
from onnx import TensorProto, helper
graph = helper.make_graph([helper.make_node("Round", ["x"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
onnx.checker.check_model(model)
onnx.shape_inference.infer_shapes(model)
front_end_model = eltwise._onnx.Model.parse(model.SerializeToString())
(y,) = front_end_model.run({"x": np.array([0.5, 1.5, -2.5], np.float32)})
assert y.tolist() == [0, 2, -2], y
"""])
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
