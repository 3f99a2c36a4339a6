#!/usr/bin/env python3
"""Compares eltwise with ONNX Runtime on the node tests of scripts/gen_onnx_tests.py.

    compare_onnxruntime.py GEN_DIR [--eltwise PATH/TO/eltwise] [--verbose]

For every GEN_DIR/node/<case>/test_data_set_K it runs the model with ONNX Runtime (CPU) and
compares each output, bit for bit with NaN equal to NaN, with eltwise's output: with --eltwise,
what `eltwise run` writes (which is also checked against the expected output); without it, the
expected output (which `eltwise onnx-test` matches bit for bit). Every difference is grouped by
(case kind, operator version, type, class of the input value, eltwise's value, ONNX Runtime's
value) and every ONNX Runtime error by its message.

Exit status 0 if every difference and error is one of KNOWN below (each is explained in
docs/onnx.md), 1 otherwise: a new ONNX Runtime behaviour, or eltwise disagreeing with the
expected outputs, must be looked at and documented.
"""

import argparse
import collections
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import onnx
from onnx import TensorProto

try:
    import onnxruntime as ort
except ImportError:
    print("onnxruntime is not installed (pip install onnxruntime)", file=sys.stderr)
    sys.exit(2)

FLOAT_CODES = {TensorProto.FLOAT: (np.float32, np.uint32), TensorProto.DOUBLE: (np.float64, np.uint64),
               TensorProto.FLOAT16: (np.float16, np.uint16), TensorProto.BFLOAT16: (None, np.uint16)}
NUMPY_OF = {TensorProto.FLOAT: np.float32, TensorProto.FLOAT16: np.float16,
            TensorProto.BFLOAT16: np.uint16, TensorProto.DOUBLE: np.float64,
            TensorProto.INT8: np.int8, TensorProto.INT16: np.int16, TensorProto.INT32: np.int32,
            TensorProto.INT64: np.int64, TensorProto.UINT8: np.uint8, TensorProto.UINT16: np.uint16,
            TensorProto.UINT32: np.uint32, TensorProto.UINT64: np.uint64}

# Known differences: (kind, predicate on the group key) -> explanation (see docs/onnx.md).
# Element groups are keyed (op, since_version, type, input class, eltwise value, ORT value);
# error groups (op, since_version, type, message).
KNOWN_ELEMENTS = [
    (lambda k: k[2] in ("float16", "bfloat16") and k[3] == "nan" and k[4] == "nan" and k[5] == "0",
     "ONNX Runtime's CPU Sign returns 0 for a float16 or bfloat16 NaN (it returns NaN for float "
     "and double); eltwise follows the ONNX reference (np.sign): NaN. Graph cases that apply "
     "Sign to a float16 NaN show the same difference downstream."),
]
KNOWN_ERRORS = [
    (lambda k: k[0] in ("Round", "graph") and "Could not find an implementation for Round(22)" in k[3],
     "ONNX Runtime has no Round-22 kernel (bfloat16) on the CPU."),
    (lambda k: "Unsupported model IR version" in k[3],
     "The newest-opset models (opset 28: IR version 14) are newer than this ONNX Runtime reads "
     "(onnxruntime 1.31: IR version 13)."),
]


def load_tensor(path):
    t = onnx.load_tensor(path)
    from onnx import numpy_helper
    if t.data_type == TensorProto.BFLOAT16:  # as uint16 bits; numpy has no bfloat16
        raw = t.raw_data if t.HasField("raw_data") else np.array(t.int32_data, np.uint16).tobytes()
        return np.frombuffer(raw, np.uint16).reshape(tuple(t.dims)).copy(), t.data_type
    return numpy_helper.to_array(t), t.data_type


def input_class(code, value):
    """A short name for the class of one input element."""
    if code not in FLOAT_CODES:
        v = int(value)
        return "0" if v == 0 else ("min" if v == int(np.iinfo(value.dtype).min) else
                                   ("neg" if v < 0 else "pos"))
    f = float((value.astype(np.uint32) << 16).view(np.float32)) if code == TensorProto.BFLOAT16 \
        else float(value)
    if np.isnan(f):
        return "nan"
    if np.isinf(f):
        return "+inf" if f > 0 else "-inf"
    if f == 0:
        return "-0" if np.signbit(f) else "+0"
    if f % 1 == 0.5 or f % 1 == -0.5:
        return "tie"
    return "integer" if f % 1 == 0 else "fraction"


def show(code, value):
    if code in FLOAT_CODES:
        f = float((value.astype(np.uint32) << 16).view(np.float32)) if code == TensorProto.BFLOAT16 \
            else float(value)
        return "nan" if np.isnan(f) else repr(f).replace("0.0", "0") if f == 0 and not np.signbit(f) \
            else ("-0" if f == 0 else repr(f))
    return str(int(value))


def same(code, a, b):
    """Element mask: bitwise equal, or both NaN."""
    if code not in FLOAT_CODES:
        return a == b
    _, bits = FLOAT_CODES[code]
    ai, bi = a.view(bits), b.view(bits)
    with np.errstate(invalid="ignore"):
        if code == TensorProto.BFLOAT16:
            fa = (ai.astype(np.uint32) << 16).view(np.float32)
            fb = (bi.astype(np.uint32) << 16).view(np.float32)
        else:
            fa, fb = a, b
        return (ai == bi) | (np.isnan(fa) & np.isnan(fb))


