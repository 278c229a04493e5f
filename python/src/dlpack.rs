//! Consuming a DLPack capsule, as the DLPack / Python array API protocol describes: a
//! versioned `DLManagedTensorVersioned` named "dltensor_versioned" (DLPack 1.x, asked for with
//! `max_version=(1, 0)`; it carries a read-only flag) or the unversioned `DLManagedTensor`
//! named "dltensor" (from producers that predate 1.0). The consumer renames the capsule
//! "used_dltensor_versioned" / "used_dltensor" and calls the tensor's deleter when it is done
//! with the memory.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use std::ffi::{c_void, CStr};

/// `DLDevice`.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct DlDevice {
    pub device_type: i32,
    pub device_id: i32,
}

/// `DLDataType`.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct DlDataType {
    pub code: u8,
    pub bits: u8,
    pub lanes: u16,
}

/// `DLTensor`.
#[repr(C)]
pub(crate) struct DlTensor {
    pub data: *mut c_void,
    pub device: DlDevice,
    pub ndim: i32,
    pub dtype: DlDataType,
    pub shape: *const i64,
    pub strides: *const i64,
    pub byte_offset: u64,
}

/// `DLManagedTensor`.
#[repr(C)]
pub(crate) struct DlManagedTensor {
    pub dl_tensor: DlTensor,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(*mut DlManagedTensor)>,
}

/// `DLPackVersion`.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct DlPackVersion {
    pub major: u32,
    pub minor: u32,
}

/// `DLManagedTensorVersioned` (DLPack 1.0).
#[repr(C)]
pub(crate) struct DlManagedTensorVersioned {
    pub version: DlPackVersion,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(*mut DlManagedTensorVersioned)>,
    pub flags: u64,
    pub dl_tensor: DlTensor,
}

/// `DLPACK_FLAG_BITMASK_READ_ONLY`.
const FLAG_READ_ONLY: u64 = 1;

pub(crate) const KDL_CPU: i32 = 1;
pub(crate) const KDL_CUDA: i32 = 2;
pub(crate) const KDL_CUDA_HOST: i32 = 3;
pub(crate) const KDL_ROCM: i32 = 10;
pub(crate) const KDL_ROCM_HOST: i32 = 11;
pub(crate) const KDL_CUDA_MANAGED: i32 = 13;

const NAME: &CStr = c"dltensor";
const USED: &CStr = c"used_dltensor";
const NAME_V: &CStr = c"dltensor_versioned";
const USED_V: &CStr = c"used_dltensor_versioned";

/// A consumed tensor: its deleter runs when this is dropped.
pub(crate) enum Managed {
    Legacy(*mut DlManagedTensor),
    Versioned(*mut DlManagedTensorVersioned),
}

/// The pointer of a capsule named `name`, renamed `used` (None: not such a capsule).
fn take_named(capsule: &Bound<'_, PyAny>, name: &CStr, used: &'static CStr) -> PyResult<Option<*mut c_void>> {
    let raw = capsule.as_ptr();
    // SAFETY: `raw` is a live object (borrowed from `capsule`); PyCapsule_IsValid accepts any
    // object and only reads it.
    if unsafe { ffi::PyCapsule_IsValid(raw, name.as_ptr()) } != 1 {
        return Ok(None);
    }
    // SAFETY: the capsule is valid with this name (checked above).
    let ptr = unsafe { ffi::PyCapsule_GetPointer(raw, name.as_ptr()) };
    if ptr.is_null() {
        return Err(PyErr::take(capsule.py())
            .unwrap_or_else(|| PyTypeError::new_err("a DLPack capsule holding NULL")));
    }
    // SAFETY: a valid capsule; renaming is how the protocol marks it consumed, so that its
    // destructor does not free the tensor we now own. The name is a static string.
    if unsafe { ffi::PyCapsule_SetName(raw, used.as_ptr()) } != 0 {
        return Err(PyErr::take(capsule.py())
            .unwrap_or_else(|| PyTypeError::new_err("could not mark the capsule used")));
    }
    Ok(Some(ptr))
}

