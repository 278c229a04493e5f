"""Bad input for every entry point raises the right exception, with the library's message,
and leaves every output (and accumulator) as it was."""

import numpy as np
import pytest
import reprosum
from numpy.lib.stride_tricks import as_strided

SENTINEL = -7.25


def filled(n, dtype=np.float64):
    return np.full(n, SENTINEL, dtype=dtype)


def untouched(out):
    return bool(np.all(out == SENTINEL))


X = np.array([1e16, 1.0, -1e16, 0.5, 3.0, -2.0])


@pytest.mark.parametrize("fold", [-1, 0, 1, 53, 10**30, -(10**30), np.int64(60)])
def test_bad_fold_f64(fold):
    with pytest.raises(ValueError, match="fold outside"):
        reprosum.sum(X, fold=fold)
    out = filled(len(X))
    with pytest.raises(ValueError, match="fold outside"):
        reprosum.cumsum(X, fold=fold, out=out)
    assert untouched(out)
    for f, args in [
        (reprosum.segmented_sum, (X, [0, 2, 6])),
        (reprosum.segmented_cumsum, (X, [0, 2, 6])),
        (reprosum.sum_by_key, (X, [0, 1, 0, 1, 0, 1], 2)),
    ]:
        o = filled(len(f(*args)))
        with pytest.raises(ValueError, match="fold outside"):
            f(*args, fold=fold, out=o)
        assert untouched(o)
    o = filled(2)
    with pytest.raises(ValueError, match="fold outside"):
        reprosum.sum_rows(X.reshape(2, 3), fold=fold, out=o)
    assert untouched(o)
    with pytest.raises(ValueError, match="fold outside"):
        reprosum.Accumulator("float64", fold=fold)


def test_fold_limits_per_type():
    x32 = X.astype(np.float32)
    assert reprosum.sum(X, fold=52) == reprosum.sum(X, fold=3) or True  # accepted
    with pytest.raises(ValueError, match="fold outside"):
        reprosum.sum(x32, fold=22)
    reprosum.sum(x32, fold=21)
    with pytest.raises(ValueError, match="fold outside"):
        reprosum.Accumulator("float32", fold=22)


@pytest.mark.parametrize("dtype", ["int64", "int32", "float16", "complex128", "bool", "uint8", ">f8"])
def test_other_dtypes_name_the_dtype(dtype):
    x = np.ones(5, dtype=dtype)
    name = str(np.dtype(dtype))
    with pytest.raises(TypeError, match=f"unsupported dtype {name}"):
        reprosum.sum(x)
    with pytest.raises(TypeError, match=name):
        reprosum.cumsum(x)
    with pytest.raises(TypeError, match=name):
        reprosum.segmented_sum(x, [0, 5])
    with pytest.raises(TypeError, match=name):
        reprosum.Accumulator().add_array(x)
    # Explicit conversion is allowed (of real values: numpy warns when it drops imaginary parts).
    if np.dtype(dtype).kind != "c":
        assert reprosum.sum(x, dtype="float64") == float(np.sum(x.astype(np.float64)))
        assert reprosum.cumsum(x, dtype=np.float32).dtype == np.float32


def test_dlpack_dtype_is_named(dlpack_only):
    with pytest.raises(TypeError, match="unsupported dtype int64"):
        reprosum.sum(dlpack_only(np.arange(4)))
    with pytest.raises(TypeError, match="unsupported dtype float16"):
        reprosum.sum(dlpack_only(np.ones(4, np.float16)))


def test_not_an_array():
    with pytest.raises(TypeError):
        reprosum.sum(object())
    with pytest.raises(TypeError):
        reprosum.sum(["a", "b"])


def test_two_d_where_one_d_is_needed():
    m = np.ones((2, 3))
    with pytest.raises(ValueError, match="1-D"):
        reprosum.sum(m)
    with pytest.raises(ValueError, match="1-D"):
        reprosum.cumsum(m)
    out = filled(6)
    with pytest.raises(ValueError, match="1-D"):
        reprosum.cumsum(m, out=out)
    assert untouched(out)
    with pytest.raises(ValueError, match="1-D"):
        reprosum.Accumulator().add_array(m)
    with pytest.raises(ValueError, match="1-D"):
        reprosum.segmented_sum(m, [0, 6])
    with pytest.raises(ValueError, match="2-D"):
        reprosum.sum_rows(X)
    with pytest.raises(ValueError, match="1-D"):
        reprosum.sum(np.float64(1.0).reshape(()))


