"""Properties (hypothesis): the bits depend on the multiset of values only, and each batched
form's result has the bits of the sum of its group alone."""

import multiprocessing as mp
import pickle

import numpy as np
import pytest
import reprosum
from conftest import array_bits
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

settings.register_profile("ci", max_examples=60, deadline=None, database=None)
settings.load_profile("ci")

floats64 = st.floats(allow_nan=True, allow_infinity=True, width=64)
wide = st.one_of(floats64, st.floats(-1e3, 1e3), st.sampled_from([0.0, -0.0, 1e308, -1e308, 5e-324]))
arrays64 = hnp.arrays(np.float64, st.integers(0, 300), elements=wide)
arrays32 = hnp.arrays(np.float32, st.integers(0, 300), elements=st.floats(width=32))
folds = st.integers(2, 8)


def b(x):
    return int(np.asarray(x).view(np.uint64 if np.asarray(x).dtype == np.float64 else np.uint32))


@given(st.one_of(arrays64, arrays32), folds, st.randoms(use_true_random=False))
def test_order_free(x, fold, rnd):
    want = reprosum.sum(x, fold=fold)
    y = x.copy()
    rnd.shuffle(y)
    assert b(np.asarray(reprosum.sum(y, fold=fold), dtype=x.dtype)) == b(np.asarray(want, dtype=x.dtype))


