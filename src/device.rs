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

/// The reproducible sum of `xs` at `fold` on `device`.
///
/// # Errors
/// [`DeviceError::Core`] as for [`crate::sum_fold`]; [`DeviceError::NotBuilt`] for a back end
/// this build lacks; `DeviceError::Gpu` (features `cuda`, `hip`) when the device cannot be used.
pub fn sum_on<T: Float>(device: Device, xs: &[T], fold: usize) -> Result<T, DeviceError> {
    // A bad fold is refused first, whatever the device.
    crate::DynAccumulator::<T>::new(fold)?;
    match device {
        Device::Cpu => Ok(crate::sum_fold(xs, fold)?),
        #[cfg(feature = "cuda")]
        Device::Cuda(n) => {
            let dev = reprosum_gpu::cuda::device(n)?;
            Ok(match as_f64_or_f32(xs) {
                // T is the type matched (its bits, unchanged).
                Typed::F64(x) => T::from_bits_u64(dev.sum_host(x, fold)?.to_bits()),
                Typed::F32(x) => T::from_bits_u64(u64::from(dev.sum_host(x, fold)?.to_bits())),
            })
        }
        #[cfg(feature = "hip")]
        Device::Hip(n) => {
            let dev = reprosum_gpu::hip::device(n)?;
            Ok(match as_f64_or_f32(xs) {
                Typed::F64(x) => T::from_bits_u64(dev.sum_host(x, fold)?.to_bits()),
                Typed::F32(x) => T::from_bits_u64(u64::from(dev.sum_host(x, fold)?.to_bits())),
            })
        }
        #[allow(unreachable_patterns)] // every device is handled when both GPU features are on
        other => Err(DeviceError::NotBuilt(other)),
    }
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
    match device {
        Device::Cpu => Ok(crate::accumulate(xs, &crate::Options::with_fold(fold))?),
        #[cfg(feature = "cuda")]
        Device::Cuda(n) => {
            let dev = reprosum_gpu::cuda::device(n)?;
            let (launch, stream) = (
                reprosum_gpu::cuda::Launch::default(),
                reprosum_gpu::cuda::Stream::DEFAULT,
            );
            match as_f64_or_f32(xs) {
                Typed::F64(x) => same_type(&dev.accumulate_host_with(x, fold, stream, &launch)?.0),
                Typed::F32(x) => same_type(&dev.accumulate_host_with(x, fold, stream, &launch)?.0),
            }
        }
        #[cfg(feature = "hip")]
        Device::Hip(n) => {
            let dev = reprosum_gpu::hip::device(n)?;
            let (launch, stream) = (
                reprosum_gpu::hip::Launch::default(),
                reprosum_gpu::hip::Stream::DEFAULT,
            );
            match as_f64_or_f32(xs) {
                Typed::F64(x) => same_type(&dev.accumulate_host_with(x, fold, stream, &launch)?.0),
                Typed::F32(x) => same_type(&dev.accumulate_host_with(x, fold, stream, &launch)?.0),
            }
        }
        #[allow(unreachable_patterns)] // every device is handled when both GPU features are on
        other => Err(DeviceError::NotBuilt(other)),
    }
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
    match device {
        Device::Cpu => Ok(crate::cumsum_fold(xs, out, fold)?),
        #[cfg(feature = "cuda")]
        Device::Cuda(n) => {
            let dev = reprosum_gpu::cuda::device(n)?;
            match (as_f64_or_f32(xs), as_f64_or_f32_mut(out)) {
                (Typed::F64(x), TypedMut::F64(o)) => dev.cumsum_host(x, o, fold)?,
                (Typed::F32(x), TypedMut::F32(o)) => dev.cumsum_host(x, o, fold)?,
                // Input and output have the one element type T.
                _ => return Err(Error::LengthMismatch.into()),
            }
            Ok(())
        }
        #[cfg(feature = "hip")]
        Device::Hip(n) => {
            let dev = reprosum_gpu::hip::device(n)?;
            match (as_f64_or_f32(xs), as_f64_or_f32_mut(out)) {
                (Typed::F64(x), TypedMut::F64(o)) => dev.cumsum_host(x, o, fold)?,
                (Typed::F32(x), TypedMut::F32(o)) => dev.cumsum_host(x, o, fold)?,
                _ => return Err(Error::LengthMismatch.into()),
            }
            Ok(())
        }
        #[allow(unreachable_patterns)] // every device is handled when both GPU features are on
        other => Err(DeviceError::NotBuilt(other)),
    }
}

/// A slice of the sealed float type, seen as what it is.
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
