//! `reprosum._reprosum`: the native part of the Python package `reprosum` (see
//! `python/reprosum/__init__.py` for the public functions and their documentation).
//!
//! Every function reads its arrays in place (NumPy's C struct, a DLPack tensor or a
//! `__cuda_array_interface__`), checks every argument before anything is written, and runs
//! the work with the GIL released. Errors are Python exceptions; nothing here panics on any
//! input (every length, stride and address is checked, every allocation is fallible).

mod acc;
mod dlpack;
mod view;

use pyo3::create_exception;
use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use reprosum::{Backend, DeviceErrorKind, DynAccumulator, Error, Float};
use std::ffi::c_void;
use view::{gather, read, scatter, Elem, Need, Place, Raw, View};

create_exception!(
    reprosum,
    DeviceError,
    PyRuntimeError,
    "A GPU driver or runtime call failed, or the device failed reprosum's arithmetic probe."
);
create_exception!(
    reprosum,
    NoDeviceError,
    DeviceError,
    "No usable GPU: the driver or runtime library could not be loaded, or there is no such device."
);
create_exception!(
    reprosum,
    NotBuiltError,
    DeviceError,
    "This build of reprosum has no support for the device asked for (build with the `cuda` or `hip` feature)."
);

/// The Python exception for a core error, with the library's message.
pub(crate) fn core_err(e: Error) -> PyErr {
    match e {
        Error::OutOfMemory => PyMemoryError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// The Python exception for a device call's error, with the library's message.
pub(crate) fn dev_err(e: reprosum::DeviceError) -> PyErr {
    let msg = e.to_string();
    match e.kind() {
        DeviceErrorKind::Core(c) => core_err(c),
        DeviceErrorKind::NotBuilt => NotBuiltError::new_err(msg),
        DeviceErrorKind::NoDevice => NoDeviceError::new_err(msg),
        DeviceErrorKind::OutOfMemory => PyMemoryError::new_err(msg),
        DeviceErrorKind::UnsupportedFold | DeviceErrorKind::InvalidPointer | DeviceErrorKind::Overlap => {
            PyValueError::new_err(msg)
        }
        _ => DeviceError::new_err(msg),
    }
}

/// Runs `$body` with `$t` the element type of `$elem`.
macro_rules! by_elem {
    ($elem:expr, $t:ident => $body:expr) => {
        match $elem {
            Elem::F64 => {
                type $t = f64;
                $body
            }
            Elem::F32 => {
                type $t = f32;
                $body
            }
        }
    };
}

/// The fold as a `usize`, checked for the type (`ValueError` otherwise, also for negative
/// folds, which Python would otherwise report as an `OverflowError`).
pub(crate) fn fold_for(fold: i64, elem: Elem) -> PyResult<usize> {
    let ok = match elem {
        Elem::F64 => (2..=<f64 as Float>::MAX_FOLD as i64).contains(&fold),
        Elem::F32 => (2..=<f32 as Float>::MAX_FOLD as i64).contains(&fold),
    };
    if ok {
        Ok(fold as usize)
    } else {
        Err(core_err(Error::InvalidFold))
    }
}

/// A fold argument as an integer: any Python int (one past the range of i64 is out of range
/// for every type, so it becomes a `ValueError` below, as numpy integers do).
pub(crate) fn fold_int(fold: &Bound<'_, PyAny>) -> PyResult<i64> {
    match fold.extract::<i64>() {
        Ok(f) => Ok(f),
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(fold.py()) => Ok(i64::MAX),
        Err(e) => Err(e),
    }
}

/// Fails with `CapacityExceeded` for more values than one accumulator holds (before any copy).
fn check_len(n: usize, elem: Elem) -> PyResult<()> {
    let cap = match elem {
        Elem::F64 => reprosum::CAPACITY_F64,
        Elem::F32 => reprosum::CAPACITY_F32,
    };
    if n as u64 > cap {
        return Err(core_err(Error::CapacityExceeded));
    }
    Ok(())
}

/// A host array's elements: in place when contiguous and aligned, else a gathered copy.
pub(crate) enum Input<'a, T> {
    Borrowed(&'a [T]),
    Owned(Vec<T>),
}

impl<T> Input<'_, T> {
    pub(crate) fn as_slice(&self) -> &[T] {
        match self {
            Input::Borrowed(s) => s,
            Input::Owned(v) => v,
        }
    }
}

/// The elements of a host array.
///
/// # Safety
/// `r` describes `r.len` readable elements of `T` in host memory that nothing writes while
/// the result lives.
pub(crate) unsafe fn host_input<'a, T: Copy>(r: Raw) -> Result<Input<'a, T>, Error> {
    if r.len == 0 {
        return Ok(Input::Borrowed(&[]));
    }
    if r.is_slice() {
        // SAFETY: contiguous and aligned (checked), readable (the caller).
        return Ok(Input::Borrowed(unsafe {
            std::slice::from_raw_parts(r.ptr as *const T, r.len)
        }));
    }
    // SAFETY: the caller's contract.
    unsafe { gather(r) }.map(Input::Owned)
}

/// Runs `f` on the output's elements: in place when contiguous and aligned, else on a
/// temporary scattered into the output after `f` succeeded (so an error writes nothing).
///
/// # Safety
/// `r` describes `r.len` writable elements of `T` in host memory that nothing else uses
/// during the call.
unsafe fn with_out<T: Float>(r: Raw, f: impl FnOnce(&mut [T]) -> Result<(), Error>) -> Result<(), Error> {
    if r.len == 0 {
        return f(&mut []);
    }
    if r.is_slice() {
        // SAFETY: contiguous and aligned (checked), writable and unshared (the caller).
        return f(unsafe { std::slice::from_raw_parts_mut(r.ptr as *mut T, r.len) });
    }
    let mut tmp: Vec<T> = Vec::new();
    tmp.try_reserve_exact(r.len).map_err(|_| Error::OutOfMemory)?;
    tmp.resize(r.len, T::ZERO);
    f(&mut tmp)?;
    // SAFETY: the caller's contract; `tmp` is ours.
    unsafe { scatter(&tmp, r) };
    Ok(())
}

/// A result as the Python float it is returned as (exact for both types).
fn widen<T: Into<f64>>(x: T) -> f64 {
    x.into()
}

/// A device array's pointer, after checking it is contiguous.
fn device_ptr(v: &View<'_>, what: &str) -> PyResult<usize> {
    let n = v.len();
    if n > 1 && v.strides[0] != v.elem.size() as isize {
        return Err(PyValueError::new_err(format!(
            "{what}: a non-contiguous array on {} (make it contiguous first, e.g. .contiguous())",
            v.place_name()
        )));
    }
    if !v.ptr.is_multiple_of(v.elem.size()) {
        return Err(PyValueError::new_err(format!(
            "{what}: a misaligned device array"
        )));
    }
    Ok(v.ptr)
}

fn backend_of(p: Place) -> Backend {
    match p {
        Place::Rocm => Backend::Hip,
        _ => Backend::Cuda,
    }
}

/// The reproducible sum of a 1-D array: host arrays on the CPU's threads (or on `device`),
/// device arrays on their GPU.
#[pyfunction]
#[pyo3(signature = (x, fold, device=None))]
fn sum(py: Python<'_>, x: &Bound<'_, PyAny>, fold: &Bound<'_, PyAny>, device: Option<&str>) -> PyResult<f64> {
    let need = Need {
        what: "x",
        ndim: 1,
        writable: false,
    };
    let v = read(x, need)?;
    let fold = fold_for(fold_int(fold)?, v.elem)?;
    let n = v.len();
    check_len(n, v.elem)?;
    let target = match device {
        None => None,
        Some(d) => Some(d.parse::<reprosum::Device>().map_err(PyValueError::new_err)?),
    };
    if v.place != Place::Host {
        if let Some(d) = target {
            let same = matches!(
                (d, v.place),
                (reprosum::Device::Cuda(_), Place::Cuda) | (reprosum::Device::Hip(_), Place::Rocm)
            );
            if !same {
                return Err(PyValueError::new_err(format!(
                    "x is on {}; device={d} would need a copy (move it first)",
                    v.place_name()
                )));
            }
        }
        let ptr = device_ptr(&v, "x")?;
        let (backend, stream) = (backend_of(v.place), v.stream);
        return by_elem!(v.elem, T => {
            py.detach(move || {
                // SAFETY: `ptr` holds `n` aligned values of T in device memory of `backend`,
                // kept alive by `v` (the producer's object or tensor) for the call; `stream`
                // is 0 or the producer's stream of that device.
                unsafe { reprosum::sum_ptr::<T>(backend, ptr as *const T, n, fold, stream as *mut c_void) }
                    .map(widen)
            })
            .map_err(dev_err)
        });
    }
    let r = v.raw();
    let target = target.unwrap_or(reprosum::Device::Cpu);
    by_elem!(v.elem, T => {
        py.detach(move || {
            // SAFETY: `r` is the host array of `v`, alive for the call.
            let xs = unsafe { host_input::<T>(r) }.map_err(reprosum::DeviceError::from)?;
            reprosum::sum_on(target, xs.as_slice(), fold).map(widen)
        })
        .map_err(dev_err)
    })
}

/// The reproducible cumulative sum of `x` into `out` (same length and type; `out` may be `x`
/// itself, any other overlap is an error). Nothing is written on an error found before the
/// work.
#[pyfunction]
fn cumsum(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    fold: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let vx = read(
        x,
        Need {
            what: "x",
            ndim: 1,
            writable: false,
        },
    )?;
    let vo = read(
        out,
        Need {
            what: "out",
            ndim: 1,
            writable: true,
        },
    )?;
    let fold = fold_for(fold_int(fold)?, vx.elem)?;
    if vx.elem != vo.elem {
        return Err(PyTypeError::new_err(format!(
            "out is {} but x is {}",
            vo.elem.name(),
            vx.elem.name()
        )));
    }
    let n = vx.len();
    if vo.len() != n {
        return Err(PyValueError::new_err(format!(
            "out has {} elements, x has {n}",
            vo.len()
        )));
    }
    check_len(n, vx.elem)?;
    if vx.place != vo.place {
        return Err(PyValueError::new_err(format!(
            "x is in {} and out in {}",
            vx.place_name(),
            vo.place_name()
        )));
    }
    let (rx, ro) = (vx.raw(), vo.raw());
    let same = rx.same(&ro);
    if !same && rx.overlaps(&ro) {
        return Err(PyValueError::new_err(
            "x and out overlap (only out=x, the same elements, is allowed)",
        ));
    }
    if vx.place != Place::Host {
        let (px, po) = (device_ptr(&vx, "x")?, device_ptr(&vo, "out")?);
        let (backend, stream) = (backend_of(vx.place), vx.stream.max(vo.stream));
        return by_elem!(vx.elem, T => {
            py.detach(move || {
                // SAFETY: `px` holds `n` readable and `po` `n` writable aligned values of T on
                // one device of `backend` (the back end checks the memories), alive for the
                // call; they are equal or disjoint (checked).
                unsafe { reprosum::cumsum_ptr::<T>(backend, px as *const T, po as *mut T, n, fold, stream as *mut c_void) }
            })
            .map_err(dev_err)
        });
    }
    by_elem!(vx.elem, T => {
        py.detach(move || {
            let opts = reprosum::Options::with_fold(fold);
            if same {
                // SAFETY: `ro` is the writable host array of `vo`, alive for the call.
                return unsafe { with_out::<T>(ro, |o| reprosum::cumsum_in_place_with(o, &opts)) };
            }
            // SAFETY: `rx` is the host array of `vx`, alive for the call; it does not overlap
            // `ro` (checked), which is writable and alive.
            let xs = unsafe { host_input::<T>(rx) }?;
            unsafe { with_out::<T>(ro, |o| reprosum::cumsum_with(xs.as_slice(), o, &opts)) }
        })
        .map_err(core_err)
    })
}

/// The facade's checks of CSR offsets for `n` values of type `T` (a first entry 0, no
/// decrease, a last entry `n`, no segment past the capacity), made before a strided input is
/// gathered, so that bad offsets cost no copy.
fn check_offsets<T: Float>(offsets: &[usize], n: usize) -> Result<(), Error> {
    if offsets.first() != Some(&0) || offsets.last() != Some(&n) {
        return Err(Error::InvalidOffsets);
    }
    let mut widest = 0usize;
    for w in offsets.windows(2) {
        widest = widest.max(w[1].checked_sub(w[0]).ok_or(Error::InvalidOffsets)?);
    }
    if widest as u64 > T::CAPACITY {
        return Err(Error::CapacityExceeded);
    }
    Ok(())
}

/// A host index array (offsets: u64; keys: i64), read in place when contiguous.
fn read_index<'py>(
    obj: &Bound<'py, PyAny>,
    what: &'static str,
    signed: bool,
) -> PyResult<(Raw, Bound<'py, PyAny>)> {
    use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
    let a = obj
        .cast::<PyUntypedArray>()
        .map_err(|_| PyTypeError::new_err(format!("{what}: expected a NumPy array of integers")))?;
    let d = a.dtype();
    let kind = if signed { b'i' } else { b'u' };
    if d.kind() != kind || d.itemsize() != 8 || d.is_native_byteorder() == Some(false) {
        return Err(PyTypeError::new_err(format!(
            "{what}: expected {}, got {}",
            if signed { "int64" } else { "uint64" },
            d.str()?
        )));
    }
    if a.ndim() != 1 {
        return Err(PyValueError::new_err(format!(
            "{what}: expected a 1-D array, got {}-D",
            a.ndim()
        )));
    }
    let raw = a.as_array_ptr();
    // SAFETY: the live PyArrayObject of `a`; `data` is a plain field.
    let ptr = unsafe { (*raw).data } as usize;
    // The element type is only used for its size (8 bytes) and alignment.
    let r = Raw {
        ptr,
        len: a.shape()[0],
        stride: a.strides()[0],
        elem: Elem::F64,
    };
    Ok((r, obj.clone()))
}

