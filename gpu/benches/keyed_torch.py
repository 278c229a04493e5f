"""The GPU keyed sum (issue 17) beside torch.index_add_ on the same device tensors, in one run.

reprosum: adn_cuda_sum_by_key_f64 / _f32 from the C library (libreprosum.so, built with
`cargo build --release -p reprosum-ffi --features cuda`), called through ctypes on the device
pointers of torch tensors (values, int64 keys, output). Baselines on the same tensors:
torch.index_add_ (float atomics: not reproducible) and torch.index_add_ with
torch.use_deterministic_algorithms(True) (run-to-run deterministic on one GPU, by sorting).

Every answer is checked: reprosum's by bits against the CPU library (adn_sum_by_key_*, all
threads, on host copies) and against itself on a shuffled copy of the pairs; torch's against
reprosum's to a relative 1e-9 (f64) or 1e-3 (f32) of the key's sum of magnitudes (values in
[0, 1): no cancellation). Each call is timed through to its output on the device,
synchronised; medians of REPS calls after a warm-up.

Keys: uniform over nkeys, or skewed: floor(nkeys * u^8) for u uniform in [0, 1) (at 1e3 keys
42% of the values have key 0, at 1e5 24%, at 1e7 13%).

Rows: who,method,type,N,median_us,G_elements_per_s,check (method: keyed_, torch_index_add_ or
torch_index_add_deterministic_, then uniform_ or skewed_ and the number of keys).
Usage: python3 keyed_torch.py path/to/libreprosum.so [N] [NKEYS...]
"""
import ctypes
import sys
import time

import torch

REPS = 5


def median_us(f):
    f()
    torch.cuda.synchronize()
    ts = []
    for _ in range(REPS):
        torch.cuda.synchronize()
        a = time.perf_counter()
        f()
        torch.cuda.synchronize()
        ts.append((time.perf_counter() - a) * 1e6)
    ts.sort()
    return ts[len(ts) // 2]


def main():
    lib = ctypes.CDLL(sys.argv[1])
    n = int(float(sys.argv[2])) if len(sys.argv) > 2 else 10**8
    nkeys_list = [int(float(a)) for a in sys.argv[3:]] or [10**3, 10**5, 10**7]
    fns = {}
    for t in ("f64", "f32"):
        for where in ("cuda_", ""):
            f = getattr(lib, f"adn_{where}sum_by_key_{t}")
            f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_uint, ctypes.c_void_p]
            f.restype = ctypes.c_int
            fns[(where, t)] = f
    dev = torch.device("cuda")
    g = torch.Generator(device=dev)
    g.manual_seed(17)
    for t, dtype, tol in (("f64", torch.float64, 1e-9), ("f32", torch.float32, 1e-3)):
        x = torch.rand(n, generator=g, device=dev, dtype=dtype)
        for nkeys in nkeys_list:
            for dist in ("uniform", "skewed"):
                if dist == "uniform":
                    keys = torch.randint(0, nkeys, (n,), generator=g, device=dev, dtype=torch.int64)
                else:
                    u = torch.rand(n, generator=g, device=dev, dtype=torch.float64)
                    keys = (u**8 * nkeys).to(torch.int64).clamp_(0, nkeys - 1)
                case = f"{dist}_{nkeys:.0e}".replace("+0", "")
                out = torch.empty(nkeys, device=dev, dtype=dtype)

                def ours(xx=x, kk=keys, oo=out):
                    rc = fns[("cuda_", t)](xx.data_ptr(), kk.data_ptr(), n, nkeys, 3, oo.data_ptr())
                    if rc != 0:
                        raise SystemExit(f"adn_cuda_sum_by_key_{t}: status {rc}")

                us = median_us(ours)
                mine = out.clone()
                # The CPU library on host copies, and the shuffled pairs on the device.
                xh, kh = x.cpu(), keys.cpu()
                cpu = torch.empty(nkeys, dtype=dtype)
                rc = fns[("", t)](xh.data_ptr(), kh.data_ptr(), n, nkeys, 3, cpu.data_ptr())
                perm = torch.randperm(n, generator=g, device=dev)
                xs, ks = x[perm], keys[perm]
                del perm
                ours(xs, ks, out)
                shuffled = out.clone()
                del xs, ks
                ibits = torch.int64 if t == "f64" else torch.int32
                ok = (
                    rc == 0
                    and torch.equal(mine.cpu().view(ibits), cpu.view(ibits))
                    and torch.equal(mine.view(ibits), shuffled.view(ibits))
                )
                print(f"reprosum,keyed_{case},{t},{n},{us:.2f},{n / us / 1e3:.2f},{'ok' if ok else 'WRONG'}", flush=True)
                scale = torch.zeros(nkeys, device=dev, dtype=torch.float64).index_add_(0, keys, x.abs().double())

                def close(r):
                    return bool(((r.double() - mine.double()).abs() <= tol * scale + 1e-300).all())

                acc = torch.zeros(nkeys, device=dev, dtype=dtype)

                def atomic():
                    acc.zero_()
                    acc.index_add_(0, keys, x)

                us = median_us(atomic)
                print(f"baseline,torch_index_add_{case},{t},{n},{us:.2f},{n / us / 1e3:.2f},{'ok' if close(acc) else 'WRONG'}", flush=True)
                torch.use_deterministic_algorithms(True)
                try:
                    us = median_us(atomic)
                    st = "ok" if close(acc) else "WRONG"
                finally:
                    torch.use_deterministic_algorithms(False)
                print(f"baseline,torch_index_add_deterministic_{case},{t},{n},{us:.2f},{n / us / 1e3:.2f},{st}", flush=True)
                del keys, out, acc, scale
                torch.cuda.empty_cache()


main()
