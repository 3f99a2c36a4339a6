#!/usr/bin/env python3
"""Generates ONNX node-test directories for eltwise's ONNX front end.

    gen_onnx_tests.py OUT_DIR [--seed N]

Writes
  OUT_DIR/node/<case>/model.onnx, test_data_set_K/input_N.pb, output_N.pb
      every (operator version, type) ONNX allows -- Sign-9 (11 types), Sign-13 (+ bfloat16),
      Round-11 (float16, float, double), Round-22 (+ bfloat16) -- at ranks 0-8, with the edge
      values of docs/semantics.md (data set 0, stored as raw_data) and random values (data set 1,
      stored in the typed fields: float_data, double_data, int32_data, int64_data, uint64_data);
      empty tensors; large tensors; opset resolution (e.g. opset 21 selects Round-11); multi-node graphs
      (chains, unsorted nodes, fan-out, initializers, symbolic dims, pass-through outputs).
  OUT_DIR/malformed/<case>/...   invalid models and tensors; `eltwise onnx-test` must report each
      as a failed case with the message in OUT_DIR/malformed/expected.txt (one "case<TAB>regex"
      line each).
  OUT_DIR/manifest.json   per node case: op, since_version, opset, type (for compare_onnxruntime.py).

Expected outputs come from an oracle written here from docs/semantics.md (NumPy: np.sign with NaN
propagated, np.rint = round half to even; bfloat16 through float32, which is exact), never from
eltwise. Each expected output is also checked against ONNX's own reference implementation
(onnx.reference.ReferenceEvaluator); the only differences allowed are listed in
KNOWN_REFERENCE_DIFFERENCES and documented in docs/onnx.md.

Needs numpy and onnx >= 1.17 (opset 22; pip install onnx numpy); ml_dtypes (an onnx dependency)
for checking bfloat16 against onnx.reference.
"""

import argparse
import json
import os
import shutil
import sys
import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper

try:
    import ml_dtypes
except ImportError:  # bfloat16 is then checked against the oracle only
    ml_dtypes = None

# type name -> (TensorProto code, numpy storage dtype). bfloat16 is stored as its uint16 bits.
TYPES = {
    "float32": (TensorProto.FLOAT, np.float32),
    "float16": (TensorProto.FLOAT16, np.float16),
    "bfloat16": (TensorProto.BFLOAT16, np.uint16),
    "float64": (TensorProto.DOUBLE, np.float64),
    "int8": (TensorProto.INT8, np.int8),
    "int16": (TensorProto.INT16, np.int16),
    "int32": (TensorProto.INT32, np.int32),
    "int64": (TensorProto.INT64, np.int64),
    "uint8": (TensorProto.UINT8, np.uint8),
    "uint16": (TensorProto.UINT16, np.uint16),
    "uint32": (TensorProto.UINT32, np.uint32),
    "uint64": (TensorProto.UINT64, np.uint64),
}
FLOATS = ("float32", "float16", "bfloat16", "float64")
ALL_BUT_BF16 = [t for t in TYPES if t != "bfloat16"]

# (op, since_version) -> the types its type constraint allows (ONNX operator docs).
OP_VERSIONS = {
    ("Sign", 9): ALL_BUT_BF16,
    ("Sign", 13): list(TYPES),
    ("Round", 11): ["float16", "float32", "float64"],
    ("Round", 22): ["float16", "float32", "float64", "bfloat16"],
}

# Where onnx.reference (ONNX's Python reference implementation) differs from docs/semantics.md, as
# (op, type, description, predicate(input_bits_array) -> mask of elements allowed to differ).
# Sign(-0.0) in bfloat16: ml_dtypes' np.sign keeps the sign of zero (-0.0); NumPy's own float
# types and docs/semantics.md give +0.
KNOWN_REFERENCE_DIFFERENCES = [
    ("Sign", "bfloat16", "Sign(-0.0) is -0.0 in onnx.reference (ml_dtypes), +0.0 in eltwise",
     lambda bits: bits == 0x8000),
]

