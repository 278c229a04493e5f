//! The CUDA back end: reproducible sum and cumsum on NVIDIA GPUs.
//!
//! The committed fatbin (`gpu/kernels/reprosum.fatbin`) is embedded and loaded through
//! the driver API, which cudarc opens at run time: no CUDA toolkit is needed to build,
//! and without a driver or a device every entry point returns an error value.
//!
//! This module is the generic host ([`crate::device`]) over [`Cuda`], the [`Runtime`] of
//! the CUDA driver (cudarc's `sys` and `result` levels):
//!
//! * [`device`] opens (once per ordinal, then cached) a [`Device`]: the module is loaded,
//!   the arithmetic probe and a known-answer self-check run, and a workspace is kept for
//!   reuse by later calls.
//! * [`Device::sum`], [`Device::accumulate`], [`Device::cumsum`] work on [`DeviceBuffer`]s;
//!   the `_host` variants on host slices; the `_raw` variants on raw device pointers and a
//!   caller's stream ([`Stream`]).
//! * [`Device::add_to`] adds a buffer's values to an existing accumulator (the bytes
//!   `add_slice` gives); [`Device::cumsum_from`] is a cumulative sum continued from an
//!   accumulator (element `i` is the value of the start with `x[0..=i]` added).
//! * [`sum_ptr`], [`accumulate_ptr`], [`add_ptr`], [`cumsum_ptr`] and [`cumsum_from_ptr`] take
//!   any pointer, find out with the driver's pointer attributes whether it is device memory
//!   (used in place) or host memory (copied), and are what the C entry points call.
//!
//! Every call makes the device's primary context current and the caller's context (or none)
//! current again before it returns.

use std::ffi::{c_void, CString};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{result, sys, DriverError};

use crate::device::{runtime_module, Device as GenericDevice};
use crate::runtime::{Api, Caps, Func, Handle, Opened, Runtime, Side};
use crate::GpuError;

runtime_module!(Cuda);

const FATBIN_LEN: usize = include_bytes!("../kernels/reprosum.fatbin").len();

#[repr(C, align(64))]
struct Aligned([u8; FATBIN_LEN]);

static FATBIN: Aligned = Aligned(*include_bytes!("../kernels/reprosum.fatbin"));

/// The embedded fatbin (SASS for sm_75, sm_80, sm_86, sm_89, sm_90; PTX for compute_75).
pub fn fatbin() -> &'static [u8] {
    &FATBIN.0
}

fn drv(call: &'static str) -> impl FnOnce(DriverError) -> GpuError {
    move |e| GpuError::Driver {
        call,
        code: e.0 as i32,
        name: e
            .error_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
    }
}

/// Whether the driver library can be opened (checked before any driver call, which would
/// otherwise panic inside cudarc).
pub fn driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: is_culib_present only tries to open the library by name.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// A CUDA context handle (null: none).
#[derive(Clone, Copy, Debug)]
pub struct Ctx(sys::CUcontext);

// SAFETY: a context handle is an opaque driver handle usable from any thread.
unsafe impl Send for Ctx {}
// SAFETY: as above; it is never dereferenced on the host.
unsafe impl Sync for Ctx {}

/// The CUDA driver as a [`Runtime`].
pub struct Cuda;

impl Runtime for Cuda {
    const API: Api = Api::Cuda;
    const CAPS: Caps = Caps {
        fixed_window: true,
        side_stream: true,
        // On the H200 (2026-12-02 06:21 UTC) the look-back kernel gave the right bits but took
        // 4.4x (f32) to 5.4x (f64) CUB's InclusiveSum time at 1e8 and 1e9, against 1.3x / 1.4x
        // for the multi-pass kernels: by default it takes only a few tiles
        // (`LOOKBACK_MAX_TILES`), where one launch beats the passes' five.
        single_pass: true,
        smem_opt_in: true,
    };
    type Ctx = Ctx;

    fn init() -> Result<(), GpuError> {
        if !driver_present() {
            return Err(GpuError::NoRuntime(Api::Cuda));
        }
        static INIT: OnceLock<Result<(), GpuError>> = OnceLock::new();
        INIT.get_or_init(|| result::init().map_err(drv("cuInit"))).clone()
    }

    fn device_count() -> Result<usize, GpuError> {
        Self::init()?;
        Ok(result::device::get_count().map_err(drv("cuDeviceGetCount"))? as usize)
    }

