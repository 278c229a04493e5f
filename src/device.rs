//! Where a whole-slice call runs: the CPU (all threads) or a GPU back end.

#[cfg(any(feature = "cuda", feature = "hip"))]
use crate::Dtype;
use crate::{Error, Float};

/// A device to sum on. The bits are the same on every device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Device {
    /// The CPU, on rayon's threads.
    #[default]
    Cpu,
    /// CUDA device with this ordinal (feature `cuda`).
    Cuda(usize),
    /// HIP (AMD) device with this ordinal (feature `hip`).
    Hip(usize),
}

impl core::fmt::Display for Device {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Cuda(n) => write!(f, "cuda:{n}"),
            Device::Hip(n) => write!(f, "hip:{n}"),
        }
    }
}

impl core::str::FromStr for Device {
    type Err = String;

    /// `cpu`, `cuda`, `cuda:N`, `hip`, `hip:N`.
    fn from_str(s: &str) -> Result<Self, String> {
        let (name, ordinal) = match s.split_once(':') {
            Some((n, o)) => (n, Some(o)),
            None => (s, None),
        };
        let ordinal = match ordinal {
            None => 0,
            Some(o) => o
                .parse::<usize>()
                .map_err(|_| format!("bad device ordinal in {s:?}"))?,
        };
        match (name, s.contains(':')) {
            ("cpu", false) => Ok(Device::Cpu),
            ("cuda", _) => Ok(Device::Cuda(ordinal)),
            ("hip", _) => Ok(Device::Hip(ordinal)),
            _ => Err(format!(
                "unknown device {s:?} (expected cpu, cuda[:N] or hip[:N])"
            )),
        }
    }
}

/// Why a call on a device failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum DeviceError {
    /// The core's error (capacity, fold, lengths).
    Core(Error),
    /// This build has no support for the device's back end.
    NotBuilt(Device),
    /// The GPU back end's error (no driver, no device, unsupported fold, driver error).
    #[cfg(any(feature = "cuda", feature = "hip"))]
    Gpu(reprosum_gpu::GpuError),
}

impl core::fmt::Display for DeviceError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DeviceError::Core(e) => write!(f, "{e}"),
            DeviceError::NotBuilt(d) => {
                let feature = if matches!(d, Device::Hip(_)) {
                    "hip"
                } else {
                    "cuda"
                };
                write!(
                    f,
                    "this build has no {d} support (rebuild with the `{feature}` feature)"
                )
            }
            #[cfg(any(feature = "cuda", feature = "hip"))]
            DeviceError::Gpu(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for DeviceError {}

impl From<Error> for DeviceError {
    fn from(e: Error) -> Self {
        DeviceError::Core(e)
    }
}

#[cfg(any(feature = "cuda", feature = "hip"))]
impl From<reprosum_gpu::GpuError> for DeviceError {
    fn from(e: reprosum_gpu::GpuError) -> Self {
        DeviceError::Gpu(e)
    }
}

/// What kind of failure a [`DeviceError`] is: a classification that does not depend on the
/// enabled back ends, for bindings that map errors to codes (the C library's statuses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeviceErrorKind {
    /// The core's error (capacity, fold, lengths, encoding, host memory).
    Core(Error),
    /// This build lacks the back end.
    NotBuilt,
    /// No driver or runtime, or no such device.
    NoDevice,
    /// Device (or host staging) memory could not be allocated.
    OutOfMemory,
    /// A fold outside the format's (2..=52 for f64, 2..=21 for f32; the GPU takes every one).
    UnsupportedFold,
    /// A pointer the device cannot use (null, misaligned, another device, input and output in
    /// different memories).
    InvalidPointer,
    /// An output overlapping an input where the call does not allow it.
    Overlap,
    /// A driver or runtime call failed, or the device failed its arithmetic probe.
    Failed,
    /// A failure that the library's own checks should have prevented (a bug).
    Internal,
}

