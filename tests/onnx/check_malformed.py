#!/usr/bin/env python3
"""Runs `eltwise onnx-test` on each malformed case of scripts/gen_onnx_tests.py.

    check_malformed.py ELTWISE MALFORMED_DIR

Each case must fail cleanly: exit status 1 (not a crash or signal), a "FAIL <case>..." line whose
message matches the case's regex in MALFORMED_DIR/expected.txt, and the final line
"0 passed, 1 failed".
"""
import os
import re
import subprocess
import sys


def main():
    eltwise, root = sys.argv[1], sys.argv[2]
    failures = 0
    with open(os.path.join(root, "expected.txt")) as f:
        cases = [line.rstrip("\n").split("\t", 1) for line in f if line.strip()]
    for name, regex in cases:
        p = subprocess.run([eltwise, "onnx-test", os.path.join(root, name)], capture_output=True,
                           text=True, timeout=60)
        lines = p.stdout.strip().split("\n")
        fail_lines = [line for line in lines if line.startswith("FAIL " + name)]
        problems = []
        if p.returncode != 1:
            problems.append(f"exit status {p.returncode}, expected 1")
        if not fail_lines or not re.search(regex, fail_lines[0]):
            problems.append(f"no FAIL line matching /{regex}/")
        if lines[-1] != "0 passed, 1 failed":
            problems.append(f"last line {lines[-1]!r}")
        if problems:
            failures += 1
            print(f"BAD  {name}: {'; '.join(problems)}\n     stdout: {p.stdout.strip()}\n"
                  f"     stderr: {p.stderr.strip()}")
        else:
            print(f"ok   {name}: {fail_lines[0][len('FAIL '):]}")
    print(f"{len(cases) - failures} of {len(cases)} malformed cases rejected as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
