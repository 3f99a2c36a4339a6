#!/usr/bin/env python3
"""Tests `eltwise run` end to end: TensorProto and .npy files, several inputs and outputs, and
clean errors (exit status 2 and a one-line message naming the problem).

    check_run.py ELTWISE GEN_DIR

GEN_DIR is the output of scripts/gen_onnx_tests.py. Expected values are the generated
output_N.pb files (computed by the generator's oracle, not by eltwise).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

failures = []


def run(eltwise, *args):
    return subprocess.run([eltwise, "run", *args], capture_output=True, text=True, timeout=60)


def check(cond, what, p=None):
    if cond:
        print(f"ok   {what}")
    else:
        failures.append(what)
        extra = f"\n     exit {p.returncode}; stdout: {p.stdout.strip()}; stderr: {p.stderr.strip()}" if p else ""
        print(f"BAD  {what}{extra}")


def same(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        bits = a.view(f"u{a.dtype.itemsize}") == b.view(f"u{b.dtype.itemsize}")
        return bool(np.all(bits | (np.isnan(a) & np.isnan(b))))
    return bool(np.all(a == b))


def load_pb(path):
    return numpy_helper.to_array(onnx.load_tensor(path))


def main():
    eltwise, gen = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="eltwise_run_")

    # One input, one output, TensorProto files; FILE without NAME= for single-input models.
    case = os.path.join(gen, "node", "test_eltwise_round22_float16_r3")
    data = os.path.join(case, "test_data_set_1")  # typed int32_data storage
    out = os.path.join(tmp, "y.pb")
    p = run(eltwise, os.path.join(case, "model.onnx"), "--input", os.path.join(data, "input_0.pb"),
            "--output", out)
    check(p.returncode == 0 and same(load_pb(out), load_pb(os.path.join(data, "output_0.pb"))),
          "run: .pb in, .pb out, positional FILE", p)
    check("y: FLOAT16 [2,2,18] -> " in p.stdout, "run: prints each output's type and shape", p)

    # .npy in and out.
    x = load_pb(os.path.join(data, "input_0.pb"))
    np.save(os.path.join(tmp, "x.npy"), x)
    p = run(eltwise, os.path.join(case, "model.onnx"), "--input", f"x={tmp}/x.npy", "--output",
            f"y={tmp}/y.npy")
    check(p.returncode == 0 and same(np.load(os.path.join(tmp, "y.npy")),
                                     load_pb(os.path.join(data, "output_0.pb"))),
          "run: .npy in, .npy out", p)
    # Fortran-order .npy input.
    np.save(os.path.join(tmp, "xf.npy"), np.asfortranarray(x))
    p = run(eltwise, os.path.join(case, "model.onnx"), "-i", f"x={tmp}/xf.npy", "-o",
            f"y={tmp}/yf.npy")
    check(p.returncode == 0 and same(np.load(os.path.join(tmp, "yf.npy")),
                                     load_pb(os.path.join(data, "output_0.pb"))),
          "run: Fortran-order .npy input", p)

    # bfloat16 .npy: np.save of an ml_dtypes.bfloat16 array writes descr '<V2'.
    try:
        import ml_dtypes
        case = os.path.join(gen, "node", "test_eltwise_round22_bfloat16_r1")
        data = os.path.join(case, "test_data_set_0")
        xb = load_pb(os.path.join(data, "input_0.pb")).view(np.uint16).view(ml_dtypes.bfloat16)
        np.save(os.path.join(tmp, "xb.npy"), xb)
        p = run(eltwise, os.path.join(case, "model.onnx"), "-i", f"{tmp}/xb.npy", "-o",
                f"{tmp}/yb.npy")
        got = np.load(os.path.join(tmp, "yb.npy")).view(np.uint16) if p.returncode == 0 else None
        want = load_pb(os.path.join(data, "output_0.pb")).view(np.uint16)
        def nan(b):
            return (b & 0x7FFF) > 0x7F80

        check(got is not None and got.shape == want.shape and
              bool(np.all((got == want) | (nan(got) & nan(want)))), "run: bfloat16 .npy", p)
    except ImportError:
        print("skip bfloat16 .npy (no ml_dtypes)")

    # Two inputs, two outputs, by name; one output left unwritten.
    case = os.path.join(gen, "node", "test_eltwise_graph_two_inputs")
    data = os.path.join(case, "test_data_set_0")
    p = run(eltwise, os.path.join(case, "model.onnx"), "--input", f"i={data}/input_0.pb",
            "--input", f"d={data}/input_1.pb", "--output", f"rd={tmp}/rd.pb")
    check(p.returncode == 0 and same(load_pb(f"{tmp}/rd.pb"), load_pb(f"{data}/output_1.pb")),
          "run: two inputs by name", p)
    check("si: INT8" in p.stdout and "not written" in p.stdout, "run: lists unwritten outputs", p)

    # Errors.
    p = run(eltwise, os.path.join(case, "model.onnx"), "--input", f"i={data}/input_0.pb")
    check(p.returncode == 2 and "graph input 'd' (DOUBLE" in p.stderr and "has no value" in p.stderr,
          "run: a missing input is named", p)
    p = run(eltwise, os.path.join(case, "model.onnx"), "--input", f"{data}/input_0.pb")
    check(p.returncode == 2 and "needs the form NAME=FILE" in p.stderr,
          "run: FILE without NAME for a two-input model", p)
    p = run(eltwise, os.path.join(case, "model.onnx"), "--input", f"i={data}/input_0.pb",
            "--input", f"d={data}/input_1.pb", "--output", f"nope={tmp}/z.pb")
    check(p.returncode == 2 and "the model has no output 'nope' (its outputs: si, rd)" in p.stderr,
          "run: an unknown output is named", p)
    p = run(eltwise, os.path.join(case, "model.onnx"), "--input", f"i={data}/input_1.pb",
            "--input", f"d={data}/input_1.pb")
    check(p.returncode == 2 and "input 'i' is DOUBLE; the model declares INT8" in p.stderr,
          "run: a wrongly typed input is named", p)
    p = run(eltwise, os.path.join(tmp, "absent.onnx"))
    check(p.returncode == 1 and "absent.onnx: cannot open" in p.stderr, "run: a missing model", p)
    p = run(eltwise, os.path.join(gen, "malformed", "unknown_op", "model.onnx"))
    check(p.returncode == 2 and "operator 'Abs' is not supported" in p.stderr,
          "run: an unsupported operator", p)
    p = run(eltwise, os.path.join(case, "model.onnx"), "--device", "cuda",
            "--input", f"i={data}/input_0.pb", "--input", f"d={data}/input_1.pb")
    check(p.returncode in (0, 1) and (p.returncode == 0 or p.stderr.startswith("eltwise: --device cuda")),
          "run: --device cuda runs, or fails cleanly without a GPU", p)

    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
