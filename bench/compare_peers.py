#!/usr/bin/env python3
"""Times Sign and Round in eltwise and in peer libraries on the same cases; writes a Markdown table
and a throughput-vs-size plot (docs/performance.md, docs/performance.png).

eltwise is timed through `eltwise bench --json` (which also measures a copy of the same bytes in the
same run). Peers: NumPy (np.sign, np.rint), ONNX Runtime (CPU execution provider, one-node models,
IOBinding with preallocated outputs) and PyTorch (torch.sign / torch.round with out=). PyTorch is
taken from another interpreter (--torch-python, e.g. Debian's /usr/bin/python3 with python3-torch)
when it is not importable here. XNNPACK (bankers rounding) and oneDNN (eltwise_round) have no
Python bindings here and neither has Sign: their Round is timed by the C++ program
bench/native_peers.cc (--native-peers; built as <build>/bench/eltwise_native_peers where their
headers are found), which also checks their results bit for bit against eltwise's reference kernel.

Throughput counts input + output bytes. All cases are contiguous and out of place; each library
runs with its default thread count (NumPy: 1; the others: all cores). The
libraries are timed case by case, back to back, so that load on a shared machine hits them alike.

Usage: bench/compare_peers.py --eltwise build/tools/eltwise [--sizes 4K 256K 64M]
           [--native-peers build/bench/eltwise_native_peers]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time

SIZES = ["4K", "256K", "4M", "64M"]
DTYPES = ["float32", "float16", "bfloat16", "float64", "int8", "int32"]
OPS = ["sign", "round"]
FLOATS = {"float32", "float16", "bfloat16", "float64"}


def parse_bytes(text):
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1].upper(), 1)
    return int(text[:-1] if scale != 1 else text) * scale


def element_size(dtype):
    return {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8, "int8": 1, "int32": 4}[dtype]


def cases(ops, dtypes, sizes):
    for op in ops:
        for dtype in dtypes:
            if op == "round" and dtype not in FLOATS:
                continue  # Round on integers is a copy in eltwise and undefined in most peers
            for size in sizes:
                yield op, dtype, parse_bytes(size)


def best_seconds(fn, min_time):
    """Seconds per call: the best of 5 batches of at least min_time each."""
    fn()
    reps = 1
    while True:
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= min_time or reps >= 1 << 20:
            break
        reps = max(reps + 1, int(reps * min(16.0, 1.2 * min_time / max(elapsed, 1e-9))))
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - start) / reps)
    return best


def random_array(np, dtype, count):
    rng = np.random.default_rng(42)
    if dtype in ("int8", "int32"):
        return rng.integers(-100, 100, size=count).astype(dtype)
    values = rng.uniform(-1000.0, 1000.0, size=count)
    if dtype == "float16":
        return (values / 16).astype(np.float16)
    return values.astype(dtype)


# ---- peers ---------------------------------------------------------------------------------------

def time_numpy(args):
    import numpy as np
    results = []
    for op, dtype, nbytes in cases(args.ops, args.dtypes, args.sizes):
        if dtype == "bfloat16":
            continue  # NumPy has no bfloat16
        x = random_array(np, dtype, nbytes // element_size(dtype))
        y = np.empty_like(x)
        fn = (lambda: np.sign(x, out=y)) if op == "sign" else (lambda: np.rint(x, out=y))
        results.append(record("numpy " + np.__version__, op, dtype, nbytes,
                              best_seconds(fn, args.min_time)))
    return results


def time_onnxruntime(args):
    import numpy as np
    import onnxruntime as ort
    from onnx import TensorProto, helper
    elem = {"float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16,
            "bfloat16": TensorProto.BFLOAT16, "float64": TensorProto.DOUBLE,
            "int8": TensorProto.INT8, "int32": TensorProto.INT32}
    results = []
    for op, dtype, nbytes in cases(args.ops, args.dtypes, args.sizes):
        if dtype == "bfloat16":
            continue  # no NumPy bfloat16 to bind; ORT's CPU provider has no bf16 Sign/Round kernel
        count = nbytes // element_size(dtype)
        node = helper.make_node("Sign" if op == "sign" else "Round", ["X"], ["Y"])
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", elem[dtype], [count])],
                                  [helper.make_tensor_value_info("Y", elem[dtype], [count])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        try:
            session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        except Exception as error:  # the type is not implemented by this provider
            print(f"onnxruntime: skipping {op} {dtype}: {str(error).splitlines()[0]}", file=sys.stderr)
            continue
        x = ort.OrtValue.ortvalue_from_numpy(random_array(np, dtype, count))
        y = ort.OrtValue.ortvalue_from_shape_and_type([count], x.numpy().dtype)
        binding = session.io_binding()
        binding.bind_ortvalue_input("X", x)
        binding.bind_ortvalue_output("Y", y)
        def run(session=session, binding=binding):
            session.run_with_iobinding(binding)

        results.append(record("onnxruntime " + ort.__version__, op, dtype, nbytes,
                              best_seconds(run, args.min_time)))
    return results


def time_torch(args):
    import torch
    types = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
             "float64": torch.float64, "int8": torch.int8, "int32": torch.int32}
    results = []
    for op, dtype, nbytes in cases(args.ops, args.dtypes, args.sizes):
        count = nbytes // element_size(dtype)
        if dtype in ("int8", "int32"):
            x = torch.randint(-100, 100, (count,), dtype=types[dtype])
        else:
            x = (torch.rand(count, dtype=torch.float64) * 2000 - 1000).to(types[dtype])
        y = torch.empty_like(x)
        fn = (lambda: torch.sign(x, out=y)) if op == "sign" else (lambda: torch.round(x, out=y))
        try:
            fn()
        except Exception as error:
            print(f"torch: skipping {op} {dtype}: {error}", file=sys.stderr)
            continue
        results.append(record("pytorch " + torch.__version__, op, dtype, nbytes,
                              best_seconds(fn, args.min_time)))
    return results


def native_peers_path(args):
    if args.native_peers:
        return args.native_peers
    build = os.path.dirname(os.path.dirname(os.path.abspath(args.eltwise)))  # <build>/tools/eltwise
    return os.path.join(build, "bench", "eltwise_native_peers")


def time_native(args):
    """XNNPACK and oneDNN Round through eltwise_native_peers: (timings, other records). The other
    records say which dtypes a library does not support; every timing carries the result check."""
    dtypes = [d for d in args.dtypes if d in FLOATS]
    if "round" not in args.ops or not dtypes:
        return [], []  # neither library has Sign
    command = [native_peers_path(args), "--min-time", str(args.min_time), "--dtypes", *dtypes,
               "--sizes", *args.sizes]
    done = subprocess.run(command, capture_output=True, text=True)
    sys.stderr.write(done.stderr)  # skips and differences found by the check
    if done.returncode != 0:
        raise RuntimeError((done.stderr.strip().splitlines() or ["failed"])[-1])
    timings, others = [], []
    for r in json.loads(done.stdout):
        if "seconds" in r:
            rec = record(r["library"], r["op"], r["dtype"], r["bytes"], r["seconds"])
            for key in ("threads", "implementation", "checked", "mismatches", "differences"):
                if key in r:
                    rec[key] = r[key]
            timings.append(rec)
        else:
            others.append(r)
    return timings, others


def record(library, op, dtype, nbytes, seconds):
    return {"library": library, "op": op, "dtype": dtype, "bytes": nbytes, "seconds": seconds,
            "gb_per_s": 2 * nbytes / seconds / 1e9}


def time_eltwise(args):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "eltwise.json")
        command = [args.eltwise, "bench", "--layouts", "contiguous", "--json", path,
                   "--min-time", str(args.min_time), "--ops", *args.ops, "--dtypes", *args.dtypes,
                   "--sizes", *args.sizes]
        subprocess.run(command, check=True, stdout=sys.stderr)
        with open(path) as f:
            raw = json.load(f)
    results = []
    for r in raw:
        if r["op"] == "round" and r["dtype"] not in FLOATS:
            continue
        nbytes = r["elements"] * element_size(r["dtype"])
        rec = record("eltwise", r["op"], r["dtype"], nbytes, r["seconds"])
        rec["copy_ratio"] = r["ratio"]
        rec["copy_gb_per_s"] = 2 * nbytes / r["copy_seconds"] / 1e9
        rec["threads"] = r["threads"]
        results.append(rec)
    return results


# ---- report --------------------------------------------------------------------------------------

def size_name(nbytes):
    return f"{nbytes >> 20} MiB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KiB"


def native_notes(results, native):
    """The report's paragraph on XNNPACK and oneDNN: what they run, on how many threads, and how
    their results compare with exact round-half-to-even."""
    wrap = dict(width=100, break_long_words=False, break_on_hyphens=False)
    if native["error"]:
        return textwrap.fill(f"XNNPACK and oneDNN: {native['error']}.", **wrap)
    timed = [r for r in results if "mismatches" in r]
    libraries = []
    for r in timed + native["unsupported"]:
        if r["library"] not in libraries:
            libraries.append(r["library"])
    if not libraries:
        return "XNNPACK and oneDNN: not run (no Round case requested; neither has Sign)."
    text = textwrap.fill(
        "XNNPACK and oneDNN have no Sign and no Python binding here: `eltwise_native_peers` "
        "(bench/native_peers.cc) times their Round (XNNPACK's bankers rounding, oneDNN's "
        "eltwise_round) and checks every result bit for bit against exact round-half-to-even on "
        "±0, ±0.5, ±1.5, ±2.5 and their neighbours, every half below 2^20, quiet and signalling "
        "NaNs, ±inf, subnormals, the largest values and 4M random bit patterns (16-bit types: all "
        "65536 patterns).", **wrap) + "\n"
    for lib in libraries:
        first = {}  # dtype -> its first timing record (the check is the same for every size)
        for r in timed:
            if r["library"] == lib:
                first.setdefault(r["dtype"], r)
        reasons = {}  # reason -> dtypes
        for r in native["unsupported"]:
            if r["library"] == lib:
                reasons.setdefault(r["unsupported"], []).append(r["dtype"])
        how = [f"{n} threads" for n in {r["threads"] for r in first.values()}]
        how += sorted({r["implementation"] for r in first.values() if r.get("implementation")})
        item = f"{lib}" + (f" ({', '.join(how)})" if how else "") + ": runs "
        item += ", ".join(first) if first else "none of the requested types"
        item += "".join(f"; not {', '.join(d)}: {why}" for why, d in reasons.items()) + "."
        for dtype, r in first.items():
            if r["mismatches"] == 0:
                item += f" {dtype}: bit-exact on all {r['checked']:,} values."
                continue
            item += f" {dtype}: {r['mismatches']:,} of {r['checked']:,} results differ: "
            item += "; ".join(f"{d['kind']} ({d['count']:,}, e.g. {d['example']})"
                              for d in r["differences"])
            item += "; all other results bit-exact."
        text += "\n" + textwrap.fill(item, initial_indent="- ", subsequent_indent="  ", **wrap)
    return text


def ratio_text(ratio):
    return f"{ratio:.2f}×" if ratio < 2 else f"{ratio:.1f}×"


def write_report(args, results, skipped, native):
    libraries = []
    for r in results:
        if r["library"] not in libraries:
            libraries.append(r["library"])
    peers = [lib for lib in libraries if lib != "eltwise"]
    table = {}
    for r in results:
        table.setdefault((r["op"], r["dtype"], r["bytes"]), {})[r["library"]] = r
    lines = []
    header = ["op", "dtype", "size", "eltwise GB/s", "vs copy"] + [f"{p} GB/s" for p in peers] + \
             ["eltwise / best peer"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    wins = losses = 0
    for (op, dtype, nbytes), row in table.items():
        e = row.get("eltwise")
        cells = [op, dtype, size_name(nbytes),
                 f"{e['gb_per_s']:.1f}" if e else "—", f"{e['copy_ratio']:.2f}" if e else "—"]
        best_peer = 0.0
        for p in peers:
            if p in row:
                cells.append(f"{row[p]['gb_per_s']:.2f}")
                best_peer = max(best_peer, row[p]["gb_per_s"])
            else:
                cells.append("—")
        if e and best_peer > 0:
            speedup = e["gb_per_s"] / best_peer
            wins += speedup > 1
            losses += speedup <= 1
            cells.append(ratio_text(speedup))
        else:
            cells.append("—")
        lines.append("| " + " | ".join(cells) + " |")

    plot_name = os.path.basename(args.plot)
    plotted = make_plot(args, results, libraries)
    threads = next((r.get("threads") for r in results if r["library"] == "eltwise"), "?")

    not_compared = f"\nNot compared: {skipped}\n" if skipped else ""
    text = f"""# eltwise performance

