#!/usr/bin/env python3
"""Reproduces the layout table of docs/performance.md ("Layouts, small calls, busy machine").

Runs `eltwise bench` --runs times (default 3) over every layout and size (Sign and Round, one
data type per element size), takes for each (op, dtype, layout, size) the median ratio (copy
time / eltwise time, both from the same run) over the runs, and prints per (layout, size) the
min / median / max of those medians over ops and dtypes. Then runs the busy-machine mode
(--busy 1: one core kept busy meanwhile) and prints time(2 threads) / time(1 thread), same run.

    python3 bench/layout_table.py --eltwise build/default/tools/eltwise [--runs 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

LAYOUTS = [
    "transposed", "gathered", "gathered3", "gathered4", "rows", "contiguous", "inplace", "broadcast", "overlap",
    "overlap_cross", "overlap_transpose", "overlap_reverse"
]
SIZES = ["4K", "256K", "64M"]
DTYPES = ["int8", "float16", "float32", "float64"]  # every element size


def run(eltwise, args):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "out.json")
        subprocess.run([eltwise, "bench", *args, "--json", path], check=True,
                       stdout=subprocess.DEVNULL)
        with open(path) as f:
            return json.load(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eltwise", default="build/default/tools/eltwise")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    ratios = {}  # (layout, size, op, dtype) -> [ratio per run]
    for _ in range(args.runs):
        for size in SIZES:
            for r in run(args.eltwise, ["--threads", str(args.threads), "--layouts", *LAYOUTS,
                                        "--dtypes", *DTYPES, "--sizes", size, "--repeats", "3"]):
                key = (r["layout"], size, r["op"], r["dtype"])
                ratios.setdefault(key, []).append(r["ratio"])
    print("| layout | size | ratio min / median / max (medians of %d runs) |" % args.runs)
    print("| --- | --- | --- |")
    for layout in LAYOUTS:
        for size in SIZES:
            medians = [statistics.median(v) for (lay, s, _, _), v in ratios.items()
                       if lay == layout and s == size]
            if medians:
                print("| %s | %s | %.2f / %.2f / %.2f |" % (layout, size, min(medians),
                                                            statistics.median(medians),
                                                            max(medians)))
    busy = {}
    for _ in range(args.runs):
        for r in run(args.eltwise, ["--threads", str(args.threads), "--busy", "1", "--ops",
                                    "round", "--dtypes", "float32", "int8", "--layouts",
                                    "contiguous", "transposed", "--sizes", "4M", "64M",
                                    "--min-time", "0.1"]):
            key = (r["layout"], r["dtype"], r["elements"])
            busy.setdefault(key, []).append(r["seconds"] / r["one_thread_seconds"])
    print()
    print("| busy (1 core kept busy): layout, dtype, elements | time %d threads / 1 thread, "
          "median of %d runs (each run's values) |" % (args.threads, args.runs))
    print("| --- | --- |")
    for (layout, dtype, elements), v in sorted(busy.items()):
        print("| %s %s %d | %.2f (%s) |" % (layout, dtype, elements, statistics.median(v),
                                          ", ".join("%.2f" % x for x in v)))


if __name__ == "__main__":
    main()
