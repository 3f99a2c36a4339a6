#!/usr/bin/env python3
"""Transposed and permuted copies from Python: eltwise against NumPy and PyTorch.

    PYTHONPATH=build/default/python python3 bench/transpose_python.py [--sizes 256K,4M,64M]
        [--dtypes int8,float16,float32,float64] [--threads 2] [--repeat 5] [--markdown]

The shapes of `eltwise bench`'s layouts (tools/bench/layouts.h): a square matrix read
transposed, a 1x64xHxW activation written channels-last (nchw_to_nhwc) and the reverse
(nhwc_to_nchw), and a batch of 64x256 matrices each written transposed (batched_transpose). Each
row times, alternately in one process, into a preallocated packed output:

    copy            np.copyto(out, x)               the same bytes, contiguous (NumPy: one thread)
    numpy           np.copyto(out, view)            NumPy's strided copy (one thread)
    torch           out.copy_(view)                 PyTorch's, on --threads threads (if importable)
    eltwise sign    eltwise.sign(view, out)         the fused transpose + Sign, on --threads

and prints copy time / its time (1 = the speed of a contiguous copy). Arrays above 4 MiB are on
huge pages, as NumPy allocates them. PyTorch's results are checked against NumPy's.
"""

import argparse
import os

import numpy as np

import eltwise
from timeit_alternating import best_times, print_header, print_row

CHANNELS, BATCH_ROWS, BATCH_COLUMNS = 64, 64, 256


def parse_bytes(text):
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1].upper(), 1)
    return int(text[:-1] if scale > 1 else text) * scale


def source_and_view(layout, n, dtype, rng):
    """(the input array in its memory layout, the permuted view whose packed copy is the output)."""
    def fill(shape):
        if np.dtype(dtype).kind == "f":
            return rng.uniform(-1000, 1000, size=shape).astype(dtype)
        return rng.integers(-100, 100, size=shape).astype(dtype)

    if layout == "transposed":
        side = max(1, int(n**0.5))
        x = fill((side, side))
        return x, x.T
    if layout in ("nchw_to_nhwc", "nhwc_to_nchw"):
        side = max(1, int((n // CHANNELS) ** 0.5))
        if layout == "nchw_to_nhwc":
            x = fill((1, CHANNELS, side, side))
            return x, x.transpose(0, 2, 3, 1)
        x = fill((1, side, side, CHANNELS))
        return x, x.transpose(0, 3, 1, 2)
    if layout == "batched_transpose":
        batch = max(1, n // (BATCH_ROWS * BATCH_COLUMNS))
        x = fill((batch, BATCH_COLUMNS, BATCH_ROWS))
        return x, x.transpose(0, 2, 1)
    raise SystemExit(f"unknown layout {layout}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layouts", default="transposed,nchw_to_nhwc,nhwc_to_nchw,batched_transpose")
    parser.add_argument("--sizes", default="256K,4M,64M")
    parser.add_argument("--dtypes", default="int8,float16,float32,float64")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    try:
        import torch

        torch.set_num_threads(args.threads)
    except ImportError:
        torch = None
    rng = np.random.default_rng(5)
    names = ["copy", "numpy"] + (["torch"] if torch else []) + ["eltwise sign"]
    print(f"# numpy {np.__version__}" + (f", torch {torch.__version__}" if torch else "")
          + f", eltwise on {args.threads} threads, {os.cpu_count()} CPUs")
    print_header(["layout", "bytes", "dtype"] + [f"copy/{n}" for n in names[1:]],
                 args.markdown, 14)
    for layout in args.layouts.split(","):
        for size in args.sizes.split(","):
            for dtype in args.dtypes.split(","):
                n = parse_bytes(size) // np.dtype(dtype).itemsize
                x, view = source_and_view(layout, n, dtype, rng)
                out = np.empty(view.shape, dtype)
                flat = np.empty_like(x)
                env = {"np": np, "eltwise": eltwise, "x": x, "view": view, "out": out,
                       "flat": flat, "threads": args.threads}
                statements = ["np.copyto(flat, x)", "np.copyto(out, view)"]
                if torch:
                    env["tview"] = torch.from_numpy(x).permute(
                        *[list(x.strides).index(s) for s in view.strides])
                    env["tout"] = torch.from_numpy(out)
                    statements.append("tout.copy_(tview)")
                    env["tout"].copy_(env["tview"])
                    if not np.array_equal(out.view(np.uint8), np.ascontiguousarray(view).view(np.uint8)):
                        raise SystemExit(f"torch: wrong result for {layout} {size} {dtype}")
                statements.append("eltwise.sign(view, out, threads=threads)")
                times = best_times(statements, env, args.repeat)
                cells = [layout, size, dtype] + [f"{times[0] / t:.2f}" for t in times[1:]]
                print_row(cells, args.markdown, 14)


if __name__ == "__main__":
    main()
