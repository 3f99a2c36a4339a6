#!/usr/bin/env python3
"""The layout tables of docs/performance.md, measured with `eltwise bench` and generated from the
committed records.

    python3 bench/layout_table.py record --eltwise build/default/tools/eltwise \\
        --out docs/data/NAME/layouts.jsonl [--runs 3] [--threads 2] [--sizes 4K 256K 4M LLCx4]
    python3 bench/layout_table.py record --eltwise before=OLD/eltwise --eltwise after=NEW/eltwise \\
        --out FILE.jsonl      (alternating: before, after, before, after, ...)
    python3 bench/layout_table.py report [docs/performance.md]       (rewrites the section)
    python3 bench/layout_table.py report --check docs/performance.md (exit 1 if it is stale)
    python3 bench/layout_table.py busy --eltwise build/default/tools/eltwise [--runs 3]
    python3 bench/layout_table.py record-peers --peers build/default/bench/eltwise_transpose_peers \
        --out docs/data/NAME/transpose_peers.jsonl [--runs 3] [--threads 2]

`record` runs `eltwise bench` --runs times over every layout (Sign and Round; int8, float16,
float32, float64: one type per element size) and size, and appends every record, with its run
number, the binary's label and the size asked for, to a JSON-lines file. Each record's ratio is
copy time / eltwise time from the same run (the faster of memcpy and a copy loop; an in-place copy
loop for `inplace`, memset for `broadcast`), and names the CPU and its caches. The size LLCx4 is
four times the last-level cache the CPU reports (past every cache). With several binaries the runs
alternate between them, so that a drift of the machine's memory bandwidth reaches each alike.

`report` writes, for each data file named in the section's begin marker
(`<!-- layout_table: begin FILE... -->`), one table: per layout and size the median over ops and
types of each case's median over the runs, with the minimum and maximum; for a file with two
labels, the first against the second. `busy` prints the busy-machine table (one core kept busy,
`eltwise bench --busy 1`): time on 2 threads / time on 1 thread, from the same run.

`record-peers` runs `eltwise_transpose_peers` (bench/transpose_peers.cc) --runs times, each run
two processes, one library each (their OpenMP or pool threads would otherwise take the cores from
the other): `--peers memcpy eltwise` on every element size and `--peers memcpy hptt` on 4 and 8
bytes (HPTT has float and double only), for `transposed` in cache (256 KiB, 4 MiB) and at LLCx4,
and the three permutations at 4 MiB and LLCx4. `report` also writes the `peers_table` section
from the files its marker names: per case the median over the runs of copy time / library time
(each against the single-threaded memcpy of its own process), and their quotient.
"""
import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
import doc_sections  # noqa: E402

SECTION = "layout_table"
PEERS_SECTION = "peers_table"
# (layouts, sizes) of record-peers: the transpose also in cache, the permutations from 4 MiB.
PEER_CASES = [(["transposed"], ["256K", "4M", "LLCx4"]),
              (["nchw_to_nhwc", "nhwc_to_nchw", "batched_transpose"], ["4M", "LLCx4"])]
PEER_ESIZES = {"eltwise": ["1", "2", "4", "8"], "hptt": ["4", "8"]}
TYPE_OF_ESIZE = {1: "int8", 2: "float16", 4: "float32", 8: "float64"}
LAYOUTS = [
    "contiguous", "inplace", "broadcast", "rows", "gathered", "gathered3", "gathered4", "transposed",
    "nchw_to_nhwc", "nhwc_to_nchw", "batched_transpose", "overlap", "overlap_cross",
    "overlap_transpose", "overlap_reverse"
]
# Inputs read out of order: the target (>= 0.7 of a copy from 4 MiB) is about these.
PERMUTED = {"transposed", "nchw_to_nhwc", "nhwc_to_nchw", "batched_transpose"}
DTYPES = ["int8", "float16", "float32", "float64"]  # every element size
SIZES = ["4K", "256K", "4M", "LLCx4"]


def bench(eltwise, args):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "out.json")
        subprocess.run([eltwise, "bench", *args, "--json", path], check=True,
                       stdout=subprocess.DEVNULL)
        with open(path) as f:
            return json.load(f)


