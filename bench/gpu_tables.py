#!/usr/bin/env python3
"""Writes the GPU section of docs/performance.md from the files of one run of
tests/cuda/run_gpu_checks.sh kept in a folder docs/data/<gpu>-<date>/: the machine from
machine.txt, the C++ API tables from bench_cuda_*.json (`eltwise bench --device cuda`), the
Python peers from gpu_peers.json (bench/gpu_peers.py), the call cost from call_overhead.txt
(bench/gpu_call_overhead.py), the CPU thread scaling from cpu_threads_*.json, and what the run's
steps.tsv, test results (tests/*.xml) and sanitizer logs (sanitizers/*.log) say, where the folder
has them. Every figure of the section comes from those files; the prose around the figures is this
script's template. The section lies between the markers of bench/doc_sections.py, and its begin
marker names the folder (relative to the document), so a check needs no other argument:

  python3 bench/gpu_tables.py docs/data/h200-2026-11-26 --doc docs/performance.md  (rewrite)
  python3 bench/gpu_tables.py --check docs/performance.md  (exit 1 if the section is stale)
  python3 bench/gpu_tables.py docs/data/h200-2026-11-26  (print the section)
"""

import argparse
import difflib
import glob
import json
import math
import os
import re
import sys
import textwrap
import xml.etree.ElementTree as ElementTree

import doc_sections

SECTION = "bench/gpu_tables.py"
ITEM_SIZE = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2,
             "int32": 4, "uint32": 4, "float32": 4, "int64": 8, "uint64": 8, "float64": 8}
PEERS = ["eltwise", "torch", "cupy", "jax"]
# What some of a run's files are, beyond their name (prose: not read from the files).
FILE_NOTES = {
    "bench_cuda_contiguous_before.json": "the same run's build before commit \"cuda: Round float16 "
    "and bfloat16 through float on the GPU\" (c0f15de): every type",
}
LARGE = 256 << 20  # the targets hold from this tensor size up


# ---- formatting ----------------------------------------------------------------------------------

def size_name(nbytes):
    """1 MiB, 256 MiB, 1 GiB; a size that is not a power of two is named by the nearest one (the
    square transposes: the largest square not above it)."""
    exact = 1 << round(math.log2(nbytes)) if nbytes > 0 else 0
    for unit, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if exact >= unit:
            return f"{exact // unit} {name}"
    return f"{exact} B"


def span(values, fmt="{:.2f}"):
    """'a–b' of the smallest and largest value ('a' when they print the same)."""
    low, high = fmt.format(min(values)), fmt.format(max(values))
    return low if low == high else f"{low}–{high}"


def op_name(op):
    return op.capitalize()


def wrap(text, width=100):
    """Paragraphs filled to width; tables, headings, images and code are left as they are."""
    blocks = []
    for block in text.split("\n\n"):
        if block.startswith(("|", "#", "!", "    ", "```")):
            blocks.append(block)
        else:
            blocks.append(textwrap.fill(" ".join(block.split()), width=width, break_long_words=False,
                                        break_on_hyphens=False))
    return "\n\n".join(blocks)


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def ordered(items):
    """Distinct items in the order of their first appearance."""
    return list(dict.fromkeys(items))


def case_list(cases):
    return "; ".join(cases) if cases else "none"


# ---- reading the folder --------------------------------------------------------------------------

def read_machine(folder):
    """key -> value of machine.txt's `key: value` lines and its nvidia-smi CSV record."""
    path = os.path.join(folder, "machine.txt")
    if not os.path.exists(path):
        return None
    facts = {}
    lines = open(path, encoding="utf-8").read().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("name, compute_cap") and i + 1 < len(lines):
            keys = [k.strip().split(" [")[0] for k in line.split(",")]
            values = [v.strip() for v in lines[i + 1].split(",")]
            facts.update({"gpu " + k: v for k, v in zip(keys, values)})
        match = re.search(r"Driver Version: (\S+)\s+CUDA Version: (\S+)", line)
        if match:
            facts.setdefault("driver", match.group(1))
            facts.setdefault("driver cuda", match.group(2))
        match = re.match(r"^([A-Za-z][\w ()./+-]*?):\s+(.*\S)\s*$", line)
        if match and "|" not in line:
            facts.setdefault(match.group(1).strip(), match.group(2))
    return facts


