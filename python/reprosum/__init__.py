"""Floating-point sums and cumulative sums reproducible to the last bit.

reprosum deposits every value into a K-fold binned accumulator (the Ahrens-Demmel-Nguyen
algorithm), so a sum is a function of the multiset of values alone: its bits do not depend
on the order of the values, the number of threads, the chunking, the machine, or whether it
ran on a CPU or a GPU. For every finite input it has exactly the bits of ReproBLAS's binned
sum (``reproBLAS_rdsum`` / ``rssum``) and of SyclReproSum at the same fold.

What it promises
    ``sum(x)`` depends only on the multiset of values of ``x``, the float type and the fold K
    (default 3). ``cumsum(x)[i]`` has exactly the bits of ``sum(x[:i + 1])``. Each result of
    ``segmented_sum``, ``sum_rows``, ``sum_by_key`` and ``segmented_cumsum`` has the bits of
    ``sum`` (or ``cumsum``) of its group alone.

Accuracy is absolute, not relative
    The error is about ``n * 2**(-W*(K-1)) * max|x|``, with W = 40 bits for float64 and 13 for
    float32: about ``n * 2**-80 * max|x|`` for float64 at K = 3 (usually better than a naive
    sum, and correctly rounded on most ordinary inputs) but only ``n * 2**-26 * max|x|`` for
    float32. When huge values cancel, what is left can be lost: at K = 3 the float64 sum of
    ``[max, -max, max, -max, 1, 2, 3]`` is +0.0, and the float32 sum of
    ``[1e20, -1e20, 3.5, -2, 0.25]`` is +0.0 (K = 6 gives 2.0, K = 21 gives 1.75). A larger
    ``fold`` buys accuracy at some speed (2 to 52 for float64, 2 to 21 for float32, on the CPU
    and on a GPU alike). Everything finer than 2**-1055 (float64) or 2**-144 (float32) is rounded away.
    Empty input, all -0.0 and exact cancellation give +0.0.

NaN and Inf follow an order-free rule
    Any NaN, or +Inf together with -Inf, gives the canonical quiet NaN (0x7FF8000000000000 /
    0x7FC00000) whatever the payloads; an Inf of one sign gives that Inf, even beside huge
    finite values of the other sign; a finite sum that overflows gives +-Inf, never NaN,
    decided only at the end (``cumsum([max, max, -max])`` is ``[max, inf, max]``).

Capacity
    One accumulator keeps the guarantee for at most 9,223,372,036,854,773,760 float64 values
    or 4,294,966,784 float32 values; longer input raises ``ValueError`` before anything is
    read or written.

Inputs
    1-D float64 or float32 arrays: NumPy arrays (read in place through NumPy's C struct),
    objects with ``__dlpack__`` (PyTorch, CuPy, JAX, NumPy; DLPack 1.x with its read-only
    flag, or the older unversioned capsule; CPU tensors read in place, CUDA tensors summed
    in place on their GPU: the consumer's stream is passed to ``__dlpack__(stream=...)`` so
    the producer's work is ordered before ours), and objects with
    ``__cuda_array_interface__`` (run on the stream it names). ``cumsum`` of a GPU tensor
    returns a tensor made by the input's library (``torch.empty_like``,
    ``cupy.empty_like``); for libraries with immutable arrays (JAX) pass ``out=``. A non-contiguous (strided) or
    misaligned host array is copied once into a contiguous temporary; a non-contiguous
    device array is refused (``ValueError``). Other dtypes raise ``TypeError`` naming the
    dtype: nothing is cast unless ``dtype=`` asks for it. Lists and other sequences are
    converted with ``numpy.asarray`` first. The work runs with the GIL released, on all
    cores (``set_num_threads``), with the same bits for any thread count.

Errors
    ``ValueError`` for a bad fold, overlapping input and output, a wrong length or shape,
    capacity, bad offsets or keys; ``TypeError`` for dtypes; ``MemoryError``;
    ``NoDeviceError`` (no driver, runtime or device), ``NotBuiltError`` (a build without the
    GPU back end) and ``DeviceError`` (a driver call failed), all subclasses of
    ``RuntimeError``. Every argument is checked before anything is written: on an error
    ``out`` is untouched.
"""

import sys as _sys

import numpy as _np

from . import _reprosum
from ._reprosum import (
    CAPACITY_F32,
    CAPACITY_F64,
    DEFAULT_FOLD,
    MAX_FOLD_F32,
    MAX_FOLD_F64,
    Accumulator,
    DeviceError,
    NoDeviceError,
    NotBuiltError,
    built_backends,
    num_threads,
    set_num_threads,
)

__all__ = [
    "sum",
    "cumsum",
    "segmented_sum",
    "sum_rows",
    "sum_by_key",
    "segmented_cumsum",
    "add_segments",
    "add_by_key",
    "Accumulator",
    "set_num_threads",
    "num_threads",
    "built_backends",
    "DeviceError",
    "NoDeviceError",
    "NotBuiltError",
    "CAPACITY_F64",
    "CAPACITY_F32",
    "DEFAULT_FOLD",
    "MAX_FOLD_F64",
    "MAX_FOLD_F32",
]

