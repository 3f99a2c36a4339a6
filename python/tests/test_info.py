"""info() reports the SIMD targets, and importing a build without any warns (no silent slow build)."""

import json
import subprocess
import sys

import eltwise


def test_simd_targets_are_cpu_targets_with_vector_instructions():
    info = eltwise.info()
    simd, cpu = info["simd_targets"], info["cpu_targets"]
    # Best first, like cpu_targets; the reference loops and Highway's portable targets are not SIMD.
    assert simd == [t for t in cpu if t in simd]
    assert not {"reference", "SCALAR", "EMU128"} & set(simd)
    assert set(cpu) - set(simd) <= {"reference", "SCALAR", "EMU128"}


def test_import_warns_exactly_when_there_is_no_simd_target():
    code = "import json, eltwise; print(json.dumps(eltwise.info()['simd_targets']))"
    r = subprocess.run([sys.executable, "-W", "always::RuntimeWarning", "-c", code],
                       capture_output=True, text=True, check=True)
    simd = json.loads(r.stdout)
    warned = "eltwise runs without SIMD kernels" in r.stderr
    assert warned == (not simd), r.stderr