def size_bytes(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def size_name(n):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return str(n)


@functools.cache
def last_level_cache(eltwise):
    """The last-level cache's bytes as `eltwise bench` reports them (asked once per binary)."""
    probe = bench(eltwise, ["--layouts", "contiguous", "--ops", "sign", "--dtypes", "int8",
                            "--sizes", "4K", "--min-time", "0.001", "--repeats", "1"])
    llc = max(probe[0].get(k, 0) for k in ("l3_cache_bytes", "l2_cache_bytes"))
    if llc == 0:
        sys.exit("layout_table: the binary reports no cache sizes; give the sizes explicitly")
    return llc


def sizes_past_the_cache(eltwise, sizes):
    """sizes with LLCx4 replaced by four times the last-level cache that `eltwise` reports."""
    if "LLCx4" not in sizes:
        return list(sizes)
    return [size_name(4 * last_level_cache(eltwise)) if s == "LLCx4" else s for s in sizes]


def record(args):
    binaries = []
    for spec in args.eltwise:
        label, _, path = spec.rpartition("=")
        binaries.append((label or "eltwise", path))
    # The last-level cache as the newest binary reports it (older ones may not record it).
    sizes = sizes_past_the_cache(binaries[-1][1], args.sizes)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a") as f:
        for run in range(args.runs):
            for label, path in binaries:
                for size in sizes:
                    print(f"layout_table: run {run + 1}/{args.runs}, {label}, {size}", flush=True)
                    for r in bench(path, ["--threads", str(args.threads), "--layouts", *args.layouts,
                                          "--dtypes", *args.dtypes, "--sizes", size, "--repeats", "3"]):
                        r.update(run=run, label=label, size=size_bytes(size))
                        f.write(json.dumps(r) + "\n")


def record_peers(args):
    cases = [(layouts, sizes_past_the_cache(args.eltwise, sizes)) for layouts, sizes in PEER_CASES]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a") as f, tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            for peer, esizes in PEER_ESIZES.items():
                for layouts, sizes in cases:
                    print(f"layout_table: run {run + 1}/{args.runs}, {peer}, {layouts}", flush=True)
                    path = os.path.join(tmp, "out.json")
                    subprocess.run([args.peers, "--peers", "memcpy", peer, "--threads",
                                    str(args.threads), "--layouts", *layouts, "--sizes", *sizes,
                                    "--esizes", *esizes, "--json", path], check=True,
                                   stdout=subprocess.DEVNULL)
                    with open(path) as results:
                        for r in json.load(results):
                            r.update(run=run, process=peer)
                            f.write(json.dumps(r) + "\n")


def read_records(path):
    records = [json.loads(line) for line in (REPO / path).read_text().splitlines() if line]
    if not records:
        raise doc_sections.SectionError(f"{path}: no records")
    return records


def peers_report_file(path):
    records = read_records(path)
    ratios = {}  # (layout, bytes, esize, peer, threads) -> [copy / peer time, one per run]
    for r in records:
        peer = r["peer"].split()[0].lower()  # "eltwise Sign", "HPTT", "memcpy"
        key = (r["layout"], r["bytes"], r["esize"], peer, r["threads"])
        ratios.setdefault(key, []).append(r["copy_seconds"] / r["seconds"])
    threads = max(r["threads"] for r in records)
    runs = len({r["run"] for r in records})
    newest = records[-1]
    out = [f"**{newest.get('cpu', 'CPU not recorded')}**, {cache_text(newest)}; `{path}`, "
           f"{len(records)} records, {runs} run{'s' if runs > 1 else ''}, each library in a "
           f"process of its own. Copy time / library time, both against the single-threaded "
           f"memcpy of the same output bytes timed in that process's alternating rounds; median "
           f"over the runs (min–max). eltwise runs Sign (a transpose fused with the op), HPTT a "
           f"pure transposition; {threads} threads but where named.", "",
           f"| layout | type | output | eltwise | HPTT | eltwise / HPTT | eltwise, 1 thread | "
           f"memcpy, {threads} threads |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]

    def cell(values):
        return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})" \
            if values else "—"
    order = [lay for layouts, _ in PEER_CASES for lay in layouts]
    cases = sorted({(k[0], k[1], k[2]) for k in ratios},
                   key=lambda c: (order.index(c[0]) if c[0] in order else len(order), c[2], c[1]))
    quotients, behind = [], []
    for layout, nbytes, esize in cases:
        mine = ratios.get((layout, nbytes, esize, "eltwise", threads), [])
        hptt = ratios.get((layout, nbytes, esize, "hptt", threads), [])
        quotient = "—"
        if mine and hptt:
            q = statistics.median(mine) / statistics.median(hptt)
            quotients.append(q)
            quotient = f"{q:.2f}"
        name = next(f"{nbytes / (1 << shift):.1f} {unit}" for unit, shift in
                    (("GiB", 30), ("MiB", 20), ("KiB", 10), ("B", 0)) if nbytes >= 1 << shift)
        out.append(f"| {layout} | {TYPE_OF_ESIZE.get(esize, esize)} | {name} | {cell(mine)} | "
                   f"{cell(hptt)} | {quotient} | {cell(ratios.get((layout, nbytes, esize, 'eltwise', 1), []))} | "
                   f"{cell(ratios.get((layout, nbytes, esize, 'memcpy', threads), []))} |")
        if quotient != "—" and quotients[-1] < 1:
            behind.append(f"{layout} {TYPE_OF_ESIZE.get(esize, esize)} at {name} "
                          f"({quotients[-1]:.3f})")
    if quotients:
        out += ["", f"eltwise against HPTT: {len(quotients) - len(behind)} of {len(quotients)} "
                f"cases at or above HPTT's speed; quotients {min(quotients):.2f}–"
                f"{max(quotients):.2f}, median {statistics.median(quotients):.2f}"
                + (f"; behind: {', '.join(behind)}." if behind else ".")]
    return out