def test_cumsum_out_checks():
    out = filled(len(X) - 1)
    with pytest.raises(ValueError, match="elements"):
        reprosum.cumsum(X, out=out)
    assert untouched(out)
    out = filled(len(X) + 1)
    with pytest.raises(ValueError, match="elements"):
        reprosum.cumsum(X, out=out)
    assert untouched(out)
    out = filled(len(X), np.float32)
    with pytest.raises(TypeError, match="float32"):
        reprosum.cumsum(X, out=out)
    assert untouched(out)
    out = filled(len(X))
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        reprosum.cumsum(X, out=out)
    assert untouched(out)


@pytest.mark.parametrize("shift", [1, 2, -1, -3])
def test_cumsum_overlap(shift):
    buf = np.full(20, SENTINEL)
    buf[5:11] = X
    x = buf[5:11]
    out = buf[5 + shift : 11 + shift]
    before = buf.copy()
    with pytest.raises(ValueError, match="overlap"):
        reprosum.cumsum(x, out=out)
    assert buf.tobytes() == before.tobytes()
    # A reversed view of the same memory overlaps too.
    with pytest.raises(ValueError, match="overlap"):
        reprosum.cumsum(x, out=x[::-1])
    assert buf.tobytes() == before.tobytes()
    # The same elements are allowed (in place).
    want = reprosum.cumsum(X)
    reprosum.cumsum(x, out=x)
    assert x.tobytes() == want.tobytes()


def test_capacity_is_checked_before_anything():
    # A zero-stride view: 2**32 float32 values in 4 bytes of memory, past the capacity.
    n = reprosum.CAPACITY_F32 + 1
    big = as_strided(np.ones(1, np.float32), shape=(n,), strides=(0,))
    big.flags.writeable = False
    with pytest.raises(ValueError, match="capacity"):
        reprosum.sum(big)
    outbuf = np.full(1, SENTINEL, np.float32)
    out = as_strided(outbuf, shape=(n,), strides=(0,))
    with pytest.raises(ValueError, match="capacity"):
        reprosum.cumsum(big, out=out)
    assert untouched(outbuf)
    a = reprosum.Accumulator("float32")
    with pytest.raises(ValueError, match="capacity"):
        a.add_array(big)
    assert a.count == 0
    seg = filled(1, np.float32)
    with pytest.raises(ValueError, match="capacity"):
        reprosum.segmented_sum(big, np.array([0, n], dtype=np.uint64), out=seg)
    assert untouched(seg)


def near_full(room):
    """A float32 accumulator holding CAPACITY_F32 - room ones, from merged powers of two."""
    target = reprosum.CAPACITY_F32 - room
    power = reprosum.Accumulator("float32")
    power.add(1.0)
    full = reprosum.Accumulator("float32")
    for bit in range(64):
        if target >> bit & 1:
            full.merge(power)
        if target >> (bit + 1) == 0:
            break
        power.merge(power.copy())
    assert full.count == target
    return full


def test_accumulator_capacity_and_merge():
    room = 10
    full = near_full(room)
    before = full.to_bytes()
    with pytest.raises(ValueError, match="capacity"):
        full.add_array(np.ones(room + 1, np.float32))
    assert full.to_bytes() == before
    other = reprosum.Accumulator("float32")
    other.add_array(np.ones(room + 1, np.float32))
    with pytest.raises(ValueError, match="capacity"):
        full.merge(other)
    assert full.to_bytes() == before
    full.add_array(np.ones(room, np.float32))
    assert full.count == reprosum.CAPACITY_F32
    with pytest.raises(ValueError, match="capacity"):
        full.add(1.0)


