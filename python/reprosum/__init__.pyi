"""Type stubs of reprosum (see the module docstring for the promise and the limits)."""

from typing import Any, List, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

ArrayLike = Any  # a NumPy array, an object with __dlpack__ or __cuda_array_interface__, or a sequence
DTypeLike = Union[str, type, np.dtype[Any], None]

CAPACITY_F64: int
CAPACITY_F32: int
DEFAULT_FOLD: int
MAX_FOLD_F64: int
MAX_FOLD_F32: int
__version__: str

class DeviceError(RuntimeError): ...
class NoDeviceError(DeviceError): ...
class NotBuiltError(DeviceError): ...

def sum(x: ArrayLike, *, fold: int = 3, device: Optional[str] = None, dtype: DTypeLike = None) -> float: ...
def cumsum(x: ArrayLike, *, fold: int = 3, out: Optional[Any] = None, dtype: DTypeLike = None) -> Any: ...
def segmented_sum(
    x: ArrayLike,
    offsets: npt.ArrayLike,
    *,
    fold: int = 3,
    out: Optional[npt.NDArray[np.floating[Any]]] = None,
    dtype: DTypeLike = None,
) -> npt.NDArray[np.floating[Any]]: ...
def segmented_cumsum(
    x: ArrayLike,
    offsets: npt.ArrayLike,
    *,
    fold: int = 3,
    out: Optional[npt.NDArray[np.floating[Any]]] = None,
    dtype: DTypeLike = None,
) -> npt.NDArray[np.floating[Any]]: ...
def sum_rows(
    x: ArrayLike, *, fold: int = 3, out: Optional[npt.NDArray[np.floating[Any]]] = None, dtype: DTypeLike = None
) -> npt.NDArray[np.floating[Any]]: ...
def sum_by_key(
    x: ArrayLike,
    keys: npt.ArrayLike,
    nkeys: Optional[int] = None,
    *,
    fold: int = 3,
    out: Optional[npt.NDArray[np.floating[Any]]] = None,
    dtype: DTypeLike = None,
) -> npt.NDArray[np.floating[Any]]: ...
def add_segments(
    accs: Sequence[Accumulator],
    x: ArrayLike,
    offsets: npt.ArrayLike,
    *,
    dtype: DTypeLike = None,
) -> None: ...
def add_by_key(
    accs: Sequence[Accumulator],
    x: ArrayLike,
    keys: npt.ArrayLike,
    *,
    dtype: DTypeLike = None,
) -> None: ...
def set_num_threads(n: int) -> None: ...
def num_threads() -> int: ...
def built_backends() -> List[str]: ...

class Accumulator:
    """A reproducible running sum; its state (and bytes) depend only on the multiset added."""

    def __init__(self, dtype: DTypeLike = "float64", fold: int = 3) -> None: ...
    def add(self, x: float) -> None: ...
    def add_array(self, x: ArrayLike) -> None: ...
    def merge(self, other: "Accumulator") -> None: ...
    def value(self) -> float: ...
    @property
    def count(self) -> int: ...
    @property
    def fold(self) -> int: ...
    @property
    def dtype(self) -> str: ...
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes) -> "Accumulator": ...
    def copy(self) -> "Accumulator": ...
    def __eq__(self, other: object) -> bool: ...