fn host_view<'py>(obj: &Bound<'py, PyAny>, need: Need) -> PyResult<View<'py>> {
    let v = read(obj, need)?;
    if v.place != Place::Host {
        return Err(PyTypeError::new_err(format!(
            "{}: the batched sums take host arrays (this one is on {})",
            need.what,
            v.place_name()
        )));
    }
    Ok(v)
}

fn check_out_type(x: &View<'_>, out: &View<'_>) -> PyResult<()> {
    if x.elem != out.elem {
        return Err(PyTypeError::new_err(format!(
            "out is {} but x is {}",
            out.elem.name(),
            x.elem.name()
        )));
    }
    Ok(())
}

fn no_overlap(out: &Raw, others: &[&Raw]) -> PyResult<()> {
    if others.iter().any(|o| out.overlaps(o)) {
        return Err(PyValueError::new_err("out overlaps an input"));
    }
    Ok(())
}

const X: Need = Need {
    what: "x",
    ndim: 1,
    writable: false,
};
const OUT: Need = Need {
    what: "out",
    ndim: 1,
    writable: true,
};

/// `out[i]` = the sum of `x[offsets[i]:offsets[i+1]]`.
#[pyfunction]
fn segmented_sum(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    offsets: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    fold: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let vx = host_view(x, X)?;
    let vo = host_view(out, OUT)?;
    let (ro_off, _keep) = read_index(offsets, "offsets", false)?;
    let fold = fold_for(fold_int(fold)?, vx.elem)?;
    check_out_type(&vx, &vo)?;
    let (rx, ro) = (vx.raw(), vo.raw());
    if ro_off.len != ro.len + 1 {
        return Err(PyValueError::new_err(format!(
            "offsets has {} entries; out has {} (one fewer than offsets is needed)",
            ro_off.len, ro.len
        )));
    }
    no_overlap(&ro, &[&rx, &ro_off])?;
    by_elem!(vx.elem, T => {
        py.detach(move || {
            // SAFETY: host arrays of `vx`, `offsets` and `vo`, alive for the call; `ro` is
            // writable and overlaps neither input (checked).
            let offs = unsafe { host_input::<usize>(ro_off) }?;
            check_offsets::<T>(offs.as_slice(), rx.len)?;
            let xs = unsafe { host_input::<T>(rx) }?;
            unsafe {
                with_out::<T>(ro, |o| {
                    reprosum::segmented_sum_with(xs.as_slice(), offs.as_slice(), o, &reprosum::Options::with_fold(fold))
                })
            }
        })
        .map_err(core_err)
    })
}

