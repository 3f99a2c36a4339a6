"""Scale-out: eltwise per chunk through dask.array.map_blocks (skipped without dask)."""

import numpy as np
import pytest

import eltwise
from conftest import assert_bits_equal, expected_round

da = pytest.importorskip("dask.array")


def test_map_blocks_sign():
    rng = np.random.default_rng(0)
    x_np = (rng.standard_normal((1000, 700)) * 4).astype(np.float32)
    x_np[::7, ::3] = np.nan
    x = da.from_array(x_np, chunks=(256, 300))
    assert x.npartitions > 1
    r = da.map_blocks(eltwise.sign, x)
    got = r.compute()
    want = np.where(np.isnan(x_np), np.float32(0), np.sign(x_np))
    assert_bits_equal(got, want)


def test_map_blocks_round_with_options_float16():
    rng = np.random.default_rng(1)
    x_np = (rng.standard_normal((3000, 50)) * 1000).astype(np.float16)
    x = da.from_array(x_np, chunks=(700, 20))
    got = da.map_blocks(eltwise.round, x, mode="toward_infinity").compute()
    assert_bits_equal(got, expected_round(x_np, "toward_infinity"))
    got = x.map_blocks(eltwise.sign, nan="propagate").compute(scheduler="threads")
    assert_bits_equal(got, np.sign(x_np))