@given(st.one_of(arrays64, arrays32), folds)
def test_cumsum_prefixes_are_sums(x, fold):
    c = reprosum.cumsum(x, fold=fold)
    assert c.dtype == x.dtype
    for i in range(0, len(x), max(1, len(x) // 7)):
        assert b(c[i]) == b(np.asarray(reprosum.sum(x[: i + 1], fold=fold), dtype=x.dtype))


@given(arrays64, st.lists(st.integers(0, 300), max_size=6), folds)
def test_segments_are_their_own_sums(x, cuts, fold):
    offsets = [0] + sorted(min(c, len(x)) for c in cuts) + [len(x)]
    s = reprosum.segmented_sum(x, offsets, fold=fold)
    c = reprosum.segmented_cumsum(x, offsets, fold=fold)
    for i in range(len(offsets) - 1):
        seg = x[offsets[i] : offsets[i + 1]]
        assert b(s[i]) == b(np.float64(reprosum.sum(seg, fold=fold)))
        assert array_bits(c[offsets[i] : offsets[i + 1]]) == array_bits(reprosum.cumsum(seg, fold=fold))


@given(arrays64, st.integers(1, 5), folds, st.randoms(use_true_random=False))
def test_keys_in_any_order(x, nkeys, fold, rnd):
    keys = np.array([rnd.randrange(nkeys) for _ in range(len(x))], dtype=np.int64)
    got = reprosum.sum_by_key(x, keys, nkeys, fold=fold)
    perm = list(range(len(x)))
    rnd.shuffle(perm)
    again = reprosum.sum_by_key(x[perm], keys[perm], nkeys, fold=fold)
    assert array_bits(got) == array_bits(again)
    for k in range(nkeys):
        assert b(got[k]) == b(np.float64(reprosum.sum(x[keys == k], fold=fold)))


@given(hnp.arrays(np.float64, st.tuples(st.integers(0, 6), st.integers(0, 40)), elements=wide), folds)
def test_rows_are_batch_invariant(m, fold):
    got = reprosum.sum_rows(m, fold=fold)
    strided = reprosum.sum_rows(np.asfortranarray(m), fold=fold)
    for r in range(m.shape[0]):
        assert b(got[r]) == b(np.float64(reprosum.sum(m[r], fold=fold)))
    assert array_bits(strided) == array_bits(got)


def test_thread_counts_give_the_same_bits():
    rng = np.random.default_rng(7)
    x = rng.standard_normal(3_000_000) * np.exp2(rng.integers(-40, 40, 3_000_000))
    was = reprosum.num_threads()
    try:
        results = []
        for t in (1, 2, 3):
            reprosum.set_num_threads(t)
            assert reprosum.num_threads() == t
            results.append((b(np.float64(reprosum.sum(x))), reprosum.cumsum(x)[::9973].tobytes()))
        assert results[0] == results[1] == results[2]
    finally:
        reprosum.set_num_threads(was)


def _shard(args):
    data, fold = args
    a = reprosum.Accumulator("float64", fold=fold)
    a.add_array(data)
    return pickle.dumps(a)


@pytest.mark.parametrize("fold", [3, 7])
def test_pickled_accumulators_merge_across_processes(fold):
    rng = np.random.default_rng(fold)
    x = rng.standard_normal(200_000) * np.exp2(rng.integers(-60, 60, 200_000))
    x[123] = 1e300
    x[4567] = -1e300
    one = reprosum.Accumulator("float64", fold=fold)
    one.add_array(x)
    shards = np.array_split(x, 7)
    ctx = mp.get_context("spawn")
    with ctx.Pool(3) as pool:
        parts = pool.map(_shard, [(s, fold) for s in shards])
    merged = reprosum.Accumulator("float64", fold=fold)
    for p in reversed(parts):
        merged.merge(pickle.loads(p))
    assert merged.to_bytes() == one.to_bytes()
    assert b(np.float64(merged.value())) == b(np.float64(reprosum.sum(x, fold=fold)))
    assert merged.count == len(x)


def test_repr_and_gil_release():
    import threading

    a = reprosum.Accumulator("float32", fold=4)
    a.add(1.5)
    assert repr(a) == "Accumulator(dtype='float32', fold=4, count=1, value=1.5)"
    x = np.random.default_rng(1).standard_normal(2_000_000)
    want = reprosum.sum(x)
    got = []
    ts = [threading.Thread(target=lambda: got.append(reprosum.sum(x))) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert [b(np.float64(g)) for g in got] == [b(np.float64(want))] * 4


def test_dlpack_capsule_is_consumed_and_released(dlpack_only):
    import sys

    x = np.arange(1000, dtype=np.float64)
    before = sys.getrefcount(x)
    w = dlpack_only(x)
    for _ in range(50):
        assert reprosum.sum(w) == 499500.0
    # The deleter ran every time: the exported arrays released their reference to x.
    assert sys.getrefcount(x) == before + 1  # the wrapper's own reference
    assert w.calls == [None] * 50  # CPU tensors are asked with stream=None
    # A torch-like CPU tensor via np.from_dlpack gives the same bits as the array.
    y = np.from_dlpack(w)
    assert y.ctypes.data == x.ctypes.data


def test_both_dlpack_versions_and_the_read_only_flag():
    from conftest import DLPackOnly, LegacyDLPackOnly

    rng = np.random.default_rng(3)
    x = rng.standard_normal(5000) * np.exp2(rng.integers(-50, 50, 5000))
    want = reprosum.cumsum(x)
    for wrap in (DLPackOnly, LegacyDLPackOnly):
        assert b(np.float64(reprosum.sum(wrap(x)))) == b(want[-1])
        out = np.zeros_like(x)
        reprosum.cumsum(wrap(x), out=wrap(out))
        assert out.tobytes() == want.tobytes()
        a = reprosum.Accumulator()
        a.add_array(wrap(x))
        assert b(np.float64(a.value())) == b(want[-1])
    # DLPack 1.x carries the read-only flag: a read-only array is summed, never written.
    ro = x.copy()
    ro.flags.writeable = False
    assert b(np.float64(reprosum.sum(DLPackOnly(ro)))) == b(want[-1])
    with pytest.raises(ValueError, match="read-only"):
        reprosum.cumsum(x, out=DLPackOnly(ro))
    assert ro.tobytes() == x.tobytes()


def test_unaligned_and_reversed_layouts():
    rng = np.random.default_rng(5)
    x = rng.standard_normal(3001) * np.exp2(rng.integers(-30, 30, 3001))
    raw = bytearray(8 * len(x) + 1)
    u = np.frombuffer(raw, dtype=np.float64, count=len(x), offset=1)
    assert not u.flags.aligned
    u[:] = x
    assert b(np.float64(reprosum.sum(u))) == b(np.float64(reprosum.sum(x)))
    want = reprosum.cumsum(x)
    out = np.frombuffer(bytearray(8 * len(x) + 3), dtype=np.float64, count=len(x), offset=3)
    reprosum.cumsum(x, out=out)
    assert out.tobytes() == want.tobytes()
    m = x[:3000].reshape(30, 100)
    rows = reprosum.sum_rows(m)
    assert array_bits(reprosum.sum_rows(m[::-1])) == array_bits(rows[::-1])
    assert array_bits(reprosum.sum_rows(m[:, ::-1])) == array_bits(rows)
    assert array_bits(reprosum.sum_rows(m[::2, 1::3])) == array_bits([reprosum.sum(r) for r in m[::2, 1::3]])