def machine_text(folder, facts, devices):
    if facts is None:
        return "The folder has no machine.txt: the machine is not on record."
    parts = []
    if "gpu name" in facts:
        parts.append(f"{facts['gpu name']} (compute capability {facts.get('gpu compute_cap', '?')}, "
                     f"{facts.get('gpu memory.total', '?')}), driver "
                     f"{facts.get('gpu driver_version', facts.get('driver', '?'))}"
                     + (f" (CUDA {facts['driver cuda']} driver API)" if "driver cuda" in facts else "")
                     + f", maximum clocks SM {facts.get('gpu clocks.max.sm', '?')}, memory "
                     f"{facts.get('gpu clocks.max.memory', '?')}")
    for device in devices:
        parts.append(f"eltwise names it \"{device}\"")
    if "Model name" in facts:
        parts.append(f"CPU: {facts.get('CPU(s)', '?')} × {facts['Model name']}")
    text = "Machine (machine.txt): " + "; ".join(parts) + "." if parts else \
        "machine.txt names no GPU."
    # What run_gpu_checks.sh records beyond the GPU: name it when it is there, say so when not.
    wanted = [("nvcc", "CUDA toolkit"), ("compute-sanitizer", "compute-sanitizer"), ("ncu", "Nsight Compute"),
              ("python", "Python"), ("numpy", "NumPy"), ("torch", "PyTorch"), ("cupy", "CuPy"),
              ("jax", "JAX"), ("commit", "eltwise commit"), ("memory", "host memory")]
    have = [f"{label} {facts[key]}" for key, label in wanted if key in facts]
    missing = [label for key, label in wanted if key not in facts]
    if have:
        text += " " + "; ".join(have) + "."
    if missing:
        text += " Not recorded in this run's machine.txt: " + ", ".join(missing) + "."
    return text


