#!/usr/bin/env python3
"""How fast one core reads a matrix strip by strip, against a copy of the same bytes: the bound on
transposes that read (or write) each line once, and the table of docs/performance.md generated
from the committed records.

    python3 bench/access_bound.py record --eltwise build/default/tools/eltwise \\
        --benchmark build/default/bench/eltwise_benchmark --out docs/data/NAME/access_bound.jsonl [--runs 3]
    python3 bench/access_bound.py report [docs/performance.md]        (rewrites the section)
    python3 bench/access_bound.py report --check docs/performance.md  (exit 1 if it is stale)

`record` runs eltwise_benchmark's access/<read|write>/<strip>B_strips/row<R>_pitch<P>/<size>
cases and copy/memcpy/<size> --runs times (Google Benchmark's JSON, --benchmark_min_time 0.2), and appends
one record per case and run: its name, time per call and the CPU and caches `eltwise info`
reports.

`report` writes the `access_bound` section from the files its begin marker names: per direction
and matrix (row bytes, pitch, size) the median time of each strip width, and the copy's median
time of the same bytes divided by it. A transpose reads its input or writes its output in strips,
so that quotient bounds what a transpose that reads or writes that way can reach as a ratio to a
copy on one core.
"""
import argparse
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
import doc_sections  # noqa: E402
from kernel_routes import machine  # noqa: E402

SECTION = "access_bound"
CASE = re.compile(r"access/(read|write)/(\d+)B_strips/row(\d+)_pitch(\d+)/(\w+)")


def record(args):
    cpu, caches = machine(args.eltwise)
    with open(args.out, "a", encoding="utf-8") as f:
        for run in range(args.runs):
            result = subprocess.run([args.benchmark, "--benchmark_filter=^(access/|copy/memcpy/4MiB)",
                                     "--benchmark_min_time=0.2", "--benchmark_format=json"],
                                    check=True, capture_output=True, text=True)
            for b in json.loads(result.stdout)["benchmarks"]:
                f.write(json.dumps({"run": run, "name": b["name"].removesuffix("/real_time"),
                                    "time_ns": b["real_time"], "cpu": cpu, "caches": caches}) + "\n")
            print(f"run {run + 1}/{args.runs}: done", file=sys.stderr)


def report_file(path):
    records = [json.loads(line) for line in (REPO / path).read_text(encoding="utf-8").splitlines() if line]
    times = {}
    for r in records:
        times.setdefault(r["name"], []).append(r["time_ns"])
    median = {name: statistics.median(t) for name, t in times.items()}
    matrices = {}  # (size, direction, row, pitch) -> {strip: time}
    for name, t in median.items():
        m = CASE.fullmatch(name)
        if m:
            direction, strip, row, pitch, size = m[1], int(m[2]), int(m[3]), int(m[4]), m[5]
            matrices.setdefault((size, direction, row, pitch), {})[strip] = t
    rows = {row for _, _, row, _ in matrices}
    strips = sorted({s for cases in matrices.values() for s in cases if s not in rows})
    first = records[0]
    runs = len({r["run"] for r in records})
    lines = [f"**{first['cpu']}**, {first['caches']}; `{path}`, {len(records)} records, {runs} runs; one thread.", "",
             "Time per call in µs (median over the runs) and, in brackets, the copy's time for the same bytes "
             "(`copy/memcpy`, same runs) divided by it.", "",
             "| size | side | row bytes | pitch | " + " | ".join(f"{s}-byte strips" for s in strips) +
             " | row by row | copy |",
             "| --- " * (6 + len(strips)) + "|"]
    for (size, direction, row, pitch), cases in sorted(matrices.items()):
        copy = median[f"copy/memcpy/{size}"]
        cells = [f"{cases[s] / 1000:.0f} ({copy / cases[s]:.2f})" for s in strips + [row]]
        lines.append(f"| {size} | {direction} | {row} | {pitch} | " + " | ".join(cells) + f" | {copy / 1000:.0f} |")
    return "\n".join(lines) + "\n"


def report(args):
    return doc_sections.regenerate(args.doc, SECTION, report_file, "python3 bench/access_bound.py report",
                                   args.check)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record")
    r.add_argument("--eltwise", required=True, help="the CLI, for the CPU and caches it reports")
    r.add_argument("--benchmark", required=True, help="eltwise_benchmark")
    r.add_argument("--out", required=True)
    r.add_argument("--runs", type=int, default=3)
    p = sub.add_parser("report")
    p.add_argument("doc", nargs="?", default=str(REPO / "docs" / "performance.md"))
    p.add_argument("--check", action="store_true")
    args = parser.parse_args()
    return record(args) if args.command == "record" else report(args)


if __name__ == "__main__":
    sys.exit(main())
