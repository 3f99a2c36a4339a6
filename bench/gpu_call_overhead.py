"""Where the host time of one eltwise call on a small CUDA tensor goes, against the framework's
own operator and the DLPack calls eltwise makes (mean microseconds over many calls, host clock,
no synchronisation inside the loop). Also prints the strides other libraries read from a reversed
CuPy array's DLPack export.

  python3 bench/gpu_call_overhead.py
"""

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


def main():
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
        print(f"{per_call_us(fn):8.2f} us  {name}", flush=True)
    try:
        import cupy

        c = cupy.arange(10, dtype=cupy.float32)[::-1]
        print("cupy reversed float32: cupy strides (bytes)", c.strides,
              "-> torch.from_dlpack strides (elements)", torch.from_dlpack(c).stride())
    except Exception as e:  # noqa: BLE001 - a diagnostic: print whatever happens
        print("cupy reversed array through DLPack:", type(e).__name__, e)


if __name__ == "__main__":
    main()