/// The cumulative sum of each segment, restarting at every offset; `out` may be `x`.
#[pyfunction]
fn segmented_cumsum(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    offsets: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    fold: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let vx = host_view(x, X)?;
    let vo = host_view(out, OUT)?;
    let (ro_off, _keep) = read_index(offsets, "offsets", false)?;
    let fold = fold_for(fold_int(fold)?, vx.elem)?;
    check_out_type(&vx, &vo)?;
    let (rx, ro) = (vx.raw(), vo.raw());
    if ro.len != rx.len {
        return Err(PyValueError::new_err(format!(
            "out has {} elements, x has {}",
            ro.len, rx.len
        )));
    }
    let same = rx.same(&ro);
    if !same && ro.overlaps(&rx) {
        return Err(PyValueError::new_err(
            "x and out overlap (only out=x, the same elements, is allowed)",
        ));
    }
    no_overlap(&ro, &[&ro_off])?;
    by_elem!(vx.elem, T => {
        py.detach(move || {
            let opts = reprosum::Options::with_fold(fold);
            // SAFETY: host arrays of `offsets`, `vx` and `vo`, alive for the call; `ro` is
            // writable and overlaps `offsets` nowhere, and `x` only when it is `x` (checked).
            let offs = unsafe { host_input::<usize>(ro_off) }?;
            check_offsets::<T>(offs.as_slice(), rx.len)?;
            if same {
                return unsafe {
                    with_out::<T>(ro, |o| reprosum::segmented_cumsum_in_place_with(o, offs.as_slice(), &opts))
                };
            }
            let xs = unsafe { host_input::<T>(rx) }?;
            unsafe { with_out::<T>(ro, |o| reprosum::segmented_cumsum_with(xs.as_slice(), offs.as_slice(), o, &opts)) }
        })
        .map_err(core_err)
    })
}