__version__ = "0.1.0"

_builtin_sum = sum
_DEVICE_TYPES = (2, 10, 13)  # kDLCUDA, kDLROCM, kDLCUDAManaged


def _is_array(x):
    return isinstance(x, _np.ndarray) or hasattr(x, "__dlpack__") or hasattr(x, "__cuda_array_interface__")


def _on_device(x):
    """Whether x lives in GPU memory (DLPack device type, or a __cuda_array_interface__)."""
    if isinstance(x, _np.ndarray):
        return False
    dev = getattr(x, "__dlpack_device__", None)
    if dev is not None:
        return dev()[0] in _DEVICE_TYPES
    return hasattr(x, "__cuda_array_interface__")


def _dtype_name(dtype):
    name = _np.dtype(dtype).name
    if name not in ("float64", "float32"):
        raise TypeError(f"dtype={name}: reprosum sums float64 and float32")
    return name


def _library(x):
    """The module of x's library (torch, cupy, jax, numpy, ...)."""
    return _sys.modules[type(x).__module__.split(".")[0]]


def _convert(x, dtype):
    """x as an array of dtype (explicit conversion), in x's own library where it has one."""
    name = _dtype_name(dtype)
    if isinstance(x, _np.ndarray) or not _is_array(x):
        return _np.asarray(x, dtype=name)
    lib = _library(x)
    if type(x).__module__.startswith("torch"):
        return x.to(getattr(lib, name))
    if hasattr(x, "astype"):
        return x.astype(name)
    if not _on_device(x):
        return _np.asarray(_np.from_dlpack(x), dtype=name)
    raise TypeError(f"cannot convert a {type(x).__name__} to {name}: convert it first")


def _prepare(x, dtype):
    if dtype is not None:
        return _convert(x, dtype)
    if not _is_array(x):
        return _np.asarray(x)
    return x


def _elem_dtype(x):
    """The numpy dtype name of an array that _reprosum accepted as float64 or float32."""
    d = getattr(x, "dtype", None)
    s = str(d)
    if "float64" in s or s == "double":
        return "float64"
    if "float32" in s or s == "float":
        return "float32"
    return None


def sum(x, *, fold=DEFAULT_FOLD, device=None, dtype=None):
    """The reproducible sum of a 1-D float64 or float32 array, as a Python float.

    ``fold`` is K (2..52 for float64, 2..21 for float32, 2..8 on a GPU). ``device`` is where
    the sum runs: ``None`` (where the data is: a host array on the CPU's threads, a CUDA
    tensor on its GPU), ``"cpu"``, or ``"cuda"`` / ``"cuda:N"`` / ``"hip:N"`` to copy a host
    array to that GPU and sum it there (the same bits). ``dtype`` converts explicitly first.
    """
    x = _prepare(x, dtype)
    return _reprosum.sum(x, fold, device)


def _new_out(x, n, dtype_name):
    if _on_device(x):
        lib = _library(x)
        if hasattr(lib, "empty_like"):
            return lib.empty_like(x)
        raise TypeError(f"cannot make an output for a {type(x).__name__} on a device: pass out=")
    return _np.empty(n, dtype=dtype_name)


def _describe(x, ndim):
    """(shape, dtype name) of an array as the native functions read it; raises their
    TypeError / ValueError for what they refuse."""
    shape = getattr(x, "shape", None)
    name = _elem_dtype(x)
    if shape is not None and name is not None:
        shape = tuple(int(d) for d in shape)
        if len(shape) == ndim:
            return shape, name
    shape, name, _ = _reprosum.describe(x, ndim)
    return tuple(shape), name


def cumsum(x, *, fold=DEFAULT_FOLD, out=None, dtype=None):
    """The reproducible cumulative sum: ``result[i]`` has the bits of ``sum(x[:i + 1])``.

    Returns ``out`` when given (a writable 1-D array of x's type and length; ``out=x``
    computes in place; any other overlap with ``x`` is a ``ValueError``), else a new NumPy
    array for host input, or for a GPU tensor a tensor of the same library on the same
    device (made with that library's ``empty_like``). Nothing is written on an error.
    """
    x = _prepare(x, dtype)
    if out is None:
        shape, name = _describe(x, 1)
        out = _new_out(x, shape[0], name)
    _reprosum.cumsum(x, out, fold)
    return out


def _index(a, what, signed):
    """An index array as int64 (keys) or uint64 (offsets): integers only, no negatives for
    offsets; converted (a copy) when stored in another integer type."""
    a = _np.asarray(a)
    if a.size == 0 and a.dtype.kind == "f":
        a = a.astype(_np.int64)  # an empty list
    if a.dtype.kind not in "iu":
        raise TypeError(f"{what}: expected integers, got {a.dtype}")
    if a.ndim != 1:
        raise ValueError(f"{what}: expected a 1-D array, got {a.ndim}-D")
    if signed:
        if a.dtype == _np.int64:
            return a
        if a.dtype.kind == "u" and a.size and int(a.max()) > _np.iinfo(_np.int64).max:
            raise ValueError(f"{what}: a key negative or not below the number of keys")
        return a.astype(_np.int64)
    if a.dtype.kind == "i" and a.size and int(a.min()) < 0:
        raise ValueError(f"{what}: segment offsets not non-decreasing from 0 to the input's length (a negative offset)")
    if a.dtype == _np.uint64:
        return a
    if a.dtype.itemsize == 8:
        return a.view(_np.uint64)
    return a.astype(_np.uint64)


