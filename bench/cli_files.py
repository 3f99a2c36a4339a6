#!/usr/bin/env python3
"""`eltwise round IN.npy OUT.npy` on files of 1 MiB ... 4 GiB against copies of the same bytes and
NumPy, all measured in one run, interleaved (each repetition runs every method once per size).

Methods (OUT is deleted before every run, so each writes a new file; IN is in the page cache):
  eltwise           eltwise round --quiet IN OUT (streams; fsync and rename at the end)
  eltwise, late sync  the same with ELTWISE_EARLY_WRITEBACK=0: no writeback started per chunk, so
                    all of the fsync happens at the end
  dd + fsync        dd if=IN of=OUT bs=64M conv=fsync: a plain read+write copy, flushed (the
                    baseline: the same bytes moved and made durable)
  dd                the same copy without fsync (dd + fsync minus dd: what fsync costs)
  cp                cp IN OUT (no fsync)
  numpy             np.load, np.rint in place, np.save, fsync, in this process (no interpreter
                    start counted: generous to NumPy)
  numpy command     the same as a command (python3 -c ...), like eltwise a process of its own
Reports medians of --repeats runs, ratios of medians (copy time / eltwise time: >= 1 means faster
than the copy), and eltwise's peak resident memory. --doc FILE rewrites its section (between
its markers, bench/doc_sections.py) in FILE (docs/performance.md).

  python3 bench/cli_files.py --eltwise build/default/tools/eltwise --doc docs/performance.md
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

import doc_sections

SECTION = "bench/cli_files.py"  # its section of --doc (bench/doc_sections.py)
SIZES = {"1M": 1 << 20, "16M": 16 << 20, "64M": 64 << 20, "256M": 256 << 20, "1G": 1 << 30,
         "4G": 4 << 30}


def make_input(path, size):
    """A float32 .npy of `size` data bytes (random values with fractions), written in pieces."""
    count = size // 4
    with open(path, "wb") as f:
        np.lib.format.write_array_header_1_0(
            f, {"descr": "<f4", "fortran_order": False, "shape": (count,)})
        rng = np.random.default_rng(1)
        piece = 16 << 20
        for start in range(0, count, piece):
            n = min(piece, count - start)
            f.write((rng.standard_normal(n, dtype=np.float32) * 1000).tobytes())
    with open(path, "rb") as f:  # into the page cache, like the other runs will find it
        while f.read(64 << 20):
            pass


def run_process(argv, env=None):
    """Wall seconds of one child process."""
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed ({done.returncode}): {done.stderr.decode().strip()}")
    return seconds


NUMPY_COMMAND = """import numpy as np, os, sys
a = np.load(sys.argv[1])
np.rint(a, out=a)
with open(sys.argv[2], "wb") as f:
    np.save(f, a)
    f.flush()
    os.fsync(f.fileno())