impl DeviceError {
    /// The kind of this error.
    pub fn kind(&self) -> DeviceErrorKind {
        match self {
            DeviceError::Core(e) => DeviceErrorKind::Core(*e),
            DeviceError::NotBuilt(_) => DeviceErrorKind::NotBuilt,
            #[cfg(any(feature = "cuda", feature = "hip"))]
            DeviceError::Gpu(g) => {
                use reprosum_gpu::GpuError as G;
                match g {
                    G::NoRuntime(_) | G::NoDevice { .. } => DeviceErrorKind::NoDevice,
                    // 2 is the out-of-memory code of both CUresult and hipError_t.
                    G::Driver { code: 2, .. } | G::HostOutOfMemory { .. } => DeviceErrorKind::OutOfMemory,
                    G::Driver { .. } | G::ProbeFailed(_) => DeviceErrorKind::Failed,
                    G::UnsupportedFold(_) => DeviceErrorKind::UnsupportedFold,
                    G::CapacityExceeded => DeviceErrorKind::Core(Error::CapacityExceeded),
                    G::LengthMismatch => DeviceErrorKind::Core(Error::LengthMismatch),
                    G::InvalidPointer(_) => DeviceErrorKind::InvalidPointer,
                    G::Overlap(_) => DeviceErrorKind::Overlap,
                    G::Core(e) => DeviceErrorKind::Core(*e),
                    _ => DeviceErrorKind::Internal,
                }
            }
        }
    }
}

/// Runs `$body` with `$gpu` naming the back-end module of `$device` (and `$ord` its
/// ordinal), or returns [`DeviceError::NotBuilt`] for a back end this build lacks.
/// `Device::Cpu` must be handled before.
macro_rules! on_device {
    ($device:expr, $gpu:ident, $ord:ident => $body:expr) => {
        match $device {
            #[cfg(feature = "cuda")]
            Device::Cuda($ord) => {
                use reprosum_gpu::cuda as $gpu;
                // The caller's current context is current again when the call returns.
                let _restore = $gpu::RestoreContext::save();
                $body
            }
            #[cfg(feature = "hip")]
            Device::Hip($ord) => {
                use reprosum_gpu::hip as $gpu;
                let _restore = $gpu::RestoreContext::save();
                $body
            }
            #[allow(unreachable_patterns)] // every device is handled when both GPU features are on
            other => Err(DeviceError::NotBuilt(other)),
        }
    };
}

/// As [`on_device!`] for a [`Backend`] (the pointer functions: no ordinal).
macro_rules! on_backend {
    ($backend:expr, $gpu:ident => $body:expr) => {
        match $backend {
            #[cfg(feature = "cuda")]
            Backend::Cuda => {
                use reprosum_gpu::cuda as $gpu;
                // The caller's current context is current again when the call returns.
                let _restore = $gpu::RestoreContext::save();
                $body
            }
            #[cfg(feature = "hip")]
            Backend::Hip => {
                use reprosum_gpu::hip as $gpu;
                let _restore = $gpu::RestoreContext::save();
                $body
            }
            #[allow(unreachable_patterns)] // every back end is handled when both features are on
            other => Err(DeviceError::NotBuilt(other.device())),
        }
    };
}

/// The reproducible sum of `xs` at `fold` on `device`.
///
/// # Errors
/// [`DeviceError::Core`] as for [`crate::sum_fold`]; [`DeviceError::NotBuilt`] for a back end
/// this build lacks; `DeviceError::Gpu` (features `cuda`, `hip`) when the device cannot be used.
pub fn sum_on<T: Float>(device: Device, xs: &[T], fold: usize) -> Result<T, DeviceError> {
    // A bad fold is refused first, whatever the device.
    crate::DynAccumulator::<T>::new(fold)?;
    if device == Device::Cpu {
        return Ok(crate::sum_fold(xs, fold)?);
    }
    on_device!(device, gpu, n => {
        let dev = gpu::device(n)?;
        Ok(match as_f64_or_f32(xs) {
            // T is the type matched (its bits, unchanged).
            Typed::F64(x) => T::from_bits_u64(dev.sum_host(x, fold)?.to_bits()),
            Typed::F32(x) => T::from_bits_u64(u64::from(dev.sum_host(x, fold)?.to_bits())),
        })
    })
}

/// The accumulator of `xs` at `fold`, computed on `device`: ready to merge with others (of
/// any device), so that a long input can be summed on a GPU block by block. Its value has
/// the bits [`sum_on`] gives for the same values; an empty `xs` opens the device and
/// returns an empty accumulator, so it tells early whether the device can be used.
///
/// # Errors
/// As [`sum_on`].
pub fn accumulate_on<T: Float>(
    device: Device,
    xs: &[T],
    fold: usize,
) -> Result<crate::DynAccumulator<T>, DeviceError> {
    crate::DynAccumulator::<T>::new(fold)?;
    if device == Device::Cpu {
        return Ok(crate::accumulate(xs, &crate::Options::with_fold(fold))?);
    }
    on_device!(device, gpu, n => {
        let dev = gpu::device(n)?;
        let (launch, stream) = (gpu::Launch::default(), gpu::Stream::DEFAULT);
        match as_f64_or_f32(xs) {
            Typed::F64(x) => same_type(&dev.accumulate_host_with(x, fold, stream, &launch)?.0),
            Typed::F32(x) => same_type(&dev.accumulate_host_with(x, fold, stream, &launch)?.0),
        }
    })
}