def cache_text(r):
    parts = [f"{name} {size_name(r[key]).replace('K', ' KiB').replace('M', ' MiB')}"
             for name, key in (("L1d", "l1d_cache_bytes"), ("L2", "l2_cache_bytes"),
                               ("L3", "l3_cache_bytes")) if r.get(key)]
    return ", ".join(parts) + " (one instance of each)" if parts else "caches not recorded"


def case_medians(records, label):
    """{(layout, size, op, mode, dtype): median ratio over the runs}"""
    runs = {}
    for r in records:
        if r["label"] == label:
            runs.setdefault((r["layout"], r["size"], r["op"], r["mode"], r["dtype"]),
                            []).append(r["ratio"])
    return {case: statistics.median(ratios) for case, ratios in runs.items()}


def medians(records, label):
    """{(layout, size): [median ratio over the runs of each (op, mode, dtype)]}"""
    cases = {}
    for (layout, size, *_), ratio in case_medians(records, label).items():
        cases.setdefault((layout, size), []).append(ratio)
    return cases


def dtypes_of(records):
    """The records' types: DTYPES' order first, then any other in the order they were recorded."""
    recorded = list(dict.fromkeys(r["dtype"] for r in records))
    return [d for d in DTYPES if d in recorded] + [d for d in recorded if d not in DTYPES]


def per_type_lines(records, before, after):
    """A table of after's quotient over before per type: cases, how many gained, the quotients."""
    old, new = case_medians(records, before), case_medians(records, after)
    quotients = {}
    for case, ratio in new.items():
        if case in old:
            quotients.setdefault(case[-1], []).append(ratio / old[case])
    out = ["", f"{after} against {before} per type: each case's quotient of median ratios "
           f"({after} / {before}) over the layouts, sizes and ops.", "",
           "| type | cases | faster | quotient: median (min–max) |", "| --- | --- | --- | --- |"]
    for dtype in dtypes_of(records):
        q = quotients.get(dtype)
        if q:
            out.append(f"| {dtype} | {len(q)} | {sum(x > 1 for x in q)} | "
                       f"{statistics.median(q):.2f} ({min(q):.2f}–{max(q):.2f}) |")
    return out


