#!/usr/bin/env python3
"""eltwise vs NumPy from Python: Sign and Round on float16 (and friends) arrays.

    PYTHONPATH=build-py/python python3 bench/python_vs_numpy.py [--elements 16777216] [--repeat 7]

Each line is the best of --repeat runs (wall time) of one call on a contiguous array, with a new
output (like np.sign(x)) and with a preallocated out=. NumPy is given the same out= where its
function has one. eltwise.info() tells which CPU kernel table eltwise runs.
"""

import argparse
import time

import numpy as np

import eltwise

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None


def best(fn, repeat):
    fn()  # warm up (page faults, thread start)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--elements", type=int, default=16 * 1024 * 1024)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--dtypes", default="float16,bfloat16,float32")
    args = p.parse_args()

    info = eltwise.info()
    print(f"eltwise {info['version']}, CPU tables {info['cpu_targets']}, "
          f"{info['hardware_threads']} hardware threads; NumPy {np.__version__}")
    print(f"{args.elements} elements, best of {args.repeat}\n")
    print(f"{'dtype':9} {'op':28} {'numpy ms':>9} {'eltwise ms':>10} {'speed-up':>9}   "
          f"{'numpy out= ms':>13} {'eltwise out= ms':>15} {'speed-up':>9}")
    rng = np.random.default_rng(0)
    base = (rng.standard_normal(args.elements) * 100).astype(np.float32)
    for name in args.dtypes.split(","):
        if name == "bfloat16":
            if ml_dtypes is None:
                print("bfloat16: skipped (pip install ml_dtypes)")
                continue
            dtype = np.dtype(ml_dtypes.bfloat16)
        else:
            dtype = np.dtype(name)
        x = base.astype(dtype)
        out = np.empty_like(x)
        cases = [
            ("sign (nan=propagate)", lambda: np.sign(x), lambda: np.sign(x, out=out),
             lambda: eltwise.sign(x, nan="propagate"), lambda: eltwise.sign(x, out, nan="propagate")),
            ("round halves_to_nearest_even", lambda: np.rint(x), lambda: np.rint(x, out=out),
             lambda: eltwise.round(x), lambda: eltwise.round(x, out=out)),
            ("round toward_zero", lambda: np.trunc(x), lambda: np.trunc(x, out=out),
             lambda: eltwise.round(x, "toward_zero"), lambda: eltwise.round(x, "toward_zero", out)),
            ("round down", lambda: np.floor(x), lambda: np.floor(x, out=out),
             lambda: eltwise.round(x, "down"), lambda: eltwise.round(x, "down", out)),
        ]
        for op, np_new, np_out, ew_new, ew_out in cases:
            a, b = best(np_new, args.repeat), best(ew_new, args.repeat)
            c, d = best(np_out, args.repeat), best(ew_out, args.repeat)
            print(f"{dtype.name:9} {op:28} {a * 1e3:9.2f} {b * 1e3:10.2f} {a / b:8.1f}x   "
                  f"{c * 1e3:13.2f} {d * 1e3:15.2f} {c / d:8.1f}x")


if __name__ == "__main__":
    main()