/// An accumulator of the element type `U` seen as one of `T`, which is the same type (the
/// caller matched on `T::DTYPE`): through the canonical encoding, so no cast is needed.
#[cfg(any(feature = "cuda", feature = "hip"))]
fn same_type<U: Float, T: Float>(
    acc: &crate::DynAccumulator<U>,
) -> Result<crate::DynAccumulator<T>, DeviceError> {
    Ok(crate::DynAccumulator::<T>::from_bytes(acc.to_bytes().as_bytes())?)
}

/// The reproducible cumulative sum of `xs` at `fold` on `device`, into `out`.
///
/// # Errors
/// As [`sum_on`], and [`Error::LengthMismatch`]. Errors found before the work leave `out`
/// untouched.
pub fn cumsum_on<T: Float>(device: Device, xs: &[T], out: &mut [T], fold: usize) -> Result<(), DeviceError> {
    crate::DynAccumulator::<T>::new(fold)?;
    if xs.len() != out.len() {
        return Err(Error::LengthMismatch.into());
    }
    if device == Device::Cpu {
        return Ok(crate::cumsum_fold(xs, out, fold)?);
    }
    on_device!(device, gpu, n => {
        let dev = gpu::device(n)?;
        match (as_f64_or_f32(xs), as_f64_or_f32_mut(out)) {
            (Typed::F64(x), TypedMut::F64(o)) => dev.cumsum_host(x, o, fold)?,
            (Typed::F32(x), TypedMut::F32(o)) => dev.cumsum_host(x, o, fold)?,
            // Input and output have the one element type T.
            _ => return Err(Error::LengthMismatch.into()),
        }
        Ok(())
    })
}

/// The reproducible cumulative sum of `xs` continued from `start`, on `device`: `out[i]` has
/// the bits of the value of `start` merged with `xs[..=i]` (as [`crate::cumsum_from`]), at
/// `start`'s fold, and the returned accumulator is `start` merged with all of `xs`. Feeding
/// the blocks of a long input in order, each from the accumulator the last call returned,
/// writes the bits of the whole input's cumulative sum on any device, holding one block at
/// a time.
///
/// On a GPU the block is copied to the device twice (once for the sums, once for the
/// returned accumulator).
///
/// # Errors
/// As [`cumsum_on`]; [`Error::CapacityExceeded`] counting what `start` holds. Errors found
/// before the work leave `out` untouched.
pub fn cumsum_from_on<T: Float>(
    device: Device,
    start: &crate::DynAccumulator<T>,
    xs: &[T],
    out: &mut [T],
) -> Result<crate::DynAccumulator<T>, DeviceError> {
    if xs.len() != out.len() {
        return Err(Error::LengthMismatch.into());
    }
    crate::check_room(start, xs.len())?;
    if device == Device::Cpu {
        return Ok(crate::cumsum_from(start, xs, out, &crate::Options::default())?);
    }
    on_device!(device, gpu, n => {
        let dev = gpu::device(n)?;
        let mut total = *start;
        match (as_f64_or_f32(xs), as_f64_or_f32_mut(out), T::DTYPE) {
            (Typed::F64(x), TypedMut::F64(o), Dtype::F64) => {
                // SAFETY: T is f64 (matched), so the accumulator casts are the identity.
                let (s, t) = unsafe {
                    (
                        &*(start as *const crate::DynAccumulator<T>).cast::<crate::DynAccumulator<f64>>(),
                        &mut *(&mut total as *mut crate::DynAccumulator<T>).cast::<crate::DynAccumulator<f64>>(),
                    )
                };
                dev.cumsum_from_host(s, x, o)?;
                dev.add_host_to(t, x)?;
            }
            (Typed::F32(x), TypedMut::F32(o), Dtype::F32) => {
                // SAFETY: as above, for f32.
                let (s, t) = unsafe {
                    (
                        &*(start as *const crate::DynAccumulator<T>).cast::<crate::DynAccumulator<f32>>(),
                        &mut *(&mut total as *mut crate::DynAccumulator<T>).cast::<crate::DynAccumulator<f32>>(),
                    )
                };
                dev.cumsum_from_host(s, x, o)?;
                dev.add_host_to(t, x)?;
            }
            // Input, output and start have the one element type T.
            _ => return Err(Error::LengthMismatch.into()),
        }
        Ok(total)
    })
}