"""


def run_numpy(src, dst):
    start = time.perf_counter()
    a = np.load(src)
    np.rint(a, out=a)
    with open(dst, "wb") as f:
        np.save(f, a)
        f.flush()
        os.fsync(f.fileno())
    del a
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eltwise", default="build/default/tools/eltwise")
    parser.add_argument("--dir", default="/tmp/eltwise_cli_bench",
                        help="scratch directory (needs ~3x the largest size free)")
    parser.add_argument("--sizes", nargs="+", default=list(SIZES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-numpy", action="store_true")
    parser.add_argument("--doc", help="markdown file whose cli_files.py section is rewritten")
    args = parser.parse_args()

    eltwise = os.path.abspath(args.eltwise)
    os.makedirs(args.dir, exist_ok=True)
    src, dst = os.path.join(args.dir, "in.npy"), os.path.join(args.dir, "out.npy")
    late_env = dict(os.environ, ELTWISE_EARLY_WRITEBACK="0")
    methods = {
        "eltwise": lambda: run_process([eltwise, "round", "--quiet", src, dst]),
        "eltwise, late sync": lambda: run_process([eltwise, "round", "--quiet", src, dst],
                                                  late_env),
        "dd + fsync": lambda: run_process(
            ["dd", f"if={src}", f"of={dst}", "bs=64M", "conv=fsync", "status=none"]),
        "dd": lambda: run_process(["dd", f"if={src}", f"of={dst}", "bs=64M", "status=none"]),
        "cp": lambda: run_process(["cp", src, dst]),
    }
    if not args.no_numpy:
        methods["numpy"] = lambda: run_numpy(src, dst)
        methods["numpy command"] = lambda: run_process(
            [sys.executable, "-c", NUMPY_COMMAND, src, dst])

    uptime_before = open("/proc/loadavg").read().split()[:3]
    results = []
    for name in args.sizes:
        size = SIZES[name]
        make_input(src, size)
        times = {m: [] for m in methods}
        for _ in range(max(args.repeats, 7) if size <= (64 << 20) else args.repeats):
            for method, fn in methods.items():
                if os.path.exists(dst):
                    os.remove(dst)
                seconds = fn()
                times[method].append(seconds)
        # Peak RSS from GNU time, in a run of its own: ru_maxrss of a child forked from this
        # process would count this process's own pages from before the exec.
        out = subprocess.run(["/usr/bin/time", "-f", "%M", eltwise, "round", "--quiet", src, dst],
                             check=True, capture_output=True, text=True)
        rss = int(out.stderr.strip().splitlines()[-1])
        os.remove(dst)
        med = {m: statistics.median(t) for m, t in times.items()}
        row = {"size": name, "bytes": size, "median": med, "rss_mib": rss / 1024}
        results.append(row)
        print(f"{name:>5}: " + ", ".join(f"{m} {1e3 * s:.1f} ms" for m, s in med.items()) +
              f"; eltwise peak RSS {row['rss_mib']:.0f} MiB", flush=True)
    os.remove(src)
    uptime_after = open("/proc/loadavg").read().split()[:3]

    has_numpy = "numpy" in methods
    lines = [
        f"Machine: {platform.machine()}, {os.cpu_count()} hardware threads, load average "
        f"{' '.join(uptime_before)} before and {' '.join(uptime_after)} after the run (a shared "
        f"machine). float32 files in {args.dir} ({'; '.join(sorted(fs_type(args.dir)))}), "
        f"medians of {args.repeats} interleaved runs (7 up to 64 MiB); ratios are of those medians. "
        "vs copy = (dd + fsync) / eltwise: ≥ 1 is faster than a plain copy made durable. "
        "fsync = (dd + fsync) − dd.",
        "",
        "| size | eltwise ms | GB/s read+written | vs copy | vs cp (no fsync) | "
        "late sync / eltwise | fsync of the copy ms |" +
        (" vs NumPy command | vs NumPy in-process |" if has_numpy else "") + " peak RSS MiB |",
        "|---|---|---|---|---|---|---|" + ("---|---|" if has_numpy else "") + "---|",
    ]
    for r in results:
        m = r["median"]
        e = m["eltwise"]
        cells = [r["size"].replace("M", " MiB").replace("G", " GiB"), f"{1e3 * e:.1f}",
                 f"{2 * r['bytes'] / e / 1e9:.2f}", f"{m['dd + fsync'] / e:.2f}",
                 f"{m['cp'] / e:.2f}", f"{m['eltwise, late sync'] / e:.2f}",
                 f"{1e3 * (m['dd + fsync'] - m['dd']):.0f}"]
        if has_numpy:
            cells.append(f"{m['numpy command'] / e:.1f}×")
            cells.append(f"{m['numpy'] / e:.2f}×")
        cells.append(f"{r['rss_mib']:.0f}")
        lines.append("| " + " | ".join(cells) + " |")
    table = "\n".join(lines)
    print(table)
    if args.doc:
        try:
            doc_sections.replace_in_file(args.doc, SECTION, table + "\n")
        except doc_sections.SectionError as error:
            sys.exit(f"{args.doc}: {error}")


def fs_type(path):
    """The file system `path` is on, from /proc/mounts (longest matching mount point)."""
    best, kind = "", "unknown file system"
    path = os.path.realpath(path)
    for line in open("/proc/mounts"):
        fields = line.split()
        if path.startswith(fields[1]) and len(fields[1]) > len(best):
            best, kind = fields[1], f"{fields[2]} on {fields[0]}"
    return {kind}


if __name__ == "__main__":
    main()
