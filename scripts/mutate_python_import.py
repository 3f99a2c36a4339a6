#!/usr/bin/env python3
"""The mutants mutmut cannot run: onnx_backend's _front_end(), which runs when the module is
imported, before mutmut switches a mutant on. Each of mutmut's 10 mutants of it is applied to a
copy of the built package and the tests that import the module afresh run against it.

    python3 scripts/mutate_python_import.py [BUILD_DIR]     (default build/default)
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

repo = Path(__file__).resolve().parent.parent
build = Path(sys.argv[1] if len(sys.argv) > 1 else repo / "build/default").resolve()
source = (repo / "python/eltwise/onnx_backend.py").read_text()
IMPORT = 'importlib.import_module("eltwise._onnx")'
FIRST = '"eltwise.onnx_backend needs eltwise._onnx, the C++ ONNX front end, which this eltwise "'
SECOND = '"was built without (ELTWISE_BUILD_ONNX=OFF or no libonnx-dev); install the eltwise "'
MESSAGE = source[source.index(FIRST):source.index(") from e", source.index(FIRST))]
# mutmut's mutants of _front_end: the argument None, "XX" around strings, and case changes.
MUTANTS = [(IMPORT, "importlib.import_module(None)"),
           (IMPORT, 'importlib.import_module("XXeltwise._onnxXX")'),
           (IMPORT, 'importlib.import_module("ELTWISE._ONNX")'),
           (MESSAGE, "None"),
           (FIRST, '"XX' + FIRST[1:-1] + 'XX"'),
           (FIRST, FIRST.replace("C++ ONNX", "c++ onnx")),
           (FIRST, FIRST.upper()),
           (SECOND, '"XX' + SECOND[1:-1] + 'XX"'),
           (SECOND, SECOND.replace("ELTWISE_BUILD_ONNX=OFF", "eltwise_build_onnx=off")),
           (SECOND, SECOND.upper())]
TESTS = "test_backend_without_the_front_end_says_why or test_run_node"


def run_tests(package):
    # No bytecode: a mutant of the same length written within a second of the last one would
    # otherwise be taken from a stale .pyc.
    env = dict(os.environ, PYTHONPATH=str(package), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                           str(repo / "python/tests/test_onnx_backend.py"), "-k", TESTS],
                          env=env, capture_output=True, text=True).returncode


killed = 0
with tempfile.TemporaryDirectory() as scratch:
    package = Path(scratch) / "python"
    shutil.copytree(build / "python", package, symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    module = package / "eltwise/onnx_backend.py"
    module.write_text(source)
    if run_tests(package):
        sys.exit("mutate_python_import: the tests fail on the unmutated package")
    for number, (before, after) in enumerate(MUTANTS, 1):
        assert source.count(before) == 1, before
        module.write_text(source.replace(before, after))
        code = run_tests(package)
        killed += code != 0
        print(f"[{number}/{len(MUTANTS)}] {'killed' if code else 'survived':8} {after[:70]}")
print(f"mutate_python_import: {killed} of {len(MUTANTS)} killed")
sys.exit(0 if killed == len(MUTANTS) else 1)
