//! `reprosum.Accumulator`: the binned accumulator, with its canonical byte encoding.

use crate::view::{read, Elem, Need, Place};
use crate::{core_err, dev_err, fold_for, host_input, new_acc};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFloat, PyTuple};
use reprosum::{DynAccumulator, Error};
use std::ffi::c_void;

// Both variants are plain inline state, copied whole; boxing would allocate per accumulator.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy)]
enum Acc {
    F64(DynAccumulator<f64>),
    F32(DynAccumulator<f32>),
}

/// A reproducible running sum: add values and arrays, merge accumulators in any order, and
/// read the value; its state (and so its bytes) depends only on the multiset of values added.
#[pyclass(module = "reprosum", name = "Accumulator")]
pub(crate) struct Accumulator {
    inner: Acc,
}

fn parse_dtype(dtype: &Bound<'_, PyAny>) -> PyResult<Elem> {
    // Accepts "float64" / "float32" and anything whose str() is that (numpy dtypes and types).
    let s: String = if let Ok(s) = dtype.extract::<String>() {
        s
    } else if let Ok(name) = dtype.getattr("__name__") {
        name.extract()?
    } else {
        dtype.str()?.extract()?
    };
    match s.as_str() {
        "float64" | "f8" | "<f8" | "double" => Ok(Elem::F64),
        "float32" | "f4" | "<f4" | "single" => Ok(Elem::F32),
        other => Err(PyTypeError::new_err(format!(
            "unsupported dtype {other} (an Accumulator is float64 or float32)"
        ))),
    }
}

impl Accumulator {
    pub(crate) fn elem(&self) -> Elem {
        match self.inner {
            Acc::F64(_) => Elem::F64,
            Acc::F32(_) => Elem::F32,
        }
    }
}

#[pymethods]
impl Accumulator {
    #[new]
    #[pyo3(signature = (dtype=None, fold=None))]
    fn new(dtype: Option<&Bound<'_, PyAny>>, fold: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let elem = match dtype {
            None => Elem::F64,
            Some(d) => parse_dtype(d)?,
        };
        let fold = match fold {
            None => reprosum::DEFAULT_FOLD,
            Some(f) => fold_for(crate::fold_int(f)?, elem)?,
        };
        Ok(Accumulator {
            inner: match elem {
                Elem::F64 => Acc::F64(new_acc(fold)?),
                Elem::F32 => Acc::F32(new_acc(fold)?),
            },
        })
    }

    /// Adds one value (converted to the accumulator's type as `numpy.float32(x)` would, for
    /// a float32 accumulator).
    fn add(&mut self, x: f64) -> PyResult<()> {
        match &mut self.inner {
            Acc::F64(a) => a.add(x),
            Acc::F32(a) => a.add(x as f32),
        }
        .map_err(core_err)
    }

    /// Adds every value of a 1-D array of the accumulator's type (host or device).
    fn add_array(&mut self, py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = read(
            x,
            Need {
                what: "x",
                ndim: 1,
                writable: false,
            },
        )?;
        if v.elem != self.elem() {
            return Err(PyTypeError::new_err(format!(
                "x is {} but the accumulator is {}",
                v.elem.name(),
                self.elem().name()
            )));
        }
        let n = v.len();
        let place = v.place;
        let (ptr, stream) = if place == Place::Host {
            (0, 0)
        } else {
            (crate::device_ptr(&v, "x")?, v.stream)
        };
        let r = v.raw();
        macro_rules! add {
            ($a:expr, $t:ty) => {{
                let mut a = *$a;
                let res = py.detach(
                    move || -> Result<DynAccumulator<$t>, reprosum::DeviceError> {
                        if place == Place::Host {
                            reprosum::check_room(&a, r.len)?;
                            // SAFETY: the host array of `v`, alive for the call.
                            let xs = unsafe { host_input::<$t>(r) }?;
                            a.add_slice(xs.as_slice())?;
                        } else {
                            let backend = crate::backend_of(place);
                            // SAFETY: `n` aligned values of the type on a device of `backend`,
                            // alive for the call (held by `v`); `stream` is 0 or the producer's.
                            unsafe {
                                reprosum::add_ptr::<$t>(
                                    backend,
                                    &mut a,
                                    ptr as *const $t,
                                    n,
                                    stream as *mut c_void,
                                )
                            }?;
                        }
                        Ok(a)
                    },
                );
                *$a = res.map_err(dev_err)?;
            }};
        }
        match &mut self.inner {
            Acc::F64(a) => add!(a, f64),
            Acc::F32(a) => add!(a, f32),
        }
        Ok(())
    }

    /// Adds the values of another accumulator of the same type and fold (exactly: any merge
    /// order gives the same state).
    fn merge(slf: &Bound<'_, Self>, other: &Bound<'_, Accumulator>) -> PyResult<()> {
        let o = other.borrow().inner;
        let mut me = slf.borrow_mut();
        match (&mut me.inner, &o) {
            (Acc::F64(a), Acc::F64(b)) => a.merge(b).map_err(core_err),
            (Acc::F32(a), Acc::F32(b)) => a.merge(b).map_err(core_err),
            _ => Err(PyTypeError::new_err("accumulators of different dtypes")),
        }
    }

    /// The reproducible sum of the values added so far (a Python float).
    fn value(&self) -> f64 {
        match &self.inner {
            Acc::F64(a) => a.value(),
            Acc::F32(a) => f64::from(a.value()),
        }
    }

    /// How many values were added.
    #[getter]
    fn count(&self) -> u64 {
        match &self.inner {
            Acc::F64(a) => a.count(),
            Acc::F32(a) => a.count(),
        }
    }

    /// The fold K.
    #[getter]
    fn fold(&self) -> usize {
        match &self.inner {
            Acc::F64(a) => a.fold(),
            Acc::F32(a) => a.fold(),
        }
    }

    /// `"float64"` or `"float32"`.
    #[getter]
    fn dtype(&self) -> &'static str {
        self.elem().name()
    }

    /// The canonical, versioned, little-endian encoding (docs/FORMAT.md, section 11): the same
    /// bytes for the same multiset of values on every machine.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let e = match &self.inner {
            Acc::F64(a) => a.to_bytes(),
            Acc::F32(a) => a.to_bytes(),
        };
        PyBytes::new(py, e.as_bytes())
    }

    /// Rebuilds an accumulator from `to_bytes()`'s encoding (either type, any fold).
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        _accumulator_from_bytes(data)
    }

    /// A copy.
    fn copy(&self) -> Self {
        Accumulator { inner: self.inner }
    }

    fn __copy__(&self) -> Self {
        self.copy()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.copy()
    }

    /// Pickled as its canonical bytes.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let f = py
            .import("reprosum._reprosum")?
            .getattr("_accumulator_from_bytes")?;
        (f, (self.to_bytes(py),)).into_pyobject(py)
    }

    /// Equal when the states (hence the encodings) are equal.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<Accumulator>() {
            Ok(o) => {
                let o = o.borrow();
                let (a, b) = (self.bytes_vec(), o.bytes_vec());
                a == b
            }
            Err(_) => false,
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let v = PyFloat::new(py, self.value()).repr()?;
        Ok(format!(
            "Accumulator(dtype='{}', fold={}, count={}, value={})",
            self.dtype(),
            self.fold(),
            self.count(),
            v
        ))
    }
}

