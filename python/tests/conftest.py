"""Shared helpers: the repository's vectors files (tests/vectors, read from this checkout
only) and bit-pattern comparisons."""

import importlib.util
import pathlib

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors"

UINT = {"f64": np.uint64, "f32": np.uint32}
FLOAT = {"f64": np.float64, "f32": np.float32}


class Case:
    def __init__(self, name, dtype, fold):
        self.name, self.dtype, self.fold = name, dtype, fold
        self.parts, self.sets, self.gen = [], [], None
        self.sum = self.cumsum = self.bytes = None

    def values(self):
        if self.gen == "wide_range_1m":
            x = wide_range_1m()
        else:
            chunks = [np.tile(np.array(vals, dtype=UINT[self.dtype]), rep) for rep, vals in self.parts]
            bits = np.concatenate(chunks) if chunks else np.zeros(0, UINT[self.dtype])
            for i, v in self.sets:
                bits[i] = v
            x = bits.view(FLOAT[self.dtype])
        return np.ascontiguousarray(x)

    def __repr__(self):
        return self.name


def read_cases(path):
    cases, cur = [], None
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        head, _, rest = line.partition(" ")
        f = rest.split()
        if head == "case":
            cur = Case(f[0], f[1], int(f[2]))
        elif head == "part":
            cur.parts.append((int(f[0]), [int(h, 16) for h in f[1:]]))
        elif head == "set":
            cur.sets.append((int(f[0]), int(f[1], 16)))
        elif head == "gen":
            cur.gen = f[0]
        elif head == "sum":
            cur.sum = int(f[0], 16)
        elif head == "cumsum":
            cur.cumsum = [int(h, 16) for h in f]
        elif head == "bytes":
            cur.bytes = bytes.fromhex(f[0])
        elif head == "end":
            cases.append(cur)
            cur = None
        else:
            raise ValueError(f"{path}: unknown line {line!r}")
    assert cases, f"no cases in {path}"
    return cases


_WIDE = None


def wide_range_1m():
    """SyclReproSum's 1M wide-range input, from the repository's own generator."""
    global _WIDE
    if _WIDE is None:
        spec = importlib.util.spec_from_file_location("wide_range_1m", VECTORS / "wide_range_1m.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _WIDE = np.frombuffer(mod.double_wide_range(False), dtype="<f8").copy()
    return _WIDE


KNOWN = read_cases(VECTORS / "known_answers.txt")
CORE = read_cases(VECTORS / "core_vectors.txt")


def bits(x, dtype):
    """The bit pattern of a float (Python float, NumPy scalar) of the case's type."""
    return int(np.asarray(x, dtype=FLOAT[dtype]).reshape(()).view(UINT[dtype]))


def array_bits(a):
    a = np.asarray(a)
    return a.view(np.uint64 if a.dtype == np.float64 else np.uint32).tolist()


class DLPackOnly:
    """An object with only the DLPack protocol (so the capsule path is taken, not NumPy's
    struct): what torch or JAX CPU tensors look like to reprosum."""

    def __init__(self, a):
        self.a = a
        self.calls = []

    def __dlpack__(self, stream=None, **kw):
        self.calls.append(stream)
        return self.a.__dlpack__(stream=stream, **kw)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


@pytest.fixture
def dlpack_only():
    return DLPackOnly


class LegacyDLPackOnly(DLPackOnly):
    """A producer that predates DLPack 1.0: no max_version keyword, unversioned capsules."""

    def __dlpack__(self, stream=None):
        self.calls.append(stream)
        return self.a.__dlpack__(stream=stream)
