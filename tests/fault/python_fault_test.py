#!/usr/bin/env python3
"""Allocation faults through the Python module (docs/reliability.md, "Fault injection").

Usage: python_fault_test.py LIBELTWISE_FAULT_PRELOAD  (PYTHONPATH: the build's python folder)

Re-runs itself with libeltwise_fault_preload.so preloaded, then for each call, for n = 1, 2, ...
until the n-th allocation (operator new, counted from the arming through ctypes) is no longer
reached: the call must raise MemoryError (eltwise.OutOfMemoryError when the library reports it)
with `out` unchanged, or succeed with NumPy's result (np.sign / np.round, exact on these values).
Exit status 77 (skipped) without NumPy.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable

try:
    import numpy as np
except ImportError:
    print("numpy is not installed: skipped")
    sys.exit(77)

if os.environ.get("LD_PRELOAD") != sys.argv[1]:
    os.environ["LD_PRELOAD"] = sys.argv[1]
    os.execv(sys.executable, [sys.executable, *sys.argv])

import eltwise  # noqa: E402  (after the preload is in place)

fault = ctypes.CDLL(None)
fault.eltwise_fault_arm_allocation.argtypes = [ctypes.c_uint64]
fault.eltwise_fault_allocation_fired.restype = ctypes.c_int

MAX_N = 20000
failures: list[str] = []


def values(shape: tuple[int, ...]) -> np.ndarray:
    i = np.arange(int(np.prod(shape)), dtype=np.float64)
    return ((i % 37) * 0.5 - 8.75).astype(np.float32).reshape(shape)


def until_success(name: str, call: Callable[[], object], out: np.ndarray,
                  expected: Callable[[], np.ndarray]) -> None:
    """Runs call() with the n-th allocation failing; `out` is the buffer call() writes."""
    initial = out.copy()
    memory_errors = oom_errors = recovered = 0
    for n in range(1, MAX_N):
        out[...] = initial
        error: BaseException | None = None
        fault.eltwise_fault_arm_allocation(n)
        try:
            call()
        except BaseException as e:  # noqa: BLE001  (every outcome is classified below)
            error = e
        fired = fault.eltwise_fault_allocation_fired() != 0
        fault.eltwise_fault_arm_allocation(0)
        what = f"{name}, allocation {n} failing"
        if error is None:
            if out.tobytes() != expected().tobytes():
                failures.append(f"{what}: the result is not NumPy's")
            if not fired:
                print(f"{name}: {n - 1} allocations; {memory_errors + oom_errors} MemoryError "
                      f"({oom_errors} of them eltwise.OutOfMemoryError), {recovered} recovered")
                return
            recovered += 1
            continue
        if not isinstance(error, MemoryError):
            failures.append(f"{what}: raised {type(error).__name__}: {error}")
        elif isinstance(error, eltwise.OutOfMemoryError):
            oom_errors += 1
            if error.code != "out_of_memory":
                failures.append(f"{what}: code {error.code}")
        else:
            memory_errors += 1
        if not fired:
            failures.append(f"{what}: raised although no allocation failed: {error!r}")
            return
        if out.tobytes() != initial.tobytes():
            failures.append(f"{what}: out was written")
    failures.append(f"{name}: still allocating after {MAX_N} runs")


def main() -> int:
    x = values((64, 48))
    out = np.zeros((64, 48), np.float32)
    until_success("sign(x, out=out)", lambda: eltwise.sign(x, out=out), out, lambda: np.sign(x))
    # Small operands run without compiling (no C++ allocation at all); these compile:
    big = values((1024, 2048))
    out_big = np.zeros((1024, 2048), np.float32)
    until_success("round(big, out=out, threads=2)",
                  lambda: eltwise.round(big, out=out_big, threads=2), out_big,
                  lambda: np.round(big))
    out_s = np.zeros((1024, 1024), np.float32)
    until_success("round(big[:, ::2], out=out, threads=2), strided",
                  lambda: eltwise.round(big[:, ::2], out=out_s, threads=2), out_s,
                  lambda: np.round(big[:, ::2]))
    out_l = np.zeros((64, 48), np.float32)
    until_success("round(x, out=out, feature_level='6_2')",
                  lambda: eltwise.round(x, out=out_l, feature_level="6_2"), out_l,
                  lambda: np.round(x))
    buf = values((10001,))
    original = buf.copy()
    until_success("round(buf[1:], out=buf[:-1]), partial overlap",
                  lambda: eltwise.round(buf[1:], out=buf[:-1]), buf,
                  lambda: np.concatenate([np.round(original[1:]), original[-1:]]))
    ufunc_out = np.zeros((64, 48), np.float32)
    until_success("eltwise.ufunc.sign_nan_zero(x, out=out)",
                  lambda: eltwise.ufunc.sign_nan_zero(x, out=ufunc_out), ufunc_out, lambda: np.sign(x))
    for f in failures[:50]:
        print("FAIL:", f)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