/// `out[k]` = the sum of the `x[i]` with `keys[i] == k`.
#[pyfunction]
fn sum_by_key(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    keys: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    fold: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let vx = host_view(x, X)?;
    let vo = host_view(out, OUT)?;
    let (rk, _keep) = read_index(keys, "keys", true)?;
    let fold = fold_for(fold_int(fold)?, vx.elem)?;
    check_out_type(&vx, &vo)?;
    let (rx, ro) = (vx.raw(), vo.raw());
    if rk.len != rx.len {
        return Err(PyValueError::new_err(format!(
            "keys has {} entries, x has {}",
            rk.len, rx.len
        )));
    }
    no_overlap(&ro, &[&rx, &rk])?;
    by_elem!(vx.elem, T => {
        py.detach(move || {
            // SAFETY: host arrays of `vx`, `keys` and `vo`, alive for the call; `ro` is
            // writable and overlaps neither input (checked).
            let ks = unsafe { host_input::<i64>(rk) }?;
            // Keys first (a pass over them), so that a bad key costs no copy of `x`.
            let nk = ro.len as u64;
            if ks.as_slice().iter().any(|&k| k < 0 || k as u64 >= nk) {
                return Err(Error::KeyOutOfRange);
            }
            let xs = unsafe { host_input::<T>(rx) }?;
            unsafe {
                with_out::<T>(ro, |o| {
                    reprosum::sum_by_key_with(xs.as_slice(), ks.as_slice(), o, &reprosum::Options::with_fold(fold))
                })
            }
        })
        .map_err(core_err)
    })
}

