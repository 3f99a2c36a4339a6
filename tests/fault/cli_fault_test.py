#!/usr/bin/env python3
"""Faults injected into the `eltwise` CLI (docs/reliability.md, "Fault injection").

Usage: cli_fault_test.py ELTWISE LIBELTWISE_FAULT_PRELOAD

Runs `eltwise sign|round IN OUT` with libeltwise_fault_preload.so preloaded (tests/fault), for
n = 1, 2, ... until the n-th call is no longer reached:
  * the n-th open/read/write/fsync/rename on the test's files failing with EIO or ENOSPC: exit
    status 1, one line "eltwise: ..." naming the error, OUT untouched (a pre-existing OUT keeps
    its bytes, an absent OUT stays absent) and no temporary left beside it;
  * the n-th read or write coming up short (legal): the run succeeds with the exact result;
  * the n-th allocation failing: exit status 1 and one line "eltwise: out of memory" (or
    success), OUT untouched, no temporary;
and once with every thread creation failing: the run succeeds on the main thread.
Results are checked against NumPy (np.sign, np.round) on values with a fractional part, where both
are exact. Exit status 77 (skipped) without NumPy.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import numpy as np
except ImportError:
    print("numpy is not installed: skipped")
    sys.exit(77)

ELTWISE, PRELOAD = sys.argv[1], sys.argv[2]
MAX_N = 20000
ERRNO_TEXT = {"eio": "Input/output error", "enospc": "No space left on device"}

failures: list[str] = []
rows: list[str] = []


def values(count: int) -> np.ndarray:
    i = np.arange(count, dtype=np.float64)
    return ((i % 37) * 0.5 - 8.75).astype(np.float32)


def expected(op: str, x: np.ndarray) -> np.ndarray:
    return np.sign(x) if op == "sign" else np.round(x)


class Case:
    def __init__(self, name: str, op: str, count: int, chunk_bytes: int | None) -> None:
        self.name, self.op, self.count, self.chunk_bytes = name, op, count, chunk_bytes


CASES = [
    Case("sign, 1 chunk", "sign", 1000, None),
    Case("round, 1 chunk", "round", 1000, None),
    Case("round, streamed (19 chunks)", "round", 300000, 65536),
]


def run(case: Case, work: Path, old_out: bytes | None, env_extra: dict[str, str]):
    """Runs one case in an emptied `work`; returns (status, stderr, fired, IN, OUT paths)."""
    for f in work.iterdir():
        f.unlink()
    src, dst = work / "in.npy", work / "out.npy"
    np.save(src, values(case.count))
    if old_out is not None:
        dst.write_bytes(old_out)
    fired = work.parent / "fired"
    if fired.exists():
        fired.unlink()
    env = dict(os.environ)
    env.update(env_extra)
    env["LD_PRELOAD"] = PRELOAD
    env["ELTWISE_FAULT_FIRED"] = str(fired)
    if case.chunk_bytes is not None:
        env["ELTWISE_CHUNK_BYTES"] = str(case.chunk_bytes)
    p = subprocess.run([ELTWISE, case.op, "--quiet", str(src), str(dst)], env=env,
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stderr, fired.exists(), src, dst


def check_success(what: str, case: Case, status: int, err: str, src: Path, dst: Path) -> None:
    if status != 0:
        failures.append(f"{what}: exit status {status}, expected success: {err.strip()}")
        return
    got = np.load(dst)
    want = expected(case.op, np.load(src))
    if got.dtype != want.dtype or got.tobytes() != want.tobytes():
        failures.append(f"{what}: OUT is not NumPy's result")
    leftovers = sorted(f.name for f in dst.parent.iterdir() if f.name not in ("in.npy", "out.npy"))
    if leftovers:
        failures.append(f"{what}: files left beside OUT: {leftovers}")


def check_failure(what: str, status: int, err: str, needle: str, dst: Path,
                  old_out: bytes | None) -> None:
    lines = err.splitlines()
    if status != 1:
        failures.append(f"{what}: exit status {status}, expected 1: {err.strip()}")
    if len(lines) != 1 or not lines[0].startswith("eltwise: ") or needle not in lines[0]:
        failures.append(f"{what}: expected one line 'eltwise: ...{needle}...', got {err!r}")
    if old_out is None and dst.exists():
        failures.append(f"{what}: OUT was created")
    if old_out is not None and (not dst.exists() or dst.read_bytes() != old_out):
        failures.append(f"{what}: OUT was changed")
    leftovers = sorted(f.name for f in dst.parent.iterdir() if f.name not in ("in.npy", "out.npy"))
    if leftovers:
        failures.append(f"{what}: files left beside OUT: {leftovers}")


def io_faults(case: Case, work: Path, old_out: bytes | None) -> None:
    out_state = "OUT absent" if old_out is None else "OUT present"
    for call in ("open", "read", "write", "fsync", "rename"):
        modes = ("eio", "enospc", "short") if call in ("read", "write") else ("eio", "enospc")
        for mode in modes:
            reported = 0
            for n in range(1, MAX_N):
                env = {"ELTWISE_FAULT_IO_DIR": str(work) + "/", "ELTWISE_FAULT_IO_CALL": call,
                       "ELTWISE_FAULT_IO_N": str(n), "ELTWISE_FAULT_IO_MODE": mode}
                status, err, fired, src, dst = run(case, work, old_out, env)
                what = f"{case.name}, {out_state}: {call} #{n} {mode}"
                if not fired or mode == "short":
                    check_success(what, case, status, err, src, dst)
                    if not fired:
                        break
                else:
                    reported += 1
                    check_failure(what, status, err, ERRNO_TEXT[mode], dst, old_out)
            rows.append(f"| {case.name} | {out_state} | {call} | {mode} | {n - 1} | "
                        + (f"{n - 1} retried, exact result" if mode == "short"
                           else f"{reported} exit 1, one line, OUT untouched, no temporary")
                        + " |")


def allocation_faults(case: Case, work: Path, old_out: bytes | None) -> None:
    reported = succeeded = 0
    for n in range(1, MAX_N):
        status, err, fired, src, dst = run(case, work, old_out, {"ELTWISE_FAULT_ALLOC": str(n)})
        what = f"{case.name}: allocation #{n}"
        if not fired or status == 0:
            check_success(what, case, status, err, src, dst)
            if not fired:
                break
            succeeded += 1
        else:
            reported += 1
            check_failure(what, status, err, "out of memory", dst, old_out)
        if len(failures) > 20:
            break
    rows.append(f"| {case.name} | OUT present | allocation | bad_alloc | {n - 1} | "
                f"{reported} exit 1 'out of memory', OUT untouched, no temporary; "
                f"{succeeded} recovered |")


def thread_faults(case: Case, work: Path) -> None:
    status, err, fired, src, dst = run(case, work, None, {"ELTWISE_FAULT_THREADS": "1"})
    check_success(f"{case.name}: no threads", case, status, err, src, dst)
    rows.append(f"| {case.name} | OUT absent | pthread_create | EAGAIN | all | "
                f"{'refused, ' if fired else 'none started, '}exact result |")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="eltwise_cli_faults_") as top:
        work = Path(top) / "files"
        work.mkdir()
        old = b"previous contents of OUT"
        for case in CASES:
            io_faults(case, work, None)
            io_faults(case, work, old)
            allocation_faults(case, work, old)
            thread_faults(case, work)
    print("| case | OUT | call | fault | calls | observed |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    for f in failures[:50]:
        print("FAIL:", f)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