def run_ort(session, feeds):
    """Runs with OrtValues so bfloat16 (which numpy lacks) can be fed and fetched as bits."""
    values = {}
    for inp in session.get_inputs():
        arr, code = feeds[inp.name]
        values[inp.name] = ort.OrtValue.ortvalue_from_numpy_with_onnx_type(
            np.require(arr, requirements="C"), code)  # keeps rank 0 (ascontiguousarray does not)
    outs = session.run_with_ort_values(None, values)
    result = []
    for o in outs:
        nbytes = o.tensor_size_in_bytes()
        raw = ctypes.string_at(o.data_ptr(), nbytes) if nbytes else b""
        result.append((raw, tuple(o.shape())))
    return result


def run_eltwise(eltwise, model, inputs, output_names, tmp):
    cmd = [eltwise, "run", model]
    for name, path in inputs:
        cmd += ["--input", f"{name}={path}"]
    outs = []
    for i, name in enumerate(output_names):
        path = os.path.join(tmp, f"out_{i}.pb")
        cmd += ["--output", f"{name}={path}"]
        outs.append(path)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"eltwise run failed ({p.returncode}): {p.stderr.strip()}")
    return [load_tensor(path)[0] for path in outs]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("gen_dir")
    parser.add_argument("--eltwise", help="the eltwise executable; compare its `run` output")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    ort.set_default_logger_severity(3)

    with open(os.path.join(args.gen_dir, "manifest.json")) as f:
        manifest = json.load(f)
    element_groups = collections.Counter()
    error_groups = collections.Counter()
    eltwise_failures = []
    compared = 0
    tmp = tempfile.mkdtemp(prefix="eltwise_ort_")
    for case, meta in sorted(manifest.items()):
        d = os.path.join(args.gen_dir, "node", case)
        key = (meta["op"], meta.get("since_version", "-"), meta["type"])
        model_path = os.path.join(d, "model.onnx")
        model = onnx.load(model_path)
        in_names = [i.name for i in model.graph.input
                    if i.name not in {t.name for t in model.graph.initializer}]
        out_names = [o.name for o in model.graph.output]
        try:
            session = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001 -- any load failure is a finding
            error_groups[key + (str(e).split("\n")[0][-160:],)] += 1
            continue
        for ds in sorted(x for x in os.listdir(d) if x.startswith("test_data_set_")):
            s = os.path.join(d, ds)
            feeds, in_paths = {}, []
            for i, name in enumerate(in_names):
                path = os.path.join(s, f"input_{i}.pb")
                feeds[name] = load_tensor(path)
                in_paths.append((name, path))
            expected = [load_tensor(os.path.join(s, f"output_{i}.pb")) for i in range(len(out_names))]
            ours = [arr for arr, _ in expected]
            if args.eltwise:
                try:
                    ours = run_eltwise(args.eltwise, model_path, in_paths, out_names, tmp)
                except RuntimeError as e:
                    eltwise_failures.append(f"{case}/{ds}: {e}")
                    continue
                for i, ((exp, code), got) in enumerate(zip(expected, ours)):
                    if exp.shape != got.shape or not same(code, exp, got).all():
                        eltwise_failures.append(f"{case}/{ds}: output {i} differs from expected")
            try:
                theirs = run_ort(session, feeds)
            except Exception as e:  # noqa: BLE001
                error_groups[key + (str(e).split("\n")[0][-160:],)] += 1
                continue
            compared += 1
            x, xcode = next(iter(feeds.values())) if feeds else (None, None)
            for (exp, code), mine, (raw, shape) in zip(expected, ours, theirs):
                other = np.frombuffer(raw, dtype=mine.dtype).reshape(shape)
                if other.shape != mine.shape:
                    error_groups[key + (f"ORT output shape {other.shape}, eltwise {mine.shape}",)] += 1
                    continue
                diff = ~same(code, mine, other)
                for idx in map(tuple, np.argwhere(diff)):
                    cls = input_class(xcode, x[idx]) if x is not None and x.shape == mine.shape \
                        else "?"
                    element_groups[key + (cls, show(code, mine[idx]), show(code, other[idx]))] += 1

    unknown = 0
    print(f"compared {compared} data sets with ONNX Runtime {ort.__version__}")
    for k, n in sorted(element_groups.items(), key=str):
        why = next((w for p, w in KNOWN_ELEMENTS if p(k)), None)
        unknown += why is None
        print(f"{'known' if why else 'NEW'} difference: {n} element(s) of {k[0]}-{k[1]} {k[2]}, "
              f"input {k[3]}: eltwise {k[4]}, ONNX Runtime {k[5]}" + (f"  [{why}]" if args.verbose and why else ""))
    for k, n in sorted(error_groups.items(), key=str):
        why = next((w for p, w in KNOWN_ERRORS if p(k)), None)
        unknown += why is None
        print(f"{'known' if why else 'NEW'} ONNX Runtime error: {n} data set(s)/model(s) of "
              f"{k[0]}-{k[1]} {k[2]}: {k[3]}" + (f"  [{why}]" if args.verbose and why else ""))
    for f in eltwise_failures:
        print(f"ELTWISE MISMATCH {f}")
    if unknown or eltwise_failures:
        print(f"{unknown} undocumented difference group(s), {len(eltwise_failures)} eltwise "
              "failure(s)")
        return 1
    print("every difference is documented in docs/onnx.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