/// Runs a grouped add on copies of the accumulators' states (the GIL released) and stores
/// them back only on success.
fn grouped_add<T: acc::States>(
    py: Python<'_>,
    borrowed: &mut [PyRefMut<'_, acc::Accumulator>],
    work: impl FnOnce(&mut [DynAccumulator<T>]) -> Result<(), Error> + Send,
) -> PyResult<()> {
    let mut states: Vec<DynAccumulator<T>> = Vec::new();
    states
        .try_reserve_exact(borrowed.len())
        .map_err(|_| core_err(Error::OutOfMemory))?;
    for b in borrowed.iter() {
        states.push(T::take(b).ok_or_else(|| PyTypeError::new_err("accs: mixed dtypes"))?);
    }
    let states = py
        .detach(move || work(&mut states).map(|()| states))
        .map_err(core_err)?;
    for (b, s) in borrowed.iter_mut().zip(states) {
        T::put(b, s);
    }
    Ok(())
}

/// Adds segment `i` of `x` to `accs[i]`.
#[pyfunction]
fn add_segments(
    py: Python<'_>,
    accs: &Bound<'_, PyAny>,
    x: &Bound<'_, PyAny>,
    offsets: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let vx = host_view(x, X)?;
    let (ro_off, _keep) = read_index(offsets, "offsets", false)?;
    let mut borrowed = acc::borrow_all(accs, vx.elem)?;
    if ro_off.len != borrowed.len() + 1 {
        return Err(PyValueError::new_err(format!(
            "offsets has {} entries; accs has {} (one fewer than offsets is needed)",
            ro_off.len,
            borrowed.len()
        )));
    }
    let rx = vx.raw();
    by_elem!(vx.elem, T => {
        grouped_add::<T>(py, &mut borrowed, move |states| {
            // SAFETY: host arrays of `vx` and `offsets`, alive for the call.
            let offs = unsafe { host_input::<usize>(ro_off) }?;
            check_offsets::<T>(offs.as_slice(), rx.len)?;
            let xs = unsafe { host_input::<T>(rx) }?;
            reprosum::add_segments(xs.as_slice(), offs.as_slice(), states)
        })
    })
}

/// Adds each `x[i]` to `accs[keys[i]]`.
#[pyfunction]
fn add_by_key(
    py: Python<'_>,
    accs: &Bound<'_, PyAny>,
    x: &Bound<'_, PyAny>,
    keys: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let vx = host_view(x, X)?;
    let (rk, _keep) = read_index(keys, "keys", true)?;
    let mut borrowed = acc::borrow_all(accs, vx.elem)?;
    let rx = vx.raw();
    if rk.len != rx.len {
        return Err(PyValueError::new_err(format!(
            "keys has {} entries, x has {}",
            rk.len, rx.len
        )));
    }
    by_elem!(vx.elem, T => {
        grouped_add::<T>(py, &mut borrowed, move |states| {
            // SAFETY: host arrays of `vx` and `keys`, alive for the call.
            let ks = unsafe { host_input::<i64>(rk) }?;
            let xs = unsafe { host_input::<T>(rx) }?;
            reprosum::add_by_key(xs.as_slice(), ks.as_slice(), states)
        })
    })
}

/// `out[r]` = the sum of row `r` of a 2-D array (batch-invariant).
#[pyfunction]
fn sum_rows(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    fold: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let vx = host_view(
        x,
        Need {
            what: "x",
            ndim: 2,
            writable: false,
        },
    )?;
    let vo = host_view(out, OUT)?;
    let fold = fold_for(fold_int(fold)?, vx.elem)?;
    check_out_type(&vx, &vo)?;
    let (rows, cols) = (vx.shape[0], vx.shape[1]);
    let ro = vo.raw();
    if ro.len != rows {
        return Err(PyValueError::new_err(format!(
            "out has {} elements, x has {rows} rows",
            ro.len
        )));
    }
    let size = vx.elem.size() as isize;
    let (s0, s1) = (vx.strides[0], vx.strides[1]);
    // In place when the rows are contiguous, aligned and evenly spaced forward; else the rows
    // are gathered into a compact copy.
    let in_place = (cols <= 1 || s1 == size)
        && (rows <= 1 || (s0 >= 0 && s0 % size == 0 && (s0 / size) as usize >= cols))
        && vx.ptr.is_multiple_of(vx.elem.size());
    let row_stride = if rows <= 1 {
        cols
    } else {
        (s0 / size).max(0) as usize
    };
    let span = if rows == 0 || cols == 0 {
        0
    } else {
        (rows - 1).saturating_mul(row_stride).saturating_add(cols)
    };
    let whole = Raw {
        ptr: vx.ptr,
        len: if in_place { span } else { 0 },
        stride: size,
        elem: vx.elem,
    };
    // The input's byte range, for the overlap check (either layout).
    let (lo, hi) = {
        // As i128: no extent or stride can overflow the arithmetic.
        let (mut lo, mut hi) = (vx.ptr as i128, vx.ptr as i128);
        if rows > 0 && cols > 0 {
            for (d, s) in [(rows, s0), (cols, s1)] {
                let off = (d as i128 - 1) * s as i128;
                if off < 0 {
                    lo += off;
                } else {
                    hi += off;
                }
            }
            hi += size as i128;
        }
        let clamp = |a: i128| a.clamp(0, usize::MAX as i128) as usize;
        (clamp(lo), clamp(hi))
    };
    let (olo, ohi) = ro.extent();
    if olo < ohi && lo < hi && olo < hi && lo < ohi {
        return Err(PyValueError::new_err("out overlaps an input"));
    }
    let (ptr, elem) = (vx.ptr, vx.elem);
    by_elem!(elem, T => {
        py.detach(move || {
            let opts = reprosum::Options::with_fold(fold);
            if in_place {
                // SAFETY: the rows of `vx` (alive for the call) lie in `span` contiguous,
                // aligned values (checked above); `ro` is writable and disjoint from them.
                let xs = unsafe { host_input::<T>(whole) }?;
                return unsafe { with_out::<T>(ro, |o| reprosum::sum_rows_with(xs.as_slice(), rows, cols, row_stride.max(cols), o, &opts)) };
            }
            if cols as u64 > T::CAPACITY {
                return Err(Error::CapacityExceeded);
            }
            let n = rows.checked_mul(cols).ok_or(Error::OutOfMemory)?;
            let mut compact: Vec<T> = Vec::new();
            compact.try_reserve_exact(n).map_err(|_| Error::OutOfMemory)?;
            for r in 0..rows {
                let row = Raw {
                    ptr: (ptr as isize).wrapping_add((r as isize).wrapping_mul(s0)) as usize,
                    len: cols,
                    stride: s1,
                    elem,
                };
                // SAFETY: row r of `vx`, alive for the call.
                compact.extend_from_slice(unsafe { gather::<T>(row) }?.as_slice());
            }
            // SAFETY: as above.
            unsafe { with_out::<T>(ro, |o| reprosum::sum_rows_with(&compact, rows, cols, cols, o, &opts)) }
        })
        .map_err(core_err)
    })
}

/// Sets the size of the thread pool the sums run on (0: back to the default, which is
/// `ADN_NUM_THREADS` or the cores this process may use).
#[pyfunction]
fn set_num_threads(py: Python<'_>, n: usize) -> PyResult<()> {
    py.detach(|| reprosum::set_num_threads(n)).map_err(core_err)
}

/// The number of threads a sum runs on.
#[pyfunction]
fn num_threads() -> usize {
    reprosum::num_threads()
}

/// `(shape, dtype, place)` of an array as the functions read it (`place`: "host", "cuda",
/// "rocm"), for making outputs.
#[pyfunction]
fn describe(x: &Bound<'_, PyAny>, ndim: usize) -> PyResult<(Vec<usize>, &'static str, &'static str)> {
    let v = read(
        x,
        Need {
            what: "x",
            ndim,
            writable: false,
        },
    )?;
    let place = match v.place {
        Place::Host => "host",
        Place::Cuda => "cuda",
        Place::Rocm => "rocm",
    };
    Ok((v.shape.clone(), v.elem.name(), place))
}

/// The GPU back ends this build has (`"cuda"`, `"hip"`).
#[pyfunction]
fn built_backends() -> Vec<&'static str> {
    let mut v = Vec::new();
    if Backend::Cuda.is_built() {
        v.push("cuda");
    }
    if Backend::Hip.is_built() {
        v.push("hip");
    }
    v
}

