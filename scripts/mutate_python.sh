#!/usr/bin/env bash
# Mutation testing of the Python layer (python/eltwise/*.py) with mutmut, run by hand (not in CI):
#   pip install mutmut; bash scripts/mutate_python.sh [BUILD_DIR] [WORK_DIR]
# BUILD_DIR (default build/default) holds the built package (BUILD_DIR/python/eltwise, with its
# extension modules); WORK_DIR (default BUILD_DIR/mutmut) becomes a scratch project holding a copy
# of the package and of python/tests, where mutmut mutates the .py files and runs the tests that
# reach each mutated function. Prints mutmut's results; `mutmut show NAME` in WORK_DIR shows one.
#
# mutmut forks each mutant's test run from a process that has already imported the package, so
# code that runs at import (onnx_backend's _front_end()) is never mutated in a run:
# scripts/mutate_python_import.py checks those mutants in fresh processes.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/default}
work=${2:-$build/mutmut}
command -v mutmut >/dev/null || { echo "mutate_python: mutmut not found (pip install mutmut)" >&2; exit 2; }
[ -d "$build/python/eltwise" ] || { echo "mutate_python: no $build/python/eltwise; build first" >&2; exit 2; }
rm -rf "$work"
mkdir -p "$work"
cp -a "$build/python/eltwise" "$work/eltwise"
cp -a python/tests "$work/tests"
# The test files that reach the .py code (the rest test the extension modules' C++).
cat >"$work/setup.cfg" <<'CFG'
[mutmut]
source_paths=eltwise/
pytest_add_cli_args_test_selection=tests/test_onnx_backend.py
    tests/test_onnx_module.py
    tests/test_threads.py
    tests/test_conventions.py
    tests/test_info.py
    tests/test_errors.py
    tests/test_ufuncs.py
CFG
cd "$work"
mutmut run --max-children 1 >mutmut.log 2>&1 || { tail -c 2000 mutmut.log; exit 1; }
mutmut results
