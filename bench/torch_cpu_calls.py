#!/usr/bin/env python3
"""eltwise on PyTorch CPU tensors against PyTorch's own ops, and the table of docs/performance.md
generated from the committed records.

    python3 bench/torch_cpu_calls.py record --python PYTHON --pythonpath after=build/default/python \\
        [--pythonpath before=OLD/build/default/python] --out docs/data/NAME/torch_cpu.jsonl [--runs 3]
    python3 bench/torch_cpu_calls.py report [docs/performance.md]        (rewrites the section)
    python3 bench/torch_cpu_calls.py report --check docs/performance.md  (exit 1 if it is stale)

`record` runs, --runs times and alternating between the builds named by --pythonpath (each in a
process of its own, with PYTHON, an interpreter that has torch), every case: eltwise.sign and
eltwise.round against torch.sign and torch.round (both round halves to even) on contiguous
tensors of 4 KiB, 256 KiB and 64 MiB, returning a new tensor and into out=, both libraries on
--threads threads. Each case times batches of calls of at least 2 ms, eltwise's and torch's
batches alternating, 7 of each, and keeps each side's best; a record holds both times per call,
the CPU and its caches (eltwise.info()) and the torch version.

`report` writes the `torch_cpu_table` section from the files its begin marker names: per case the
median over the runs of eltwise's time / torch's time (below 1: eltwise is faster), per build.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
import doc_sections  # noqa: E402
from compare_peers import size_name  # noqa: E402
from layout_table import cache_text  # noqa: E402

SECTION = "torch_cpu_table"
CASES = [("sign", "float32"), ("round", "float32"), ("sign", "bfloat16"), ("round", "bfloat16"),
         ("sign", "int8")]
SIZES = [4 << 10, 256 << 10, 64 << 20]
VARIANTS = ["new", "out"]


def child(threads):
    """Measures every case in this process and prints one JSON record per line."""
    import torch

    import eltwise
    torch.set_num_threads(threads)
    info = eltwise.info()
    ops = {"sign": (eltwise.sign, torch.sign), "round": (eltwise.round, torch.round)}

    def best_batch(f, calls):
        t = time.perf_counter()
        for _ in range(calls):
            f()
        return time.perf_counter() - t

    with eltwise.num_threads(threads):
        for op, dtype in CASES:
            for nbytes in SIZES:
                tdtype = getattr(torch, dtype)
                n = nbytes // torch.tensor([], dtype=tdtype).element_size()
                x = (torch.arange(n, dtype=torch.float32) / 4 - n / 8).to(tdtype)
                out = torch.empty_like(x)
                mine, theirs = ops[op]
                for variant in VARIANTS:
                    if variant == "new":
                        pair = (lambda: mine(x), lambda: theirs(x))
                    else:
                        pair = (lambda: mine(x, out=out), lambda: theirs(x, out=out))
                    calls = 1
                    while best_batch(pair[0], calls) < 2e-3:
                        calls *= 2
                    best = [float("inf"), float("inf")]
                    for _ in range(7):
                        for side in (0, 1):
                            best[side] = min(best[side], best_batch(pair[side], calls) / calls)
                    print(json.dumps({
                        "op": op, "dtype": dtype, "bytes": nbytes, "variant": variant,
                        "threads": threads, "eltwise_us": best[0] * 1e6, "torch_us": best[1] * 1e6,
                        "torch_version": torch.__version__, "cpu_model": info["cpu_model"],
                        "l1d_cache_bytes": info["l1d_cache_bytes"], "l2_cache_bytes": info["l2_cache_bytes"],
                        "l3_cache_bytes": info["l3_cache_bytes"]}), flush=True)


def record(args):
    builds = [p.split("=", 1) for p in args.pythonpath]
    with open(args.out, "a", encoding="utf-8") as f:
        for run in range(args.runs):
            for label, path in builds:
                env = dict(os.environ, PYTHONPATH=str(Path(path).resolve()))
                result = subprocess.run([args.python, __file__, "child", "--threads", str(args.threads)],
                                        env=env, check=True, capture_output=True, text=True)
                for line in result.stdout.splitlines():
                    r = json.loads(line)
                    r.update(run=run, label=label)
                    f.write(json.dumps(r) + "\n")
                print(f"run {run + 1}/{args.runs} {label}: done", file=sys.stderr)


def report_file(path):
    records = [json.loads(line) for line in (REPO / path).read_text(encoding="utf-8").splitlines() if line]
    labels = list(dict.fromkeys(r["label"] for r in records))
    first = records[0]
    runs = len({r["run"] for r in records})
    lines = [f"**{first['cpu_model']}**, {cache_text(first)}; PyTorch {first['torch_version']}, {first['threads']} "
             f"thread(s) each; `{path}`, {len(records)} records, {runs} runs alternating "
             f"{' / '.join(labels)}.", "",
             "eltwise's time / torch's time per call (below 1: eltwise is faster), median over the runs; "
             "in brackets eltwise's and torch's time per call in µs (medians).", ""]
    header = "| op | dtype | size | call | " + " | ".join(labels) + " |"
    lines += [header, "| --- " * (4 + len(labels)) + "|"]
    cases = list(dict.fromkeys((r["op"], r["dtype"], r["bytes"], r["variant"]) for r in records))
    for case in cases:
        cells = []
        for label in labels:
            rs = [r for r in records if (r["op"], r["dtype"], r["bytes"], r["variant"]) == case
                  and r["label"] == label]
            ratio = statistics.median(r["eltwise_us"] / r["torch_us"] for r in rs)
            mine = statistics.median(r["eltwise_us"] for r in rs)
            theirs = statistics.median(r["torch_us"] for r in rs)
            digits = 2 if theirs < 100 else 0
            cells.append(f"{ratio:.2f} ({mine:.{digits}f} / {theirs:.{digits}f})")
        op, dtype, nbytes, variant = case
        lines.append(f"| {op} | {dtype} | {size_name(nbytes)} | {'out=' if variant == 'out' else 'new'} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def report(args):
    return doc_sections.regenerate(args.doc, SECTION, report_file, "python3 bench/torch_cpu_calls.py report",
                                   args.check)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record")
    r.add_argument("--python", default=sys.executable)
    r.add_argument("--pythonpath", action="append", required=True, help="LABEL=DIR (repeatable)")
    r.add_argument("--out", required=True)
    r.add_argument("--runs", type=int, default=3)
    r.add_argument("--threads", type=int, default=1)
    c = sub.add_parser("child")
    c.add_argument("--threads", type=int, default=1)
    p = sub.add_parser("report")
    p.add_argument("doc", nargs="?", default=str(REPO / "docs" / "performance.md"))
    p.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if args.command == "record":
        return record(args)
    if args.command == "child":
        return child(args.threads)
    return report(args)


if __name__ == "__main__":
    sys.exit(main())
