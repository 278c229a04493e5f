"""The accumulator forms of the batched sums (add_segments, add_by_key): shards added call after
call, or in other processes and merged, give every group the state of all its values and the
one-call sum's bits; bad input changes no accumulator."""

import multiprocessing as mp

import numpy as np
import pytest
import reprosum
from conftest import array_bits


def _values(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) * np.exp2(rng.integers(-40, 40, n))
    x[::97] *= 1e12
    return x


def _states(accs):
    return [a.to_bytes() for a in accs]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_segment_shards_give_the_whole_segments(dtype):
    x = _values(50_000, 1).astype(dtype)
    rng = np.random.default_rng(2)
    lens = rng.integers(0, 400, 400)
    lens[5] = 20_000
    offsets = np.concatenate([[0], np.minimum(np.cumsum(lens), x.size)]).astype(np.uint64)
    offsets[-1] = x.size
    nseg = offsets.size - 1
    want = reprosum.segmented_sum(x, offsets, fold=5)
    whole = [reprosum.Accumulator(dtype, fold=5) for _ in range(nseg)]
    reprosum.add_segments(whole, x, offsets)
    assert array_bits(np.array([a.value() for a in whole], dtype=dtype)) == array_bits(want)
    parts = [reprosum.Accumulator(dtype, fold=5) for _ in range(nseg)]
    cuts = [0, 17, 12_345, 30_001, x.size]
    for lo, hi in zip(cuts, cuts[1:]):
        local = (np.clip(offsets.astype(np.int64), lo, hi) - lo).astype(np.uint64)
        reprosum.add_segments(parts, x[lo:hi], local)
    assert _states(parts) == _states(whole)


def _key_shard(args):
    x, keys, nkeys, fold = args
    accs = [reprosum.Accumulator("float64", fold=fold) for _ in range(nkeys)]
    reprosum.add_by_key(accs, x, keys)
    return accs


def test_key_shards_in_other_processes_merge_to_the_keyed_sum():
    x = _values(120_000, 3)
    rng = np.random.default_rng(4)
    nkeys = 50
    keys = (rng.integers(0, nkeys, x.size) ** 2 // nkeys).astype(np.int64)
    want = reprosum.sum_by_key(x, keys, nkeys, fold=4)
    perm = rng.permutation(x.size)
    shards = [(x[p], keys[p], nkeys, 4) for p in np.array_split(perm, 5)]
    with mp.get_context("spawn").Pool(3) as pool:
        parts = pool.map(_key_shard, shards)
    merged = [reprosum.Accumulator("float64", fold=4) for _ in range(nkeys)]
    for part in reversed(parts):
        for m, p in zip(merged, part):
            m.merge(p)
    assert array_bits(np.array([a.value() for a in merged])) == array_bits(want)
    one = [reprosum.Accumulator("float64", fold=4) for _ in range(nkeys)]
    reprosum.add_by_key(one, x, keys)
    assert _states(one) == _states(merged)


def test_bad_input_changes_no_accumulator():
    x = np.arange(10, dtype=np.float64)
    accs = [reprosum.Accumulator("float64") for _ in range(3)]
    for a in accs:
        a.add(0.5)
    before = _states(accs)
    offsets = np.array([0, 5, 10], dtype=np.uint64)
    keys = np.array([0, 1, 2, 1, 0, 1, 2, 1, 0, 1], dtype=np.int64)
    cases = [
        (lambda: reprosum.add_segments(accs, x, offsets), ValueError, "offsets has 3 entries"),
        (lambda: reprosum.add_segments(accs, x, [0, 5, 4, 10]), ValueError, "offsets"),
        (lambda: reprosum.add_segments(accs, x, [0, 5, 9, 9]), ValueError, "offsets"),
        (lambda: reprosum.add_by_key(accs, x, keys[:9]), ValueError, "keys has 9"),
        (lambda: reprosum.add_by_key(accs, x, np.where(keys == 2, 3, keys)), ValueError, "key"),
        (lambda: reprosum.add_by_key(accs, x, np.where(keys == 2, -1, keys)), ValueError, "key"),
        (lambda: reprosum.add_by_key(accs, x.astype(np.float32), keys), TypeError, "float32"),
        (lambda: reprosum.add_by_key([accs[0], accs[1], accs[0]], x, keys), ValueError, "appears earlier"),
        (lambda: reprosum.add_by_key([accs[0], 1.0, accs[2]], x, keys), TypeError, "Accumulator"),
        (lambda: reprosum.add_by_key(accs, x, keys.astype(np.float64)), TypeError, "integers"),
        (lambda: reprosum.add_by_key(accs, x.reshape(2, 5), keys), ValueError, "1-D"),
    ]
    for call, exc, text in cases:
        with pytest.raises(exc, match=text):
            call()
        assert _states(accs) == before, text
    # The capacity of one accumulator (float32: one short, then a segment of two).
    near = reprosum.Accumulator("float32")
    one = reprosum.Accumulator("float32")
    one.add(1.0)
    want = reprosum.CAPACITY_F32 - 1
    power = reprosum.Accumulator("float32")
    power.add(1.0)
    bit = 0
    while want >> bit:
        if want >> bit & 1:
            near.merge(power)
        bit += 1
        if want >> bit:
            power.merge(reprosum.Accumulator.from_bytes(power.to_bytes()))
    assert near.count == want
    pair = [reprosum.Accumulator("float32"), near]
    saved = _states(pair)
    with pytest.raises(ValueError, match="capacity"):
        reprosum.add_segments(pair, np.ones(3, np.float32), [0, 1, 3])
    assert _states(pair) == saved
    reprosum.add_segments(pair, np.ones(3, np.float32), [0, 2, 3])
    assert pair[1].count == reprosum.CAPACITY_F32
