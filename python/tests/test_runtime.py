"""eltwise._core and eltwise._onnx run on one copy of the library (libeltwise_runtime, next to them
in the package folder): one operator cache, one host device, one thread pool and one kernel-table
choice per process, not one per extension."""

import os
import sys

import pytest

import eltwise
from eltwise import _core


def test_core_and_onnx_share_the_operator_cache_and_host_backend():
    _onnx = pytest.importorskip("eltwise._onnx", reason="eltwise built without its ONNX front end")
    operator_cache, host_backend = _core._runtime_identity()
    assert operator_cache != 0 and host_backend != 0
    assert _onnx._runtime_identity() == (operator_cache, host_backend)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_one_runtime_library_is_loaded_from_the_package_folder():
    try:
        from eltwise import _onnx  # noqa: F401  (loads its libraries too, where it is built)
    except ImportError:
        pass
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "libeltwise_runtime" in line}
    package = os.path.dirname(os.path.realpath(eltwise.__file__))
    assert [os.path.dirname(os.path.realpath(p)) for p in paths] == [package], paths
