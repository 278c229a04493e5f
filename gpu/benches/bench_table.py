"""Formats the rows of run-gpu-bench.sh into the tables of docs/PERFORMANCE.md (GPU)."""
import sys
from collections import defaultdict

rows = [l.strip().split(",") for l in open(sys.argv[1]) if l.count(",") == 6 and not l.startswith("#")]
by = defaultdict(dict)
for who, m, ty, n, us, ge, st in rows:
    by[(ty, int(n))][f"{who}:{m}"] = (float(us), float(ge), st)

def get(k, key):
    return by[k].get(key)

print("\n| type | N | method | median time | G elem/s | check |")
print("|---|---|---|---|---|---|")
for k in sorted(by):
    for key, (us, ge, st) in sorted(by[k].items()):
        if "latency" in key:
            continue
        print(f"| {k[0]} | {k[1]:.0e} | {key} | {us:.1f} us | {ge:.1f} | {st} |")
print("\n| type | N | reprosum sum / plain read | reprosum cumsum time / CUB InclusiveSum time |")
print("|---|---|---|---|")
for k in sorted(by):
    s, p = get(k, "reprosum:sum"), get(k, "baseline:plain_read_sum")
    c, i = get(k, "reprosum:cumsum"), get(k, "baseline:cub_inclusive_sum")
    if s and p and c and i:
        print(f"| {k[0]} | {k[1]:.0e} | {s[1] / p[1] * 100:.0f}% | {c[0] / i[0]:.2f}x |")
print("\n| type | N | reprosum latency | CUB Sum latency | ratio | CUB gpu_to_gpu | torch.sum |")
print("|---|---|---|---|---|---|---|")
for k in sorted(by):
    r, c = get(k, "reprosum:sum_latency"), get(k, "baseline:cub_reduce_sum_latency")
    g, t = get(k, "baseline:cub_gpu_to_gpu_latency"), get(k, "baseline:torch_sum_latency")
    if r and c:
        print(f"| {k[0]} | {k[1]} | {r[0]:.1f} us | {c[0]:.1f} us | {r[0] / c[0]:.2f} | {g[0] if g else float('nan'):.1f} us | {t[0] if t else float('nan'):.1f} us |")
print("\n| type | N | reprosum cumsum latency | single pass | multi-pass | CUB InclusiveSum latency | ratio |")
print("|---|---|---|---|---|---|---|")
for k in sorted(by):
    r, c = get(k, "reprosum:cumsum_latency"), get(k, "baseline:cub_inclusive_sum_latency")
    sp, mp = get(k, "reprosum:cumsum_latency_single"), get(k, "reprosum:cumsum_latency_multi")
    if r and c:
        sps = f"{sp[0]:.1f} us ({sp[2]})" if sp else "-"
        mps = f"{mp[0]:.1f} us ({mp[2]})" if mp else "-"
        print(f"| {k[0]} | {k[1]} | {r[0]:.1f} us ({r[2]}) | {sps} | {mps} | {c[0]:.1f} us | {r[0] / c[0]:.2f} |")
print("\n| type | N | memory | reprosum sum | baseline | sum / baseline time | reprosum cumsum | copy in and out | cumsum / copies |")
print("|---|---|---|---|---|---|---|---|---|")
for k in sorted(by):
    for mem in ["device", "managed_on_device", "managed_on_host", "pinned", "pageable"]:
        s = get(k, f"reprosum:sum_{mem}")
        if not s:
            continue
        host = mem in ("pinned", "pageable")
        b = get(k, f"baseline:{'h2d_copy' if host else 'plain_read_sum'}_{mem}")
        c = get(k, f"reprosum:cumsum_{mem}")
        cc = get(k, f"baseline:h2d_d2h_copy_{mem}")
        base = f"{'copy in' if host else 'plain read'} {b[0]:.0f} us" if b else "-"
        ratio = f"{s[0] / b[0]:.2f}" if b else "-"
        cum = f"{c[0]:.0f} us ({c[2]})" if c else "-"
        cop = f"{cc[0]:.0f} us" if cc else "-"
        cr = f"{c[0] / cc[0]:.2f}" if c and cc else "-"
        print(f"| {k[0]} | {k[1]:.0e} | {mem} | {s[0]:.0f} us ({s[2]}) | {base} | {ratio} | {cum} | {cop} | {cr} |")
print("\n| type | N | fold | sum G elem/s | sum / plain read | cumsum G elem/s | cumsum time / CUB InclusiveSum | check |")
print("|---|---|---|---|---|---|---|---|")
for k in sorted(by):
    p, i = get(k, "baseline:plain_read_sum"), get(k, "baseline:cub_inclusive_sum")
    folds = sorted(int(m.split("_k")[1]) for m in by[k] if m.startswith("reprosum:sum_k"))
    for f in folds:
        s, c = get(k, f"reprosum:sum_k{f}"), get(k, f"reprosum:cumsum_k{f}")
        ps = f"{s[1] / p[1] * 100:.0f}%" if p else "-"
        ci = f"{c[0] / i[0]:.2f}x" if (c and i) else "-"
        st = s[2] if (c is None or s[2] != "ok") else c[2]
        print(f"| {k[0]} | {k[1]:.0e} | {f} | {s[1]:.1f} | {ps} | {c[1] if c else float('nan'):.1f} | {ci} | {st} |")
