"""eltwise.sign/round on the containers of the NumPy world, through the ufuncs' __array_ufunc__
dispatch: Dask arrays stay lazy with the same chunks, xarray keeps coordinates, pandas its index;
and a distributed cluster with process workers (each skipped when its package is missing)."""

import numpy as np
import pytest

import eltwise
from conftest import assert_bits_equal, expected_round, expected_sign, special_values


def sample(dtype=np.float32, n=3000, seed=0):
    return special_values(np.dtype(dtype), np.random.default_rng(seed), n)[:n]


def test_dask_lazy_same_chunks():
    da = pytest.importorskip("dask.array")
    x_np = sample(np.float16).reshape(50, 60)
    x = da.from_array(x_np, chunks=(20, 25))
    r = eltwise.round(x, mode="toward_infinity")
    assert isinstance(r, da.Array) and r.chunks == x.chunks and r.dtype == x.dtype
    assert_bits_equal(r.compute(), expected_round(x_np, "toward_infinity"))
    s = eltwise.sign(x, nan="propagate")
    assert isinstance(s, da.Array) and s.chunks == x.chunks
    assert_bits_equal(s.compute(scheduler="threads"), expected_sign(x_np, "propagate"))
    assert_bits_equal(eltwise.sign(x).compute(scheduler="sync"), expected_sign(x_np))


def test_xarray_keeps_coords():
    xr = pytest.importorskip("xarray")
    x_np = sample().reshape(30, 100)
    a = xr.DataArray(x_np, dims=("t", "c"), coords={"t": np.arange(30) * 10, "c": np.arange(100)},
                     attrs={"units": "m"}, name="v")
    r = eltwise.round(a, mode="down")
    assert isinstance(r, xr.DataArray) and r.dims == a.dims
    assert (r.coords["t"] == a.coords["t"]).all() and (r.coords["c"] == a.coords["c"]).all()
    assert_bits_equal(r.values, expected_round(x_np, "down"))
    ds = xr.Dataset({"v": a})
    s = eltwise.sign(ds)
    assert isinstance(s, xr.Dataset)
    assert_bits_equal(s["v"].values, expected_sign(x_np))


def test_pandas_keeps_index():
    pd = pytest.importorskip("pandas")
    x_np = sample(np.float64, 500)
    index = pd.Index([f"r{i}" for i in range(500)])
    s = pd.Series(x_np, index=index, name="x")
    r = eltwise.round(s, mode="up")
    assert isinstance(r, pd.Series) and r.index.equals(index) and r.name == "x"
    assert_bits_equal(r.to_numpy(), expected_round(x_np, "up"))
    df = pd.DataFrame({"a": x_np, "b": x_np[::-1].copy()}, index=index)
    d = eltwise.sign(df, nan="propagate")
    assert isinstance(d, pd.DataFrame) and d.index.equals(index) and list(d.columns) == ["a", "b"]
    assert_bits_equal(d["b"].to_numpy(), expected_sign(x_np[::-1], "propagate"))
    i = pd.Series(np.array([-5, 0, 9], np.int32))
    assert_bits_equal(eltwise.sign(i).to_numpy(), np.array([-1, 0, 1], np.int32))


def test_distributed_process_workers():
    """Tasks built from eltwise's functions and ufuncs are pickled to worker processes by name."""
    distributed = pytest.importorskip("distributed")
    da = pytest.importorskip("dask.array")
    x_np = sample(np.float32, 4000).reshape(40, 100)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=40) as cluster, \
            distributed.Client(cluster) as client:
        x = da.from_array(x_np, chunks=(10, 50))
        r = eltwise.round(x, mode="toward_infinity")
        assert_bits_equal(r.compute(), expected_round(x_np, "toward_infinity"))
        m = x.map_blocks(eltwise.sign, nan="propagate")
        assert_bits_equal(m.compute(), expected_sign(x_np, "propagate"))
        f = client.submit(eltwise.round, x_np, mode="down")
        assert_bits_equal(f.result(), expected_round(x_np, "down"))
