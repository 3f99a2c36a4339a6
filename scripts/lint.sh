#!/usr/bin/env bash
# The style and type gates, over every tracked file (CI's `lint` stage):
#   - clang-format (the repository's .clang-format) must leave every C, C++ and CUDA file unchanged;
#   - ruff (settings in pyproject.toml) over every Python file;
#   - mypy --strict over the Python package (its stubs are checked against the module by
#     python/tests/test_stubs.py, which needs the built module).
# Needs clang-format, ruff and mypy (scripts/setup.sh installs them). Exit status non-zero on any
# finding; each tool prints what it found.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t native < <(git ls-files '*.c' '*.cc' '*.h' '*.cu' '*.cuh')
echo "lint: clang-format over ${#native[@]} files"
clang-format --dry-run -Werror "${native[@]}"

mapfile -t python < <(git ls-files '*.py' '*.pyi')
echo "lint: ruff over ${#python[@]} files"
python3 -m ruff check --no-cache "${python[@]}"

echo "lint: mypy --strict python/eltwise"
(cd python && python3 -m mypy --strict --no-incremental eltwise)
echo "lint: clean"