MANTISSA_BITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


# ---------------------------------------------------------------------------------------------
# bfloat16 helpers (bits <-> float32, exact for the values used)

def bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16_exact(values):
    """float32 -> bfloat16 bits; every value must be exactly representable (checked)."""
    values = np.asarray(values, dtype=np.float32)
    bits = values.reshape(-1).view(np.uint32)
    out = (bits >> 16).astype(np.uint16)
    nan = np.isnan(values.reshape(-1))
    assert np.all(((bits & 0xFFFF) == 0) | nan), "value not exact in bfloat16"
    out[nan] = out[nan] | 0x0040  # keep NaN a NaN after truncation
    return out.reshape(values.shape)


def as_float(type_name, arr):
    """Values of a float array as float64 (bfloat16 from its bits)."""
    with np.errstate(invalid="ignore"):
        if type_name == "bfloat16":
            return bf16_to_f32(arr).astype(np.float64)
        return arr.astype(np.float64)


def from_float64(type_name, values):
    """float64 values -> storage array; keeps only the values exactly representable."""
    values = np.asarray(values, dtype=np.float64)
    if type_name == "bfloat16":
        f32 = values.astype(np.float32)
        bits = f32.view(np.uint32)
        keep = ((bits & 0xFFFF) == 0) & (f32.astype(np.float64) == values) | np.isnan(values)
        return f32_to_bf16_exact(f32[keep])
    dtype = TYPES[type_name][1]
    with np.errstate(over="ignore"):
        cast = values.astype(dtype)
    keep = (cast.astype(np.float64) == values) | np.isnan(values)
    return cast[keep]


# ---------------------------------------------------------------------------------------------
# Values

def float_bits(type_name, patterns):
    """Raw bit patterns as a storage array."""
    if type_name == "float16" or type_name == "bfloat16":
        arr = np.array(patterns, dtype=np.uint16)
        return arr if type_name == "bfloat16" else arr.view(np.float16)
    if type_name == "float32":
        return np.array(patterns, dtype=np.uint32).view(np.float32)
    return np.array(patterns, dtype=np.uint64).view(np.float64)


def edge_values(type_name):
    """docs/semantics.md's edge values for one type, in a fixed order."""
    if type_name not in FLOATS:
        info = np.iinfo(TYPES[type_name][1])
        vals = [0, 1, 2, 3, 127, 128, 255, 256, 32767, 32768, 65535, info.max, info.max - 1,
                info.min, info.min + 1, -1, -2, -3, -127, -128, -129, -32768]
        vals = [v for v in vals if info.min <= v <= info.max]
        return np.array(list(dict.fromkeys(vals)), dtype=TYPES[type_name][1])
    p = MANTISSA_BITS[type_name]
    vals = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, -3.5, 4.5, -4.5,
            # DirectML's rounding table
            -1.75, -1.25, 1.25, 1.75, 1.0, -1.0,
            0.4, -0.4, 0.6, -0.6, 0.25, -0.25, 0.75, -0.75,
            np.inf, -np.inf, 100.5, -100.5, 1e3, -1e3]
    # Near 2^(p-1), where halves stop existing, and 2^p, where odd integers stop existing:
    # 2^(p-1) - 0.5 (largest half), 2^(p-1) + 1 (odd), 2^p +- 1/2.
    for k in (p - 2, p - 1, p):
        for d in (-1.0, -0.5, 0.0, 0.5, 1.0, 2.0):
            vals += [2.0 ** k + d, -(2.0 ** k + d)]
    storage = from_float64(type_name, vals)
    # Bit patterns: smallest/largest subnormal, smallest normal, largest finite, 1 ulp around
    # 0.5 (0.49999997f), NaNs (quiet, signalling, negative, with payload).
    if type_name == "float16":
        pats = [0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x7BFF, 0xFBFF, 0x37FF, 0xB7FF,
                0x3801, 0x7E00, 0xFE00, 0x7C01, 0x7D55, 0xFFFF]
    elif type_name == "bfloat16":
        pats = [0x0001, 0x8001, 0x007F, 0x807F, 0x0080, 0x8080, 0x7F7F, 0xFF7F, 0x3EFF, 0xBEFF,
                0x3F01, 0x7FC0, 0xFFC0, 0x7F81, 0x7FD5, 0xFFFF]
    elif type_name == "float32":
        pats = [0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000,
                0x7F7FFFFF, 0xFF7FFFFF, 0x3EFFFFFF, 0xBEFFFFFF, 0x3F000001, 0x7FC00000,
                0xFFC00000, 0x7F800001, 0x7FA5A5A5, 0xFFFFFFFF]
    else:
        pats = [0x1, 0x8000000000000001, 0x000FFFFFFFFFFFFF, 0x800FFFFFFFFFFFFF,
                0x0010000000000000, 0x8010000000000000, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF,
                0x3FDFFFFFFFFFFFFF, 0xBFDFFFFFFFFFFFFF, 0x3FE0000000000001, 0x7FF8000000000000,
                0xFFF8000000000000, 0x7FF0000000000001, 0x7FF5A5A5A5A5A5A5, 0xFFFFFFFFFFFFFFFF]
    return np.concatenate([storage, float_bits(type_name, pats)])


