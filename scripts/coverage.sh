#!/usr/bin/env bash
# Line and branch coverage of a build configured with -DELTWISE_COVERAGE=ON whose test suite has
# run (ctest writes the .gcda counters), and the floors CI holds it to. CI's test stage runs the
# README's test command on such a build, then this.
#   usage: bash scripts/coverage.sh BUILD_DIR [REPORT_DIR]     (REPORT_DIR: BUILD_DIR/coverage)
# Counted: the library (src/, include/), the command-line tools (tools/, with tools/bench/, the
# benchmark toolkit `eltwise bench` is built from) and the Python binding (python/src/), as the
# C++ tests, the CLI tests and the Python suite (against the instrumented module) exercise them.
# Not counted: src/cuda/ (its host code runs only where a GPU is present;
# tests/cuda/run_gpu_checks.sh checks it on a GPU) and what only tests, benchmarks and fuzzers
# compile.
# Code that only a GPU runs is marked in the source (GCOVR_EXCL_START/STOP, GCOVR_EXCL_LINE, each
# with its reason); lines that are not code (a brace alone, to which GCC attributes the unwinding
# of a named return value) are left out (--exclude-noncode-lines).
# A line counts as covered when any instantiation of it ran (gcovr --merge-lines). Branches that
# only an exception's unwinding takes, and branches GCC marks unreachable, are excluded (the throw
# branches after the merge, see below; gcovr's --exclude-unreachable-branches). The branch floor
# applies outside the SIMD kernels (src/cpu/simd/): each kernel is compiled once per SIMD target
# with its helpers inlined (Highway's ops and HWY_INLINE are always_inline), so every loop's
# branches are counted per target and per call site, and the AVX-512 targets cannot run on a CPU
# without AVX-512. The kernels are held by their line coverage and by the tests that compare every
# compiled target with the oracle; their branch figure is printed too.
# Writes REPORT_DIR/uncovered.txt (per file: lines, coverage and every uncovered line),
# REPORT_DIR/index.html and REPORT_DIR/summary.json; fails when lines or branches fall below the
# floors below.
set -euo pipefail
cd "$(dirname "$0")/.."

# The floors: CI fails below them. They are raised as tests are added, never lowered to let a
# change through (docs/reliability.md, "Coverage", says where they stand against 98 % and 90 %).
line_floor=98.8
branch_floor=90

if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [REPORT_DIR]" >&2
  exit 2
fi
build=$1
report=${2:-$build/coverage}
if ! find "$build" -name '*.gcda' -print -quit | grep -q .; then
  echo "coverage: no .gcda counters under $build: configure it with -DELTWISE_COVERAGE=ON and" \
    "run its tests first" >&2
  exit 2
fi
if ! python3 -m gcovr --version >/dev/null 2>&1; then
  echo "coverage: gcovr is missing (bash scripts/setup.sh installs it)" >&2
  exit 2
fi
mkdir -p "$report"

# One pass of gcov over the counters (the slow part), kept as JSON; every report reads that.
# The throw branches are dropped after gcovr has merged the objects, not by gcovr's
# --exclude-throw-branches while it reads each one: the library's front sources are compiled twice
# (the library and the Python module's runtime), and GCC 12's gcov text output marks a branch
# "(throw)" only where it ran at least once ("never executed" carries no mark). A function that ran
# in one copy and not the other would then keep the other copy's throw branches, unmarked, as
# uncovered branches. The merge ORs the marks, so dropping them afterwards drops them from both.
gcovr_common=(--root . --filter 'src/' --filter 'include/' --filter 'tools/' --filter 'python/src/'
  --exclude 'src/cuda/' --exclude-unreachable-branches --exclude-noncode-lines
  --gcov-ignore-parse-errors=negative_hits.warn_once_per_file)
python3 -m gcovr "${gcovr_common[@]}" -j "$(nproc)" --json "$report/merged.json" "$build"
python3 - "$report/merged.json" "$report/coverage.json" <<'EOF'
import json, sys
coverage = json.load(open(sys.argv[1]))
for source in coverage["files"]:
    for line in source["lines"]:
        if "branches" in line:
            line["branches"] = [b for b in line["branches"] if not b["throw"]]
json.dump(coverage, open(sys.argv[2], "w"))
EOF

python3 -m gcovr --root . --merge-lines --json-add-tracefile "$report/coverage.json" \
  --txt "$report/uncovered.txt" --html-details "$report/index.html" \
  --json-summary "$report/summary.json"
python3 - "$report/summary.json" "$line_floor" "$branch_floor" <<'EOF'
import json, sys
summary = json.load(open(sys.argv[1]))
line_floor, branch_floor = float(sys.argv[2]), float(sys.argv[3])
kernels = [f for f in summary["files"] if f["filename"].startswith("src/cpu/simd/")]
kernel_branches = sum(f["branch_total"] for f in kernels)
kernel_taken = sum(f["branch_covered"] for f in kernels)
branches = summary["branch_total"] - kernel_branches
line = summary["line_percent"]
branch = 100.0 * (summary["branch_covered"] - kernel_taken) / branches
print(f"coverage: lines {line:.1f} % of {summary['line_total']} (floor {line_floor:g} %); "
      f"branches outside src/cpu/simd {branch:.1f} % of {branches} (floor {branch_floor:g} %); "
      f"branches in src/cpu/simd {100.0 * kernel_taken / max(kernel_branches, 1):.1f} % of "
      f"{kernel_branches} (no floor)")
failed = [f"{name} {value:.1f} % < {floor:g} %"
          for name, value, floor in (("lines", line, line_floor), ("branches", branch, branch_floor))
          if value < floor]
if failed:
    print("coverage: FAILED: below the floor: " + "; ".join(failed), file=sys.stderr)
    sys.exit(1)
EOF