/// A GPU back end, for the pointer functions ([`sum_ptr`], [`cumsum_ptr`], [`add_ptr`],
/// [`cumsum_from_ptr`]), which run on the device that holds their device pointers, or the
/// calling thread's current device for host pointers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// CUDA (feature `cuda`).
    Cuda,
    /// HIP (feature `hip`).
    Hip,
}

impl Backend {
    /// Whether this build has the back end.
    pub fn is_built(self) -> bool {
        match self {
            Backend::Cuda => cfg!(feature = "cuda"),
            Backend::Hip => cfg!(feature = "hip"),
        }
    }

    /// The back end's device 0 (what [`DeviceError::NotBuilt`] names).
    fn device(self) -> Device {
        match self {
            Backend::Cuda => Device::Cuda(0),
            Backend::Hip => Device::Hip(0),
        }
    }
}

/// The reproducible sum of `n` values at `x` on a GPU: `x` is a device pointer (used in
/// place, on the device that holds it) or a host pointer (copied to the current device);
/// `stream` is null (the default stream) or a `cudaStream_t` / `hipStream_t` of that device,
/// synchronised before returning. This is what the C library's `adn_cuda_sum_*` call.
///
/// # Safety
/// `x` points to `n` readable, aligned values (or `n == 0`), in host memory or the memory of
/// a device of `backend`; `stream` is null or a live stream of the device that runs the call.
///
/// # Errors
/// As [`sum_on`]; `DeviceError::Gpu` for pointers the device cannot use.
pub unsafe fn sum_ptr<T: Float>(
    backend: Backend,
    x: *const T,
    n: usize,
    fold: usize,
    stream: *mut core::ffi::c_void,
) -> Result<T, DeviceError> {
    crate::DynAccumulator::<T>::new(fold)?;
    let _ = (x, n, stream);
    on_backend!(backend, gpu => Ok(match T::DTYPE {
        // SAFETY (both arms): T is the type matched (`Float` is sealed), so the cast is the
        // identity; the caller's contract is `sum_ptr`'s.
        Dtype::F64 => T::from_bits_u64(unsafe { gpu::sum_ptr(x.cast::<f64>(), n, fold, stream) }?.to_bits()),
        Dtype::F32 => {
            T::from_bits_u64(u64::from(unsafe { gpu::sum_ptr(x.cast::<f32>(), n, fold, stream) }?.to_bits()))
        }
    }))
}

/// The reproducible cumulative sum of `n` values at `input` on a GPU, into `out`, which
/// lives where `input` lives (device memory of one device, used in place, or host memory,
/// copied); `out == input` is allowed, any other overlap is an error. As [`sum_ptr`]
/// otherwise. This is what the C library's `adn_cuda_cumsum_*` call.
///
/// # Safety
/// `input` points to `n` readable and `out` to `n` writable aligned values, both in host
/// memory or both on one device of `backend`; `stream` as for [`sum_ptr`].
///
/// # Errors
/// As [`sum_ptr`]. Errors before the launch leave `out` untouched; a device fault during the
/// kernels may leave a device-resident `out` partly written.
pub unsafe fn cumsum_ptr<T: Float>(
    backend: Backend,
    input: *const T,
    out: *mut T,
    n: usize,
    fold: usize,
    stream: *mut core::ffi::c_void,
) -> Result<(), DeviceError> {
    crate::DynAccumulator::<T>::new(fold)?;
    let _ = (input, out, n, stream);
    on_backend!(backend, gpu => match T::DTYPE {
        // SAFETY (both arms): as in `sum_ptr`.
        Dtype::F64 => Ok(unsafe { gpu::cumsum_ptr(input.cast::<f64>(), out.cast::<f64>(), n, fold, stream) }?),
        Dtype::F32 => Ok(unsafe { gpu::cumsum_ptr(input.cast::<f32>(), out.cast::<f32>(), n, fold, stream) }?),
    })
}

