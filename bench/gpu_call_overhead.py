"""Where the host time of one eltwise call on a small CUDA tensor goes, against the framework's
own operator and the DLPack calls eltwise makes (mean microseconds over many calls, host clock,
no synchronisation inside the loop). Also prints the strides other libraries read from a reversed
CuPy array's DLPack export.

  python3 bench/gpu_call_overhead.py [--out FILE]

Each result line goes to stdout and, with --out, to FILE, flushed and synced as it is measured,
so that a failure later in the run cannot lose it. The script ends with os._exit after releasing
its tensors and synchronising: the interpreter's own teardown (PyTorch's, CuPy's and eltwise's
CUDA state released in an order no library controls) once aborted the process with an uncaught
c10::Error after the last line, and nothing this script measures depends on that teardown.
"""

import argparse
import gc
import os
import sys
import time

import numpy as np
import torch

import eltwise


def per_call_us(fn, calls=20000):
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / calls * 1e6


class Report:
    """Writes each line to stdout and to the --out file at once (flushed and synced)."""

    def __init__(self, path):
        self.file = open(path, "w") if path else None

    def line(self, text):
        print(text, flush=True)
        if self.file:
            self.file.write(text + "\n")
            self.file.flush()
            os.fsync(self.file.fileno())

    def close(self):
        if self.file:
            self.file.close()
            self.file = None


def measure(report):
    x = torch.randn(1024, device="cuda")
    out = torch.empty_like(x)
    s = torch.cuda.current_stream()
    xh = x.cpu().numpy()
    outh = np.empty_like(xh)
    rows = [
        ("torch.sign(x, out=out)", lambda: torch.sign(x, out=out)),
        ("x.__dlpack_device__()", lambda: x.__dlpack_device__()),
        ("x.__dlpack__(stream=1)", lambda: x.__dlpack__(stream=1)),
        ("x.__dlpack__(stream=1, max_version=(1, 0))", lambda: x.__dlpack__(stream=1, max_version=(1, 0))),
        ("eltwise.sign(x, out, device='cuda', stream=s)", lambda: eltwise.sign(x, out, device="cuda", stream=s)),
        ("eltwise.sign(x, out, device='cuda')  (waits)", lambda: eltwise.sign(x, out, device="cuda")),
        ("eltwise.sign(x, device='cuda', stream=s)  (allocates)", lambda: eltwise.sign(x, device="cuda", stream=s)),
        ("eltwise.sign(numpy x, numpy out)  (CPU)", lambda: eltwise.sign(xh, outh)),
    ]
    for name, fn in rows:
        report.line(f"{per_call_us(fn):8.2f} us  {name}")
    torch.cuda.synchronize()


def cupy_strides(report):
    try:
        import cupy

        c = cupy.arange(10, dtype=cupy.float32)[::-1]
        t = torch.from_dlpack(c)
        report.line(f"cupy reversed float32: cupy strides (bytes) {c.strides} "
                    f"-> torch.from_dlpack strides (elements) {t.stride()}")
        del t, c
        cupy.cuda.Device().synchronize()
    except Exception as e:  # noqa: BLE001 - a diagnostic: report whatever happens
        report.line(f"cupy reversed array through DLPack: {type(e).__name__} {e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="also write the results here, line by line")
    args = parser.parse_args()
    report = Report(args.out)
    status = 0
    try:
        measure(report)
        cupy_strides(report)
        # Every tensor of this script is released here, while every library is fully alive.
        gc.collect()
        torch.cuda.synchronize()
    except BaseException as e:  # noqa: BLE001 - reported, then the exit status says it failed
        report.line(f"failed: {type(e).__name__}: {e}")
        status = 1
    report.close()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    main()
