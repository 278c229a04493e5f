//! Reading an input or an output array in place: a NumPy array (its C struct, through the
//! `numpy` crate), an object with `__dlpack__`, or one with `__cuda_array_interface__`.

use crate::dlpack::{self, Managed};
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elem {
    F64,
    F32,
}

impl Elem {
    pub(crate) fn size(self) -> usize {
        match self {
            Elem::F64 => 8,
            Elem::F32 => 4,
        }
    }
    pub(crate) fn name(self) -> &'static str {
        match self {
            Elem::F64 => "float64",
            Elem::F32 => "float32",
        }
    }
}

/// Where the memory is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Host,
    Cuda,
    Rocm,
}

/// The stream value a consumer passes to `__dlpack__(stream=...)`: CUDA's legacy default
/// stream is 1 (0 is not allowed there), ROCm's default stream is 0. Our kernels then run on
/// the default (null) stream, which the producer has ordered its work before.
fn consumer_stream(device_type: i32) -> Option<i64> {
    match device_type {
        dlpack::KDL_CUDA | dlpack::KDL_CUDA_MANAGED => Some(1),
        dlpack::KDL_ROCM => Some(0),
        _ => None,
    }
}

/// A 1-D (or 2-D) array of f64 or f32, described by address, extents and byte strides. The
/// memory stays valid while the `View` lives: it holds the Python object (or the consumed
/// DLPack tensor, deleted on drop).
pub(crate) struct View<'py> {
    pub ptr: usize,
    pub shape: Vec<usize>,
    /// In bytes.
    pub strides: Vec<isize>,
    pub elem: Elem,
    pub place: Place,
    pub writable: bool,
    /// A CUDA stream the producer named (`__cuda_array_interface__`), to run on.
    pub stream: usize,
    _obj: Bound<'py, PyAny>,
    _managed: Option<Managed>,
}

/// A host array of `len` elements at `ptr`, `stride` bytes apart: `Send`, so that the work
/// runs with the GIL released.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Raw {
    pub ptr: usize,
    pub len: usize,
    pub stride: isize,
    pub elem: Elem,
}

impl Raw {
    /// Contiguous and aligned: readable as a slice in place.
    pub(crate) fn is_slice(&self) -> bool {
        (self.len <= 1 || self.stride == self.elem.size() as isize)
            && self.ptr.is_multiple_of(self.elem.size())
    }

    /// The half-open byte range the elements cover.
    pub(crate) fn extent(&self) -> (usize, usize) {
        if self.len == 0 {
            return (self.ptr, self.ptr);
        }
        // Addresses as i128: no stride or length can overflow the arithmetic.
        let p = self.ptr as i128;
        let span = (self.len as i128 - 1) * self.stride as i128;
        let lo = (p + span.min(0)).clamp(0, usize::MAX as i128);
        let hi = (p + span.max(0) + self.elem.size() as i128).clamp(0, usize::MAX as i128);
        (lo as usize, hi as usize)
    }

    /// Whether two arrays' byte ranges intersect.
    pub(crate) fn overlaps(&self, other: &Raw) -> bool {
        let (a, b) = (self.extent(), other.extent());
        a.0 < a.1 && b.0 < b.1 && a.0 < b.1 && b.0 < a.1
    }

    /// The same elements in the same places (an in-place operation).
    pub(crate) fn same(&self, other: &Raw) -> bool {
        self.ptr == other.ptr && self.len == other.len && (self.stride == other.stride || self.len <= 1)
    }
}

/// What a caller needs of an array.
#[derive(Clone, Copy)]
pub(crate) struct Need {
    pub what: &'static str,
    pub ndim: usize,
    pub writable: bool,
}

impl<'py> View<'py> {
    /// The element count of a 1-D view.
    pub(crate) fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// A 1-D view as a `Raw`.
    pub(crate) fn raw(&self) -> Raw {
        Raw {
            ptr: self.ptr,
            len: self.shape[0],
            stride: self.strides[0],
            elem: self.elem,
        }
    }

    /// Where the data lives, for messages.
    pub(crate) fn place_name(&self) -> &'static str {
        match self.place {
            Place::Host => "host memory",
            Place::Cuda => "a CUDA device",
            Place::Rocm => "a ROCm device",
        }
    }
}