/// Adds `n` values at `x` (device or host memory, as for [`sum_ptr`]) to `acc` on a GPU, at
/// `acc`'s fold: afterwards `acc` has exactly the state `acc.add_slice` gives on the same
/// values. On any error `acc` is unchanged. This is what `adn_cuda_acc_*_add_array` call.
///
/// # Safety
/// As [`sum_ptr`].
///
/// # Errors
/// As [`sum_ptr`], and [`Error::CapacityExceeded`] counting what `acc` holds.
pub unsafe fn add_ptr<T: Float>(
    backend: Backend,
    acc: &mut crate::DynAccumulator<T>,
    x: *const T,
    n: usize,
    stream: *mut core::ffi::c_void,
) -> Result<(), DeviceError> {
    crate::check_room(acc, n)?;
    let _ = (x, stream);
    on_backend!(backend, gpu => match T::DTYPE {
        // SAFETY (both arms): T is the type matched, so the casts of the accumulator and the
        // pointer are the identity; the caller's contract is `add_ptr`'s.
        Dtype::F64 => Ok(unsafe {
            gpu::add_ptr(&mut *(acc as *mut crate::DynAccumulator<T>).cast::<crate::DynAccumulator<f64>>(), x.cast::<f64>(), n, stream)
        }?),
        Dtype::F32 => Ok(unsafe {
            gpu::add_ptr(&mut *(acc as *mut crate::DynAccumulator<T>).cast::<crate::DynAccumulator<f32>>(), x.cast::<f32>(), n, stream)
        }?),
    })
}

/// The reproducible cumulative sum of `n` values at `input` continued from `start`, on a
/// GPU: `out[i]` has the bits of the value of `start` merged with `input[..=i]`, at
/// `start`'s fold (as [`crate::cumsum_from`] on the CPU). Memory rules as [`cumsum_ptr`].
/// This is what `adn_cuda_cumsum_*_from` call.
///
/// # Safety
/// As [`cumsum_ptr`].
///
/// # Errors
/// As [`cumsum_ptr`], and [`Error::CapacityExceeded`] counting what `start` holds.
pub unsafe fn cumsum_from_ptr<T: Float>(
    backend: Backend,
    start: &crate::DynAccumulator<T>,
    input: *const T,
    out: *mut T,
    n: usize,
    stream: *mut core::ffi::c_void,
) -> Result<(), DeviceError> {
    crate::check_room(start, n)?;
    let _ = (input, out, stream);
    on_backend!(backend, gpu => match T::DTYPE {
        // SAFETY (both arms): as in `add_ptr`.
        Dtype::F64 => Ok(unsafe {
            gpu::cumsum_from_ptr(&*(start as *const crate::DynAccumulator<T>).cast::<crate::DynAccumulator<f64>>(), input.cast::<f64>(), out.cast::<f64>(), n, stream)
        }?),
        Dtype::F32 => Ok(unsafe {
            gpu::cumsum_from_ptr(&*(start as *const crate::DynAccumulator<T>).cast::<crate::DynAccumulator<f32>>(), input.cast::<f32>(), out.cast::<f32>(), n, stream)
        }?),
    })
}

/// A slice of the sealed float type, seen as what it is.
/// The reproducible sum of each segment of `xs` on `device` (CSR `offsets`: `out.len() + 1`
/// entries, the first 0, none below the one before, the last `xs.len()`): `out[i]` has the
/// bits of [`crate::segmented_sum_with`] at `fold` (the sum of that segment alone; +0 for an
/// empty one), on every device.
///
/// # Errors
/// As [`crate::segmented_sum_with`], [`DeviceError::NotBuilt`], `DeviceError::Gpu`. Nothing
/// is written on an error found before the work.
pub fn segmented_sum_on<T: Float>(
    device: Device,
    xs: &[T],
    offsets: &[usize],
    out: &mut [T],
    fold: usize,
) -> Result<(), DeviceError> {
    crate::DynAccumulator::<T>::new(fold)?;
    if device == Device::Cpu {
        return Ok(crate::segmented_sum_with(
            xs,
            offsets,
            out,
            &crate::Options::with_fold(fold),
        )?);
    }
    on_device!(device, gpu, n => {
        let dev = gpu::device(n)?;
        let stream = gpu::Stream::DEFAULT;
        match (as_f64_or_f32(xs), as_f64_or_f32_mut(out)) {
            (Typed::F64(x), TypedMut::F64(o)) => dev.segmented_sum_host(x, offsets, o, fold, stream)?,
            (Typed::F32(x), TypedMut::F32(o)) => dev.segmented_sum_host(x, offsets, o, fold, stream)?,
            // Input and output have the one element type T.
            _ => return Err(Error::LengthMismatch.into()),
        }
        Ok(())
    })
}