impl Accumulator {
    fn bytes_vec(&self) -> Vec<u8> {
        match &self.inner {
            Acc::F64(a) => a.to_bytes().as_bytes().to_vec(),
            Acc::F32(a) => a.to_bytes().as_bytes().to_vec(),
        }
    }
}

/// An accumulator from its encoding (the type byte says which float type).
#[pyfunction]
pub(crate) fn _accumulator_from_bytes(data: &[u8]) -> PyResult<Accumulator> {
    match DynAccumulator::<f64>::from_bytes(data) {
        Ok(a) => Ok(Accumulator { inner: Acc::F64(a) }),
        Err(Error::Encoding(reprosum::EncodingError::Dtype)) => DynAccumulator::<f32>::from_bytes(data)
            .map(|a| Accumulator { inner: Acc::F32(a) })
            .map_err(core_err),
        Err(e) => Err(core_err(e)),
    }
}

/// The accumulators of a list, borrowed for a grouped add: every one of `elem`'s type, none
/// twice.
pub(crate) fn borrow_all<'py>(
    accs: &Bound<'py, PyAny>,
    elem: Elem,
) -> PyResult<Vec<PyRefMut<'py, Accumulator>>> {
    let seq = accs
        .try_iter()
        .map_err(|_| PyTypeError::new_err("accs: expected a list of reprosum.Accumulator"))?;
    let mut out = Vec::new();
    for item in seq {
        let item = item?;
        let a = item
            .cast::<Accumulator>()
            .map_err(|_| PyTypeError::new_err("accs: expected a list of reprosum.Accumulator"))?;
        let r = a.try_borrow_mut().map_err(|_| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "accs: entry {} is an Accumulator that appears earlier in the list",
                out.len()
            ))
        })?;
        if r.elem() != elem {
            return Err(PyTypeError::new_err(format!(
                "accs: entry {} is {} but x is {}",
                out.len(),
                r.elem().name(),
                elem.name()
            )));
        }
        out.push(r);
    }
    Ok(out)
}

/// The accumulators' states of type `T` (checked by [`borrow_all`]).
pub(crate) trait States: reprosum::Float {
    fn take(a: &Accumulator) -> Option<DynAccumulator<Self>>;
    fn put(a: &mut Accumulator, s: DynAccumulator<Self>);
}

impl States for f64 {
    fn take(a: &Accumulator) -> Option<DynAccumulator<f64>> {
        match a.inner {
            Acc::F64(s) => Some(s),
            Acc::F32(_) => None,
        }
    }
    fn put(a: &mut Accumulator, s: DynAccumulator<f64>) {
        a.inner = Acc::F64(s);
    }
}

impl States for f32 {
    fn take(a: &Accumulator) -> Option<DynAccumulator<f32>> {
        match a.inner {
            Acc::F32(s) => Some(s),
            Acc::F64(_) => None,
        }
    }
    fn put(a: &mut Accumulator, s: DynAccumulator<f32>) {
        a.inner = Acc::F32(s);
    }
}