def random_values(type_name, count, rng):
    """Half random bit patterns (every class: NaN, inf, subnormal), half small values with
    fractions of 1/2 and 1/4 (ties)."""
    if type_name not in FLOATS:
        dtype = TYPES[type_name][1]
        raw = rng.integers(0, 256, size=count * np.dtype(dtype).itemsize, dtype=np.uint8)
        return raw.view(dtype).copy()
    bits_dtype = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32,
                  "float64": np.uint64}[type_name]
    n_bits = count // 2
    raw = rng.integers(0, 256, size=n_bits * np.dtype(bits_dtype).itemsize, dtype=np.uint8)
    bits = float_bits(type_name, raw.view(bits_dtype))
    small = from_float64(type_name, rng.integers(-64, 65, size=count - n_bits) / 4.0)
    return np.concatenate([bits, small])[:count]


def fill(values, shape):
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if count == 0:
        return np.zeros(shape, dtype=values.dtype)
    return np.resize(values, count).reshape(shape)


# ---------------------------------------------------------------------------------------------
# The oracle (from docs/semantics.md; independent of eltwise)

def oracle(op, type_name, x):
    if type_name == "bfloat16":
        f = bf16_to_f32(x)
        if op == "Sign":
            y = np.where(np.isnan(f), f, np.sign(f)).astype(np.float32)
            y[y == 0] = 0.0  # +0 for both zeros
        else:
            y = np.rint(f)
        return f32_to_bf16_exact(y)
    if op == "Sign":
        if type_name in FLOATS:
            with np.errstate(invalid="ignore"):
                y = np.where(np.isnan(x), x, np.sign(x)).astype(x.dtype)
            y[y == 0] = 0  # +0 for both zeros
            return y
        return np.sign(x).astype(x.dtype)
    return np.rint(x).astype(x.dtype)  # round half to even; keeps -0.0, inf, NaN


def same_bits(type_name, a, b):
    """Element mask: bitwise equal, or both NaN."""
    if type_name in FLOATS:
        fa, fb = as_float(type_name, a), as_float(type_name, b)
        both_nan = np.isnan(fa) & np.isnan(fb)
        if type_name == "bfloat16":
            return (a == b) | both_nan
        ia = a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])
        ib = b.view(ia.dtype)
        return (ia == ib) | both_nan
    return a == b


