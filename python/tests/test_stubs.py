"""The type stubs (eltwise/__init__.pyi) agree with the module; mypy checks them when installed."""

import ast
import inspect
import os
import site
import subprocess
import sys
import textwrap

import pytest

import eltwise

STUB = os.path.join(os.path.dirname(eltwise.__file__), "__init__.pyi")


def signature_of(func):
    """The function's signature (inspect.signature, or the line that starts the docstring of a
    function written in C), as an ast.arguments."""
    try:
        line = func.__name__ + str(inspect.signature(func))
    except ValueError:
        line = func.__doc__.splitlines()[0]
    return ast.parse(f"def {line.split(' -> ')[0]}: pass").body[0].args


def test_stub_files_are_installed():
    assert os.path.exists(STUB)
    assert os.path.exists(os.path.join(os.path.dirname(eltwise.__file__), "py.typed"))


def test_stub_matches_docstring_signatures():
    tree = ast.parse(open(STUB).read())
    stub_defs = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            stub_defs.setdefault(node.name, node.args)  # the first overload
    for name in ("sign", "round", "supports", "info", "set_num_threads", "get_num_threads"):
        doc = signature_of(getattr(eltwise, name))
        stub = stub_defs[name]
        assert [a.arg for a in doc.args] == [a.arg for a in stub.args], name
        assert [a.arg for a in doc.kwonlyargs] == [a.arg for a in stub.kwonlyargs], name
        doc_defaults = [ast.literal_eval(d) for d in doc.defaults]
        stub_defaults = [ast.literal_eval(d) for d in stub.defaults]
        assert doc_defaults == stub_defaults, name
        assert [ast.literal_eval(d) for d in doc.kw_defaults] == [
            ast.literal_eval(d) for d in stub.kw_defaults], name
    exported = [n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "__all__"]
    assert ast.literal_eval(exported[0].value) == eltwise.__all__


def test_mypy_accepts_typical_use(tmp_path):
    pytest.importorskip("mypy")
    src = tmp_path / "use.py"
    src.write_text(textwrap.dedent("""
        import numpy as np
        import numpy.typing as npt
        import eltwise

        x: npt.NDArray[np.float32] = np.zeros(3, np.float32)
        a: npt.NDArray[np.float32] = eltwise.sign(x)
        b: npt.NDArray[np.float32] = eltwise.round(x, x, mode="down")
        m: str = "toward_zero"
        f: npt.NDArray[np.float32] = eltwise.round(x, mode=m, threads=1)
        c: npt.NDArray[np.float32] = eltwise.round(x, out=x, feature_level="2_1")
        d: bool = eltwise.supports("sign", np.float16, 4, "2_0")
        e: list[str] = eltwise.info()["cpu_targets"]
        try:
            eltwise.sign(x, nan="propagate")
        except eltwise.EltwiseError as err:
            code: str = err.code
    """))
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(eltwise.__file__))
    if package_root not in site.getsitepackages():  # a build tree: mypy finds installed ones itself
        env["MYPYPATH"] = package_root
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                        "--cache-dir", os.devnull, str(src)], capture_output=True, text=True,
                       env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_signatures_are_inspectable():
    assert str(inspect.signature(eltwise.sign)) == (
        "(x, out=None, *, nan='zero', feature_level='extended', device='cpu', threads=None, stream=None)")
    assert str(inspect.signature(eltwise.round)) == (
        "(x, out=None, *, mode='halves_to_nearest_even', feature_level='extended', device='cpu', "
        "threads=None, stream=None)")
    assert list(inspect.signature(eltwise.num_threads).parameters) == ["threads"]


def test_stubtest_finds_no_difference(tmp_path):
    """mypy's stubtest compares every name, signature and default of the stubs with the module.

    Run from an empty directory: from site-packages, mypy would take its neighbours (such as
    mypy_extensions.py) for user modules that shadow the library's."""
    pytest.importorskip("mypy")
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(eltwise.__file__))
    if package_root not in site.getsitepackages():
        env["MYPYPATH"] = package_root
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    r = subprocess.run([sys.executable, "-m", "mypy.stubtest", "eltwise", "--mypy-config-file",
                        os.devnull], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