/// The reproducible sum of each row of a row-major matrix on `device` (row `r` is
/// `xs[r * row_stride..r * row_stride + cols]`): `out[r]` has the bits of
/// [`crate::sum_rows_with`] at `fold` (that row's sum alone), on every device.
///
/// # Errors
/// As [`crate::sum_rows_with`], [`DeviceError::NotBuilt`], `DeviceError::Gpu`. Nothing is
/// written on an error found before the work.
pub fn sum_rows_on<T: Float>(
    device: Device,
    xs: &[T],
    rows: usize,
    cols: usize,
    row_stride: usize,
    out: &mut [T],
    fold: usize,
) -> Result<(), DeviceError> {
    crate::DynAccumulator::<T>::new(fold)?;
    if device == Device::Cpu {
        return Ok(crate::sum_rows_with(
            xs,
            rows,
            cols,
            row_stride,
            out,
            &crate::Options::with_fold(fold),
        )?);
    }
    on_device!(device, gpu, n => {
        let dev = gpu::device(n)?;
        let stream = gpu::Stream::DEFAULT;
        match (as_f64_or_f32(xs), as_f64_or_f32_mut(out)) {
            (Typed::F64(x), TypedMut::F64(o)) => dev.sum_rows_host(x, rows, cols, row_stride, o, fold, stream)?,
            (Typed::F32(x), TypedMut::F32(o)) => dev.sum_rows_host(x, rows, cols, row_stride, o, fold, stream)?,
            _ => return Err(Error::LengthMismatch.into()),
        }
        Ok(())
    })
}

/// The reproducible sum of the values of each key on `device` (a scatter-add, `index_add`,
/// weighted bincount): `out[k]` has the bits of [`crate::sum_by_key_with`] at `fold` (the sum
/// of every `xs[i]` with `keys[i] == k` alone; +0 for a key no value has), on every device.
///
/// # Errors
/// As [`crate::sum_by_key_with`], [`DeviceError::NotBuilt`], `DeviceError::Gpu`. Nothing is
/// written on an error.
pub fn sum_by_key_on<T: Float>(
    device: Device,
    xs: &[T],
    keys: &[i64],
    out: &mut [T],
    fold: usize,
) -> Result<(), DeviceError> {
    crate::DynAccumulator::<T>::new(fold)?;
    if device == Device::Cpu {
        return Ok(crate::sum_by_key_with(
            xs,
            keys,
            out,
            &crate::Options::with_fold(fold),
        )?);
    }
    on_device!(device, gpu, n => {
        let dev = gpu::device(n)?;
        let stream = gpu::Stream::DEFAULT;
        match (as_f64_or_f32(xs), as_f64_or_f32_mut(out)) {
            (Typed::F64(x), TypedMut::F64(o)) => dev.sum_by_key_host(x, keys, o, fold, stream)?,
            (Typed::F32(x), TypedMut::F32(o)) => dev.sum_by_key_host(x, keys, o, fold, stream)?,
            _ => return Err(Error::LengthMismatch.into()),
        }
        Ok(())
    })
}

/// The reproducible cumulative sum of each segment on `device`, starting afresh at every
/// segment: for `j` in segment `i`, `out[j]` has the bits of [`crate::segmented_cumsum_with`]
/// at `fold` (the sum of `xs[offsets[i]..=j]` alone), on every device.
///
/// # Errors
/// As [`crate::segmented_cumsum_with`], [`DeviceError::NotBuilt`], `DeviceError::Gpu`.
/// Nothing is written on an error.
pub fn segmented_cumsum_on<T: Float>(
    device: Device,
    xs: &[T],
    offsets: &[usize],
    out: &mut [T],
    fold: usize,
) -> Result<(), DeviceError> {
    crate::DynAccumulator::<T>::new(fold)?;
    if device == Device::Cpu {
        return Ok(crate::segmented_cumsum_with(
            xs,
            offsets,
            out,
            &crate::Options::with_fold(fold),
        )?);
    }
    on_device!(device, gpu, n => {
        let dev = gpu::device(n)?;
        let stream = gpu::Stream::DEFAULT;
        match (as_f64_or_f32(xs), as_f64_or_f32_mut(out)) {
            (Typed::F64(x), TypedMut::F64(o)) => dev.segmented_cumsum_host(x, offsets, o, fold, stream)?,
            (Typed::F32(x), TypedMut::F32(o)) => dev.segmented_cumsum_host(x, offsets, o, fold, stream)?,
            _ => return Err(Error::LengthMismatch.into()),
        }
        Ok(())
    })
}