def reference_check(model, op, inputs, expected, case):
    """Compares the oracle with onnx.reference; raises on an undocumented difference."""
    from onnx.reference import ReferenceEvaluator
    if ml_dtypes is None and any(t == "bfloat16" for _, _, t in inputs):
        return
    feeds = {}
    for name, arr, tname in inputs:
        feeds[name] = arr.view(ml_dtypes.bfloat16) if tname == "bfloat16" else arr
    got = ReferenceEvaluator(model).run(None, feeds)
    for (name, exp, tname, source_bits), ref in zip(expected, got):
        ref = np.asarray(ref)
        if tname == "bfloat16":
            ref = ref.view(np.uint16)
        ref = ref.reshape(exp.shape)
        diff = ~same_bits(tname, exp, ref)
        if not diff.any():
            continue
        allowed = np.zeros_like(diff)
        for kop, ktype, _, pred in KNOWN_REFERENCE_DIFFERENCES:
            if kop == op and ktype == tname and source_bits is not None:
                allowed |= pred(source_bits.view(np.uint16) if tname == "bfloat16"
                                else source_bits)
        bad = diff & ~allowed
        if bad.any():
            i = np.argwhere(bad)[0]
            raise SystemExit(f"{case}: oracle and onnx.reference differ for output {name} at "
                             f"{tuple(i)}: oracle {exp[tuple(i)]!r}, reference {ref[tuple(i)]!r}")


# ---------------------------------------------------------------------------------------------
# TensorProto writing (explicit storage forms)

def tensor_proto(name, type_name, arr, typed):
    t = TensorProto()
    t.name = name
    t.data_type = TYPES[type_name][0]
    t.dims.extend(arr.shape)
    flat = arr.reshape(-1)
    if not typed:
        t.raw_data = np.ascontiguousarray(flat).astype(flat.dtype.newbyteorder("<")).tobytes()
    elif type_name == "float32":
        t.float_data.extend(flat.tolist())
    elif type_name == "float64":
        t.double_data.extend(flat.tolist())
    elif type_name in ("float16", "bfloat16"):
        t.int32_data.extend(flat.view(np.uint16).astype(np.int64).tolist())
    elif type_name in ("int8", "int16", "int32", "uint8", "uint16"):
        t.int32_data.extend(flat.astype(np.int64).tolist())
    elif type_name == "int64":
        t.int64_data.extend(flat.tolist())
    else:  # uint32, uint64
        t.uint64_data.extend(flat.astype(np.uint64).tolist())
    return t


def write_pb(path, proto):
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


def make_model(nodes, inputs, outputs, opset, initializers=(), check=True):
    graph = helper.make_graph(nodes, "eltwise_test", inputs, outputs,
                              initializer=list(initializers))
    opsets = [helper.make_opsetid("", opset)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="eltwise-gen",
                              ir_version=helper.find_min_ir_version_for(opsets, True) if
                              opset <= onnx.defs.onnx_opset_version() else onnx.IR_VERSION)
    if check:
        onnx.checker.check_model(model, full_check=True)
    return model


def value_info(name, type_name, shape):
    return helper.make_tensor_value_info(name, TYPES[type_name][0], shape)


class Writer:
    def __init__(self, out_dir):
        self.node_dir = os.path.join(out_dir, "node")
        self.manifest = {}
        self.count = 0

    def case(self, name, model, data_sets, meta, reference=True):
        """data_sets: list of (inputs [(name, arr, type)], outputs [(name, arr, type, src)],
        typed) -- `src` is the input array an output was computed from (for the known
        differences), `typed` whether the tensors use typed fields instead of raw_data."""
        d = os.path.join(self.node_dir, name)
        os.makedirs(d)
        onnx.save(model, os.path.join(d, "model.onnx"))
        for k, (ins, outs, typed) in enumerate(data_sets):
            s = os.path.join(d, f"test_data_set_{k}")
            os.makedirs(s)
            for i, (n, arr, t) in enumerate(ins):
                write_pb(os.path.join(s, f"input_{i}.pb"), tensor_proto(n, t, arr, typed))
            for i, (n, arr, t, _) in enumerate(outs):
                write_pb(os.path.join(s, f"output_{i}.pb"), tensor_proto(n, t, arr, typed))
            if reference:  # onnx.reference needs sorted nodes
                reference_check(model, meta.get("op"), ins, outs, f"{name}/test_data_set_{k}")
        self.manifest[name] = meta
        self.count += 1