/// Reads `obj` as an array of f64 or f32 with `need.ndim` dimensions.
///
/// # Errors
/// `TypeError` for an object that is no array, or another element type (naming it);
/// `ValueError` for another number of dimensions, or a read-only array where one is written.
pub(crate) fn read<'py>(obj: &Bound<'py, PyAny>, need: Need) -> PyResult<View<'py>> {
    let v = if let Ok(a) = obj.cast::<PyUntypedArray>() {
        read_numpy(a, need)?
    } else if obj.hasattr(pyo3::intern!(obj.py(), "__dlpack__"))? {
        read_dlpack(obj, need)?
    } else if obj.hasattr(pyo3::intern!(obj.py(), "__cuda_array_interface__"))? {
        read_cai(obj, need)?
    } else {
        return Err(PyTypeError::new_err(format!(
            "{}: expected a NumPy array or an object with __dlpack__ or __cuda_array_interface__, got {}",
            need.what,
            obj.get_type().name()?
        )));
    };
    if need.writable && !v.writable {
        return Err(PyValueError::new_err(format!("{} is read-only", need.what)));
    }
    Ok(v)
}

fn check_ndim(need: Need, nd: usize) -> PyResult<()> {
    if nd != need.ndim {
        return Err(PyValueError::new_err(format!(
            "{}: expected a {}-D array, got {}-D",
            need.what, need.ndim, nd
        )));
    }
    Ok(())
}

fn wrong_dtype(need: Need, name: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "{}: unsupported dtype {name} (float64 and float32 are summed; pass dtype= to convert explicitly)",
        need.what
    ))
}

fn read_numpy<'py>(a: &Bound<'py, PyUntypedArray>, need: Need) -> PyResult<View<'py>> {
    let d = a.dtype();
    // NPY_FLOAT = 11, NPY_DOUBLE = 12 (numpy's type numbers), in native byte order.
    let elem = match (d.num(), d.is_native_byteorder() != Some(false)) {
        (12, true) => Elem::F64,
        (11, true) => Elem::F32,
        _ => return Err(wrong_dtype(need, &d.str()?.to_string())),
    };
    check_ndim(need, a.ndim())?;
    let raw = a.as_array_ptr();
    // SAFETY: `raw` is the live PyArrayObject of `a` (held for the view's life); `data` and
    // `flags` are plain fields.
    let (data, flags) = unsafe { ((*raw).data as usize, (*raw).flags) };
    let writable = flags & numpy::npyffi::NPY_ARRAY_WRITEABLE != 0;
    Ok(View {
        ptr: data,
        shape: a.shape().to_vec(),
        strides: a.strides().to_vec(),
        elem,
        place: Place::Host,
        writable,
        stream: 0,
        _obj: a.clone().into_any(),
        _managed: None,
    })
}

fn read_dlpack<'py>(obj: &Bound<'py, PyAny>, need: Need) -> PyResult<View<'py>> {
    let py = obj.py();
    let dev: (i32, i32) = obj
        .call_method0(pyo3::intern!(py, "__dlpack_device__"))?
        .extract()?;
    let place = match dev.0 {
        dlpack::KDL_CPU | dlpack::KDL_CUDA_HOST | dlpack::KDL_ROCM_HOST => Place::Host,
        dlpack::KDL_CUDA | dlpack::KDL_CUDA_MANAGED => Place::Cuda,
        dlpack::KDL_ROCM => Place::Rocm,
        other => {
            return Err(PyTypeError::new_err(format!(
                "{}: a DLPack tensor on device type {other} (CPU, CUDA and ROCm are supported)",
                need.what
            )))
        }
    };
    // DLPack 1.x first (max_version, read-only flag); a producer that predates it refuses
    // the keyword with a TypeError, and is asked again the old way.
    let kw = PyDict::new(py);
    kw.set_item("stream", consumer_stream(dev.0))?;
    kw.set_item("max_version", (1, 0))?;
    let name = pyo3::intern!(py, "__dlpack__");
    let capsule = match obj.call_method(name, (), Some(&kw)) {
        Ok(c) => c,
        Err(e) if e.is_instance_of::<PyTypeError>(py) => {
            let kw = PyDict::new(py);
            if let Some(s) = consumer_stream(dev.0) {
                kw.set_item("stream", s)?;
            }
            obj.call_method(name, (), Some(&kw))?
        }
        Err(e) => return Err(e),
    };
    let m = Managed::take(&capsule)?;
    let writable = !m.read_only();
    let t = m.tensor();
    let (code, bits, lanes) = (t.dtype.code, t.dtype.bits, t.dtype.lanes);
    let elem = match (code, bits, lanes) {
        (2, 64, 1) => Elem::F64,
        (2, 32, 1) => Elem::F32,
        _ => return Err(wrong_dtype(need, &dlpack::dtype_name(t.dtype))),
    };
    let (shape, strides) = m.layout()?;
    check_ndim(need, shape.len())?;
    let size = elem.size() as isize;
    let strides = strides
        .iter()
        .map(|&s| isize::try_from(s).ok().and_then(|s| s.checked_mul(size)))
        .collect::<Option<Vec<isize>>>()
        .ok_or_else(|| PyValueError::new_err("a DLPack stride too large"))?;
    let ptr = (t.data as usize)
        .checked_add(t.byte_offset as usize)
        .ok_or_else(|| PyValueError::new_err("a DLPack byte offset past the address space"))?;
    Ok(View {
        ptr,
        shape,
        strides,
        elem,
        place,
        writable,
        stream: 0,
        _obj: obj.clone(),
        _managed: Some(m),
    })
}