impl Managed {
    /// Takes the tensor out of a "dltensor_versioned" or "dltensor" capsule and marks the
    /// capsule used.
    pub(crate) fn take(capsule: &Bound<'_, PyAny>) -> PyResult<Managed> {
        if let Some(p) = take_named(capsule, NAME_V, USED_V)? {
            let m = Managed::Versioned(p.cast());
            // SAFETY: a DLManagedTensorVersioned the producer keeps alive until its deleter.
            let major = unsafe { (*p.cast::<DlManagedTensorVersioned>()).version.major };
            if major != 1 {
                // Dropping `m` calls the deleter: the tensor is ours now.
                drop(m);
                return Err(PyTypeError::new_err(format!(
                    "a DLPack {major}.x tensor (this consumer reads 1.x)"
                )));
            }
            return Ok(m);
        }
        if let Some(p) = take_named(capsule, NAME, USED)? {
            return Ok(Managed::Legacy(p.cast()));
        }
        Err(PyTypeError::new_err(
            "__dlpack__ did not return an unused \"dltensor_versioned\" or \"dltensor\" capsule",
        ))
    }

    /// The tensor's description.
    pub(crate) fn tensor(&self) -> &DlTensor {
        // SAFETY: the producer keeps the managed tensor alive until its deleter is called,
        // which happens only in `drop`.
        unsafe {
            match self {
                Managed::Legacy(t) => &(**t).dl_tensor,
                Managed::Versioned(t) => &(**t).dl_tensor,
            }
        }
    }

    /// Whether the producer marked the memory read-only (versioned tensors only; the
    /// unversioned protocol has no such flag, and its tensors are writable).
    pub(crate) fn read_only(&self) -> bool {
        match self {
            Managed::Legacy(_) => false,
            // SAFETY: as in `tensor`.
            Managed::Versioned(t) => (unsafe { (**t).flags } & FLAG_READ_ONLY) != 0,
        }
    }

    /// The shape and the strides (in elements; a NULL strides pointer means compact
    /// row-major), after checking the number of dimensions is `1..=2`.
    pub(crate) fn layout(&self) -> PyResult<(Vec<usize>, Vec<i64>)> {
        let t = self.tensor();
        if !(0..=8).contains(&t.ndim) {
            return Err(PyValueError::new_err(format!(
                "a DLPack tensor of {} dimensions",
                t.ndim
            )));
        }
        let nd = t.ndim as usize;
        if nd > 0 && t.shape.is_null() {
            return Err(PyValueError::new_err("a DLPack tensor without a shape"));
        }
        // SAFETY: DLPack: `shape` points to `ndim` int64 values (non-NULL, checked); `strides`
        // is NULL or points to `ndim` int64 values. Both live as long as the tensor.
        let shape: Vec<i64> = if nd == 0 {
            Vec::new()
        } else {
            unsafe { std::slice::from_raw_parts(t.shape, nd) }.to_vec()
        };
        if shape.iter().any(|&d| d < 0) {
            return Err(PyValueError::new_err("a DLPack tensor with a negative extent"));
        }
        let strides: Vec<i64> = if t.strides.is_null() {
            let mut s = vec![1i64; nd];
            for i in (0..nd.saturating_sub(1)).rev() {
                s[i] = s[i + 1].saturating_mul(shape[i + 1].max(1));
            }
            s
        } else {
            // SAFETY: as above.
            unsafe { std::slice::from_raw_parts(t.strides, nd) }.to_vec()
        };
        Ok((shape.iter().map(|&d| d as usize).collect(), strides))
    }
}

impl Drop for Managed {
    fn drop(&mut self) {
        // SAFETY: the tensor was taken from a capsule (so not yet deleted) and is deleted once,
        // here; the protocol has the consumer call the deleter (which may be NULL).
        unsafe {
            match *self {
                Managed::Legacy(t) => {
                    if let Some(d) = (*t).deleter {
                        d(t);
                    }
                }
                Managed::Versioned(t) => {
                    if let Some(d) = (*t).deleter {
                        d(t);
                    }
                }
            }
        }
    }
}

/// The name of a DLPack data type, for messages (`float16`, `int64`, `bfloat16`, ...).
pub(crate) fn dtype_name(d: DlDataType) -> String {
    let kind = match d.code {
        0 => "int",
        1 => "uint",
        2 => "float",
        3 => "opaque_handle",
        4 => "bfloat",
        5 => "complex",
        6 => "bool",
        _ => "dtype code ",
    };
    let lanes = if d.lanes == 1 {
        String::new()
    } else {
        format!("x{}", d.lanes)
    };
    if d.code == 6 {
        return "bool".into();
    }
    format!("{kind}{}{lanes}", d.bits)
}
