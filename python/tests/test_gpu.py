"""GPU tests (CUDA): tensors summed in place on their device give the CPU's bits. Each test
says why it skips (run pytest with -rs) when the build has no CUDA back end, or torch / CuPy
or a CUDA device is absent."""

import os

import numpy as np
import pytest
import reprosum


def _need_build():
    if "cuda" not in reprosum.built_backends():
        pytest.skip("this build of reprosum has no CUDA back end (maturin build --features cuda)")


def _torch():
    _need_build()
    try:
        import torch
    except ImportError:
        pytest.skip("torch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return torch


def _cupy():
    _need_build()
    try:
        import cupy
    except ImportError:
        pytest.skip("cupy is not installed")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("cupy sees no CUDA device")
    except Exception as e:  # no driver
        pytest.skip(f"cupy sees no CUDA device ({e})")
    return cupy


def bits(v, dtype):
    return int(np.asarray(v, dtype=dtype).view(np.uint64 if dtype == np.float64 else np.uint32))


def wide_tensor(torch, n, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(n, device="cuda", dtype=dtype, generator=g)
    span = 40 if dtype == torch.float64 else 10
    e = torch.randint(-span, span, (n,), device="cuda", generator=g).to(dtype)
    return x * torch.exp2(e)


SIZES = [10**3, 10**4, 10**5, 10**6, 10**7, 10**8]
if os.environ.get("REPROSUM_GPU_1E9", "1") == "1":
    SIZES.append(10**9)


def test_no_driver_is_a_runtime_error():
    """Without a driver the CUDA path raises NoDeviceError (a RuntimeError)."""
    _need_build()
    try:
        assert reprosum.sum(np.ones(10), device="cuda") == 10.0
    except reprosum.NoDeviceError as e:
        assert isinstance(e, RuntimeError)
        pytest.skip(f"no CUDA driver or device here: {e}")


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dt", ["float64", "float32"])
def test_torch_shuffled_gives_cpu_bits(n, dt):
    torch = _torch()
    dtype = getattr(torch, dt)
    free, _ = torch.cuda.mem_get_info()
    if n * (8 if dt == "float64" else 4) * 3 > free:
        pytest.skip(f"{n} values do not fit the device's free memory ({free} bytes)")
    x = wide_tensor(torch, n, dtype, seed=n % 1000 + 1)
    want = reprosum.sum(x.cpu().numpy())
    perm = torch.randperm(n, device="cuda")
    y = x[perm]
    del perm
    got = reprosum.sum(y)
    assert bits(got, np.dtype(dt)) == bits(want, np.dtype(dt)), (n, dt, got, want)
    assert bits(reprosum.sum(x), np.dtype(dt)) == bits(want, np.dtype(dt))


def test_torch_non_default_stream():
    torch = _torch()
    s = torch.cuda.Stream()
    x = wide_tensor(torch, 10**7, torch.float64, seed=3)
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        # Work queued on s that the sum must see: y is written by kernels on s.
        y = torch.empty_like(x)
        y.copy_(x)
        for _ in range(20):
            y.mul_(1.0000001)
        got = reprosum.sum(y)
        c = reprosum.cumsum(y)
    s.synchronize()
    want = reprosum.sum(y.cpu().numpy())
    assert bits(got, np.float64) == bits(want, np.float64)
    assert c.device == y.device and c.dtype == y.dtype
    assert c.cpu().numpy().tobytes() == reprosum.cumsum(y.cpu().numpy()).tobytes()


@pytest.mark.parametrize("dt", ["float64", "float32"])
def test_torch_cumsum_returns_a_tensor_on_the_device(dt):
    torch = _torch()
    dtype = getattr(torch, dt)
    x = wide_tensor(torch, 10**6 + 7, dtype, seed=5)
    c = reprosum.cumsum(x)
    assert isinstance(c, torch.Tensor) and c.device == x.device and c.dtype == x.dtype
    assert c.cpu().numpy().tobytes() == reprosum.cumsum(x.cpu().numpy()).tobytes()
    out = torch.full_like(x, -1.0)
    assert reprosum.cumsum(x, out=out) is out
    assert out.cpu().numpy().tobytes() == c.cpu().numpy().tobytes()
    inplace = x.clone()
    reprosum.cumsum(inplace, out=inplace)
    assert inplace.cpu().numpy().tobytes() == c.cpu().numpy().tobytes()


def test_torch_accumulator_and_errors():
    torch = _torch()
    x = wide_tensor(torch, 10**6, torch.float64, seed=9)
    a = reprosum.Accumulator()
    a.add_array(x[: 10**5])
    a.add_array(x[10**5 :])
    cpu = reprosum.Accumulator()
    cpu.add_array(x.cpu().numpy())
    assert a.to_bytes() == cpu.to_bytes()
    # Every fold of the format runs on the GPU (f64 2..52); one past it is refused.
    assert bits(reprosum.sum(x, fold=52), np.float64) == bits(reprosum.sum(x.cpu().numpy(), fold=52), np.float64)
    with pytest.raises(ValueError, match="fold"):
        reprosum.sum(x, fold=53)
    with pytest.raises(ValueError, match="non-contiguous"):
        reprosum.sum(x[::2])
    with pytest.raises(TypeError, match="float16"):
        reprosum.sum(x.half())
    # (by bits: the float16 values overflow to infinities of both signs, so the sum is NaN)
    half = reprosum.sum(x.half(), dtype="float64")
    assert bits(half, np.float64) == bits(reprosum.sum(x.half().double().cpu().numpy()), np.float64)
    out = torch.full((10**6 - 1,), -1.0, device="cuda", dtype=torch.float64)
    with pytest.raises(ValueError, match="elements"):
        reprosum.cumsum(x, out=out)
    assert bool((out == -1.0).all())
    with pytest.raises(ValueError, match="overlap"):
        reprosum.cumsum(x[:-1], out=x[1:])
    with pytest.raises(ValueError, match="host"):
        reprosum.cumsum(x, out=np.empty(10**6))


def test_host_array_on_a_gpu():
    _torch()
    x = np.random.default_rng(2).standard_normal(10**6)
    assert bits(reprosum.sum(x, device="cuda:0"), np.float64) == bits(reprosum.sum(x), np.float64)


def test_every_device():
    torch = _torch()
    if torch.cuda.device_count() < 2:
        pytest.skip("one CUDA device: the second-device test needs two")
    x = wide_tensor(torch, 10**6, torch.float64, seed=11)
    want = reprosum.sum(x.cpu().numpy())
    for d in range(torch.cuda.device_count()):
        assert bits(reprosum.sum(x.to(f"cuda:{d}")), np.float64) == bits(want, np.float64)


@pytest.mark.parametrize("n", [10**3, 10**5, 10**7])
def test_cupy(n):
    cupy = _cupy()
    rng = cupy.random.default_rng(n)
    x = rng.standard_normal(n) * cupy.exp2(rng.integers(-40, 40, n).astype(cupy.float64))
    want = reprosum.sum(cupy.asnumpy(x))
    y = x[cupy.asarray(np.random.default_rng(n).permutation(n))]
    assert bits(reprosum.sum(y), np.float64) == bits(want, np.float64)
    c = reprosum.cumsum(x)
    assert isinstance(c, cupy.ndarray) and c.device == x.device
    assert cupy.asnumpy(c).tobytes() == reprosum.cumsum(cupy.asnumpy(x)).tobytes()

    class CaiOnly:
        """Only __cuda_array_interface__ (the fallback path)."""

        def __init__(self, a):
            self.a = a
            self.__cuda_array_interface__ = a.__cuda_array_interface__

    assert bits(reprosum.sum(CaiOnly(y)), np.float64) == bits(want, np.float64)
    out = cupy.empty_like(x)
    reprosum.cumsum(CaiOnly(x), out=CaiOnly(out))
    assert cupy.asnumpy(out).tobytes() == cupy.asnumpy(c).tobytes()


def test_cupy_non_default_stream():
    cupy = _cupy()
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        x = cupy.arange(10**7, dtype=cupy.float64) * 0.5
        got = reprosum.sum(x)
    s.synchronize()
    assert bits(got, np.float64) == bits(reprosum.sum(cupy.asnumpy(x)), np.float64)
