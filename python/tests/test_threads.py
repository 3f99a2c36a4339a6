"""Many Python threads calling eltwise at once (the GIL is released while the library runs)."""

import threading

import numpy as np

import eltwise
from conftest import MODES, assert_bits_equal, expected_round, expected_sign, special_values


def test_many_threads():
    rng = np.random.default_rng(3)
    shared = special_values(np.dtype(np.float16), rng, 200_000)
    wants = {m: expected_round(shared, m) for m in MODES}
    want_sign = expected_sign(shared)
    errors = []
    barrier = threading.Barrier(16)

    def work(k):
        try:
            barrier.wait()
            mode = MODES[k % len(MODES)]
            out = np.empty_like(shared)
            own = shared.copy()
            for i in range(20):
                eltwise.round(shared, out, mode=mode)  # shared input, own output
                assert_bits_equal(out, wants[mode])
                r = eltwise.sign(shared[::-1])  # new outputs
                assert_bits_equal(r, want_sign[::-1])
                if i == 0:
                    eltwise.round(own, own, mode=mode)  # in place on its own array
                    assert_bits_equal(own, wants[mode])
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_threads_with_errors_and_levels():
    """Errors raised in many threads at once carry their own message."""
    errors = []

    def work(k):
        try:
            for _ in range(200):
                try:
                    eltwise.sign(np.zeros((k + 1,), np.float32), feature_level="2_0")
                except eltwise.EltwiseError as e:
                    assert str(e) == "input.sizes has 1 dimensions; Sign at feature level 2_0 requires exactly 4"
                else:
                    raise AssertionError("no error")
                x = np.full((1, 1, k + 1, 3), -1.5, np.float32)
                assert (eltwise.round(x, mode="toward_infinity", feature_level=["2_1", "3_0", "6_4"][k % 3]) == -2).all()
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