def rank_shape(rank, count):
    """A shape of `rank` dims holding at least `count` elements (2 x ... x 2 x n)."""
    if rank == 0:
        return []
    lead = [2] * (rank - 1)
    last = max(1, -(-count // (2 ** (rank - 1))))
    return lead + [last]


def single_op_cases(w, rng):
    for (op, version), types in OP_VERSIONS.items():
        for t in types:
            edges = edge_values(t)
            shapes = [(f"r{r}", rank_shape(r, len(edges))) for r in range(0, 9)]
            shapes += [("empty", [2, 0, 3]), ("large", [7, 1447])]
            for label, shape in shapes:
                name = f"test_eltwise_{op.lower()}{version}_{t}_{label}"
                model = make_model([helper.make_node(op, ["x"], ["y"], name=f"{op.lower()}0")],
                                   [value_info("x", t, shape)], [value_info("y", t, shape)],
                                   version)
                sets = []
                if label == "r0":
                    # One element per data set: an edge value, then random ones.
                    values = [edges[i:i + 1] for i in (0, 1, len(edges) // 2, len(edges) - 1)]
                    values.append(random_values(t, 1, rng))
                else:
                    count = int(np.prod(shape))
                    values = [np.concatenate([edges, random_values(t, count, rng)]),
                              random_values(t, count, rng)]
                for k, v in enumerate(values):
                    x = fill(v, shape)
                    y = oracle(op, t, x)
                    sets.append(([("x", x, t)], [("y", y, t, x)], k % 2 == 1))
                w.case(name, model, sets,
                       {"op": op, "since_version": version, "opset": version, "type": t})


def opset_resolution_cases(w, rng):
    # The model's opset selects the operator version: 21 -> Round-11, 12 -> Sign-9, the newest
    # opset (28, the newest eltwise knows, or this onnx package's newest) -> Sign-13 / Round-22.
    newest = min(28, onnx.defs.onnx_opset_version())
    for op, opset, version, t in [("Round", 21, 11, "float32"), ("Sign", 12, 9, "float16"),
                                  ("Sign", newest, 13, "bfloat16"),
                                  ("Round", newest, 22, "bfloat16"),
                                  ("Round", 13, 11, "float64"), ("Sign", 17, 13, "int64")]:
        edges = edge_values(t)
        shape = [len(edges)]
        model = make_model([helper.make_node(op, ["x"], ["y"])], [value_info("x", t, shape)],
                           [value_info("y", t, shape)], opset)
        x = fill(edges, shape)
        w.case(f"test_eltwise_{op.lower()}_opset{opset}_{t}", model,
               [([("x", x, t)], [("y", oracle(op, t, x), t, x)], False)],
               {"op": op, "since_version": version, "opset": opset, "type": t})


def graph_cases(w, rng):
    t = "float32"
    values = np.concatenate([edge_values(t), random_values(t, 40, rng)])
    shape = [4, -(-len(values) // 4)]  # every edge value appears
    x = fill(values, shape)
    r = oracle("Round", t, x)
    s = oracle("Sign", t, r)

    # x -> Round -> r -> Sign -> y, with the intermediate also a graph output.
    nodes = [helper.make_node("Round", ["x"], ["r"], name="round"),
             helper.make_node("Sign", ["r"], ["y"], name="sign")]
    ios = ([value_info("x", t, shape)], [value_info("y", t, shape), value_info("r", t, shape)])
    w.case("test_eltwise_graph_chain", make_model(nodes, *ios, 13),
           [([("x", x, t)], [("y", s, t, None), ("r", r, t, None)], False)],
           {"op": "graph", "opset": 13, "type": t})
    # The same nodes listed in reverse: not topologically sorted (ONNX requires sorted nodes;
    # eltwise sorts them, as ONNX Runtime does).
    w.case("test_eltwise_graph_unsorted", make_model(nodes[::-1], *ios, 13, check=False),
           [([("x", x, t)], [("y", s, t, None), ("r", r, t, None)], False)],
           {"op": "graph", "opset": 13, "type": t, "unsorted": True}, reference=False)

    # Fan-out: a = Sign(x); b = Round(a); c = Sign(a); outputs b, c, a.
    fshape = [3, -(-len(edge_values("float16")) // 3)]
    xf = fill(edge_values("float16"), fshape)
    a = oracle("Sign", "float16", xf)
    nodes = [helper.make_node("Sign", ["x"], ["a"]), helper.make_node("Round", ["a"], ["b"]),
             helper.make_node("Sign", ["a"], ["c"])]
    w.case("test_eltwise_graph_fanout",
           make_model(nodes, [value_info("x", "float16", fshape)],
                      [value_info("b", "float16", fshape), value_info("c", "float16", fshape),
                       value_info("a", "float16", fshape)], 22),
           [([("x", xf, "float16")], [("b", oracle("Round", "float16", a), "float16", None),
                                      ("c", oracle("Sign", "float16", a), "float16", None),
                                      ("a", a, "float16", None)], False)],
           {"op": "graph", "opset": 22, "type": "float16"})

    # Two inputs of different types, two independent nodes.
    ishape = [2, -(-len(edge_values("int8")) // 2)]
    xi = fill(edge_values("int8"), ishape)
    xd = fill(edge_values("float64"), [len(edge_values("float64"))])
    nodes = [helper.make_node("Sign", ["i"], ["si"]), helper.make_node("Round", ["d"], ["rd"])]
    w.case("test_eltwise_graph_two_inputs",
           make_model(nodes, [value_info("i", "int8", ishape), value_info("d", "float64", list(xd.shape))],
                      [value_info("si", "int8", ishape), value_info("rd", "float64", list(xd.shape))], 11),
           [([("i", xi, "int8"), ("d", xd, "float64")],
             [("si", oracle("Sign", "int8", xi), "int8", None),
              ("rd", oracle("Round", "float64", xd), "float64", None)], True)],
           {"op": "graph", "opset": 11, "type": "int8+float64"})

    # An initializer feeding a node, plus a graph input.
    wv = fill(edge_values("bfloat16"), [len(edge_values("bfloat16"))])
    init = tensor_proto("w", "bfloat16", wv, typed=True)
    xs = fill(edge_values("uint16"), [len(edge_values("uint16"))])
    nodes = [helper.make_node("Round", ["w"], ["rw"]), helper.make_node("Sign", ["x"], ["sx"])]
    w.case("test_eltwise_graph_initializer",
           make_model(nodes, [value_info("x", "uint16", list(xs.shape))],
                      [value_info("rw", "bfloat16", list(wv.shape)),
                       value_info("sx", "uint16", list(xs.shape))], 22, initializers=[init]),
           [([("x", xs, "uint16")], [("rw", oracle("Round", "bfloat16", wv), "bfloat16", None),
                                     ("sx", oracle("Sign", "uint16", xs), "uint16", None)], False)],
           {"op": "graph", "opset": 22, "type": "bfloat16+uint16"})

    # Symbolic dimensions: one model, data sets of different sizes.
    nodes = [helper.make_node("Round", ["x"], ["y"])]
    model = make_model(nodes, [value_info("x", "float64", ["N", 3])],
                       [value_info("y", "float64", ["N", 3])], 11)
    sets = []
    for n in (1, 7, 40):
        xv = fill(np.concatenate([edge_values("float64"), random_values("float64", 120, rng)]),
                  [n, 3])
        sets.append(([("x", xv, "float64")], [("y", oracle("Round", "float64", xv), "float64",
                                                None)], n == 7))
    w.case("test_eltwise_graph_symbolic_dims", model, sets,
           {"op": "graph", "opset": 11, "type": "float64"})

    # A graph input passed straight through to an output, beside a Sign of it.
    xu = fill(edge_values("uint64"), [len(edge_values("uint64"))])
    nodes = [helper.make_node("Sign", ["x"], ["s"])]
    w.case("test_eltwise_graph_passthrough",
           make_model(nodes, [value_info("x", "uint64", list(xu.shape))],
                      [value_info("s", "uint64", list(xu.shape)),
                       value_info("x", "uint64", list(xu.shape))], 9, check=False),
           [([("x", xu, "uint64")], [("s", oracle("Sign", "uint64", xu), "uint64", None),
                                     ("x", xu, "uint64", None)], False)],
           {"op": "graph", "opset": 9, "type": "uint64"})


# ---------------------------------------------------------------------------------------------
# Malformed cases

def malformed_cases(out_dir):
    root = os.path.join(out_dir, "malformed")
    os.makedirs(root)
    expected = []

    def case(name, model_bytes, inputs, regex, outputs=None):
        d = os.path.join(root, name)
        s = os.path.join(d, "test_data_set_0")
        os.makedirs(s)
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(model_bytes)
        for i, data in enumerate(inputs):
            with open(os.path.join(s, f"input_{i}.pb"), "wb") as f:
                f.write(data)
        for i, data in enumerate(outputs if outputs is not None else inputs):
            with open(os.path.join(s, f"output_{i}.pb"), "wb") as f:
                f.write(data)
        expected.append((name, regex))

    def model(op="Sign", t="float32", shape=(2, 3), opset=13, nodes=None, **kw):
        nodes = nodes or [helper.make_node(op, ["x"], ["y"], name="n0", **kw)]
        return make_model(nodes, [value_info("x", t, list(shape))],
                          [value_info("y", t, list(shape))], opset, check=False)

    x = np.arange(-3, 3, dtype=np.float32).reshape(2, 3)
    good_in = tensor_proto("x", "float32", x, False).SerializeToString()
    good = model().SerializeToString()

    case("truncated_model", good[: len(good) // 2], [good_in],
         r"not a valid ONNX model \(protobuf parse failed")
    case("garbage_model", b"\x0fthis is not a model", [good_in],
         r"not a valid ONNX model")
    case("unknown_op", model(op="Abs").SerializeToString(), [good_in],
         r"node 'n0' \(Abs\): operator 'Abs' is not supported")
    case("round11_bfloat16", model(op="Round", t="bfloat16", opset=11).SerializeToString(),
         [tensor_proto("x", "bfloat16", np.zeros((2, 3), np.uint16), False).SerializeToString()],
         r"BFLOAT16, which Round-11 .*does not allow.*Round-22")
    case("sign9_bfloat16", model(t="bfloat16", opset=9).SerializeToString(),
         [tensor_proto("x", "bfloat16", np.zeros((2, 3), np.uint16), False).SerializeToString()],
         r"BFLOAT16, which Sign-9 .*does not allow")
    case("round_int32", model(op="Round", t="int32", opset=22).SerializeToString(),
         [tensor_proto("x", "int32", np.zeros((2, 3), np.int32), False).SerializeToString()],
         r"INT32, which Round-22 .*does not allow")
    case("sign_opset8", model(opset=8).SerializeToString(), [good_in],
         r"Sign needs ai.onnx opset 9 or later; the model imports opset 8")
    case("opset_too_new", model(opset=29).SerializeToString(), [good_in],
         r"ai.onnx opset 29 is not supported")
    case("attribute", model(alpha=1.0).SerializeToString(), [good_in],
         r"has attribute 'alpha'; Sign has no attributes")
    case("undefined_input", model(nodes=[helper.make_node("Sign", ["q"], ["y"], name="n0")])
         .SerializeToString(), [good_in],
         r"input 'q' is not a graph input, an initializer or any node's output")
    case("cycle", model(nodes=[helper.make_node("Sign", ["b"], ["a"], name="n0"),
                               helper.make_node("Sign", ["a"], ["b"], name="n1"),
                               helper.make_node("Sign", ["x"], ["y"], name="n2")])
         .SerializeToString(), [good_in], r"the graph has a cycle through node 'n0'")
    case("wrong_dims", good,
         [tensor_proto("x", "float32", x.reshape(3, 2), False).SerializeToString()],
         r"input 'x' has shape \[3,2\]; the model declares \[2,3\]")
    case("wrong_rank", good,
         [tensor_proto("x", "float32", x.reshape(6), False).SerializeToString()],
         r"input 'x' has shape \[6\] \(rank 1\)")
    case("wrong_type", good,
         [tensor_proto("x", "float64", x.astype(np.float64), False).SerializeToString()],
         r"input 'x' is DOUBLE; the model declares FLOAT")
    short = tensor_proto("x", "float32", x, False)
    short.raw_data = short.raw_data[:-1]
    case("raw_data_short", good, [short.SerializeToString()],
         r"raw_data has 23 bytes; dims \[2,3\] \(6 elements\) of FLOAT need 24")
    case("truncated_tensor", good, [good_in[: len(good_in) - 5]],
         r"not a valid TensorProto|raw_data has")
    few = tensor_proto("x", "float32", x, True)
    del few.float_data[-1]
    case("float_data_count", good, [few.SerializeToString()],
         r"float_data has 5 values; dims \[2,3\] \(6 elements\) need 6")
    wide = tensor_proto("x", "int8", np.zeros((2, 3), np.int8), True)
    wide.int32_data[2] = 300
    case("int32_data_out_of_range", model(t="int8").SerializeToString(),
         [wide.SerializeToString()], r"int32_data\[2\] is 300, out of range for INT8")
    ext = tensor_proto("x", "float32", x, False)
    ext.ClearField("raw_data")
    ext.data_location = TensorProto.EXTERNAL
    entry = ext.external_data.add()
    entry.key, entry.value = "location", "x.bin"
    case("external_data", good, [ext.SerializeToString()], r"data_location is EXTERNAL")
    st = TensorProto(name="x", data_type=TensorProto.STRING, dims=[1], string_data=[b"a"])
    case("string_tensor", good, [st.SerializeToString()], r"data_type STRING \(8\) is not supported")
    case("missing_input_file", good, [], r"0 input_N.pb files; the model has 1 input$",
         outputs=[good_in])
    case("missing_output_file", good, [good_in], r"0 output_N.pb files; the model has 1 output$",
         outputs=[])
    case("corrupt_output_file", good, [good_in], r"output_0\.pb: not a valid TensorProto",
         outputs=[b"\x0fthis is not a tensor"])
    wrong_out = tensor_proto("y", "float32", np.zeros((2, 3), np.float32), False)
    case("wrong_expected_output", good, [good_in],
         r"output 0 'y': 5 of 6 elements differ; first at \[0,0\]", outputs=[wrong_out.SerializeToString()])

    with open(os.path.join(root, "expected.txt"), "w") as f:
        for name, regex in expected:
            f.write(f"{name}\t{regex}\n")
    return len(expected)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args()
    if onnx.defs.onnx_opset_version() < 22:
        raise SystemExit(f"onnx {onnx.__version__} knows opsets up to "
                         f"{onnx.defs.onnx_opset_version()}; Round-22 needs onnx >= 1.17")
    np.seterr(all="ignore")  # NaN inputs are intended
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    if os.path.exists(args.out_dir):
        shutil.rmtree(args.out_dir)
    os.makedirs(args.out_dir)
    rng = np.random.default_rng(args.seed)
    w = Writer(args.out_dir)
    single_op_cases(w, rng)
    opset_resolution_cases(w, rng)
    graph_cases(w, rng)
    n_bad = malformed_cases(args.out_dir)
    with open(os.path.join(args.out_dir, "manifest.json"), "w") as f:
        json.dump(w.manifest, f, indent=1, sort_keys=True)
    print(f"wrote {w.count} node-test directories to {w.node_dir} and {n_bad} malformed cases")


if __name__ == "__main__":
    sys.exit(main())