def _host(x, dtype):
    x = _prepare(x, dtype)
    if _on_device(x):
        raise TypeError("the batched sums take host arrays (this one is on a GPU)")
    return x


def segmented_sum(x, offsets, *, fold=DEFAULT_FOLD, out=None, dtype=None):
    """The sum of each segment: ``result[i]`` has the bits of ``sum(x[offsets[i]:offsets[i+1]])``.

    ``offsets`` (CSR style) has one more entry than there are segments: the first 0, none
    smaller than the one before, the last ``len(x)``; an empty segment gives +0.0.
    """
    x = _host(x, dtype)
    offsets = _index(offsets, "offsets", signed=False)
    if out is None:
        _, name = _describe(x, 1)
        out = _np.empty(max(len(offsets) - 1, 0), dtype=name)
    _reprosum.segmented_sum(x, offsets, out, fold)
    return out


def segmented_cumsum(x, offsets, *, fold=DEFAULT_FOLD, out=None, dtype=None):
    """The cumulative sum of each segment, starting afresh at every segment: for j in
    segment i, ``result[j]`` has the bits of ``sum(x[offsets[i]:j + 1])``. ``out=x`` works in
    place."""
    x = _host(x, dtype)
    offsets = _index(offsets, "offsets", signed=False)
    if out is None:
        shape, name = _describe(x, 1)
        out = _np.empty(shape[0], dtype=name)
    _reprosum.segmented_cumsum(x, offsets, out, fold)
    return out


def sum_rows(x, *, fold=DEFAULT_FOLD, out=None, dtype=None):
    """The sum of each row of a 2-D array: ``result[r]`` has the bits of ``sum(x[r])``,
    whatever the other rows (batch-invariant). Rows with unit inner stride are read in place,
    others gathered into a copy."""
    x = _host(x, dtype)
    if out is None:
        shape, name = _describe(x, 2)
        out = _np.empty(shape[0], dtype=name)
    _reprosum.sum_rows(x, out, fold)
    return out


def sum_by_key(x, keys, nkeys=None, *, fold=DEFAULT_FOLD, out=None, dtype=None):
    """The sum of the values of each key (scatter-add, ``index_add``, weighted ``bincount``):
    ``result[k]`` has the bits of ``sum(x[keys == k])`` for ``0 <= k < nkeys``; the pairs may
    come in any order. ``nkeys`` defaults to ``len(out)``, else ``max(keys) + 1``. A key
    outside ``range(nkeys)`` is a ``ValueError``, raised before anything is written."""
    x = _host(x, dtype)
    keys = _index(keys, "keys", signed=True)
    if out is None:
        if nkeys is None:
            nkeys = int(keys.max()) + 1 if keys.size else 0
            nkeys = max(nkeys, 0)
        if nkeys < 0:
            raise ValueError("nkeys must not be negative")
        _, name = _describe(x, 1)
        out = _np.empty(nkeys, dtype=name)
    elif nkeys is not None and (getattr(out, "shape", None) or (None,))[0] != nkeys:
        raise ValueError(f"nkeys={nkeys} but out has another length")
    _reprosum.sum_by_key(x, keys, out, fold)
    return out


def add_segments(accs, x, offsets, *, dtype=None):
    """Adds segment ``i`` of ``x`` (``x[offsets[i]:offsets[i + 1]]``) to ``accs[i]``, a list of
    ``Accumulator`` of ``x``'s dtype, each at its own fold. Shards of a segmented array added
    call after call (offsets relative to each shard), in other processes and merged, leave
    every accumulator with the state of its whole segment: its ``value()`` has the bits of
    ``segmented_sum`` of the whole array. On an error no accumulator changes."""
    x = _host(x, dtype)
    offsets = _index(offsets, "offsets", signed=False)
    _reprosum.add_segments(list(accs), x, offsets)


def add_by_key(accs, x, keys, *, dtype=None):
    """Adds each ``x[i]`` to ``accs[keys[i]]`` (a list of ``Accumulator`` of ``x``'s dtype, each
    at its own fold). Shards of (key, value) pairs in any split and order, added call after
    call or in other processes and merged, leave every key's accumulator with the state of all
    its values: its ``value()`` has the bits of ``sum_by_key`` of all the pairs. A key outside
    ``range(len(accs))`` is a ``ValueError``; on an error no accumulator changes."""
    x = _host(x, dtype)
    keys = _index(keys, "keys", signed=True)
    _reprosum.add_by_key(list(accs), x, keys)