/// An empty accumulator of `fold` (checks the fold).
pub(crate) fn new_acc<T: Float>(fold: usize) -> PyResult<DynAccumulator<T>> {
    DynAccumulator::<T>::new(fold).map_err(core_err)
}

#[pymodule]
fn _reprosum(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(sum, m)?)?;
    m.add_function(wrap_pyfunction!(cumsum, m)?)?;
    m.add_function(wrap_pyfunction!(segmented_sum, m)?)?;
    m.add_function(wrap_pyfunction!(segmented_cumsum, m)?)?;
    m.add_function(wrap_pyfunction!(sum_by_key, m)?)?;
    m.add_function(wrap_pyfunction!(sum_rows, m)?)?;
    m.add_function(wrap_pyfunction!(add_segments, m)?)?;
    m.add_function(wrap_pyfunction!(add_by_key, m)?)?;
    m.add_function(wrap_pyfunction!(set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(built_backends, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(acc::_accumulator_from_bytes, m)?)?;
    m.add_class::<acc::Accumulator>()?;
    m.add("DeviceError", py.get_type::<DeviceError>())?;
    m.add("NoDeviceError", py.get_type::<NoDeviceError>())?;
    m.add("NotBuiltError", py.get_type::<NotBuiltError>())?;
    m.add("CAPACITY_F64", reprosum::CAPACITY_F64)?;
    m.add("CAPACITY_F32", reprosum::CAPACITY_F32)?;
    m.add("DEFAULT_FOLD", reprosum::DEFAULT_FOLD)?;
    m.add("MAX_FOLD_F64", <f64 as Float>::MAX_FOLD)?;
    m.add("MAX_FOLD_F32", <f32 as Float>::MAX_FOLD)?;
    Ok(())
}
