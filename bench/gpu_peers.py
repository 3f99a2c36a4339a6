"""eltwise on a GPU against PyTorch, CuPy and JAX on the same CUDA tensors, and against a
device-to-device copy of the same bytes, all in one run.

  python3 bench/gpu_peers.py [--sizes 1M 16M 256M 1G] [--dtypes float32 float16 ...] [--json F]

For each op (sign; round halves to nearest even), dtype and size: GB/s (bytes read plus bytes
written) of
  copy     out.copy_(x) in PyTorch (a device-to-device copy),
  eltwise  eltwise.sign / eltwise.round(x, out, device="cuda", stream=the current stream),
  torch    torch.sign / torch.round(x, out=out),
  cupy     cupy.sign / cupy.rint(x, out=out) on the same memory (cupy.from_dlpack),
  jax      jax.jit(jnp.sign / jnp.round)(x) (allocates its output: JAX arrays are immutable),
each the best of several timed batches (CUDA events around a batch of calls on one stream; JAX by
wall clock around a batch ended by block_until_ready). A framework that lacks a dtype or op is
left out for that case. Plus the cost of one call on a 4 KiB tensor (launch and binding cost).
"""

import argparse
import json
import time

import numpy as np
import torch

import eltwise

try:
    import cupy
except ImportError:
    cupy = None
try:
    import jax
    import jax.numpy as jnp
except ImportError:
    jax = None


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def time_batches(run, calls, repeats, sync_wall=None):
    """Seconds per call, best of `repeats` batches of `calls` calls."""
    best = float("inf")
    for _ in range(repeats):
        if sync_wall is None:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(calls):
                run()
            end.record()
            end.synchronize()
            best = min(best, start.elapsed_time(end) / 1e3 / calls)
        else:
            sync_wall()
            t0 = time.perf_counter()
            for _ in range(calls):
                r = run()
            sync_wall(r)
            best = min(best, (time.perf_counter() - t0) / calls)
    return best


def implementations(op, x, out):
    stream = torch.cuda.current_stream()
    e_call = (lambda: eltwise.sign(x, out, device="cuda", stream=stream)) if op == "sign" else (
        lambda: eltwise.round(x, out, device="cuda", stream=stream))
    impls = {"copy": (lambda: out.copy_(x), None), "eltwise": (e_call, None)}
    try:
        f = torch.sign if op == "sign" else torch.round
        f(x[:16], out=out[:16])
        impls["torch"] = ((lambda: f(x, out=out)), None)
    except RuntimeError:
        pass
    if cupy is not None:
        try:
            cx, cout = cupy.from_dlpack(x), cupy.from_dlpack(out)
            g = cupy.sign if op == "sign" else cupy.rint
            g(cx[:16], out=cout[:16])
            impls["cupy"] = ((lambda: g(cx, out=cout)), None)
        except Exception:  # noqa: BLE001 - a dtype CuPy lacks (bfloat16) or an op it refuses
            pass
    if jax is not None:
        try:
            jx = jax.dlpack.from_dlpack(x)
            h = jax.jit(jnp.sign if op == "sign" else jnp.round)
            h(jx).block_until_ready()

            def sync(r=None):
                torch.cuda.synchronize()
                if r is not None:
                    r.block_until_ready()

            impls["jax"] = ((lambda: h(jx)), sync)
        except Exception:  # noqa: BLE001 - a dtype JAX lacks (64-bit without x64)
            pass
    return impls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", nargs="+", default=["1M", "16M", "256M", "1G"])
    parser.add_argument("--dtypes", nargs="+",
                        default=["float32", "float16", "bfloat16", "float64", "int8", "int32"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    records = []
    print(f"device: {torch.cuda.get_device_name()}; eltwise {eltwise.__version__}; torch {torch.__version__}"
          + (f"; cupy {cupy.__version__}" if cupy else "") + (f"; jax {jax.__version__}" if jax else ""))
    print(f"{'op':6} {'dtype':9} {'bytes':>6} " + " ".join(f"{k:>16}" for k in
          ("copy GB/s", "eltwise", "torch", "cupy", "jax")))
    for op in ("sign", "round"):
        for dtype in args.dtypes:
            td = getattr(torch, dtype)
            for size in args.sizes:
                nbytes = parse_size(size)
                n = nbytes // td.itemsize
                if td.is_floating_point:
                    x = (torch.randn(n, device="cuda", dtype=torch.float32) * 100).to(td)
                else:
                    x = torch.randint(-100, 100, (n,), device="cuda", dtype=td)
                out = torch.empty_like(x)
                calls = max(3, min(200, (4 << 30) // (2 * nbytes)))
                row = {"op": op, "dtype": dtype, "bytes": nbytes}
                for name, (run, sync) in implementations(op, x, out).items():
                    run()
                    torch.cuda.synchronize()
                    seconds = time_batches(run, calls, args.repeats, sync)
                    row[name] = 2 * nbytes / seconds / 1e9
                torch.cuda.synchronize()
                records.append(row)
                cells = []
                for k in ("copy", "eltwise", "torch", "cupy", "jax"):
                    if k not in row:
                        cells.append(f"{'-':>16}")
                    elif k == "copy":
                        cells.append(f"{row[k]:16.0f}")
                    else:
                        cells.append(f"{row[k]:8.0f} ({row[k] / row['copy']:4.2f}x)")
                print(f"{op:6} {dtype:9} {size:>6} " + " ".join(cells), flush=True)
                del x, out
    # Cost of one call on a small tensor: Python argument handling, DLPack, launch.
    x = torch.randn(1024, device="cuda")
    out = torch.empty_like(x)
    small = {}
    for name, (run, sync) in implementations("sign", x, out).items():
        run()
        torch.cuda.synchronize()
        small[name] = time_batches(run, 2000, 3, sync if sync else (lambda r=None: torch.cuda.synchronize()))
    print("one call on 4 KiB float32 (wall, us): " + ", ".join(f"{k} {v * 1e6:.1f}" for k, v in small.items()))
    if args.json:
        with open(args.json, "w") as f:
            cpu = {k: eltwise.info()[k] for k in ("cpu_model", "l1d_cache_bytes", "l2_cache_bytes", "l3_cache_bytes")}
            json.dump({"device": torch.cuda.get_device_name(), "cpu": cpu, "records": records,
                       "small_call_seconds": small}, f, indent=1)


if __name__ == "__main__":
    np.random.seed(0)
    main()