/// The reproducible cumulative sum of each segment on a GPU, from pointers: `offsets`
/// (`nseg + 1` entries, the last the number of values) in host memory or on the device of
/// `input`; `input` and `out` both in device memory of one device (used in place) or both
/// in host memory (copied); `out == input` allowed, other overlap an error. Device offsets
/// are checked on the device before anything is written. This is what the C library's
/// `adn_cuda_segmented_cumsum_*` call.
///
/// # Safety
/// `offsets` points to `nseg + 1` readable aligned `usize`, `input` to as many readable
/// values as the last says, `out` to as many writable ones; `stream` as for [`sum_ptr`].
///
/// # Errors
/// As [`segmented_cumsum_on`]; `DeviceError::Gpu` for pointers the device cannot use.
pub unsafe fn segmented_cumsum_ptr<T: Float>(
    backend: Backend,
    input: *const T,
    out: *mut T,
    offsets: *const usize,
    nseg: usize,
    fold: usize,
    stream: *mut core::ffi::c_void,
) -> Result<(), DeviceError> {
    crate::DynAccumulator::<T>::new(fold)?;
    let _ = (input, out, offsets, nseg, stream);
    on_backend!(backend, gpu => match T::DTYPE {
        // SAFETY (both arms): as in `sum_ptr`.
        Dtype::F64 => Ok(unsafe { gpu::segmented_cumsum_ptr(input.cast::<f64>(), out.cast::<f64>(), offsets, nseg, fold, stream) }?),
        Dtype::F32 => Ok(unsafe { gpu::segmented_cumsum_ptr(input.cast::<f32>(), out.cast::<f32>(), offsets, nseg, fold, stream) }?),
    })
}

/// The reproducible sum of each segment on a GPU, from pointers: `offsets` (`nseg + 1`
/// entries, the last the number of values) in host memory or on the device of `x`; `x` and
/// `out` both in device memory of one device (used in place) or both in host memory
/// (copied). Device offsets are checked on the device before anything is written. This is
/// what the C library's `adn_cuda_segmented_sum_*` call.
///
/// # Safety
/// `offsets` points to `nseg + 1` readable aligned `usize`, `x` to as many readable values
/// as the last says, `out` to `nseg` writable ones; `stream` as for [`sum_ptr`].
///
/// # Errors
/// As [`segmented_sum_on`]; `DeviceError::Gpu` for pointers the device cannot use.
pub unsafe fn segmented_sum_ptr<T: Float>(
    backend: Backend,
    x: *const T,
    offsets: *const usize,
    nseg: usize,
    fold: usize,
    out: *mut T,
    stream: *mut core::ffi::c_void,
) -> Result<(), DeviceError> {
    crate::DynAccumulator::<T>::new(fold)?;
    let _ = (x, offsets, nseg, out, stream);
    on_backend!(backend, gpu => match T::DTYPE {
        // SAFETY (both arms): as in `sum_ptr`.
        Dtype::F64 => Ok(unsafe { gpu::segmented_sum_ptr(x.cast::<f64>(), offsets, nseg, fold, out.cast::<f64>(), stream) }?),
        Dtype::F32 => Ok(unsafe { gpu::segmented_sum_ptr(x.cast::<f32>(), offsets, nseg, fold, out.cast::<f32>(), stream) }?),
    })
}