def read_json(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def tensor_bytes(record):
    return record["elements"] * ITEM_SIZE[record["dtype"]]


# ---- the C++ API ---------------------------------------------------------------------------------

def contiguous_table(name, records):
    sizes = sorted({tensor_bytes(r) for r in records})
    small = sizes[0] if sizes[0] <= (64 << 10) else None
    by_case = {}
    for r in records:
        by_case.setdefault((r["op"], r["dtype"]), {})[tensor_bytes(r)] = r
    header = ["op", "dtype"] + [f"{size_name(s)} vs copy" for s in sizes] + \
             [f"GB/s at {size_name(sizes[-1])} (copy)"]
    if small:
        header.append(f"µs per call at {size_name(small)} (copy)")
    rows = []
    for (op, dtype), cells in by_case.items():
        row = [op_name(op), dtype] + [f"{cells[s]['ratio']:.2f}" if s in cells else "—" for s in sizes]
        big = cells.get(sizes[-1])
        row.append(f"{big['gb_per_s']:.0f} ({big['bytes_moved'] / big['copy_seconds'] / 1e9:.0f})"
                   if big else "—")
        if small:
            r = cells.get(small)
            row.append(f"{r['seconds'] * 1e6:.2f} ({r['copy_seconds'] * 1e6:.2f})" if r else "—")
        rows.append(row)
    large = [r for r in records if tensor_bytes(r) >= LARGE]
    missed = [f"{op_name(r['op'])} {r['dtype']} at {size_name(tensor_bytes(r))} ({r['ratio']:.2f})"
              for r in large if r["ratio"] < 0.9]
    text = table(header, rows) + "\n\n"
    text += (f"From {name}: ≥ 0.9× the copy from 256 MiB up is met by {len(large) - len(missed)} of "
             f"{len(large)} cases; not met: {case_list(missed)}.")
    if small:
        tiny = [r for r in records if tensor_bytes(r) == small]
        text += (f" At {size_name(small)} one call takes {span([r['seconds'] * 1e6 for r in tiny])} µs, "
                 f"the copy {span([r['copy_seconds'] * 1e6 for r in tiny])} µs.")
    return text


def layouts_table(name, records):
    sizes = sorted({size_name(tensor_bytes(r)) for r in records}, key=lambda s: tensor_bytes_of(records, s))
    by_case = {}
    for r in records:
        by_case.setdefault((r["op"], r["dtype"], r["layout"]), {})[size_name(tensor_bytes(r))] = r
    header = ["op", "dtype", "layout"] + [f"{s} vs copy" for s in sizes] + [f"GB/s at {sizes[-1]}"]
    rows = []
    for key in sorted(by_case, key=lambda k: (LAYOUT_ORDER.get(k[2], 9), k[1], k[0] == "round")):
        op, dtype, layout = key
        cells = by_case[key]
        rows.append([op_name(op), dtype, layout] +
                    [f"{cells[s]['ratio']:.2f}" if s in cells else "—" for s in sizes] +
                    [f"{cells[sizes[-1]]['gb_per_s']:.0f}" if sizes[-1] in cells else "—"])
    text = table(header, rows)
    transposed = [r for r in records if r["layout"] == "transposed" and size_name(tensor_bytes(r)) == sizes[-1]]
    if transposed:
        met = [f"{op_name(r['op'])} {r['dtype']} ({r['ratio']:.2f})" for r in transposed if r["ratio"] >= 0.6]
        missed = [f"{op_name(r['op'])} {r['dtype']} ({r['ratio']:.2f})" for r in transposed if r["ratio"] < 0.6]
        text += (f"\n\nFrom {name}: transposed ≥ 0.6× the copy at {sizes[-1]} is met by "
                 f"{case_list(met)}; not by {case_list(missed)}.")
    return text


LAYOUT_ORDER = {"inplace": 0, "broadcast": 1, "gathered": 2, "transposed": 3}


def tensor_bytes_of(records, name):
    return min(tensor_bytes(r) for r in records if size_name(tensor_bytes(r)) == name)


def bench_files(folder):
    """bench_cuda_*.json, the run's own first and the others (earlier builds) after."""
    paths = sorted(glob.glob(os.path.join(folder, "bench_cuda_*.json")))
    return sorted(paths, key=lambda p: os.path.basename(p) in FILE_NOTES)


def cpp_section(folder):
    paths = bench_files(folder)
    if not paths:
        return "No bench_cuda_*.json in the folder: the C++ API was not benchmarked in this run.", []
    parts, devices = [], []
    for path in paths:
        name = os.path.basename(path)
        records = read_json(folder, name)
        if not records:
            parts.append(f"`{name}` holds no records.")
            continue
        devices += [r["device"] for r in records if "device" in r]
        note = FILE_NOTES.get(name)
        contiguous = [r for r in records if r["layout"] == "contiguous"]
        others = [r for r in records if r["layout"] != "contiguous"]
        title = f"`{name}`" + (f", {note}" if note else "")
        if contiguous:
            parts.append(f"Contiguous, out of place ({title}):\n\n" + contiguous_table(name, contiguous))
        if others:
            parts.append(f"Other layouts ({title}); broadcast and gathered inputs against the copy "
                         "of the output's bytes:\n\n" + layouts_table(name, others))
    return "\n\n".join(parts), ordered(devices)


# ---- Python --------------------------------------------------------------------------------------

def peers_section(folder):
    data = read_json(folder, "gpu_peers.json")
    if data is None:
        return "No gpu_peers.json in the folder: the Python peers were not benchmarked in this run."
    records = data["records"]
    rows = []
    for r in records:
        rows.append([op_name(r["op"]), r["dtype"], size_name(r["bytes"]), f"{r['copy']:.0f}"] +
                    [f"{r[p] / r['copy']:.2f}" if p in r else "—" for p in PEERS])
    text = table(["op", "dtype", "size", "copy GB/s", "eltwise", "torch", "cupy", "jax"], rows)
    absent = ordered(f"{p} {op_name(r['op'])} {r['dtype']}" for r in records for p in PEERS if p not in r)
    if absent:
        text += ("\n\n—: the library refused the case, so the script left it out: " + ", ".join(absent)
                 + " (CuPy's `rint` takes no integers).")
    large = [r for r in records if r["bytes"] >= LARGE]
    if large:
        text += f"\n\nFrom 256 MiB up ({len(large)} cases), eltwise against each peer (ratio of GB/s):"
        for peer in PEERS[1:]:
            pairs = [r["eltwise"] / r[peer] for r in large if peer in r]
            if pairs:
                faster = sum(p > 1 for p in pairs)
                text += (f" {peer}: faster in {faster} of {len(pairs)}, eltwise / {peer} "
                         f"{span(pairs)};")
        text = text[:-1] + "."
    small = data.get("small_call_seconds")
    if small:
        text += ("\n\nOne call on a 4 KiB float32 tensor (gpu_peers.json, time per call over 2000 calls "
                 "and one synchronisation): " +
                 ", ".join(f"{k} {v * 1e6:.1f} µs" for k, v in small.items()) + ".")
    return text


def overhead_section(folder):
    path = os.path.join(folder, "call_overhead.txt")
    if not os.path.exists(path):
        return "No call_overhead.txt in the folder: the host cost of one call was not taken apart in this run."
    timings, other = [], []
    for line in open(path, encoding="utf-8").read().splitlines():
        match = re.match(r"^\s*([0-9.]+) us  (.*)$", line)
        if match:
            timings.append((float(match.group(1)), match.group(2).strip()))
        elif line.strip():
            other.append(line.strip())
    text = ("Host time of one call on a 4 KiB float32 CUDA tensor (`call_overhead.txt`, from "
            "`bench/gpu_call_overhead.py`: mean over 20000 calls, no synchronisation inside the loop):\n\n")
    text += table(["µs per call", "call"], [[f"{us:.2f}", f"`{call}`"] for us, call in timings])
    dlpack = [us for us, call in timings if call.startswith("x.__dlpack__(")]
    if dlpack:
        text += (f"\n\nPyTorch's `__dlpack__` alone takes {span(dlpack)} µs here, and eltwise calls it "
                 "for `x` and for `out`: reading PyTorch tensors without it (data pointer, sizes and "
                 "strides directly) is the known way to cut the call's cost.")
    if other:
        text += "\n\nOther lines of the file: " + "; ".join(f"`{line}`" for line in other) + "."
        if any(line.startswith("terminate called") for line in other):
            text += (" The process aborted there, and whatever the script printed after its last "
                     "flushed line is lost.")
    return text


# ---- the CPU -------------------------------------------------------------------------------------

def cpu_section(folder):
    paths = glob.glob(os.path.join(folder, "cpu_threads_*.json"))
    if not paths:
        return "No cpu_threads_*.json in the folder: the CPU was not measured in this run."
    runs = {}
    for path in paths:
        for r in read_json(folder, os.path.basename(path)):
            runs.setdefault(r["threads"], []).append(r)
    if not runs:
        return "The folder's cpu_threads_*.json files hold no records."
    layouts = ordered(r["layout"] for rs in runs.values() for r in rs)
    header = ["threads", "copy GB/s (the run's copies)", "op"] + \
             [f"{layout} GB/s (vs its copy)" for layout in layouts] + ["contiguous vs the run's best copy"]
    rows, best_ratios = [], {}
    for threads in sorted(runs):
        records = runs[threads]
        copies = [r["bytes_moved"] / r["copy_seconds"] / 1e9 for r in records]
        best_copy = min(r["copy_seconds"] for r in records)
        for op in ordered(r["op"] for r in records):
            cells = []
            for layout in layouts:
                r = next((r for r in records if r["op"] == op and r["layout"] == layout), None)
                cells.append(f"{r['gb_per_s']:.1f} ({r['ratio']:.2f}×)" if r else "—")
            c = next((r for r in records if r["op"] == op and r["layout"] == "contiguous"), None)
            best = ""
            if c:
                ratio = best_copy / c["seconds"]
                best_ratios.setdefault(threads, []).append(ratio)
                best = f"{ratio:.2f}×"
            rows.append([str(threads), span(copies, "{:.1f}"), op] + cells + [best])
    text = table(header, rows)
    sizes = ordered(f"{r['dtype']}, {size_name(tensor_bytes(r))}" for rs in runs.values() for r in rs)
    text = (f"{', '.join(sizes)} per tensor; each record against the best copy (memcpy or a copy loop) "
            "with as many threads measured beside it, and, in the last column, against the fastest copy "
            "of all the records at that thread count (a single copy measurement varies by more than "
            "the difference being measured).\n\n" + text)
    text += "\n\nContiguous against the fastest copy at each thread count: " + "; ".join(
        f"{threads} {'thread' if threads == 1 else 'threads'} {span(r)}" for threads, r in sorted(best_ratios.items())) + "."
    return text


# ---- logs ----------------------------------------------------------------------------------------

def xml_counts(path):
    """(tests, failures + errors, skipped) of a gtest or pytest JUnit XML file."""
    root = ElementTree.parse(path).getroot()
    cases = list(root.iter("testcase"))
    failed = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
    skipped = sum(1 for c in cases if c.find("skipped") is not None or c.get("result") == "skipped")
    return len(cases), failed, skipped


def logs_section(folder, link):
    lines = []
    steps = os.path.join(folder, "steps.tsv")
    if os.path.exists(steps):
        rows = [line.split("\t") for line in open(steps, encoding="utf-8").read().splitlines()[1:] if line]
        lines.append("Steps of the run (`steps.tsv`):\n\n" + table(
            ["step", "status", "seconds", "note"],
            [(row + ["", "", "", ""])[:4] for row in rows]))
    else:
        lines.append("No steps.tsv in the folder: which steps ran, and how long each took, is not on record.")
    results = sorted(glob.glob(os.path.join(folder, "tests", "*.xml")))
    if results:
        rows = []
        for path in results:
            tests, failed, skipped = xml_counts(path)
            rows.append([os.path.relpath(path, folder), tests, failed, skipped])
        lines.append("Test results:\n\n" + table(["file", "tests", "failed", "skipped"], rows))
    else:
        lines.append("No test results (tests/*.xml) in the folder: the GPU tests of this run are not on "
                     "record, so this section shows no test outcome.")
    logs = sorted(glob.glob(os.path.join(folder, "sanitizers", "*.log")))
    if logs:
        rows = []
        for path in logs:
            text = open(path, encoding="utf-8", errors="replace").read()
            summary = re.findall(r"ERROR SUMMARY: (\d+) error", text)
            rows.append([os.path.relpath(path, folder),
                         str(sum(int(n) for n in summary)) if summary else "no ERROR SUMMARY line"])
        lines.append("compute-sanitizer (errors reported):\n\n" + table(["log", "errors"], rows))
    else:
        lines.append("No sanitizer logs (sanitizers/*.log) in the folder: no compute-sanitizer result "
                     "of this run is on record.")
    reports = sorted(glob.glob(os.path.join(folder, "ncu", "*.txt")))
    if reports:
        lines.append("Nsight Compute reports: " + ", ".join(
            f"[{os.path.relpath(p, folder)}]({link}/{os.path.relpath(p, folder)})" for p in reports) + ".")
    else:
        lines.append("No Nsight Compute reports (ncu/*.txt) in the folder.")
    return "\n\n".join(lines)


# ---- the section ---------------------------------------------------------------------------------

def generate(folder, link):
    facts = read_machine(folder)
    cpp, devices = cpp_section(folder)
    gpu = facts.get("gpu name", "a GPU") if facts else "a GPU"
    date = os.path.basename(os.path.normpath(folder)).split("-", 1)[-1]
    return wrap(f"""## On {gpu}, {date}

Generated by `bench/gpu_tables.py` from the files of one run of `tests/cuda/run_gpu_checks.sh`,
kept in [{link}]({link}); rerun it after adding a run's folder. One run each, so ratios below about
±0.02 are noise. "vs copy" is the copy's time over eltwise's for the same bytes in the same run
(≥ 1: faster than the copy); GB/s counts bytes read and written.

{machine_text(folder, facts, devices)}

{logs_section(folder, link)}

### The GPU through the C++ API (`eltwise bench --device cuda`)

Each case against `CopyOnDevice` (a device-to-device `cudaMemcpyAsync`) of the same bytes, time per
call from back-to-back calls on one stream. The tiled transpose reads and writes one element per
thread, so 2-byte elements move half the bytes per memory transaction that 4-byte ones do.

{cpp}

### The GPU from Python, against PyTorch, CuPy and JAX (`bench/gpu_peers.py`)

The same CUDA tensors for every library (eltwise through DLPack with `out=` and
`stream=torch.cuda.current_stream()`; CuPy on the same memory through `cupy.from_dlpack`; JAX's
jitted `jnp.sign`/`jnp.round`, which allocate their output, with x64 off: its float64 cases compute
float32); best of 5 batches, CUDA events. Ratios are to PyTorch's `out.copy_(x)` in the same run.

{peers_section(folder)}

{overhead_section(folder)}

### The CPU (`eltwise bench --threads N`)

![CPU scaling](cpu_scaling.png)

{cpu_section(folder)}

On one thread glibc's memcpy streams past the cache at this size where eltwise's stores are regular
ones; transposed and gathered inputs use a fraction of each cache line they read per pass.
""") + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", help="a run's folder (default: the one the section names)")
    parser.add_argument("--doc", help="rewrite this document's section")
    parser.add_argument("--check", metavar="DOC", help="exit 1 unless DOC's section is what this writes")
    args = parser.parse_args()
    doc = args.check or args.doc
    text = open(doc, encoding="utf-8").read() if doc else None
    folder = args.folder
    try:
        if folder is None:
            if text is None:
                parser.error("give a folder, or a document whose section names one")
            named = doc_sections.arguments(text, SECTION)
            folder = os.path.join(os.path.dirname(doc), named)
        link = os.path.relpath(folder, os.path.dirname(os.path.abspath(doc)) if doc else ".")
        body = generate(folder, link)
        if args.check:
            old = doc_sections.section(text, SECTION)
            if old != body or doc_sections.arguments(text, SECTION) != link:
                sys.stdout.writelines(difflib.unified_diff(
                    old.splitlines(True), body.splitlines(True), f"{doc} (committed)",
                    f"{doc} (bench/gpu_tables.py {folder})"))
                print(f"{doc}: the section of {SECTION} is stale; rerun "
                      f"python3 bench/gpu_tables.py {folder} --doc {doc}", file=sys.stderr)
                return 1
            return 0
        if args.doc:
            with open(args.doc, "w", encoding="utf-8") as f:
                f.write(doc_sections.replace(text, SECTION, body, link))
        else:
            sys.stdout.write(body)
    except doc_sections.SectionError as error:
        print(f"{doc}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
