"""torch.sum / torch.cumsum and CuPy sum / cumsum baselines for the reprosum GPU bench.

Timed like every other method: the whole call on a device tensor through to the result
(sum: the scalar on the host via .item(); cumsum: the output on the device, synchronised),
median of repeated calls. Answers are checked against a long double sum of the same values.
CuPy (if importable; a comment line says so if not) sees the same tensor through DLPack.
Output lines: "baseline,METHOD,TYPE,N,MEDIAN_US,GELEM_PER_S,STATUS".
"""
import sys
import time

import numpy as np
import torch

try:
    import cupy
except ImportError as e:  # the rows are left out, and the output says why
    cupy = None
    print(f"# cupy baselines skipped: {e}", flush=True)


def median_us(reps, f):
    for _ in range(3):
        f()
    ts = []
    for _ in range(reps):
        a = time.perf_counter()
        f()
        ts.append((time.perf_counter() - a) * 1e6)
    ts.sort()
    return ts[len(ts) // 2]


def ref_sum(x):
    h = x.cpu().numpy()
    s = np.longdouble(0)
    for i in range(0, h.size, 1 << 24):
        s += np.sum(h[i : i + (1 << 24)].astype(np.longdouble))
    return s


def main():
    sizes = [int(float(a)) for a in sys.argv[1:]] or [10**6, 10**8, 10**9]
    dev = torch.device("cuda")
    g = torch.Generator(device=dev)
    g.manual_seed(1)
    for n in sizes:
        reps = 10 if n >= 10**9 else 30
        for dt, name, tol in ((torch.float64, "f64", 1e-12), (torch.float32, "f32", 1e-3)):
            x = torch.rand(n, dtype=dt, device=dev, generator=g)
            ref = ref_sum(x)
            box = {}

            def report(method, call, value):
                us = median_us(reps, call)
                ok = abs(np.longdouble(value()) - ref) <= tol * ref
                print(f"baseline,{method},{name},{n},{us:.2f},{n / us / 1e3:.2f},{'ok' if ok else 'WRONG'}", flush=True)

            def s():
                box["v"] = torch.sum(x).item()

            def c():
                box["c"] = torch.cumsum(x, 0)
                torch.cuda.synchronize()

            report("torch_sum", s, lambda: box["v"])
            report("torch_cumsum", c, lambda: box["c"][-1].item())
            del box["c"]
            if cupy is not None:
                cx = cupy.from_dlpack(x)

                def cs():
                    box["v"] = cupy.sum(cx).item()

                def cc():
                    box["c"] = cupy.cumsum(cx)
                    cupy.cuda.Device().synchronize()

                report("cupy_sum", cs, lambda: box["v"])
                report("cupy_cumsum", cc, lambda: float(box["c"][-1].item()))
                del cx, box["c"]
                cupy.get_default_memory_pool().free_all_blocks()
            del x, box
            torch.cuda.empty_cache()
    for dt, name in ((torch.float64, "f64"), (torch.float32, "f32")):
        x = torch.rand(100000, dtype=dt, device=dev, generator=g)
        for n in (1, 64, 1024, 2048, 2049, 100000):
            v = x[:n]
            us = median_us(200, lambda: torch.sum(v).item())
            print(f"baseline,torch_sum_latency,{name},{n},{us:.2f},{n / us / 1e3:.2f},ok", flush=True)


if __name__ == "__main__":
    main()
