#!/usr/bin/env python3
"""Kernel routes compared on one machine (eltwise_benchmark's kernel/<table>/<function>/<type>
cases), and the table of docs/performance.md generated from the committed records.

    python3 bench/kernel_routes.py record --eltwise build/default/tools/eltwise \\
        --benchmark before=OLD/bench/eltwise_benchmark --benchmark after=build/default/bench/eltwise_benchmark \\
        --filter 'kernel/(AVX2|AVX2_F16RoundInIntegers|SSE4)/Round.*/float16/(4|64)KiB' \\
        --out docs/data/NAME/f16_round_routes.jsonl [--runs 3]
    python3 bench/kernel_routes.py report [docs/performance.md]        (rewrites the section)
    python3 bench/kernel_routes.py report --check docs/performance.md  (exit 1 if it is stale)

`record` runs each binary --runs times, alternating between them, over the cases --filter
selects (Google Benchmark's JSON, --benchmark_min_time 0.1), and appends one record per case and
run: its label, name and time per call, and the CPU and caches `eltwise info` reports.

`report` writes the `kernel_routes` section from the files its begin marker names: per case (a
kernel table, function, type and size) the median time per call over the runs of each binary, and
for each function, type and size the time of each table against the first label's time of the
first table named in the file, so that routes and builds compare in one row.
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

SECTION = "kernel_routes"


def machine(eltwise):
    """The CPU and caches lines of `eltwise info`."""
    text = subprocess.run([eltwise, "info"], check=True, capture_output=True, text=True).stdout
    cpu = re.search(r"^CPU: (.*?), \d+ hardware threads", text, re.M).group(1)
    caches = re.search(r"^Caches[^:]*: (.*)$", text, re.M).group(1)
    return cpu, caches


def record(args):
    cpu, caches = machine(args.eltwise)
    binaries = [b.split("=", 1) for b in args.benchmark]
    with open(args.out, "a", encoding="utf-8") as f:
        for run in range(args.runs):
            for label, path in binaries:
                result = subprocess.run([path, f"--benchmark_filter={args.filter}", "--benchmark_min_time=0.1",
                                         "--benchmark_format=json"], check=True, capture_output=True, text=True)
                for b in json.loads(result.stdout)["benchmarks"]:
                    f.write(json.dumps({"run": run, "label": label, "name": b["name"],
                                        "time_ns": b["real_time"], "cpu": cpu, "caches": caches}) + "\n")
            print(f"run {run + 1}/{args.runs}: done", file=sys.stderr)


def report_file(path):
    records = [json.loads(line) for line in (REPO / path).read_text(encoding="utf-8").splitlines() if line]
    labels = list(dict.fromkeys(r["label"] for r in records))
    times = {}
    for r in records:
        times.setdefault((r["name"], r["label"]), []).append(r["time_ns"])
    # name = kernel/<table>/<function>/<type>/<size>
    split = {name: name.split("/") for name, _ in times}
    tables = list(dict.fromkeys(split[n][1] for n in split))
    cases = list(dict.fromkeys(tuple(split[n][2:]) for n in split))
    columns = [(t, label) for t in tables for label in labels if any((f"kernel/{t}/" + "/".join(c), label) in times
                                                                     for c in cases)]
    runs = len({r["run"] for r in records})
    first = records[0]
    lines = [f"**{first['cpu']}**, {first['caches']}; `{path}`, {len(records)} records, {runs} runs "
             f"alternating {' / '.join(labels)}.", "",
             f"Time per call in ns (median over the runs) and, in brackets, the speed against "
             f"{columns[0][0]} {columns[0][1]} (above 1: faster).", "",
             "| function | type | size | " + " | ".join(f"{t} {label}" for t, label in columns) + " |",
             "| --- " * (3 + len(columns)) + "|"]
    for case in cases:
        base = None
        cells = []
        for t, label in columns:
            got = times.get((f"kernel/{t}/" + "/".join(case), label))
            if not got:
                cells.append("—")
                continue
            median = statistics.median(got)
            base = base or median
            cells.append(f"{median:.0f} ({base / median:.2f})")
        lines.append(f"| {case[0]} | {case[1]} | {case[2]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def report(args):
    return doc_sections.regenerate(args.doc, SECTION, report_file, "python3 bench/kernel_routes.py report",
                                   args.check)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record")
    r.add_argument("--eltwise", required=True, help="the CLI, for the CPU and caches it reports")
    r.add_argument("--benchmark", action="append", required=True, help="LABEL=PATH (repeatable)")
    r.add_argument("--filter", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--runs", type=int, default=3)
    p = sub.add_parser("report")
    p.add_argument("doc", nargs="?", default=str(REPO / "docs" / "performance.md"))
    p.add_argument("--check", action="store_true")
    args = parser.parse_args()
    return record(args) if args.command == "record" else report(args)


if __name__ == "__main__":
    sys.exit(main())
