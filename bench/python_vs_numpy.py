#!/usr/bin/env python3
"""eltwise vs NumPy from Python: the time of one call, eltwise / NumPy, for every dtype and size.

    PYTHONPATH=build/default/python python3 bench/python_vs_numpy.py [--sizes 0,1,1024,...]
        [--dtypes float32,...] [--repeat 5] [--markdown]

For each dtype and element count, each operation is timed with a new output (`np.sign(x)`) and with
a preallocated output (`out=`), eltwise and its NumPy twin alternately in the same process:

    sign            eltwise.sign(x, nan="propagate")        np.sign
    rint            eltwise.round(x)                         np.rint
    trunc           eltwise.round(x, mode="toward_zero")     np.trunc
    floor           eltwise.round(x, mode="down")            np.floor
    ceil            eltwise.round(x, mode="up")              np.ceil
    away            eltwise.round(x, mode="toward_infinity") np.rint (NumPy has no halves-away)

On integer dtypes np.rint returns floats, so rint and away are compared with np.trunc there (the
identity, as Round is on integers). Each figure is the best of --repeat batches (a batch runs long
enough to time, >= 2 ms; eltwise's and NumPy's batches alternate), with the call made by timeit (no Python wrapper around it). A ratio
below 1 means eltwise is faster. bfloat16 needs ml_dtypes (NumPy's loops are ml_dtypes' own).
"""

import argparse
import os

import numpy as np

import eltwise
from timeit_alternating import best_times, print_header, print_row

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None

DTYPES = ("float32,float16,bfloat16,float64,int8,int16,int32,int64,uint8,uint16,uint32,uint64")
SIZES = "0,1,1024,65536,1048576,16777216"

# (column, eltwise call, NumPy call for floats, NumPy call for integers)
OPS = [
    ("sign", "eltwise.sign(x{out}, nan='propagate')", "np.sign(x{out})", "np.sign(x{out})"),
    ("rint", "eltwise.round(x{out})", "np.rint(x{out})", "np.trunc(x{out})"),
    ("trunc", "eltwise.round(x{out}, mode='toward_zero')", "np.trunc(x{out})", "np.trunc(x{out})"),
    ("floor", "eltwise.round(x{out}, mode='down')", "np.floor(x{out})", "np.floor(x{out})"),
    ("ceil", "eltwise.round(x{out}, mode='up')", "np.ceil(x{out})", "np.ceil(x{out})"),
    ("away", "eltwise.round(x{out}, mode='toward_infinity')", "np.rint(x{out})",
     "np.trunc(x{out})"),
]


def ratio(ours, theirs, env, repeat):
    """Best time of `ours` / best time of `theirs`, their batches interleaved so that a burst of
    load on a shared machine hits both."""
    best = best_times([ours, theirs], env, repeat)
    return best[0] / best[1]


def values(dtype, n, rng):
    base = rng.standard_normal(n).astype(np.float32) * 100
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    return base.astype(dtype)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default=SIZES)
    p.add_argument("--dtypes", default=DTYPES)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--markdown", action="store_true", help="print a Markdown table")
    p.add_argument("--threads", type=int, default=None,
                   help="eltwise.set_num_threads(N) first (1: one thread, as NumPy; default: all)")
    args = p.parse_args()
    if args.threads is not None:
        eltwise.set_num_threads(args.threads)

    info = eltwise.info()
    load = os.getloadavg()
    print(f"eltwise {info['version']}, CPU tables {info['cpu_targets']}, "
          f"{info['hardware_threads']} hardware threads, eltwise threads "
          f"{getattr(eltwise, 'get_num_threads', lambda: 0)() or 'all'}; NumPy {np.__version__}; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("eltwise time / NumPy time (below 1: eltwise faster), best of "
          f"{args.repeat}; new output | out=\n")
    header = ["dtype", "elements"] + [f"{op} {kind}" for op, *_ in OPS for kind in ("new", "out=")]
    print_header(header, args.markdown, 10)
    rng = np.random.default_rng(0)
    worst = (0.0, "")
    for name in args.dtypes.split(","):
        if name == "bfloat16":
            if ml_dtypes is None:
                print("bfloat16: skipped (pip install ml_dtypes)")
                continue
            dtype = np.dtype(ml_dtypes.bfloat16)
        else:
            dtype = np.dtype(name)
        for n in (int(s) for s in args.sizes.split(",")):
            x = values(dtype, n, rng)
            env = {"np": np, "eltwise": eltwise, "x": x, "o": np.empty_like(x)}
            cells = []
            for op, ours, numpy_float, numpy_int in OPS:
                theirs = numpy_int if dtype.kind in "iu" else numpy_float
                for out in ("", ", out=o"):
                    r = ratio(ours.format(out=out), theirs.format(out=out), env, args.repeat)
                    cells.append(f"{r:.2f}")
                    if r > worst[0]:
                        worst = (r, f"{dtype.name} {n} {op} {'out=' if out else 'new'}")
            print_row([dtype.name, str(n)] + cells, args.markdown, 10)
    print(f"\nhighest ratio: {worst[0]:.2f} ({worst[1]})")


if __name__ == "__main__":
    main()
