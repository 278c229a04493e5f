"""One run of the Python bench: reprosum.sum against numpy.sum, math.fsum, xsum and bitrep
(when installed) on the CPU, and against torch.sum and cupy.sum on a CUDA GPU (when there).

Every time is the best of a few calls made from Python (the call overhead included), and
every answer is checked: reprosum's against its own bits on the CPU (the GPU must give the
same bits) and against the correctly rounded sum (math.fsum) within the documented bound;
the others' error against math.fsum is printed.

    python bench.py [--cpu] [--gpu] [--sizes 1e7,1e8] [--fsum-max 1e8]
"""

import argparse
import math
import os
import platform
import time

import numpy as np
import reprosum


def best(f, reps):
    out, t = None, float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        out = f()
        t = min(t, time.perf_counter() - t0)
    return t, out


def reps_for(n):
    return 20 if n <= 10**5 else 7 if n <= 10**7 else 3


def bits(v):
    return int(np.float64(v).view(np.uint64))


def rel(v, exact):
    if exact == 0:
        return abs(v)
    return abs(v - exact) / abs(exact)


def fmt_t(t):
    return f"{t * 1e3:.3f} ms" if t >= 1e-3 else f"{t * 1e6:.1f} us"


def data(n, seed=1):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n)


def cpu(sizes, fsum_max):
    rows = []
    for n in sizes:
        x = data(n)
        exact = math.fsum(x) if n <= fsum_max else None
        reps = reps_for(n)
        # The library's bound for K = 3: n * 2^-80 * max|x| (plus the final rounding).
        bound = n * 2.0**-80 * float(np.max(np.abs(x))) if n else 0.0
        was = reprosum.num_threads()
        reprosum.set_num_threads(1)
        t1, r1 = best(lambda: reprosum.sum(x), reps)
        reprosum.set_num_threads(was)
        tall, rall = best(lambda: reprosum.sum(x), reps)
        assert bits(r1) == bits(rall), "thread counts gave different bits"
        ok = "same bits 1 / %d threads" % was
        if exact is not None:
            assert abs(r1 - exact) <= bound + abs(exact) * 2.0**-52, (r1, exact)
            ok += ", |err| within bound" if bits(r1) != bits(exact) else ", = fsum (correctly rounded)"
        rows.append((n, "reprosum.sum, 1 thread", t1, ok))
        rows.append((n, f"reprosum.sum, {was} threads", tall, ok))
        tn, rn = best(lambda: np.sum(x), reps)
        rows.append((n, "numpy.sum", tn, "rel err %.1e vs fsum" % rel(rn, exact) if exact is not None else "-"))
        if exact is not None:
            tf, rf = best(lambda: math.fsum(x), 1)
            rows.append((n, "math.fsum (1 call)", tf, "correctly rounded (the reference)"))
        try:
            import xsum

            def xs():
                a = xsum.xsum_small_accumulator()
                xsum.xsum_add(a, x)
                return xsum.xsum_round(a)

            tx, rx = best(xs, min(reps, 3))
            rows.append((n, "xsum (small accumulator)", tx, "= fsum" if exact is not None and bits(rx) == bits(exact) else "rel err %.1e" % rel(rx, exact) if exact is not None else "-"))
        except ImportError:
            rows.append((n, "xsum", float("nan"), "not installed"))
        try:
            import bitrep

            def br():
                f = bitrep.FastSumF64()
                f.extend(x)
                return f.finish().value()

            tb, rb = best(br, 1)
            rows.append((n, "bitrep FastSumF64.extend", tb, "= fsum" if exact is not None and bits(rb) == bits(exact) else "rel err %.1e" % rel(rb, exact) if exact is not None else "-"))
        except ImportError:
            rows.append((n, "bitrep", float("nan"), "not installed"))
        del x
    return rows


def gpu(sizes):
    rows = []
    try:
        import torch
    except ImportError:
        print("GPU part skipped: torch is not installed")
        return rows
    if not torch.cuda.is_available():
        print("GPU part skipped: torch sees no CUDA device")
        return rows
    try:
        import cupy
    except ImportError:
        cupy = None
    print("GPU:", torch.cuda.get_device_name(0))
    for n in sizes:
        g = torch.Generator(device="cuda").manual_seed(n % 997)
        x = torch.randn(n, device="cuda", dtype=torch.float64, generator=g)
        host = x.cpu().numpy()
        want = reprosum.sum(host)
        exact = math.fsum(host) if n <= 10**8 else None
        reps = reps_for(n) if n > 10**5 else 200
        reprosum.sum(x)  # opens and probes the device
        tr, r = best(lambda: reprosum.sum(x), reps)
        assert bits(r) == bits(want), ("GPU bits differ from the CPU's", n)
        rows.append((n, "reprosum.sum (float64, CUDA)", tr, "= the CPU's bits"))
        tt, rt = best(lambda: torch.sum(x).item(), reps)
        # Not reproducible, but a sum of standard normals must be close: a garbage answer
        # (a missed synchronisation) fails here.
        tol = 1e-12 * n + 1e-12
        assert abs(rt - want) <= tol, ("torch.sum", n, rt, want)
        rows.append((n, "torch.sum(x).item()", tt, "rel err %.1e vs fsum" % rel(rt, exact) if exact is not None else "rel diff %.1e vs reprosum" % rel(rt, want)))
        if cupy is not None:
            c = cupy.from_dlpack(x)
            tc, rc = best(lambda: float(cupy.sum(c)), reps)
            assert abs(rc - want) <= tol, ("cupy.sum", n, rc, want)
            rows.append((n, "float(cupy.sum(x))", tc, "rel err %.1e vs fsum" % rel(rc, exact) if exact is not None else "rel diff %.1e vs reprosum" % rel(rc, want)))
        del x, host
        torch.cuda.empty_cache()
    return rows


def table(rows):
    print("| N | method | time (best) | G values/s | answer |")
    print("|---|---|---|---|---|")
    for n, m, t, ok in rows:
        rate = f"{n / t / 1e9:.2f}" if t == t and t > 0 else "-"
        size = f"{n:.0e}" if n >= 10**5 else str(n)
        print(f"| {size} | {m} | {fmt_t(t) if t == t else '-'} | {rate} | {ok} |")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cpu", action="store_true")
    p.add_argument("--gpu", action="store_true")
    p.add_argument("--sizes", default="1e7,1e8")
    p.add_argument("--gpu-sizes", default="1,64,1024,2048,2049,1e8,1e9")
    p.add_argument("--fsum-max", type=float, default=1e8)
    a = p.parse_args()
    both = not a.cpu and not a.gpu
    print(f"reprosum {reprosum.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, reprosum threads {reprosum.num_threads()}, backends {reprosum.built_backends()}")
    if a.cpu or both:
        table(cpu([int(float(s)) for s in a.sizes.split(",")], a.fsum_max))
    if a.gpu or both:
        rows = gpu([int(float(s)) for s in a.gpu_sizes.split(",")])
        if rows:
            table(rows)


if __name__ == "__main__":
    main()
