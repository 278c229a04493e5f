"""Every known answer and every core vector through the Python API gives the library's bits
(read from tests/vectors in this repository)."""

import pickle

import numpy as np
import pytest
import reprosum
from conftest import CORE, KNOWN, DLPackOnly, array_bits, bits

ALL = KNOWN + CORE


@pytest.mark.parametrize("case", ALL, ids=repr)
def test_sum_bits(case):
    x = case.values()
    want = case.sum
    assert bits(reprosum.sum(x, fold=case.fold), case.dtype) == want
    # The DLPack capsule path (not NumPy's struct), and the strided (copied) path.
    assert bits(reprosum.sum(DLPackOnly(x), fold=case.fold), case.dtype) == want
    y = np.zeros(2 * len(x), dtype=x.dtype)
    y[1::2] = x
    assert bits(reprosum.sum(y[1::2], fold=case.fold), case.dtype) == want
    assert bits(reprosum.sum(x[::-1], fold=case.fold), case.dtype) == want
    # Lists go through numpy.asarray (float64 cases only: a list of Python floats is float64).
    if case.dtype == "f64" and len(x) <= 1000:
        assert bits(reprosum.sum(x.tolist(), fold=case.fold), case.dtype) == want


@pytest.mark.parametrize("case", ALL, ids=repr)
def test_accumulator_bits(case):
    x = case.values()
    dtype = "float64" if case.dtype == "f64" else "float32"
    half = len(x) // 3
    a = reprosum.Accumulator(dtype, fold=case.fold)
    b = reprosum.Accumulator(np.dtype(dtype), fold=case.fold)
    a.add_array(x[:half])
    b.add_array(DLPackOnly(x[half:]))
    b.merge(a)
    assert b.count == len(x)
    assert bits(b.value(), case.dtype) == case.sum
    if case.bytes is not None:
        assert b.to_bytes() == case.bytes
    back = pickle.loads(pickle.dumps(b))
    assert back.to_bytes() == b.to_bytes() and back.fold == case.fold and back.dtype == dtype
    assert reprosum.Accumulator.from_bytes(b.to_bytes()) == b
    if len(x) <= 300:
        one = reprosum.Accumulator(dtype, fold=case.fold)
        for v in x:
            one.add(float(v))
        assert one.to_bytes() == b.to_bytes()


@pytest.mark.parametrize("case", [c for c in ALL if c.cumsum is not None], ids=repr)
def test_cumsum_bits(case):
    x = case.values()
    want = case.cumsum
    assert array_bits(reprosum.cumsum(x, fold=case.fold)) == want
    assert array_bits(reprosum.cumsum(DLPackOnly(x), fold=case.fold)) == want
    out = np.zeros(3 * len(x), dtype=x.dtype)
    r = reprosum.cumsum(x, fold=case.fold, out=out[::3])
    assert array_bits(out[::3]) == want and r.base is out
    assert not out[1::3].any() and not out[2::3].any()
    inplace = x.copy()
    reprosum.cumsum(inplace, fold=case.fold, out=inplace)
    assert array_bits(inplace) == want
    seg = reprosum.segmented_cumsum(x, [0, len(x)], fold=case.fold)
    assert array_bits(seg) == want


@pytest.mark.parametrize("case", ALL, ids=repr)
def test_batched_forms_give_the_sum(case):
    x = case.values()
    n = len(x)
    want = case.sum
    s = reprosum.segmented_sum(x, [0, 0, n, n], fold=case.fold)
    assert array_bits(s)[1] == want and array_bits(s)[0] == 0 and array_bits(s)[2] == 0
    k = reprosum.sum_by_key(x, np.full(n, 1, dtype=np.int64), 3, fold=case.fold)
    assert array_bits(k) == [0, want, 0]
    rows = reprosum.sum_rows(np.stack([x, x[::-1]]), fold=case.fold)
    assert array_bits(rows) == [want, want]


def test_the_vectors_are_all_there():
    # A parse that silently lost cases would make the tests above pass vacuously.
    assert len(KNOWN) >= 40 and len(CORE) == 169
    assert any(c.gen == "wide_range_1m" and c.sum == 0x430FC878C605717F for c in KNOWN)
    assert sum(c.cumsum is not None for c in CORE) == 161