Generated by `bench/compare_peers.py` (rerun it to refresh; only the "Targets" section at the end
is written by hand and kept). Machine: {machine()}.

Throughput is input + output bytes per second (GB/s = 1e9 B/s) for contiguous, out-of-place
Sign (NaN → 0 in eltwise; each peer's own NaN rule) and Round (halves to even), best of 5 batches.
"vs copy" is eltwise's time against the best copy of the same bytes (memcpy or a copy loop, same
thread count) measured by `eltwise bench` in the same run (≥ 0.9 is the target out of cache).
eltwise runs on {threads} threads; NumPy on one; ONNX Runtime and PyTorch with their default
thread counts; XNNPACK and oneDNN as below. Peers that do not implement a case show "—". eltwise is
faster than the best peer in {wins} of {wins + losses} cases where a peer runs.

{native_notes(results, native)}
{not_compared}
{"![throughput vs size](" + plot_name + ")" if plotted else "(no plot: matplotlib is not installed)"}

""" + "\n".join(lines) + "\n"
    # The hand-written section (from "## Targets" on) of an existing report is kept.
    try:
        with open(args.out) as f:
            old = f.read()
        if "\n## Targets" in old:
            text += "\n" + old[old.index("\n## Targets") + 1:]
    except OSError:
        pass
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} hardware threads"


def make_plot(args, results, libraries):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    panels = [("sign", "float32"), ("round", "float32"), ("round", "float16"),
              ("round", "bfloat16"), ("sign", "int8")]
    panels = [p for p in panels if any((r["op"], r["dtype"]) == p for r in results)]
    if not panels:
        return False
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.8), sharey=True,
                             squeeze=False)
    axes = axes[0]
    color = {lib: f"C{i % 10}" for i, lib in enumerate(libraries)}  # the same in every panel
    for ax, (op, dtype) in zip(axes, panels):
        for lib in libraries:
            points = sorted((r["bytes"], r["gb_per_s"]) for r in results
                            if r["library"] == lib and r["op"] == op and r["dtype"] == dtype)
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=lib,
                        color=color[lib])
        copies = sorted((r["bytes"], r["copy_gb_per_s"]) for r in results
                        if r["library"] == "eltwise" and r["op"] == op and r["dtype"] == dtype)
        if copies:
            ax.plot([p[0] for p in copies], [p[1] for p in copies], "k--", label="copy (same run)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{op} {dtype}")
        ax.set_xlabel("bytes per tensor")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("GB/s (input + output)")
    legend = {}  # every library that appears in some panel, once
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    axes[-1].legend(legend.values(), legend.keys(), fontsize=8)
    fig.tight_layout()
    fig.savefig(args.plot, dpi=110)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eltwise", default="build/tools/eltwise", help="the eltwise CLI")
    parser.add_argument("--sizes", nargs="+", default=SIZES)
    parser.add_argument("--dtypes", nargs="+", default=DTYPES)
    parser.add_argument("--ops", nargs="+", default=OPS)
    parser.add_argument("--min-time", type=float, default=0.05)
    parser.add_argument("--out", default="docs/performance.md")
    parser.add_argument("--plot", default="docs/performance.png")
    parser.add_argument("--json", help="also write every measurement here")
    parser.add_argument("--native-peers", help="eltwise_native_peers (XNNPACK, oneDNN); default: "
                        "<build>/bench/eltwise_native_peers next to --eltwise's <build>/tools")
    parser.add_argument("--torch-python", default="/usr/bin/python3",
                        help="interpreter that has torch, when this one does not")
    parser.add_argument("--worker", choices=["torch"], help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.worker == "torch":
        json.dump(time_torch(args), sys.stdout)
        return

    # Case by case, every library back to back, so that a busy machine slows all of them alike.
    results, skipped = [], []
    native = {"unsupported": [], "error": None}
    if not os.path.exists(native_peers_path(args)):
        native["error"] = (f"not built ({native_peers_path(args)} is missing; it is built where "
                           "libxnnpack-dev + libpthreadpool-dev or libdnnl-dev are installed)")
    have_torch = True
    try:
        import torch  # noqa: F401
    except ImportError:
        have_torch = False
    failed = set()
    for op, dtype, size in [(o, d, z) for o in args.ops for d in args.dtypes for z in args.sizes
                            if o == "sign" or d in FLOATS]:
        one = argparse.Namespace(**vars(args))
        one.ops, one.dtypes, one.sizes = [op], [dtype], [size]
        results += time_eltwise(one)
        for name, fn in [("NumPy", time_numpy), ("ONNX Runtime", time_onnxruntime)]:
            if name in failed:
                continue
            try:
                results += fn(one)
            except ImportError as error:
                failed.add(name)
                skipped.append(f"{name} ({error})")
        if not native["error"]:
            try:
                timings, others = time_native(one)
                results += timings
                native["unsupported"] += [r for r in others if r not in native["unsupported"]]
            except RuntimeError as error:
                native["error"] = f"eltwise_native_peers failed ({error})"
        if have_torch:
            results += time_torch(one)
        elif "PyTorch" not in failed:
            if not (args.torch_python and os.path.exists(args.torch_python)):
                failed.add("PyTorch")
                skipped.append("PyTorch (not installed)")
                continue
            command = [args.torch_python, os.path.abspath(__file__), "--worker", "torch",
                       "--min-time", str(args.min_time), "--ops", op, "--dtypes", dtype,
                       "--sizes", size]
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode == 0:
                results += json.loads(done.stdout)
            else:
                failed.add("PyTorch")
                skipped.append("PyTorch (" + (done.stderr.strip().splitlines() or ["failed"])[-1] + ")")
    # Every record names the machine: the one eltwise's own records report (`eltwise bench` and
    # eltwise_native_peers write the CPU model and cache sizes), copied to the Python peers'.
    machine_keys = ("cpu", "l1d_cache_bytes", "l2_cache_bytes", "l3_cache_bytes")
    measured_on = next(({k: r[k] for k in machine_keys} for r in results if "cpu" in r), {})
    results = [{**measured_on, **r} for r in results]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    write_report(args, results, "; ".join(skipped), native)
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