    fn open(ordinal: usize) -> Result<Opened<Ctx>, GpuError> {
        let dev = result::device::get(ordinal as i32).map_err(drv("cuDeviceGet"))?;
        // SAFETY: dev is a valid device; the primary context is retained for the process.
        let ctx = unsafe { result::primary_ctx::retain(dev) }.map_err(drv("cuDevicePrimaryCtxRetain"))?;
        // SAFETY: ctx is live.
        unsafe { result::ctx::set_current(ctx) }.map_err(drv("cuCtxSetCurrent"))?;
        let attr = |a| {
            // SAFETY: dev is valid; a is a device attribute.
            unsafe { result::device::get_attribute(dev, a) }.map_err(drv("cuDeviceGetAttribute"))
        };
        use sys::CUdevice_attribute as A;
        let cc = (
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        let multiprocessors = attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?.max(1) as u32;
        let max_smem = attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?.max(0) as u32;
        let warp_size = attr(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?.max(1) as u32;
        let name = result::device::get_name(dev).map_err(drv("cuDeviceGetName"))?;
        // SAFETY: the image is a complete fatbin, aligned, in static memory.
        let module = unsafe { result::module::load_data(FATBIN.0.as_ptr() as *const c_void) }
            .map_err(drv("cuModuleLoadData"))?;
        Ok(Opened {
            ctx: Ctx(ctx),
            name,
            arch: format!("sm_{}{}", cc.0, cc.1),
            compute_capability: cc,
            multiprocessors,
            max_smem,
            warp_size,
            module: module as Handle,
        })
    }

    fn devices() -> &'static Mutex<Vec<Option<Arc<GenericDevice<Cuda>>>>> {
        static DEVICES: Mutex<Vec<Option<Arc<GenericDevice<Cuda>>>>> = Mutex::new(Vec::new());
        &DEVICES
    }

    fn current() -> Result<Ctx, GpuError> {
        Self::init()?;
        let c = result::ctx::get_current().map_err(drv("cuCtxGetCurrent"))?;
        Ok(Ctx(c.unwrap_or(std::ptr::null_mut())))
    }

    fn make_current(ctx: Ctx) -> Result<(), GpuError> {
        Self::init()?;
        // SAFETY: ctx is null (unbinds) or a context that was current or retained.
        unsafe { result::ctx::set_current(ctx.0) }.map_err(drv("cuCtxSetCurrent"))
    }

    fn current_ordinal() -> Result<usize, GpuError> {
        Self::init()?;
        match result::ctx::get_current().map_err(drv("cuCtxGetCurrent"))? {
            None => Ok(0),
            Some(_) => {
                let mut dev: sys::CUdevice = 0;
                // SAFETY: writes one CUdevice (an int ordinal).
                unsafe { sys::cuCtxGetDevice(&mut dev) }
                    .result()
                    .map_err(drv("cuCtxGetDevice"))?;
                Ok(dev.max(0) as usize)
            }
        }
    }

    unsafe fn function(module: Handle, name: &str) -> Result<Func, GpuError> {
        let cname = CString::new(name).map_err(|_| GpuError::InvalidLaunch(name.into()))?;
        // SAFETY: module is a live module (the caller's contract); the name is NUL-terminated.
        let f = unsafe { result::module::get_function(module as sys::CUmodule, cname) }
            .map_err(drv("cuModuleGetFunction"))?;
        // SAFETY: f is a live function handle.
        let max_threads = unsafe {
            result::function::get_function_attribute(
                f,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            )
        }
        .map_err(drv("cuFuncGetAttribute"))?;
        Ok(Func {
            f: f as Handle,
            max_threads: max_threads.max(1) as u32,
        })
    }

    fn occupancy(f: &Func, block: u32, smem: u32) -> Result<Option<u32>, GpuError> {
        let mut per_sm = 0i32;
        // SAFETY: a pure query on a live function.
        unsafe {
            sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut per_sm,
                f.f as sys::CUfunction,
                block as i32,
                smem as usize,
            )
        }
        .result()
        .map_err(drv("cuOccupancyMaxActiveBlocksPerMultiprocessor"))?;
        Ok(Some(per_sm.max(0) as u32))
    }

    fn allow_smem(f: &Func, bytes: u32) -> Result<(), GpuError> {
        // SAFETY: f is a live function; the caller keeps the value within the device's
        // opt-in limit.
        unsafe {
            result::function::set_function_attribute(
                f.f as sys::CUfunction,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
        }
        .map_err(drv("cuFuncSetAttribute"))
    }

    unsafe fn malloc(bytes: usize) -> Result<u64, GpuError> {
        // SAFETY: a plain device allocation in the current context (the caller's contract).
        let p = unsafe { result::malloc_sync(bytes) }.map_err(drv("cuMemAlloc"))?;
        if p == 0 {
            return Err(GpuError::Driver {
                call: "cuMemAlloc",
                code: 0,
                name: "null allocation".into(),
            });
        }
        Ok(p)
    }

    unsafe fn free(ptr: u64) -> Result<(), GpuError> {
        // SAFETY: the caller's contract.
        unsafe { result::free_sync(ptr) }.map_err(drv("cuMemFree"))
    }

    unsafe fn malloc_host(bytes: usize) -> Result<Option<(*mut u8, u64)>, GpuError> {
        // SAFETY: page-locked host allocations in the current context; the device address
        // is asked of the driver for the allocation just made.
        unsafe {
            match result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_DEVICEMAP) {
                Ok(h) => {
                    let mut d: sys::CUdeviceptr = 0;
                    let mapped = sys::cuMemHostGetDevicePointer_v2(&mut d, h, 0).result().is_ok();
                    Ok(Some((h as *mut u8, if mapped { d } else { 0 })))
                }
                Err(_) => {
                    let h = result::malloc_host(bytes, 0).map_err(drv("cuMemAllocHost"))?;
                    Ok(Some((h as *mut u8, 0)))
                }
            }
        }
    }