/// The reproducible sum of each row of a row-major matrix on a GPU, from pointers (`x` and
/// `out` both device memory of one device, or both host memory). This is what the C
/// library's `adn_cuda_sum_rows_*` call.
///
/// # Safety
/// `x` points to `(rows - 1) * row_stride + cols` readable aligned values (none for no
/// rows), `out` to `rows` writable ones; `stream` as for [`sum_ptr`].
///
/// # Errors
/// As [`sum_rows_on`]; `DeviceError::Gpu` for pointers the device cannot use.
#[allow(clippy::too_many_arguments)]
pub unsafe fn sum_rows_ptr<T: Float>(
    backend: Backend,
    x: *const T,
    rows: usize,
    cols: usize,
    row_stride: usize,
    fold: usize,
    out: *mut T,
    stream: *mut core::ffi::c_void,
) -> Result<(), DeviceError> {
    crate::DynAccumulator::<T>::new(fold)?;
    let _ = (x, rows, cols, row_stride, out, stream);
    on_backend!(backend, gpu => match T::DTYPE {
        // SAFETY (both arms): as in `sum_ptr`.
        Dtype::F64 => Ok(unsafe { gpu::sum_rows_ptr(x.cast::<f64>(), rows, cols, row_stride, fold, out.cast::<f64>(), stream) }?),
        Dtype::F32 => Ok(unsafe { gpu::sum_rows_ptr(x.cast::<f32>(), rows, cols, row_stride, fold, out.cast::<f32>(), stream) }?),
    })
}

/// The reproducible sum of the values of each key on a GPU, from pointers: `x` and `out` both
/// in device memory of one device (used in place; `keys` in host memory or on that device) or
/// all three in host memory (copied). Device keys are checked on the device before anything
/// is written. This is what the C library's `adn_cuda_sum_by_key_*` call.
///
/// # Safety
/// `x` points to `n` readable aligned values and `keys` to `n` readable aligned `i64` (either
/// may be null when `n` is 0), `out` to `nkeys` writable ones; `stream` as for [`sum_ptr`].
///
/// # Errors
/// As [`sum_by_key_on`]; `DeviceError::Gpu` for pointers the device cannot use.
#[allow(clippy::too_many_arguments)]
pub unsafe fn sum_by_key_ptr<T: Float>(
    backend: Backend,
    x: *const T,
    keys: *const i64,
    n: usize,
    nkeys: usize,
    fold: usize,
    out: *mut T,
    stream: *mut core::ffi::c_void,
) -> Result<(), DeviceError> {
    crate::DynAccumulator::<T>::new(fold)?;
    let _ = (x, keys, n, nkeys, out, stream);
    on_backend!(backend, gpu => match T::DTYPE {
        // SAFETY (both arms): as in `sum_ptr`.
        Dtype::F64 => Ok(unsafe { gpu::sum_by_key_ptr(x.cast::<f64>(), keys, n, nkeys, fold, out.cast::<f64>(), stream) }?),
        Dtype::F32 => Ok(unsafe { gpu::sum_by_key_ptr(x.cast::<f32>(), keys, n, nkeys, fold, out.cast::<f32>(), stream) }?),
    })
}

#[cfg(any(feature = "cuda", feature = "hip"))]
enum Typed<'a> {
    F64(&'a [f64]),
    F32(&'a [f32]),
}

#[cfg(any(feature = "cuda", feature = "hip"))]
enum TypedMut<'a> {
    F64(&'a mut [f64]),
    F32(&'a mut [f32]),
}

#[cfg(any(feature = "cuda", feature = "hip"))]
fn as_f64_or_f32<T: Float>(xs: &[T]) -> Typed<'_> {
    match T::DTYPE {
        // SAFETY: `Float` is sealed and implemented for f64 and f32 only; DTYPE F64 means T
        // is f64 (same size, alignment and validity), so the cast is the identity.
        Dtype::F64 => Typed::F64(unsafe { core::slice::from_raw_parts(xs.as_ptr().cast::<f64>(), xs.len()) }),
        // SAFETY: as above, for f32.
        Dtype::F32 => Typed::F32(unsafe { core::slice::from_raw_parts(xs.as_ptr().cast::<f32>(), xs.len()) }),
    }
}

#[cfg(any(feature = "cuda", feature = "hip"))]
fn as_f64_or_f32_mut<T: Float>(xs: &mut [T]) -> TypedMut<'_> {
    match T::DTYPE {
        // SAFETY: as in `as_f64_or_f32`; the exclusive borrow moves into the result.
        Dtype::F64 => {
            TypedMut::F64(unsafe { core::slice::from_raw_parts_mut(xs.as_mut_ptr().cast::<f64>(), xs.len()) })
        }
        // SAFETY: as above, for f32.
        Dtype::F32 => {
            TypedMut::F32(unsafe { core::slice::from_raw_parts_mut(xs.as_mut_ptr().cast::<f32>(), xs.len()) })
        }
    }
}