def report_file(path):
    records = read_records(path)
    labels = list(dict.fromkeys(r["label"] for r in records))
    sizes = sorted({r["size"] for r in records})
    layouts = [lay for lay in LAYOUTS if any(r["layout"] == lay for r in records)]
    newest = records[-1]
    runs = len({r["run"] for r in records})
    dtypes = ", ".join(dtypes_of(records))
    ops = " and ".join(dict.fromkeys(r["op"] for r in records))
    out = [f"**{newest.get('cpu', 'CPU not recorded')}**, {cache_text(newest)}; {ops} on {dtypes}; "
           f"{newest['threads']} thread{'s' if newest['threads'] != 1 else ''}; `{path}`, {len(records)} records, {runs} run{'s' if runs > 1 else ''}"
           + (f" alternating {' / '.join(labels)}" if len(labels) > 1 else "") + ".", ""]
    heads = " | ".join(size_name(s).replace("K", " KiB").replace("M", " MiB").replace("G", " GiB")
                       for s in sizes)
    main = labels[-1]
    cases = medians(records, main)
    out += [f"Ratio to a copy ({main}): median over ops and types (min–max) of each case's median "
            "over the runs.", "", f"| layout | {heads} |", "| --- |" + " --- |" * len(sizes)]
    for layout in layouts:
        cells = []
        for s in sizes:
            v = cases.get((layout, s))
            cells.append(f"{statistics.median(v):.2f} ({min(v):.2f}–{max(v):.2f})" if v else "—")
        out.append(f"| {layout} | " + " | ".join(cells) + " |")
    permuted = [v for (layout, s), vs in cases.items() if layout in PERMUTED and s >= 4 << 20
                for v in vs]
    if permuted:
        out += ["", f"Transposed and permuted inputs from 4 MiB ({main}): lowest case "
                f"{min(permuted):.2f}, median {statistics.median(permuted):.2f} (target: 0.7)."]
    if len(labels) == 2:
        before = medians(records, labels[0])
        out += ["", f"{labels[1]} against {labels[0]}, same runs: the median of each case's "
                f"median ratio, {labels[0]} → {labels[1]} (their quotient).", "",
                f"| layout | {heads} |", "| --- |" + " --- |" * len(sizes)]
        for layout in layouts:
            cells = []
            for s in sizes:
                a, b = before.get((layout, s)), cases.get((layout, s))
                if a and b:
                    ma, mb = statistics.median(a), statistics.median(b)
                    cells.append(f"{ma:.2f} → {mb:.2f} ({mb / ma:.2f})")
                else:
                    cells.append("—")
            out.append(f"| {layout} | " + " | ".join(cells) + " |")
        if len({r["dtype"] for r in records}) > 1:
            out += per_type_lines(records, labels[0], labels[1])
    return out


def report(args):
    """Writes (or checks) each section from the data files its begin marker names."""
    status = 0
    for name, report_one in ((SECTION, report_file), (PEERS_SECTION, peers_report_file)):
        status |= doc_sections.regenerate(args.doc, name, lambda path: "\n".join(report_one(path)),
                                          "bench/layout_table.py report", args.check)
    return status


def busy(args):
    result = {}
    for _ in range(args.runs):
        for r in bench(args.eltwise, ["--threads", str(args.threads), "--busy", "1", "--ops",
                                      "round", "--dtypes", "float32", "int8", "--layouts",
                                      "contiguous", "transposed", "--sizes", "4M", "64M",
                                      "--min-time", "0.1"]):
            key = (r["layout"], r["dtype"], r["elements"])
            result.setdefault(key, []).append(r["seconds"] / r["one_thread_seconds"])
    print("| busy (1 core kept busy): layout, dtype, elements | time %d threads / 1 thread, "
          "median of %d runs (each run's values) |" % (args.threads, args.runs))
    print("| --- | --- |")
    for (layout, dtype, elements), v in sorted(result.items()):
        print("| %s %s %d | %.2f (%s) |" % (layout, dtype, elements, statistics.median(v),
                                          ", ".join("%.2f" % x for x in v)))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("record")
    p.add_argument("--eltwise", action="append", required=True, help="[LABEL=]PATH, repeatable")
    p.add_argument("--out", required=True)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--sizes", nargs="+", default=SIZES)
    p.add_argument("--layouts", nargs="+", default=LAYOUTS)
    p.add_argument("--dtypes", nargs="+", default=DTYPES)
    p = sub.add_parser("record-peers")
    p.add_argument("--peers", required=True, help="eltwise_transpose_peers built with HPTT")
    p.add_argument("--eltwise", default="build/default/tools/eltwise", help="for the cache sizes")
    p.add_argument("--out", required=True)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p = sub.add_parser("report")
    p.add_argument("doc", nargs="?", default=str(REPO / "docs/performance.md"))
    p.add_argument("--check", action="store_true")
    p = sub.add_parser("busy")
    p.add_argument("--eltwise", default="build/default/tools/eltwise")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    try:
        return {"record": record, "record-peers": record_peers, "report": report,
                "busy": busy}[args.command](args) or 0
    except doc_sections.SectionError as error:
        print(f"layout_table: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
