"""Plots and tabulates `eltwise bench --json` records taken at several thread counts (the CPU
scaling runs of tests/cuda/run_gpu_checks.sh): GB/s of each op and layout and of the copy with as
many threads, against the thread count.

  python3 bench/plot_cpu_scaling.py OUT.png RECORDS.json...
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    out, paths = sys.argv[1], sys.argv[2:]
    records = [r for p in paths for r in json.load(open(p))]
    layouts = ["contiguous", "transposed", "gathered"]
    fig, axes = plt.subplots(1, len(layouts), figsize=(13, 4), sharey=True)
    print("| threads | op | " + " | ".join(f"{layout} GB/s (vs copy)" for layout in layouts) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in layouts) + " |")
    for threads in sorted({r["threads"] for r in records}):
        for op in ("sign", "round"):
            cells = []
            for layout in layouts:
                r = next((r for r in records if r["threads"] == threads and r["op"] == op and r["layout"] == layout), None)
                cells.append(f"{r['gb_per_s']:.1f} ({r['ratio']:.2f}x)" if r else "-")
            print(f"| {threads} | {op} | " + " | ".join(cells) + " |")
    for ax, layout in zip(axes, layouts):
        for op, style in (("sign", "o-"), ("round", "s-")):
            rs = sorted((r for r in records if r["op"] == op and r["layout"] == layout), key=lambda r: r["threads"])
            ax.plot([r["threads"] for r in rs], [r["gb_per_s"] for r in rs], style, label=f"eltwise {op}")
        rs = sorted((r for r in records if r["op"] == "sign" and r["layout"] == layout), key=lambda r: r["threads"])
        ax.plot([r["threads"] for r in rs], [r["bytes_moved"] / r["copy_seconds"] / 1e9 for r in rs], "k--",
                label="copy, same threads")
        ax.set_xscale("log", base=2)
        ax.set_xticks([1, 2, 4, 8, 16], ["1", "2", "4", "8", "16"])
        ax.set_title(f"float32 {layout}, 256 MiB")
        ax.set_xlabel("threads")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("GB/s (read + written)")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(out, dpi=90)


if __name__ == "__main__":
    main()
