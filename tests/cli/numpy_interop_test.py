#!/usr/bin/env python3
"""`eltwise sign` / `eltwise round` on files written by NumPy itself (np.save and
np.lib.format.write_array, versions 1-3, C and Fortran order, both byte orders, every dtype and
ml_dtypes.bfloat16), read back with np.load and compared bit for bit with NumPy's own functions.

  usage: numpy_interop_test.py [EMULATOR ...] PATH_TO_ELTWISE   (e.g. qemu-aarch64 build/.../eltwise)
Exits 77 (CTest: skipped) when numpy or ml_dtypes is not installed.
"""
import os
import subprocess
import sys
import tempfile

try:
    import ml_dtypes
    import numpy as np
except ImportError as e:  # pragma: no cover
    print(f"skipped: {e}")
    sys.exit(77)

BF16 = np.dtype(ml_dtypes.bfloat16)
TYPES = ["f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "bf16"]
MODES = ["halves_to_nearest_even", "toward_zero", "toward_infinity", "down", "up"]


def values(code, rng, shape):
    n = int(np.prod(shape))
    if code in ("f2", "f4", "f8", "bf16"):
        specials = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.49999997,
                    np.inf, -np.inf, np.nan, 1e-40, -1e-40, 8388609.0, 3.5, 1e300, -4.5]
        x = rng.standard_normal(n) * rng.choice([0.5, 2.0, 100.0, 1e6], n)
        x[: len(specials)] = specials[:n]
        dtype = BF16 if code == "bf16" else np.dtype(code)
        with np.errstate(over="ignore"):
            return x.astype(dtype).reshape(shape)
    info = np.iinfo(np.dtype(code))
    x = rng.integers(info.min, info.max, n, dtype=np.dtype(code), endpoint=True)
    x[:3] = [info.min, 0, info.max]
    return x.reshape(shape)


def expected(x, op, option):
    """NumPy's answer, in the array's own dtype."""
    if x.dtype.kind in "iu":
        return np.sign(x) if op == "sign" else x.copy()
    w = x.astype(np.float64)
    if op == "sign":
        r = np.where(w > 0, 1.0, np.where(w < 0, -1.0, 0.0))
        r = np.where(np.isnan(w), np.nan if option == "propagate" else 0.0, r)
    elif option == "halves_to_nearest_even":
        r = np.round(w)
    elif option == "toward_zero":
        r = np.trunc(w)
    elif option == "down":
        r = np.floor(w)
    elif option == "up":
        r = np.ceil(w)
    else:  # halves away from zero; w - trunc(w) is exact in float64
        t = np.trunc(w)
        with np.errstate(invalid="ignore"):  # inf - inf
            r = np.where(np.abs(w - t) >= 0.5, t + np.sign(w), t)
    return r.astype(x.dtype)


def same_bits(a, b):
    if a.dtype.kind == "f" or a.dtype.type == BF16.type:  # either byte order
        fa, fb = a.astype(np.float64), b.astype(np.float64)
        nan = np.isnan(fa)
        if not np.array_equal(nan, np.isnan(fb)):
            return False
        bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
        return np.array_equal(a.view(bits)[~nan], b.view(bits)[~nan])
    return np.array_equal(a, b)


def main():
    cli = sys.argv[1:]  # the tool, after the emulator that starts it in cross builds
    rng = np.random.default_rng(7)
    failures = 0
    runs = 0
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "in.npy"), os.path.join(tmp, "out.npy")
        for i, code in enumerate(TYPES):
            for order in ("C", "F"):
                for byteorder in ("<", ">"):
                    version = (1, 2, 3)[(i + (order == "F") + (byteorder == ">")) % 3]
                    x = values(code, rng, (3, 5, 7))
                    x = np.asfortranarray(x) if order == "F" else np.ascontiguousarray(x)
                    x = x.astype(x.dtype.newbyteorder(byteorder), order=order)
                    with open(src, "wb") as f:
                        np.lib.format.write_array(f, x, version=(version, 0))
                    ops = [("sign", "zero"), ("sign", "propagate")] + [("round", m) for m in MODES]
                    for op, option in ops:
                        flag = "--nan" if op == "sign" else "--mode"
                        r = subprocess.run([*cli, op, flag, option, src, dst],
                                           capture_output=True, text=True)
                        runs += 1
                        what = f"{op} {option} {code} {order} {byteorder} v{version}"
                        if r.returncode != 0:
                            print(f"FAIL {what}: exit {r.returncode}: {r.stderr.strip()}")
                            failures += 1
                            continue
                        with open(dst, "rb") as f:
                            got_version = np.lib.format.read_magic(f)
                            header = f.read(4096)
                        y = np.load(dst)
                        if code == "bf16":
                            # np.load drops the byte order of void data ('>V2' loads as '|V2'):
                            # take it from the header, as a bfloat16 user must.
                            big = b"'descr': '>V2'" in header
                            y = y.view(BF16.newbyteorder(">" if big else "<"))
                        want = expected(x, op, option)
                        problems = []
                        if got_version != (version, 0):
                            problems.append(f"version {got_version}")
                        if y.dtype.str != x.dtype.str:
                            problems.append(f"dtype {y.dtype.str} != {x.dtype.str}")
                        if bool(y.flags.f_contiguous and not y.flags.c_contiguous) != (order == "F"):
                            problems.append("order not kept")
                        if y.shape != x.shape:
                            problems.append(f"shape {y.shape}")
                        elif not same_bits(y, want):
                            bad = [i for i in np.ndindex(x.shape)
                                   if not same_bits(y[i][None], want[i][None])]
                            i = bad[0]
                            problems.append(f"{len(bad)} values differ, first at {i}: x = {x[i]}, "
                                            f"want {want[i]}, got {y[i]}")
                        if problems:
                            print(f"FAIL {what}: {', '.join(problems)}")
                            failures += 1
    print(f"{runs} runs, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
