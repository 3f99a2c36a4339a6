#!/usr/bin/env python3
"""The C++ ONNX front end from Python (eltwise._onnx, and eltwise.onnx_backend over it) vs the
per-node path and onnxruntime.

    PYTHONPATH=build/default/python python3 bench/onnx_python.py [--sizes 16,1024,...]
        [--repeat 5] [--markdown]

Two float32 models, each run on one input of N elements:

    round   X -> Round -> Y
    chain   X -> Round -> Sign -> Round -> Y

and four ways of running them, timed alternately in one process:

    _onnx      eltwise._onnx.Model.run({"X": x})  (parsed once; operators compiled on the first run)
    backend    EltwiseBackend.prepare(model).run([x])  (eltwise.onnx_backend: _onnx plus the ONNX
               backend API's binding of a list of inputs and its named-tuple result)
    per-node   one eltwise call per node on NumPy arrays, each with a new output, as a Python
               backend that walks the graph does: eltwise.round(x, mode="halves_to_nearest_even"),
               eltwise.sign(x, nan="propagate") (the ONNX meanings of Round and Sign)
    ort        onnxruntime.InferenceSession.run (skipped when onnxruntime is not importable)

Printed: _onnx time / per-node time, backend time / per-node time and _onnx time / ort time
(below 1: the first faster). Each figure
is the best of --repeat batches (a batch runs >= 2 ms), the call made by timeit.
"""

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper

import eltwise
from eltwise import _onnx
from eltwise.onnx_backend import EltwiseBackend
from timeit_alternating import best_times, print_header, print_row

try:
    import onnxruntime
except ImportError:
    onnxruntime = None

SIZES = "16,1024,65536,1048576,16777216"

# model name -> (ONNX ops in order, the per-node statement)
MODELS = {
    "round": (["Round"], "eltwise.round(x, mode='halves_to_nearest_even')"),
    "chain": (["Round", "Sign", "Round"],
              "eltwise.round(eltwise.sign(eltwise.round(x, mode='halves_to_nearest_even'), "
              "nan='propagate'), mode='halves_to_nearest_even')"),
}


def model_of(ops):
    names = ["X"] + [f"t{i}" for i in range(1, len(ops))] + ["Y"]
    nodes = [helper.make_node(op, [names[i]], [names[i + 1]], name=f"n{i}")
             for i, op in enumerate(ops)]
    graph = helper.make_graph(nodes, "bench", [
        helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N"])
    ], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    return model


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default=SIZES)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = p.parse_args()

    info = eltwise.info()
    load = os.getloadavg()
    ort = f"onnxruntime {onnxruntime.__version__}" if onnxruntime else "no onnxruntime"
    print(f"eltwise {info['version']}, CPU tables {info['cpu_targets']}, "
          f"{info['hardware_threads']} hardware threads; NumPy {np.__version__}; {ort}; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"time ratios (below 1: _onnx faster), best of {args.repeat}\n")
    header = ["model", "elements", "_onnx/per-node", "backend/per-node", "_onnx/ort"]
    print_header(header, args.markdown, 15)
    rng = np.random.default_rng(0)
    worst = (0.0, "")
    for name, (ops, per_node) in MODELS.items():
        proto = model_of(ops)
        data = proto.SerializeToString()
        model = _onnx.Model.parse(data)
        rep = EltwiseBackend.prepare(proto)
        session = None
        if onnxruntime:
            options = onnxruntime.SessionOptions()
            # ONNX Runtime's workers otherwise spin for a while after each run, taking the cores
            # from whatever is timed next.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            session = onnxruntime.InferenceSession(data, options,
                                                   providers=["CPUExecutionProvider"])
        for n in (int(s) for s in args.sizes.split(",")):
            x = (rng.standard_normal(n) * 100).astype(np.float32)
            x[::7] += 0.5  # some halves
            env = {"eltwise": eltwise, "model": model, "rep": rep, "session": session, "x": x,
                   "feed": {"X": x}, "inputs": [x]}
            statements = ["model.run(feed)", per_node, "rep.run(inputs)"]
            if session:
                statements.append("session.run(None, feed)")
            # Same result first: a benchmark of a wrong answer is worthless.
            expected = eval(per_node, env)  # noqa: S307 (a constant statement of this script)
            for got in (model.run({"X": x})[0], rep.run([x])[0]):
                if not np.array_equal(got, expected, equal_nan=True):
                    raise SystemExit(f"{name} {n}: _onnx or the backend and the per-node path "
                                     "differ")
            times = best_times(statements, env, args.repeat)
            cells = [f"{times[0] / times[1]:.2f}", f"{times[2] / times[1]:.2f}",
                     f"{times[0] / times[3]:.2f}" if session else "-"]
            if times[0] / times[1] > worst[0]:
                worst = (times[0] / times[1], f"{name} {n}")
            print_row([name, str(n)] + cells, args.markdown, 15)
    print(f"\nhighest _onnx/per-node ratio: {worst[0]:.2f} ({worst[1]})")


if __name__ == "__main__":
    main()
