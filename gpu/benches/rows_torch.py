"""The GPU row sums (issue 17, batched rows) beside torch.sum(dim=1) on the same device tensors.

reprosum: adn_cuda_sum_rows_f64 / _f32 from the C library (libreprosum.so, built with
`cargo build --release -p reprosum-ffi --features cuda`), called through ctypes on the device
pointer of a torch tensor (rows x cols, row stride = cols). Baseline on the same tensor:
torch.sum(x, dim=1) (not reproducible across shapes). reprosum's answer is checked by bits
against the CPU library (adn_sum_rows_*, on a host copy); torch's against reprosum's to a
relative 1e-9 (f64) or 1e-3 (f32) (values uniform in [0, 1): no cancellation). Each call is
timed through to its output on the device, synchronised; the median of REPS calls after a
warm-up.

Rows: who,method,type,N,median_us,G_elements_per_s,check (method rows_RxC or
rows_RxC_torch_sum_dim1; N = R x C).
Usage: python3 rows_torch.py path/to/libreprosum.so
"""
import ctypes
import sys
import time

import torch

REPS = 30
SHAPES = ((10**4, 10**4), (10**6, 64))


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


def row(who, m, t, n, us, ok):
    print(f"{who},{m},{t},{n},{us:.2f},{n / us / 1e3:.2f},{'ok' if ok else 'WRONG'}", flush=True)


def main():
    lib = ctypes.CDLL(sys.argv[1])
    args = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_uint, ctypes.c_void_p]
    dev = torch.device("cuda")
    g = torch.Generator(device=dev)
    g.manual_seed(23)
    for t, dtype, tol in (("f64", torch.float64, 1e-9), ("f32", torch.float32, 1e-3)):
        gpu, cpu = getattr(lib, f"adn_cuda_sum_rows_{t}"), getattr(lib, f"adn_sum_rows_{t}")
        for f in (gpu, cpu):
            f.argtypes = args
            f.restype = ctypes.c_int
        for rows, cols in SHAPES:
            x = torch.rand(rows, cols, generator=g, device=dev, dtype=dtype)
            out = torch.empty(rows, device=dev, dtype=dtype)
            st = []
            us = median_us(lambda: st.append(gpu(x.data_ptr(), rows, cols, cols, 3, out.data_ptr())))
            hx = x.cpu()
            want = torch.empty(rows, dtype=dtype)
            ok = cpu(hx.data_ptr(), rows, cols, cols, 3, want.data_ptr()) == 0 and set(st) == {0}
            ok = ok and torch.equal(out.cpu().view(torch.int64 if t == "f64" else torch.int32),
                                    want.view(torch.int64 if t == "f64" else torch.int32))
            m = f"rows_{rows}x{cols}"
            row("reprosum", m, t, rows * cols, us, ok)
            res = []
            us = median_us(lambda: res.append(torch.sum(x, dim=1)))
            close = torch.allclose(res[-1].cpu(), want, rtol=tol, atol=0)
            row("baseline", m + "_torch_sum_dim1", t, rows * cols, us, close)


if __name__ == "__main__":
    main()