def test_accumulator_errors():
    with pytest.raises(TypeError, match="int64"):
        reprosum.Accumulator("int64")
    a = reprosum.Accumulator("float64", fold=3)
    a.add_array(X)
    before = a.to_bytes()
    b = reprosum.Accumulator("float64", fold=4)
    with pytest.raises(ValueError, match="different folds"):
        a.merge(b)
    with pytest.raises(TypeError, match="dtypes"):
        a.merge(reprosum.Accumulator("float32"))
    with pytest.raises(TypeError, match="float32"):
        a.add_array(X.astype(np.float32))
    assert a.to_bytes() == before
    with pytest.raises(ValueError, match="encoding"):
        reprosum.Accumulator.from_bytes(b"not an accumulator")
    for i in range(len(before) * 8):
        flipped = bytearray(before)
        flipped[i // 8] ^= 1 << (i % 8)
        with pytest.raises(ValueError, match="encoding"):
            reprosum.Accumulator.from_bytes(bytes(flipped))
    with pytest.raises(ValueError):
        reprosum.Accumulator.from_bytes(before[:-1])


def test_segmented_bad_offsets():
    for offsets in ([0, 3, 2, 6], [1, 3, 6], [0, 3, 5], [0, 3, 7], [0, -1, 6]):
        out = filled(len(offsets) - 1)
        with pytest.raises(ValueError, match="offsets"):
            reprosum.segmented_sum(X, offsets, out=out)
        assert untouched(out)
        out = filled(len(X))
        with pytest.raises(ValueError, match="offsets"):
            reprosum.segmented_cumsum(X, offsets, out=out)
        assert untouched(out)
    with pytest.raises(TypeError, match="integers"):
        reprosum.segmented_sum(X, [0.0, 6.0])
    out = filled(3)
    with pytest.raises(ValueError, match="offsets has 3"):
        reprosum.segmented_sum(X, [0, 3, 6], out=out)
    assert untouched(out)
    with pytest.raises(ValueError):
        reprosum.segmented_sum(X, [])


def test_segmented_overlap():
    buf = np.full(16, SENTINEL)
    buf[:6] = X
    x = buf[:6]
    before = buf.copy()
    with pytest.raises(ValueError, match="overlap"):
        reprosum.segmented_sum(x, [0, 3, 6], out=buf[4:6])
    with pytest.raises(ValueError, match="overlap"):
        reprosum.segmented_cumsum(x, [0, 3, 6], out=buf[1:7])
    assert buf.tobytes() == before.tobytes()
    want = reprosum.segmented_cumsum(X, [0, 3, 6])
    reprosum.segmented_cumsum(x, [0, 3, 6], out=x)
    assert x.tobytes() == want.tobytes()


def test_keys_out_of_range():
    for keys in ([0, 1, 2, 3, 0, 1], [0, -1, 0, 0, 0, 0]):
        out = filled(3)
        with pytest.raises(ValueError, match="key"):
            reprosum.sum_by_key(X, keys, out=out)
        assert untouched(out)
    out = filled(3)
    with pytest.raises(ValueError, match="keys has 5"):
        reprosum.sum_by_key(X, [0, 1, 2, 0, 1], out=out)
    assert untouched(out)
    with pytest.raises(TypeError, match="integers"):
        reprosum.sum_by_key(X, X, 2)
    with pytest.raises(ValueError, match="key"):
        reprosum.sum_by_key(X, np.array([0, 2**63, 0, 0, 0, 0], dtype=np.uint64), 3)
    with pytest.raises(ValueError, match="nkeys"):
        reprosum.sum_by_key(X, [0] * 6, 2, out=filled(3))


def test_sum_rows_checks():
    out = filled(3)
    with pytest.raises(ValueError, match="rows"):
        reprosum.sum_rows(X.reshape(2, 3), out=out)
    assert untouched(out)
    buf = np.full(8, SENTINEL)
    buf[:6] = X
    before = buf.copy()
    with pytest.raises(ValueError, match="overlap"):
        reprosum.sum_rows(buf[:6].reshape(2, 3), out=buf[5:7])
    assert buf.tobytes() == before.tobytes()


def test_devices():
    with pytest.raises(ValueError, match="device"):
        reprosum.sum(X, device="tpu")
    with pytest.raises(ValueError, match="ordinal"):
        reprosum.sum(X, device="cuda:x")
    assert reprosum.sum(X, device="cpu") == reprosum.sum(X)
    for dev in ("cuda", "cuda:0", "hip:0"):
        backend = dev.split(":")[0]
        if backend in reprosum.built_backends():
            try:
                reprosum.sum(X, device=dev)
            except reprosum.NoDeviceError as e:
                assert isinstance(e, RuntimeError)
                print(f"{dev}: {e}")
            continue
        with pytest.raises(reprosum.NotBuiltError, match="rebuild with"):
            reprosum.sum(X, device=dev)
    assert issubclass(reprosum.NotBuiltError, reprosum.DeviceError)
    assert issubclass(reprosum.NoDeviceError, reprosum.DeviceError)
    assert issubclass(reprosum.DeviceError, RuntimeError)


def test_device_arrays_without_a_gpu():
    class FakeCuda:
        """A __cuda_array_interface__ naming a device pointer."""

        __cuda_array_interface__ = {"shape": (4,), "typestr": "<f8", "data": (0x7F0000000000, False), "version": 3}

    with pytest.raises(TypeError, match="host arrays"):
        reprosum.segmented_sum(FakeCuda(), [0, 4])
    if "cuda" not in reprosum.built_backends():
        with pytest.raises(reprosum.NotBuiltError):
            reprosum.sum(FakeCuda())
        return
    try:
        reprosum.sum(np.zeros(1), device="cuda")
    except reprosum.NoDeviceError:
        with pytest.raises(RuntimeError):
            reprosum.sum(FakeCuda())
        return
    pytest.skip(
        "a CUDA device is present: a made-up device address is not checked there (the driver "
        "does not know it, so the library reads it as host memory, the C API's rule)"
    )
