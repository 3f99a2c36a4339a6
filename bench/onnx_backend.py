#!/usr/bin/env python3
"""eltwise.onnx_backend: the time of one EltwiseBackendRep.run, as ratios measured in one run.

    PYTHONPATH=build/default/python python3 bench/onnx_backend.py [--sizes 16,1024,1048576]
        [--repeat 7] [--compare-module PATH]

Models (float32, a symbolic dimension): "Sign" (one node) and "Round->Sign" (two chained nodes).
For each model and element count it times, alternately in one process:

    run         rep.run([x])  (the C++ front end through eltwise._onnx)
    per-node    the same nodes as eltwise.sign / eltwise.round calls from Python (what the backend
                did before it wrapped the C++ front end: one ufunc call per node)
    copy        x.copy() (the cost of touching the bytes once)

and prints run / per-node and run / copy. --compare-module PATH also times the rep of another
onnx_backend.py (e.g. `git show main:python/eltwise/onnx_backend.py > /tmp/old.py`), loaded as a
module of the eltwise package, and prints run / that. Each figure is the best of --repeat batches
of at least 2 ms; a ratio below 1 means `run` is faster.
"""

import argparse
import importlib.util
import timeit

import numpy as np
from onnx import TensorProto, helper

import eltwise
from eltwise.onnx_backend import EltwiseBackend


def model_of(ops):
    nodes, value = [], "x"
    for i, op in enumerate(ops):
        out = "y" if i + 1 == len(ops) else f"v{i}"
        nodes.append(helper.make_node(op, [value], [out], name=f"n{i}"))
        value = out
    t = TensorProto.FLOAT
    graph = helper.make_graph(nodes, "bench", [helper.make_tensor_value_info("x", t, ["N"])],
                              [helper.make_tensor_value_info("y", t, ["N"])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])


def per_node(ops):
    calls = {"Sign": lambda v: eltwise.sign(v, nan="propagate"),
             "Round": lambda v: eltwise.round(v, mode="halves_to_nearest_even")}

    def run(x):
        for op in ops:
            x = calls[op](x)
        return x
    return run


def best(fn, repeat):
    fn()  # warm up (compiles, page faults, threads)
    number = 1
    while number < 1_000_000 and timeit.timeit(fn, number=number) < 2e-3:
        number *= 4
    return min(timeit.timeit(fn, number=number) / number for _ in range(repeat))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="16,1024,1048576")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--compare-module", help="another onnx_backend.py to time beside")
    args = parser.parse_args()
    other = None
    if args.compare_module:
        spec = importlib.util.spec_from_file_location("eltwise._compared_onnx_backend",
                                                      args.compare_module)
        other = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(other)
    header = "| model | elements | run / per-node | run / copy |"
    if other:
        header += " run / compared |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    rng = np.random.default_rng(1)
    for ops in (["Sign"], ["Round", "Sign"]):
        model = model_of(ops)
        rep = EltwiseBackend.prepare(model)
        nodes = per_node(ops)
        compared = other.EltwiseBackend.prepare(model) if other else None
        for n in [int(s) for s in args.sizes.split(",")]:
            x = (rng.standard_normal(n) * 4).astype(np.float32)
            np.testing.assert_array_equal(rep.run([x])[0], nodes(x))
            t_run = best(lambda: rep.run([x]), args.repeat)
            t_nodes = best(lambda: nodes(x), args.repeat)
            t_copy = best(lambda: x.copy(), args.repeat)
            row = f"| {'->'.join(ops)} | {n} | {t_run / t_nodes:.2f} | {t_run / t_copy:.2f} |"
            if compared:
                t_other = best(lambda: compared.run([x]), args.repeat)
                row += f" {t_run / t_other:.2f} |"
            print(row, flush=True)


if __name__ == "__main__":
    main()
