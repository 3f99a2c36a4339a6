#!/usr/bin/env python3
"""Records of eltwise_benchmark on one machine, and the tables of docs/performance.md generated from
the committed records: kernel routes compared (kernel/<table>/<function>/<type> cases), and strip
accesses against a copy (access/ cases).

    python3 bench/kernel_routes.py record --eltwise build/default/tools/eltwise \\
        --benchmark before=OLD/bench/eltwise_benchmark --benchmark after=build/default/bench/eltwise_benchmark \\
        --filter 'kernel/(AVX2|AVX2_F16RoundInIntegers|SSE4)/Round.*/float16/(4|64)KiB' \\
        --out docs/data/NAME/f16_round_routes.jsonl [--runs 3]
    python3 bench/kernel_routes.py record-access --eltwise build/default/tools/eltwise \\
        --benchmark build/default/bench/eltwise_benchmark --out docs/data/NAME/access_bound.jsonl [--runs 5]
    python3 bench/kernel_routes.py report [docs/performance.md]        (rewrites the sections)
    python3 bench/kernel_routes.py report --check docs/performance.md  (exit 1 if one is stale)

`record` runs each binary --runs times, alternating between them, over the cases --filter
selects (Google Benchmark's JSON, --benchmark_min_time 0.1), and appends one record per case and
run: its label, name and time per call, and the CPU and caches `eltwise info` reports.

`record-access` runs the access/<read|write>/<strip>B_strips/row<R>_pitch<P>/<size> cases (4 MiB
and 128 MiB) and copy/memcpy/<size> --runs times (--benchmark_min_time 0.2), and appends one record
per case and run, as `record` does.

`report` writes the `kernel_routes` section from the files its begin marker names: per case (a
kernel table, function, type and size) the median time per call over the runs of each binary, and
for each function, type and size the time of each table against the first label's time of the
first table named in the file, so that routes and builds compare in one row. It writes the
`access_bound` section the same way: per direction and matrix (row bytes, pitch, size) the median
time of each strip width, and the copy's median time of the same bytes divided by it. A transpose
reads its input or writes its output in strips, so that quotient bounds what a transpose that
reads or writes that way can reach as a ratio to a copy on one core.
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
ACCESS_SECTION = "access_bound"
ACCESS_CASE = re.compile(r"access/(read|write)/(\d+)B_strips/row(\d+)_pitch(\d+)/(\w+)")


def machine(eltwise):
    """The CPU and caches lines of `eltwise info`."""
    text = subprocess.run([eltwise, "info"], check=True, capture_output=True, text=True).stdout
    cpu = re.search(r"^CPU: (.*?), \d+ hardware threads", text, re.M).group(1)
    caches = re.search(r"^Caches[^:]*: (.*)$", text, re.M).group(1)
    return cpu, caches


def run_benchmarks(eltwise, binaries, pattern, min_time, out, runs):
    """Runs each (label, path) binary's cases matching `pattern` `runs` times, alternating, and
    appends a record per case and run to `out` (label None: no label field)."""
    cpu, caches = machine(eltwise)
    with open(out, "a", encoding="utf-8") as f:
        for run in range(runs):
            for label, path in binaries:
                result = subprocess.run([path, f"--benchmark_filter={pattern}", f"--benchmark_min_time={min_time}",
                                         "--benchmark_format=json"], check=True, capture_output=True, text=True)
                for b in json.loads(result.stdout)["benchmarks"]:
                    fields = {"run": run} | ({"label": label} if label is not None else {})
                    f.write(json.dumps(fields | {"name": b["name"].removesuffix("/real_time"),
                                                 "time_ns": b["real_time"], "cpu": cpu, "caches": caches}) + "\n")
            print(f"run {run + 1}/{runs}: done", file=sys.stderr)


def record(args):
    run_benchmarks(args.eltwise, [b.split("=", 1) for b in args.benchmark], args.filter, 0.1, args.out, args.runs)


def record_access(args):
    run_benchmarks(args.eltwise, [(None, args.benchmark)], "^(access/|copy/memcpy/(4|128)MiB/)", 0.2, args.out,
                   args.runs)


def read_records(path):
    return [json.loads(line) for line in (REPO / path).read_text(encoding="utf-8").splitlines() if line]


def report_file(path):
    records = read_records(path)
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


def access_report_file(path):
    records = read_records(path)
    times = {}
    for r in records:
        times.setdefault(r["name"], []).append(r["time_ns"])
    median = {name: statistics.median(t) for name, t in times.items()}
    matrices = {}  # (size, direction, row, pitch) -> {strip: time}
    for name, t in median.items():
        m = ACCESS_CASE.fullmatch(name)
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
    program = "python3 bench/kernel_routes.py report"
    return max(doc_sections.regenerate(args.doc, SECTION, report_file, program, args.check),
               doc_sections.regenerate(args.doc, ACCESS_SECTION, access_report_file, program, args.check))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record")
    r.add_argument("--eltwise", required=True, help="the CLI, for the CPU and caches it reports")
    r.add_argument("--benchmark", action="append", required=True, help="LABEL=PATH (repeatable)")
    r.add_argument("--filter", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--runs", type=int, default=3)
    a = sub.add_parser("record-access")
    a.add_argument("--eltwise", required=True, help="the CLI, for the CPU and caches it reports")
    a.add_argument("--benchmark", required=True, help="eltwise_benchmark")
    a.add_argument("--out", required=True)
    a.add_argument("--runs", type=int, default=5)
    p = sub.add_parser("report")
    p.add_argument("doc", nargs="?", default=str(REPO / "docs" / "performance.md"))
    p.add_argument("--check", action="store_true")
    args = parser.parse_args()
    return {"record": record, "record-access": record_access, "report": report}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