    unsafe fn free_host(p: *mut u8) -> Result<(), GpuError> {
        // SAFETY: the caller's contract.
        unsafe { result::free_host(p as *mut c_void) }.map_err(drv("cuMemFreeHost"))
    }

    unsafe fn copy_htod(dst: u64, src: *const u8, bytes: usize, stream: Handle) -> Result<(), GpuError> {
        // SAFETY: the caller's contract (both ranges valid until the stream has run it).
        unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src as *const c_void, bytes, stream as sys::CUstream) }
            .result()
            .map_err(drv("cuMemcpyHtoDAsync"))
    }

    unsafe fn copy_dtoh(dst: *mut u8, src: u64, bytes: usize, stream: Handle) -> Result<(), GpuError> {
        // SAFETY: the caller's contract.
        unsafe { sys::cuMemcpyDtoHAsync_v2(dst as *mut c_void, src, bytes, stream as sys::CUstream) }
            .result()
            .map_err(drv("cuMemcpyDtoHAsync"))
    }

    unsafe fn memset(ptr: u64, byte: u8, bytes: usize, stream: Handle) -> Result<(), GpuError> {
        // SAFETY: the caller's contract.
        unsafe { result::memset_d8_async(ptr, byte, bytes, stream as sys::CUstream) }
            .map_err(drv("cuMemsetD8Async"))
    }

    unsafe fn launch(
        f: &Func,
        grid: u32,
        block: u32,
        smem: u32,
        stream: Handle,
        args: &mut [*mut c_void],
    ) -> Result<(), GpuError> {
        // SAFETY: the caller's contract (arguments match the kernel's parameters).
        unsafe {
            result::launch_kernel(
                f.f as sys::CUfunction,
                (grid, 1, 1),
                (block, 1, 1),
                smem,
                stream as sys::CUstream,
                args,
            )
        }
        .map_err(drv("cuLaunchKernel"))
    }

    unsafe fn synchronize(stream: Handle) -> Result<(), GpuError> {
        // SAFETY: the caller's contract.
        unsafe { result::stream::synchronize(stream as sys::CUstream) }.map_err(drv("cuStreamSynchronize"))
    }

    fn side() -> Result<Option<Side>, GpuError> {
        // Non-blocking: it orders with the caller's stream (the legacy default one too) only
        // through the events.
        Ok(Some(Side {
            stream: result::stream::create(result::stream::StreamKind::NonBlocking)
                .map_err(drv("cuStreamCreate"))? as Handle,
            fork: result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
                .map_err(drv("cuEventCreate"))? as Handle,
            join: result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
                .map_err(drv("cuEventCreate"))? as Handle,
        }))
    }

    unsafe fn record(event: Handle, stream: Handle) -> Result<(), GpuError> {
        // SAFETY: the caller's contract.
        unsafe { result::event::record(event as sys::CUevent, stream as sys::CUstream) }
            .map_err(drv("cuEventRecord"))
    }

    unsafe fn wait(stream: Handle, event: Handle) -> Result<(), GpuError> {
        // SAFETY: the caller's contract.
        unsafe {
            result::stream::wait_event(
                stream as sys::CUstream,
                event as sys::CUevent,
                sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
        .map_err(drv("cuStreamWaitEvent"))
    }

    fn memory_of(ptr: *const c_void) -> Result<Memory, GpuError> {
        Self::init()?;
        // Make sure a context exists (pointer queries need an initialised driver and context).
        let _ = crate::device::device::<Cuda>(Self::current_ordinal()?)?;
        let mut kind: u32 = 0;
        // SAFETY: the attribute is a 32-bit value written to `kind`; the driver only looks
        // the address up.
        let r = unsafe {
            sys::cuPointerGetAttribute(
                &mut kind as *mut u32 as *mut c_void,
                sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                ptr as u64,
            )
        };
        if r == sys::CUresult::CUDA_ERROR_INVALID_VALUE {
            return Ok(Memory::Host);
        }
        r.result().map_err(drv("cuPointerGetAttribute"))?;
        if kind == sys::CUmemorytype::CU_MEMORYTYPE_HOST as u32 {
            return Ok(Memory::Host);
        }
        let mut ord: i32 = 0;
        // SAFETY: as above; the ordinal is a 32-bit int.
        unsafe {
            sys::cuPointerGetAttribute(
                &mut ord as *mut i32 as *mut c_void,
                sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                ptr as u64,
            )
        }
        .result()
        .map_err(drv("cuPointerGetAttribute"))?;
        Ok(Memory::Device(ord.max(0) as usize))
    }
}