fn read_cai<'py>(obj: &Bound<'py, PyAny>, need: Need) -> PyResult<View<'py>> {
    let py = obj.py();
    let d = obj.getattr(pyo3::intern!(py, "__cuda_array_interface__"))?;
    let d = d
        .cast::<PyDict>()
        .map_err(|_| PyTypeError::new_err("__cuda_array_interface__ is not a dict"))?;
    let get = |k: &str| -> PyResult<Bound<'py, PyAny>> {
        d.get_item(k)?
            .ok_or_else(|| PyValueError::new_err(format!("__cuda_array_interface__ has no {k:?}")))
    };
    let typestr: String = get("typestr")?.extract()?;
    let elem = match typestr.as_str() {
        "<f8" | "=f8" => Elem::F64,
        "<f4" | "=f4" => Elem::F32,
        other => return Err(wrong_dtype(need, other)),
    };
    let shape: Vec<usize> = get("shape")?.extract()?;
    check_ndim(need, shape.len())?;
    let data = get("data")?;
    let data = data
        .cast::<PyTuple>()
        .map_err(|_| PyTypeError::new_err("__cuda_array_interface__['data'] is not a tuple"))?;
    let ptr: usize = data.get_item(0)?.extract()?;
    let readonly: bool = data.get_item(1)?.extract()?;
    let strides: Vec<isize> = match d.get_item("strides")? {
        Some(s) if !s.is_none() => s.extract()?,
        _ => {
            let mut s = vec![elem.size() as isize; shape.len()];
            for i in (0..shape.len().saturating_sub(1)).rev() {
                s[i] = s[i + 1].saturating_mul(shape[i + 1].max(1) as isize);
            }
            s
        }
    };
    if strides.len() != shape.len() {
        return Err(PyValueError::new_err(
            "__cuda_array_interface__: strides and shape differ in length",
        ));
    }
    // Version 3: the consumer must order its work after the producer's stream; running on
    // that stream does (1 and 2 are the legacy and per-thread default streams).
    let stream: usize = match d.get_item("stream")? {
        Some(s) if !s.is_none() => s.extract()?,
        _ => 0,
    };
    Ok(View {
        ptr,
        shape,
        strides,
        elem,
        place: Place::Cuda,
        writable: !readonly,
        stream,
        _obj: obj.clone(),
        _managed: None,
    })
}

/// Copies the elements of a strided host array into a vector (fallibly).
///
/// # Safety
/// `r` describes `r.len` readable elements of type `T` (`r.elem`) in host memory.
pub(crate) unsafe fn gather<T: Copy>(r: Raw) -> Result<Vec<T>, reprosum::Error> {
    let mut v: Vec<T> = Vec::new();
    v.try_reserve_exact(r.len)
        .map_err(|_| reprosum::Error::OutOfMemory)?;
    for i in 0..r.len {
        let p = (r.ptr as isize).wrapping_add((i as isize).wrapping_mul(r.stride)) as *const T;
        // SAFETY: element i of the caller's array (maybe unaligned: read_unaligned).
        v.push(unsafe { p.read_unaligned() });
    }
    Ok(v)
}

/// Writes `xs` into a strided host array.
///
/// # Safety
/// `r` describes `xs.len()` writable elements of type `T` in host memory, not aliasing `xs`.
pub(crate) unsafe fn scatter<T: Copy>(xs: &[T], r: Raw) {
    for (i, &x) in xs.iter().enumerate() {
        let p = (r.ptr as isize).wrapping_add((i as isize).wrapping_mul(r.stride)) as *mut T;
        // SAFETY: element i of the caller's array.
        unsafe { p.write_unaligned(x) };
    }
}
