//! The CUDA back end: reproducible sum and cumsum on NVIDIA GPUs.
//!
//! The committed fatbin (`gpu/kernels/reprosum.fatbin`) is embedded and loaded through
//! the driver API, which cudarc opens at run time: no CUDA toolkit is needed to build,
//! and without a driver or a device every entry point returns an error value.
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
//! Every call returns when its result is written (the stream is synchronised). Errors found
//! before a launch leave every output untouched; a device fault in the middle of a cumsum
//! may leave a device-resident output partly written.

use std::ffi::{c_void, CString};
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{result, sys, DriverError};
use reprosum_core::{encoding, DynAccumulator, Float};

use crate::host::{self, MAX_STATE_BYTES};
use crate::layout::{CONTROL_BYTES, GROUP};
use crate::{check_fold, GpuError};

const FATBIN_LEN: usize = include_bytes!("../kernels/reprosum.fatbin").len();

#[repr(C, align(64))]
struct Aligned([u8; FATBIN_LEN]);

static FATBIN: Aligned = Aligned(*include_bytes!("../kernels/reprosum.fatbin"));

/// The embedded fatbin (SASS for sm_75, sm_80, sm_86, sm_89, sm_90; PTX for compute_75).
pub fn fatbin() -> &'static [u8] {
    &FATBIN.0
}

/// Raking threads of the kernels' block scan (`RS_RAKE`).
const RAKE: usize = 32;
/// The default threads per block.
pub const DEFAULT_BLOCK: u32 = 256;
/// Threads per block of the cumulative sum's kernels unless a launch says otherwise.
pub const CUMSUM_BLOCK: u32 = 128;

/// An element type the kernels are built for: `f32` or `f64`.
pub trait GpuFloat: Float + Default {
    /// The kernel name suffix.
    const SUFFIX: &'static str;
    /// Index in per-type tables.
    #[doc(hidden)]
    const SLOT: usize;
    /// Elements each thread of a cumsum tile handles (`RsF<T>::TILE_E` in the kernel
    /// source).
    #[doc(hidden)]
    const TILE_ITEMS: u32;
    /// The largest cumsum tile whose per-thread sums of pieces the reduce pass hands to
    /// the scan pass (`rs_reuse_tile_max` in the kernel source).
    #[doc(hidden)]
    const REUSE_TILE_MAX: u64;
}

impl GpuFloat for f64 {
    const SUFFIX: &'static str = "f64";
    const SLOT: usize = 0;
    const TILE_ITEMS: u32 = 16;
    const REUSE_TILE_MAX: u64 = 8192;
}

impl GpuFloat for f32 {
    const SUFFIX: &'static str = "f32";
    const SLOT: usize = 1;
    const TILE_ITEMS: u32 = 32;
    const REUSE_TILE_MAX: u64 = 4096;
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

fn init_driver() -> Result<(), GpuError> {
    if !driver_present() {
        return Err(GpuError::NoDriver);
    }
    static INIT: OnceLock<Result<(), GpuError>> = OnceLock::new();
    INIT.get_or_init(|| result::init().map_err(drv("cuInit"))).clone()
}

/// How many CUDA devices the driver reports.
///
/// # Errors
/// [`GpuError::NoDriver`], or a driver error.
pub fn device_count() -> Result<usize, GpuError> {
    init_driver()?;
    Ok(result::device::get_count().map_err(drv("cuDeviceGetCount"))? as usize)
}

/// A CUDA stream handle (`CUstream`, the same as the runtime's `cudaStream_t`). The default
/// is the legacy default stream.
#[derive(Clone, Copy, Debug)]
pub struct Stream(sys::CUstream);

// SAFETY: a stream handle is an opaque driver handle usable from any thread.
unsafe impl Send for Stream {}
// SAFETY: as above; the handle is never dereferenced on the host.
unsafe impl Sync for Stream {}

impl Stream {
    /// The legacy default stream.
    pub const DEFAULT: Stream = Stream(std::ptr::null_mut());

    /// Wraps a `cudaStream_t` / `CUstream` (null means the default stream).
    ///
    /// # Safety
    /// `raw` must be null or a live stream of the device the call runs on, and stay live
    /// during the call.
    pub unsafe fn from_raw(raw: *mut c_void) -> Self {
        Stream(raw as sys::CUstream)
    }

    /// The raw handle.
    pub fn as_raw(self) -> *mut c_void {
        self.0 as *mut c_void
    }
}

/// Launch settings, for tests and tuning (the defaults are chosen per device).
#[derive(Clone, Copy, Debug, Default)]
pub struct Launch {
    /// Threads per block (default [`DEFAULT_BLOCK`]); any value from 1 to the kernel's limit.
    pub block: Option<u32>,
    /// Blocks of the sum kernel (default: enough to fill the device); any value >= 1.
    pub grid: Option<u32>,
}

#[derive(Clone, Copy)]
struct Func {
    f: sys::CUfunction,
    max_threads: u32,
}

#[derive(Clone, Copy)]
struct Kernels {
    sum: Func,
    tile_reduce: Func,
    tile_reduce_fixed: Func,
    tile_prefixes: Func,
    tile_scan: Func,
    tile_scan_fixed: Func,
}

/// Device memory owned by a workspace (grown, never shrunk).
struct DevMem {
    ptr: sys::CUdeviceptr,
    bytes: usize,
}

impl DevMem {
    const fn empty() -> Self {
        DevMem { ptr: 0, bytes: 0 }
    }

    fn ensure(&mut self, bytes: usize) -> Result<(), GpuError> {
        if bytes <= self.bytes && self.ptr != 0 {
            return Ok(());
        }
        let bytes = bytes.max(256);
        if self.ptr != 0 {
            // SAFETY: ptr came from malloc_sync and no work using it is pending (every call
            // synchronises before releasing the workspace).
            unsafe { result::free_sync(self.ptr) }.map_err(drv("cuMemFree"))?;
            self.ptr = 0;
            self.bytes = 0;
        }
        // SAFETY: a plain device allocation in the current context.
        self.ptr = unsafe { result::malloc_sync(bytes) }.map_err(drv("cuMemAlloc"))?;
        self.bytes = bytes;
        Ok(())
    }
}

struct Workspace {
    states: DevMem,
    counter: DevMem,
    result: DevMem,
    tiles: DevMem,
    /// The cumsum's two lists of tile numbers for the general kernels (reduce, then scan);
    /// their counts are control words in `counter`.
    list: DevMem,
    /// What the cumsum's reduce pass hands its scan pass: per tile, each thread's sums of
    /// the pieces before it per slot, then every tile's window (see the kernels).
    parts: DevMem,
    /// A cumsum's start state (the kernels' layout), uploaded on the call's stream from
    /// `start_host` (pageable, here for the life of the device: it outlives any copy).
    start: DevMem,
    start_host: [u8; MAX_STATE_BYTES],
    input: DevMem,
    output: DevMem,
    host: *mut u8,
    host_bytes: usize,
    /// The device address of `host` when it is mapped (0 when not): a sum's kernel writes
    /// its result there, and no copy is queued after it.
    host_dev: sys::CUdeviceptr,
    /// The counter may be non-zero (a launch failed): zero it before the next sum.
    dirty: bool,
    /// The cumsum's control words (`counter`, bytes 16..32) may not be as the kernels leave
    /// them (never used, or a call failed): zero them before the next cumsum.
    ctl_dirty: bool,
}

/// A second stream and two events of a device: the cumsum scans its first tile there, at the
/// same time as its other passes (see `Device::cumsum_locked`).
struct Side {
    stream: sys::CUstream,
    fork: sys::CUevent,
    join: sys::CUevent,
}

/// A cached occupancy: (function, block, shared memory) -> blocks per SM.
type OccEntry = ((usize, u32, u32), i32);

/// A CUDA device with the reprosum module loaded and checked.
pub struct Device {
    ordinal: usize,
    ctx: sys::CUcontext,
    name: String,
    compute_capability: (i32, i32),
    sm_count: u32,
    max_smem_optin: u32,
    kernels: [[Kernels; 7]; 2],
    probe: sys::CUfunction,
    ws: Mutex<Workspace>,
    occ: Mutex<Vec<OccEntry>>,
    /// Used only with the workspace locked.
    side: Side,
}

// SAFETY: the context, module and function handles are driver handles usable from any
// thread (each call makes the context current first); the workspace is behind a Mutex.
unsafe impl Send for Device {}
// SAFETY: as above.
unsafe impl Sync for Device {}

/// The device with this ordinal, opened, probed and cached on first use.
///
/// # Errors
/// [`GpuError::NoDriver`], [`GpuError::NoDevice`], a driver error, or
/// [`GpuError::ProbeFailed`] if the device's arithmetic is not the IEEE arithmetic the
/// format needs. A failure is not cached: a later call tries again.
pub fn device(ordinal: usize) -> Result<Arc<Device>, GpuError> {
    static DEVICES: OnceLock<Mutex<Vec<Option<Arc<Device>>>>> = OnceLock::new();
    init_driver()?;
    let count = device_count()?;
    if ordinal >= count {
        return Err(GpuError::NoDevice { ordinal, count });
    }
    let cache = DEVICES.get_or_init(|| Mutex::new(Vec::new()));
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() < count {
        cache.resize(count, None);
    }
    if let Some(d) = &cache[ordinal] {
        return Ok(d.clone());
    }
    let d = Arc::new(Device::open(ordinal)?);
    d.probe()?;
    d.self_check()?;
    cache[ordinal] = Some(d.clone());
    Ok(d)
}

fn func(module: sys::CUmodule, name: &str) -> Result<Func, GpuError> {
    let cname = CString::new(name).map_err(|_| GpuError::InvalidLaunch(name.into()))?;
    // SAFETY: module is a live module; the name is NUL-terminated.
    let f = unsafe { result::module::get_function(module, cname) }.map_err(drv("cuModuleGetFunction"))?;
    // SAFETY: f is a live function handle.
    let max_threads = unsafe {
        result::function::get_function_attribute(
            f,
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        )
    }
    .map_err(drv("cuFuncGetAttribute"))?;
    Ok(Func {
        f,
        max_threads: max_threads as u32,
    })
}

impl Device {
    fn open(ordinal: usize) -> Result<Device, GpuError> {
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
        let sm_count = attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
        let max_smem_optin = attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)? as u32;
        let name = result::device::get_name(dev).map_err(drv("cuDeviceGetName"))?;
        // SAFETY: the image is a complete fatbin, aligned, in static memory.
        let module = unsafe { result::module::load_data(FATBIN.0.as_ptr() as *const c_void) }
            .map_err(drv("cuModuleLoadData"))?;
        let mut kernels = Vec::with_capacity(2);
        for t in ["f64", "f32"] {
            let mut row = Vec::with_capacity(7);
            for k in 2..=8 {
                row.push(Kernels {
                    sum: func(module, &format!("rs_sum_{t}_k{k}"))?,
                    tile_reduce: func(module, &format!("rs_tile_reduce_{t}_k{k}"))?,
                    tile_reduce_fixed: func(module, &format!("rs_tile_reduce_fixed_{t}_k{k}"))?,
                    tile_prefixes: func(module, &format!("rs_tile_prefixes_{t}_k{k}"))?,
                    tile_scan: func(module, &format!("rs_tile_scan_{t}_k{k}"))?,
                    tile_scan_fixed: func(module, &format!("rs_tile_scan_fixed_{t}_k{k}"))?,
                });
            }
            kernels.push(row);
        }
        let to7 = |v: Vec<Kernels>| -> [Kernels; 7] { [v[0], v[1], v[2], v[3], v[4], v[5], v[6]] };
        let kernels = [to7(kernels[0].clone()), to7(kernels[1].clone())];
        let probe = func(module, "rs_probe")?.f;
        // Non-blocking: it orders with the caller's stream (the legacy default one too) only
        // through the events.
        let side = Side {
            stream: result::stream::create(result::stream::StreamKind::NonBlocking)
                .map_err(drv("cuStreamCreate"))?,
            fork: result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
                .map_err(drv("cuEventCreate"))?,
            join: result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
                .map_err(drv("cuEventCreate"))?,
        };
        Ok(Device {
            ordinal,
            ctx,
            name,
            compute_capability: cc,
            sm_count,
            max_smem_optin,
            kernels,
            probe,
            ws: Mutex::new(Workspace {
                states: DevMem::empty(),
                counter: DevMem::empty(),
                result: DevMem::empty(),
                tiles: DevMem::empty(),
                list: DevMem::empty(),
                parts: DevMem::empty(),
                start: DevMem::empty(),
                start_host: [0; MAX_STATE_BYTES],
                input: DevMem::empty(),
                output: DevMem::empty(),
                host: std::ptr::null_mut(),
                host_bytes: 0,
                host_dev: 0,
                dirty: true,
                ctl_dirty: true,
            }),
            occ: Mutex::new(Vec::new()),
            side,
        })
    }

    /// The device ordinal.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The device name the driver reports.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The compute capability (major, minor).
    pub fn compute_capability(&self) -> (i32, i32) {
        self.compute_capability
    }

    /// The largest block size the sum kernel of this type and fold takes on this device.
    ///
    /// # Errors
    /// [`GpuError::UnsupportedFold`].
    pub fn max_sum_block<T: GpuFloat>(&self, fold: usize) -> Result<u32, GpuError> {
        Ok(self.kernels::<T>(fold)?.sum.max_threads)
    }

    /// Streaming multiprocessors.
    pub fn sm_count(&self) -> u32 {
        self.sm_count
    }

    fn occupancy(&self, f: &Func, block: u32, smem: u32) -> Result<i32, GpuError> {
        let key = (f.f as usize, block, smem);
        let mut cache = self.occ.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&(_, v)) = cache.iter().find(|(k, _)| *k == key) {
            return Ok(v);
        }
        let mut per_sm = 0i32;
        // SAFETY: a pure query on a live function.
        unsafe {
            sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut per_sm, f.f, block as i32, smem as usize)
        }
        .result()
        .map_err(drv("cuOccupancyMaxActiveBlocksPerMultiprocessor"))?;
        cache.push((key, per_sm));
        Ok(per_sm)
    }

    fn bind(&self) -> Result<(), GpuError> {
        // SAFETY: ctx is the retained primary context of this device.
        unsafe { result::ctx::set_current(self.ctx) }.map_err(drv("cuCtxSetCurrent"))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Workspace> {
        self.ws.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn kernels<T: GpuFloat>(&self, fold: usize) -> Result<Kernels, GpuError> {
        check_fold(fold)?;
        Ok(self.kernels[T::SLOT][fold - 2])
    }

    fn block_for(
        &self,
        f: &Func,
        launch: &Launch,
        smem_per_thread: usize,
        smem_fixed: usize,
    ) -> Result<(u32, u32), GpuError> {
        let b = launch.block.unwrap_or(DEFAULT_BLOCK.min(f.max_threads));
        if b == 0 || b > f.max_threads {
            return Err(GpuError::InvalidLaunch(format!(
                "block size {b} (this kernel takes 1..={})",
                f.max_threads
            )));
        }
        let smem = smem_fixed + smem_per_thread * b as usize;
        if smem > self.max_smem_optin as usize {
            return Err(GpuError::InvalidLaunch(format!(
                "block size {b} needs {smem} bytes of shared memory (device limit {})",
                self.max_smem_optin
            )));
        }
        if smem > 48 * 1024 {
            // SAFETY: f is a live function; the value is within the device's opt-in limit.
            unsafe {
                result::function::set_function_attribute(
                    f.f,
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    smem as i32,
                )
            }
            .map_err(drv("cuFuncSetAttribute"))?;
        }
        Ok((b, smem as u32))
    }

    /// Launches `f` with the given argument pointers.
    ///
    /// # Safety
    /// `args` must match the kernel's parameters, and every pointer in them must be valid
    /// for the access the kernel makes.
    unsafe fn launch(
        &self,
        f: &Func,
        grid: u32,
        block: u32,
        smem: u32,
        stream: Stream,
        args: &mut [*mut c_void],
    ) -> Result<(), GpuError> {
        result::launch_kernel(f.f, (grid, 1, 1), (block, 1, 1), smem, stream.0, args)
            .map_err(drv("cuLaunchKernel"))
    }

    /// A tile pass: the fixed-window kernel (with its shared memory) over every tile, when
    /// it can take this block, then the general kernel over the tiles it listed (a
    /// grid-stride loop over the list, so a small grid); without the fixed kernel, the
    /// general one over every tile (a null list in `args`).
    ///
    /// # Safety
    /// As [`Device::launch`], for both kernels with the same `args`.
    #[allow(clippy::too_many_arguments)]
    unsafe fn launch_tiles(
        &self,
        fixed: Option<(&Func, u32)>,
        general: (&Func, u32),
        ntiles: u64,
        block: u32,
        stream: Stream,
        args: &mut [*mut c_void],
    ) -> Result<(), GpuError> {
        let mut grid = ntiles as u32;
        if let Some((f, smem)) = fixed {
            self.launch(f, grid, block, smem, stream, args)?;
            grid = grid.min(self.sm_count.saturating_mul(4).max(1));
        }
        self.launch(general.0, grid, block, general.1, stream, args)
    }

    fn ensure_host(ws: &mut Workspace, bytes: usize) -> Result<(), GpuError> {
        if ws.host_bytes >= bytes && !ws.host.is_null() {
            return Ok(());
        }
        if !ws.host.is_null() {
            // SAFETY: host came from malloc_host; no copy into it or kernel writing it is
            // pending (every call synchronises before releasing the workspace).
            unsafe { result::free_host(ws.host as *mut c_void) }.map_err(drv("cuMemFreeHost"))?;
            ws.host = std::ptr::null_mut();
            ws.host_bytes = 0;
            ws.host_dev = 0;
        }
        let bytes = bytes.max(1024);
        // Page-locked and mapped into the device's address space, so that a small sum's
        // result needs no copy after the kernel (the copy costs a few microseconds of
        // latency). Where mapping is refused, a plain page-locked buffer and a copy.
        // SAFETY: page-locked host allocations; the device address is asked of the driver
        // for the allocation just made.
        unsafe {
            match result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_DEVICEMAP) {
                Ok(h) => {
                    let mut d: sys::CUdeviceptr = 0;
                    let mapped = sys::cuMemHostGetDevicePointer_v2(&mut d, h, 0).result().is_ok();
                    ws.host = h as *mut u8;
                    ws.host_dev = if mapped { d } else { 0 };
                }
                Err(_) => {
                    ws.host = result::malloc_host(bytes, 0).map_err(drv("cuMemAllocHost"))? as *mut u8;
                    ws.host_dev = 0;
                }
            }
        }
        ws.host_bytes = bytes;
        Ok(())
    }

    /// The sum of `n` values at device address `x`, as the accumulator state plus the
    /// device-converted value.
    ///
    /// # Safety
    /// `x` must point to `n` readable values of type T in this device's memory (or be
    /// anything when `n == 0`), aligned to T.
    unsafe fn sum_state<T: GpuFloat>(
        &self,
        x: sys::CUdeviceptr,
        n: usize,
        fold: usize,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(DynAccumulator<T>, T), GpuError> {
        self.bind()?;
        let mut ws = self.lock();
        self.sum_locked(&mut ws, x, n, fold, stream, launch)
    }

    /// [`Device::sum_state`] with the workspace already locked.
    ///
    /// # Safety
    /// As [`Device::sum_state`].
    unsafe fn sum_locked<T: GpuFloat>(
        &self,
        ws: &mut Workspace,
        x: sys::CUdeviceptr,
        n: usize,
        fold: usize,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(DynAccumulator<T>, T), GpuError> {
        let k = self.kernels::<T>(fold)?;
        if n as u64 > T::CAPACITY {
            return Err(GpuError::CapacityExceeded);
        }
        if n > 0 && (x == 0 || x & (T::BYTES as u64 - 1) != 0) {
            return Err(GpuError::InvalidPointer("null or misaligned input"));
        }
        let slots = 2 * fold + 1;
        let vec = 16 / T::BYTES as u64;
        // Small inputs take a small block (fewer merge levels); any block size is correct.
        let launch = Launch {
            block: launch.block.or_else(|| {
                let want = (n as u64)
                    .div_ceil(4 * vec)
                    .next_power_of_two()
                    .clamp(32, DEFAULT_BLOCK as u64) as u32;
                Some(want.min(k.sum.max_threads))
            }),
            grid: launch.grid,
        };
        let (block, smem) = self.block_for(&k.sum, &launch, slots * T::BYTES, 16)?;
        let per_block = block as u64 * 4 * vec;
        let grid = match launch.grid {
            Some(0) => return Err(GpuError::InvalidLaunch("grid size 0".into())),
            Some(g) => g,
            None if (n as u64).div_ceil(per_block) <= self.sm_count as u64 => {
                (n as u64).div_ceil(per_block).max(1) as u32
            }
            None => {
                let per_sm = self.occupancy(&k.sum, block, smem)?;
                let full = self.sm_count as u64 * per_sm.max(1) as u64;
                full.min((n as u64).div_ceil(per_block)).max(1) as u32
            }
        };
        ws.states.ensure(grid as usize * slots * T::BYTES)?;
        let first = ws.counter.ptr == 0;
        ws.counter.ensure(CONTROL_BYTES)?;
        ws.result.ensure((slots + 1) * T::BYTES)?;
        Self::ensure_host(ws, (slots + 1) * T::BYTES)?;
        if first || ws.dirty {
            memset_async(ws.counter.ptr, 16, stream)?;
        }
        ws.dirty = true;
        let mut xp = x;
        let mut np = n as u64;
        let mut sp = ws.states.ptr;
        let mut cp = ws.counter.ptr;
        let mapped = ws.host_dev != 0;
        let mut rp = if mapped { ws.host_dev } else { ws.result.ptr };
        let mut args = [
            &mut xp as *mut _ as *mut c_void,
            &mut np as *mut _ as *mut c_void,
            &mut sp as *mut _ as *mut c_void,
            &mut cp as *mut _ as *mut c_void,
            &mut rp as *mut _ as *mut c_void,
        ];
        let bytes = (slots + 1) * T::BYTES;
        // Poison the result, so that a kernel that did not write it cannot pass for one
        // that did (the state's flags slot would not decode).
        std::ptr::write_bytes(ws.host, 0xFF, bytes);
        self.launch(&k.sum, grid, block, smem, stream, &mut args)?;
        if !mapped {
            result::memcpy_dtoh_async(
                std::slice::from_raw_parts_mut(ws.host, bytes),
                ws.result.ptr,
                stream.0,
            )
            .map_err(drv("cuMemcpyDtoHAsync"))?;
        }
        // The kernel's writes to mapped memory are visible to the host once the stream
        // is synchronised.
        result::stream::synchronize(stream.0).map_err(drv("cuStreamSynchronize"))?;
        ws.dirty = false;
        let raw = std::slice::from_raw_parts(ws.host, bytes).to_vec();
        let acc = state_to_accumulator::<T>(&raw, fold, n as u64)?;
        let value = T::from_bits_u64(le_word(&raw[2 * fold * T::BYTES + T::BYTES..], T::BYTES));
        Ok((acc, value))
    }

    /// The cumulative sum of `n` values at device address `x` into `out` (may equal `x`),
    /// continued from `start` when there is one (then `fold` must be its fold).
    ///
    /// # Safety
    /// `x` and `out` must point to `n` values of T in this device's memory, aligned.
    #[allow(clippy::too_many_arguments)]
    unsafe fn cumsum_dev<T: GpuFloat>(
        &self,
        x: sys::CUdeviceptr,
        out: sys::CUdeviceptr,
        n: usize,
        fold: usize,
        start: Option<&DynAccumulator<T>>,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        self.bind()?;
        let mut ws = self.lock();
        self.cumsum_locked::<T>(&mut ws, x, out, n, fold, start, stream, launch)
    }

    /// [`Device::cumsum_dev`] with the workspace already locked. Returns when every kernel
    /// of the call has finished; on an error, when the side stream's kernel (tile 0) has, if
    /// it was queued (kernels already queued on the caller's stream may still run, as before
    /// the side stream).
    ///
    /// # Safety
    /// As [`Device::cumsum_dev`].
    #[allow(clippy::too_many_arguments)]
    unsafe fn cumsum_locked<T: GpuFloat>(
        &self,
        ws: &mut Workspace,
        x: sys::CUdeviceptr,
        out: sys::CUdeviceptr,
        n: usize,
        fold: usize,
        start: Option<&DynAccumulator<T>>,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        let mut forked = false;
        let r = self
            .cumsum_queue::<T>(ws, x, out, n, fold, start, stream, launch, &mut forked)
            .and_then(|queued| {
                if forked {
                    result::stream::wait_event(
                        stream.0,
                        self.side.join,
                        sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
                    )
                    .map_err(drv("cuStreamWaitEvent"))?;
                }
                if queued {
                    result::stream::synchronize(stream.0).map_err(drv("cuStreamSynchronize"))?;
                }
                Ok(queued)
            });
        if forked && r.is_err() {
            // Nothing the call queued may still run once it returns: the side stream's
            // tile writes to the output. (Its own error, if any, is the same fault.)
            let _ = result::stream::synchronize(self.side.stream);
        }
        if r? {
            ws.ctl_dirty = false;
        }
        Ok(())
    }

    /// Queues the cumsum's kernels; true when it queued any (false: nothing to do). Sets
    /// `forked` once the side stream has work of this call. `start` (at this fold) is
    /// uploaded before the kernels on `stream`.
    ///
    /// # Safety
    /// As [`Device::cumsum_dev`].
    #[allow(clippy::too_many_arguments)]
    unsafe fn cumsum_queue<T: GpuFloat>(
        &self,
        ws: &mut Workspace,
        x: sys::CUdeviceptr,
        out: sys::CUdeviceptr,
        n: usize,
        fold: usize,
        start: Option<&DynAccumulator<T>>,
        stream: Stream,
        launch: &Launch,
        forked: &mut bool,
    ) -> Result<bool, GpuError> {
        let k = self.kernels::<T>(fold)?;
        debug_assert!(
            start.is_none_or(|s| s.fold() == fold),
            "a start's cumsum runs at its fold"
        );
        host::check_room::<T>(start.map_or(0, |s| s.count()), n)?;
        if n == 0 {
            return Ok(false);
        }
        if x == 0 || out == 0 || x & (T::BYTES as u64 - 1) != 0 || out & (T::BYTES as u64 - 1) != 0 {
            return Err(GpuError::InvalidPointer("null or misaligned input or output"));
        }
        let slots = 2 * fold + 1;
        let per_thread = slots * T::BYTES + (T::TILE_ITEMS as usize + 1) * T::BYTES;
        let rake = RAKE * slots * T::BYTES;
        // Small blocks keep more tiles in flight per SM (measured on the H200: 128 threads
        // beat 256 by about 15%); any block size is correct.
        let launch = &Launch {
            block: launch.block.or(Some(CUMSUM_BLOCK.min(k.tile_scan.max_threads))),
            grid: launch.grid,
        };
        let (block, smem_scan) = self.block_for(&k.tile_scan, launch, per_thread, 16 + rake)?;
        let tile = block as u64 * T::TILE_ITEMS as u64;
        let ntiles = (n as u64).div_ceil(tile);
        if ntiles > i32::MAX as u64 {
            return Err(GpuError::InvalidLaunch("too many tiles".into()));
        }
        let rlaunch = Launch {
            block: Some(block),
            grid: None,
        };
        let (rblock, smem_reduce) = self.block_for(&k.tile_reduce, &rlaunch, slots * T::BYTES, 16)?;
        if rblock != block {
            return Err(GpuError::InvalidLaunch("block size".into()));
        }
        // The fixed-window kernels' shared memory (`rs_fixed_smem`): per thread K doubles (and
        // one pad double every 16 threads, bounded by K bytes per thread), a magnitude and a
        // run of E values; K (RAKE + 1) doubles, RAKE magnitudes and a state more, after a
        // 16-byte header, with 16 bytes to align the runs. None when a kernel cannot take
        // this block: the general kernels take all.
        let fixed_smem = |f: &Func, per_thread: usize| {
            self.block_for(
                f,
                &rlaunch,
                per_thread,
                32 + fold * 8 + RAKE * (fold * 8 + T::BYTES) + slots * T::BYTES,
            )
            .ok()
            .filter(|&(b, _)| b == block)
            .map(|(_, smem)| smem)
        };
        let fixed_per_thread = fold * 9 + T::BYTES + T::TILE_ITEMS as usize * T::BYTES;
        let rfixed = fixed_smem(&k.tile_reduce_fixed, fixed_per_thread);
        let fixed = fixed_smem(&k.tile_scan_fixed, fixed_per_thread).filter(|_| ntiles > 1);
        // The tiles' prefix tree (`rs_tile_prefixes`): a block per group of GROUP tiles.
        let plaunch = Launch {
            block: Some(DEFAULT_BLOCK.min(k.tile_prefixes.max_threads)),
            grid: None,
        };
        let (pblock, smem_prefixes) =
            self.block_for(&k.tile_prefixes, &plaunch, slots * T::BYTES, 16 + rake)?;
        let ngroups = ntiles.div_ceil(GROUP);
        ws.counter.ensure(CONTROL_BYTES)?;
        let ctl = ws.counter.ptr + 16;
        let mut ctl_reduce = ctl;
        let mut ctl_scan = ctl + 4;
        let mut xp = x;
        let mut op = out;
        let mut np = n as u64;
        let mut nt = ntiles;
        let mut prefixes: sys::CUdeviceptr = 0;
        // What the fixed reduce kernel hands the fixed scan kernel (none: the scan kernel
        // takes every tile's pieces itself, as it does when the allocation fails).
        let mut parts: sys::CUdeviceptr = 0;
        let mut tops: sys::CUdeviceptr = 0;
        // The control words are as the kernels leave them after a completed call; after a
        // failed one (or before the first), zero them.
        if ws.ctl_dirty {
            memset_async(ctl, CONTROL_BYTES - 16, stream)?;
        }
        ws.ctl_dirty = true;
        // The start state in the kernels' layout, on the caller's stream before every kernel
        // of the call (the side stream's tile 0 is ordered after the first pass, so after the
        // upload too). Null: no start (each scan kernel checks once per tile). An empty start
        // (no value: no window, no flag) changes nothing and is none.
        let mut sp: sys::CUdeviceptr = 0;
        if let Some(st) = start.filter(|s| s.count() > 0) {
            let len = host::kernel_state(st, &mut ws.start_host);
            ws.start.ensure(len)?;
            result::memcpy_htod_async(ws.start.ptr, &ws.start_host[..len], stream.0)
                .map_err(drv("cuMemcpyHtoDAsync"))?;
            sp = ws.start.ptr;
        }
        // Two lists of tiles for the general kernels (reduce, then scan); their counts are
        // control words.
        let mut lr: sys::CUdeviceptr = 0;
        let mut lp: sys::CUdeviceptr = 0;
        if ntiles > 1 {
            ws.tiles.ensure((ntiles + ngroups) as usize * slots * T::BYTES)?;
            ws.list.ensure(2 * ntiles as usize * 4)?;
            if rfixed.is_some() {
                lr = ws.list.ptr;
            }
            if fixed.is_some() {
                lp = ws.list.ptr + ntiles * 4;
            }
            if rfixed.is_some() && fixed.is_some() && tile <= T::REUSE_TILE_MAX {
                let handed = ntiles as usize * fold * block as usize * T::BYTES;
                if ws.parts.ensure(handed + ntiles as usize * 4).is_ok() {
                    parts = ws.parts.ptr;
                    tops = ws.parts.ptr + handed as u64;
                }
            }
            let mut tp = ws.tiles.ptr;
            // The same arguments for both kernels (a null list: the general kernel takes all;
            // it has no parameters for the handed sums, and the driver reads only its own).
            let mut a1 = [
                &mut xp as *mut _ as *mut c_void,
                &mut np as *mut _ as *mut c_void,
                &mut tp as *mut _ as *mut c_void,
                &mut ctl_reduce as *mut _ as *mut c_void,
                &mut lr as *mut _ as *mut c_void,
                &mut parts as *mut _ as *mut c_void,
                &mut tops as *mut _ as *mut c_void,
            ];
            let rfixed = rfixed.map(|smem| (&k.tile_reduce_fixed, smem));
            self.launch_tiles(
                rfixed,
                (&k.tile_reduce, smem_reduce),
                ntiles,
                block,
                stream,
                &mut a1,
            )?;
            if fixed.is_some() {
                // Tile 0 (its prefix is the start, or empty) on the general path, which takes
                // a block's whole latency: on the side stream, once the reduce pass has read
                // it (the output may be the input), beside the passes below. The fixed-window
                // scan leaves it alone.
                let mut none: sys::CUdeviceptr = 0;
                let mut a0 = [
                    &mut xp as *mut _ as *mut c_void,
                    &mut op as *mut _ as *mut c_void,
                    &mut np as *mut _ as *mut c_void,
                    &mut none as *mut _ as *mut c_void,
                    &mut sp as *mut _ as *mut c_void,
                    &mut nt as *mut _ as *mut c_void,
                    &mut ctl_scan as *mut _ as *mut c_void,
                    &mut none as *mut _ as *mut c_void,
                ];
                let side = &self.side;
                result::event::record(side.fork, stream.0).map_err(drv("cuEventRecord"))?;
                result::stream::wait_event(
                    side.stream,
                    side.fork,
                    sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
                )
                .map_err(drv("cuStreamWaitEvent"))?;
                self.launch(&k.tile_scan, 1, block, smem_scan, Stream(side.stream), &mut a0)?;
                result::event::record(side.join, side.stream).map_err(drv("cuEventRecord"))?;
                *forked = true;
            }
            let mut ctl_all = ctl;
            let mut a2 = [
                &mut tp as *mut _ as *mut c_void,
                &mut nt as *mut _ as *mut c_void,
                &mut ctl_all as *mut _ as *mut c_void,
            ];
            self.launch(
                &k.tile_prefixes,
                ngroups as u32,
                pblock,
                smem_prefixes,
                stream,
                &mut a2,
            )?;
            prefixes = ws.tiles.ptr;
        }
        // Tiles: the fixed-window kernel takes every tile it can (but tile 0) and lists the
        // others, which the general kernel then takes (a grid-stride loop over the list).
        // With one tile (no prefixes) or a block the fixed kernel cannot take, the general
        // kernel takes all.
        let mut a3 = [
            &mut xp as *mut _ as *mut c_void,
            &mut op as *mut _ as *mut c_void,
            &mut np as *mut _ as *mut c_void,
            &mut prefixes as *mut _ as *mut c_void,
            &mut sp as *mut _ as *mut c_void,
            &mut nt as *mut _ as *mut c_void,
            &mut ctl_scan as *mut _ as *mut c_void,
            &mut lp as *mut _ as *mut c_void,
            &mut parts as *mut _ as *mut c_void,
            &mut tops as *mut _ as *mut c_void,
        ];
        let fixed = fixed.map(|smem| (&k.tile_scan_fixed, smem));
        self.launch_tiles(fixed, (&k.tile_scan, smem_scan), ntiles, block, stream, &mut a3)?;
        Ok(true)
    }

    /// The reproducible sum of a device buffer at fold 3.
    ///
    /// # Errors
    /// A driver error, [`GpuError::CapacityExceeded`].
    pub fn sum<T: GpuFloat>(&self, x: &DeviceBuffer<T>) -> Result<T, GpuError> {
        self.sum_fold(x, reprosum_core::DEFAULT_FOLD)
    }

    /// The reproducible sum of a device buffer at a fold in 2..=8.
    ///
    /// # Errors
    /// [`GpuError::UnsupportedFold`], a driver error, [`GpuError::CapacityExceeded`].
    pub fn sum_fold<T: GpuFloat>(&self, x: &DeviceBuffer<T>, fold: usize) -> Result<T, GpuError> {
        self.check_buffer(x)?;
        // SAFETY: the buffer holds x.len values of T on this device.
        unsafe { self.sum_state::<T>(x.ptr, x.len, fold, Stream::DEFAULT, &Launch::default()) }.map(|r| r.1)
    }

    /// The accumulator of a device buffer's values: the core's state (same bytes), ready
    /// to merge with CPU accumulators.
    ///
    /// # Errors
    /// As [`Device::sum_fold`].
    pub fn accumulate<T: GpuFloat>(
        &self,
        x: &DeviceBuffer<T>,
        fold: usize,
    ) -> Result<DynAccumulator<T>, GpuError> {
        self.check_buffer(x)?;
        // SAFETY: as in sum_fold.
        unsafe { self.sum_state::<T>(x.ptr, x.len, fold, Stream::DEFAULT, &Launch::default()) }.map(|r| r.0)
    }

    /// [`Device::accumulate`] with explicit launch settings, returning the accumulator and
    /// the value converted on the device.
    ///
    /// # Errors
    /// As [`Device::sum_fold`], and [`GpuError::InvalidLaunch`].
    pub fn accumulate_with<T: GpuFloat>(
        &self,
        x: &DeviceBuffer<T>,
        fold: usize,
        launch: &Launch,
    ) -> Result<(DynAccumulator<T>, T), GpuError> {
        self.check_buffer(x)?;
        // SAFETY: as in sum_fold.
        unsafe { self.sum_state::<T>(x.ptr, x.len, fold, Stream::DEFAULT, launch) }
    }

    /// The sum of `n` values at a raw device address, on a caller's stream: returns the
    /// accumulator and the value (converted on the device). The stream is synchronised.
    ///
    /// # Safety
    /// `x` must be a device address of this device holding `n` values of T (aligned), and
    /// `stream` a live stream of this device (or the default).
    ///
    /// # Errors
    /// As [`Device::accumulate_with`].
    pub unsafe fn accumulate_raw<T: GpuFloat>(
        &self,
        x: u64,
        n: usize,
        fold: usize,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(DynAccumulator<T>, T), GpuError> {
        self.sum_state::<T>(x, n, fold, stream, launch)
    }

    /// The sum of a host slice (copied to the device through the reused workspace).
    ///
    /// # Errors
    /// As [`Device::sum_fold`].
    pub fn sum_host<T: GpuFloat>(&self, xs: &[T], fold: usize) -> Result<T, GpuError> {
        self.accumulate_host_with(xs, fold, Stream::DEFAULT, &Launch::default())
            .map(|r| r.1)
    }

    /// The accumulator of a host slice's values, with explicit stream and launch settings.
    ///
    /// # Errors
    /// As [`Device::accumulate_with`].
    pub fn accumulate_host_with<T: GpuFloat>(
        &self,
        xs: &[T],
        fold: usize,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(DynAccumulator<T>, T), GpuError> {
        check_fold(fold)?;
        if xs.len() as u64 > T::CAPACITY {
            return Err(GpuError::CapacityExceeded);
        }
        self.bind()?;
        let mut ws = self.lock();
        ws.input.ensure(std::mem::size_of_val(xs))?;
        let ptr = ws.input.ptr;
        // SAFETY: the staging buffer holds at least xs's bytes; the stream orders the copy
        // before the kernel, and the call synchronises the stream before returning (so xs
        // outlives the copy). The workspace stays locked throughout.
        unsafe {
            result::memcpy_htod_async(ptr, xs, stream.0).map_err(drv("cuMemcpyHtoDAsync"))?;
            self.sum_locked::<T>(&mut ws, ptr, xs.len(), fold, stream, launch)
        }
    }

    /// The cumulative sum of a device buffer into another of the same length.
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`], [`GpuError::UnsupportedFold`], a driver error.
    pub fn cumsum<T: GpuFloat>(
        &self,
        x: &DeviceBuffer<T>,
        out: &mut DeviceBuffer<T>,
        fold: usize,
    ) -> Result<(), GpuError> {
        self.cumsum_with(x, out, fold, &Launch::default())
    }

    /// [`Device::cumsum`] with explicit launch settings.
    ///
    /// # Errors
    /// As [`Device::cumsum`], and [`GpuError::InvalidLaunch`].
    pub fn cumsum_with<T: GpuFloat>(
        &self,
        x: &DeviceBuffer<T>,
        out: &mut DeviceBuffer<T>,
        fold: usize,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        self.check_buffer(x)?;
        self.check_buffer(out)?;
        if x.len != out.len {
            return Err(GpuError::LengthMismatch);
        }
        // SAFETY: both buffers hold len values of T on this device.
        unsafe { self.cumsum_dev::<T>(x.ptr, out.ptr, x.len, fold, None, Stream::DEFAULT, launch) }
    }

    /// The cumulative sum of a device buffer, in place.
    ///
    /// # Errors
    /// As [`Device::cumsum`].
    pub fn cumsum_in_place<T: GpuFloat>(&self, x: &mut DeviceBuffer<T>, fold: usize) -> Result<(), GpuError> {
        self.check_buffer(x)?;
        // SAFETY: the buffer holds len values of T; the kernels allow out == x.
        unsafe {
            self.cumsum_dev::<T>(
                x.ptr,
                x.ptr,
                x.len,
                fold,
                None,
                Stream::DEFAULT,
                &Launch::default(),
            )
        }
    }

    /// The cumulative sum at raw device addresses on a caller's stream (`out` may equal `x`).
    ///
    /// # Safety
    /// `x` and `out` must be device addresses of this device holding `n` values of T, and
    /// `stream` a live stream of this device.
    ///
    /// # Errors
    /// As [`Device::cumsum_with`].
    pub unsafe fn cumsum_raw<T: GpuFloat>(
        &self,
        x: u64,
        out: u64,
        n: usize,
        fold: usize,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        self.cumsum_dev::<T>(x, out, n, fold, None, stream, launch)
    }

    /// The cumulative sum of a host slice into a host slice (staged through the workspace).
    ///
    /// # Errors
    /// As [`Device::cumsum`]; `out` is untouched on error.
    pub fn cumsum_host<T: GpuFloat>(&self, xs: &[T], out: &mut [T], fold: usize) -> Result<(), GpuError> {
        self.cumsum_host_with(xs, out, fold, Stream::DEFAULT, &Launch::default())
    }

    /// [`Device::cumsum_host`] with explicit stream and launch settings.
    ///
    /// # Errors
    /// As [`Device::cumsum_host`], and [`GpuError::HostOutOfMemory`] when the temporary
    /// result cannot be allocated.
    pub fn cumsum_host_with<T: GpuFloat>(
        &self,
        xs: &[T],
        out: &mut [T],
        fold: usize,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        self.cumsum_host_from::<T>(xs, out, fold, None, stream, launch)
    }

    /// The host-slice cumsum, from `start` when there is one (then `fold` is its fold).
    fn cumsum_host_from<T: GpuFloat>(
        &self,
        xs: &[T],
        out: &mut [T],
        fold: usize,
        start: Option<&DynAccumulator<T>>,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        check_fold(fold)?;
        if xs.len() != out.len() {
            return Err(GpuError::LengthMismatch);
        }
        host::check_room::<T>(start.map_or(0, |s| s.count()), xs.len())?;
        if xs.is_empty() {
            return Ok(());
        }
        // Copy into a temporary first so that `out` is untouched if anything fails.
        let mut tmp = host::host_vec(xs.len(), T::default())?;
        self.bind()?;
        let mut ws = self.lock();
        let bytes = std::mem::size_of_val(xs);
        ws.input.ensure(bytes)?;
        ws.output.ensure(bytes)?;
        let (ip, op) = (ws.input.ptr, ws.output.ptr);
        // SAFETY: staging buffers of xs.len values each, used under the workspace lock; the
        // stream orders copy, kernels and copy back, and is synchronised before reading tmp.
        unsafe {
            result::memcpy_htod_async(ip, xs, stream.0).map_err(drv("cuMemcpyHtoDAsync"))?;
            self.cumsum_locked::<T>(&mut ws, ip, op, xs.len(), fold, start, stream, launch)?;
            result::memcpy_dtoh_async(&mut tmp, op, stream.0).map_err(drv("cuMemcpyDtoHAsync"))?;
            result::stream::synchronize(stream.0).map_err(drv("cuStreamSynchronize"))?;
        }
        out.copy_from_slice(&tmp);
        Ok(())
    }

    /// Adds a device buffer's values to `acc`, on the device at `acc`'s fold: afterwards
    /// `acc` has the bytes `acc.add_slice` of the same values gives (the device's
    /// accumulator of the buffer, merged exactly into `acc`). `acc` is unchanged on error.
    ///
    /// # Errors
    /// [`GpuError::UnsupportedFold`] (`acc`'s fold outside 2..=8),
    /// [`GpuError::CapacityExceeded`] (`acc`'s count and the buffer's length together pass
    /// the capacity), both before any device work; [`GpuError::InvalidPointer`] (a buffer of
    /// another device), a driver error.
    pub fn add_to<T: GpuFloat>(
        &self,
        acc: &mut DynAccumulator<T>,
        x: &DeviceBuffer<T>,
    ) -> Result<(), GpuError> {
        self.check_buffer(x)?;
        // SAFETY: the buffer holds x.len values of T on this device.
        unsafe { self.add_raw_to::<T>(acc, x.ptr, x.len, Stream::DEFAULT, &Launch::default()) }
    }

    /// [`Device::add_to`] for `n` values at a raw device address, on a caller's stream (which
    /// is synchronised).
    ///
    /// # Safety
    /// As [`Device::accumulate_raw`].
    ///
    /// # Errors
    /// As [`Device::add_to`], and [`GpuError::InvalidLaunch`].
    pub unsafe fn add_raw_to<T: GpuFloat>(
        &self,
        acc: &mut DynAccumulator<T>,
        x: u64,
        n: usize,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        check_fold(acc.fold())?;
        host::check_room::<T>(acc.count(), n)?;
        if n == 0 {
            return Ok(());
        }
        let (part, _) = self.sum_state::<T>(x, n, acc.fold(), stream, launch)?;
        host::add_part(acc, &part)
    }

    /// [`Device::add_to`] for a host slice (copied to the device through the workspace).
    ///
    /// # Errors
    /// As [`Device::add_to`].
    pub fn add_host_to<T: GpuFloat>(&self, acc: &mut DynAccumulator<T>, xs: &[T]) -> Result<(), GpuError> {
        self.add_host_to_with(acc, xs, Stream::DEFAULT, &Launch::default())
    }

    /// [`Device::add_host_to`] with explicit stream and launch settings.
    ///
    /// # Errors
    /// As [`Device::add_to`], and [`GpuError::InvalidLaunch`].
    pub fn add_host_to_with<T: GpuFloat>(
        &self,
        acc: &mut DynAccumulator<T>,
        xs: &[T],
        stream: Stream,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        check_fold(acc.fold())?;
        host::check_room::<T>(acc.count(), xs.len())?;
        if xs.is_empty() {
            return Ok(());
        }
        let (part, _) = self.accumulate_host_with(xs, acc.fold(), stream, launch)?;
        host::add_part(acc, &part)
    }

    /// The cumulative sum of a device buffer continued from `start`, into another buffer of
    /// the same length: `out[i]` gets the value of `start` with `x[0..=i]` added (the bits of
    /// `reprosum::cumsum_from`), at `start`'s fold. `start` is not changed: to go on with
    /// the next piece, add `x` to it ([`Device::add_to`]).
    ///
    /// # Errors
    /// [`GpuError::UnsupportedFold`] (`start`'s fold outside 2..=8),
    /// [`GpuError::LengthMismatch`], [`GpuError::CapacityExceeded`] (`start`'s count and the
    /// length together pass the capacity), a driver error. Errors found before the launch
    /// leave `out` untouched.
    pub fn cumsum_from<T: GpuFloat>(
        &self,
        start: &DynAccumulator<T>,
        x: &DeviceBuffer<T>,
        out: &mut DeviceBuffer<T>,
    ) -> Result<(), GpuError> {
        self.cumsum_from_with(start, x, out, &Launch::default())
    }

    /// [`Device::cumsum_from`] with explicit launch settings.
    ///
    /// # Errors
    /// As [`Device::cumsum_from`], and [`GpuError::InvalidLaunch`].
    pub fn cumsum_from_with<T: GpuFloat>(
        &self,
        start: &DynAccumulator<T>,
        x: &DeviceBuffer<T>,
        out: &mut DeviceBuffer<T>,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        check_fold(start.fold())?;
        self.check_buffer(x)?;
        self.check_buffer(out)?;
        if x.len != out.len {
            return Err(GpuError::LengthMismatch);
        }
        // SAFETY: both buffers hold len values of T on this device.
        unsafe {
            self.cumsum_dev::<T>(
                x.ptr,
                out.ptr,
                x.len,
                start.fold(),
                Some(start),
                Stream::DEFAULT,
                launch,
            )
        }
    }

    /// [`Device::cumsum_from`] in place.
    ///
    /// # Errors
    /// As [`Device::cumsum_from`].
    pub fn cumsum_from_in_place<T: GpuFloat>(
        &self,
        start: &DynAccumulator<T>,
        x: &mut DeviceBuffer<T>,
    ) -> Result<(), GpuError> {
        check_fold(start.fold())?;
        self.check_buffer(x)?;
        // SAFETY: the buffer holds len values of T; the kernels allow out == x.
        unsafe {
            self.cumsum_dev::<T>(
                x.ptr,
                x.ptr,
                x.len,
                start.fold(),
                Some(start),
                Stream::DEFAULT,
                &Launch::default(),
            )
        }
    }

    /// [`Device::cumsum_from`] at raw device addresses on a caller's stream (`out` may equal
    /// `x`; the stream is synchronised).
    ///
    /// # Safety
    /// As [`Device::cumsum_raw`].
    ///
    /// # Errors
    /// As [`Device::cumsum_from_with`].
    pub unsafe fn cumsum_from_raw<T: GpuFloat>(
        &self,
        start: &DynAccumulator<T>,
        x: u64,
        out: u64,
        n: usize,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        check_fold(start.fold())?;
        self.cumsum_dev::<T>(x, out, n, start.fold(), Some(start), stream, launch)
    }

    /// [`Device::cumsum_from`] of a host slice into a host slice (staged through the
    /// workspace).
    ///
    /// # Errors
    /// As [`Device::cumsum_from`], and [`GpuError::HostOutOfMemory`]; `out` is untouched
    /// on error.
    pub fn cumsum_from_host<T: GpuFloat>(
        &self,
        start: &DynAccumulator<T>,
        xs: &[T],
        out: &mut [T],
    ) -> Result<(), GpuError> {
        self.cumsum_from_host_with(start, xs, out, Stream::DEFAULT, &Launch::default())
    }

    /// [`Device::cumsum_from_host`] with explicit stream and launch settings.
    ///
    /// # Errors
    /// As [`Device::cumsum_from_host`], and [`GpuError::InvalidLaunch`].
    pub fn cumsum_from_host_with<T: GpuFloat>(
        &self,
        start: &DynAccumulator<T>,
        xs: &[T],
        out: &mut [T],
        stream: Stream,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        self.cumsum_host_from::<T>(xs, out, start.fold(), Some(start), stream, launch)
    }

    fn check_buffer<T>(&self, b: &DeviceBuffer<T>) -> Result<(), GpuError> {
        if b.ordinal != self.ordinal {
            return Err(GpuError::InvalidPointer("buffer of another device"));
        }
        Ok(())
    }

    fn probe(&self) -> Result<(), GpuError> {
        let (in64, in32, want64, want32) = probe_cases();
        self.bind()?;
        let d_in64 = DeviceBuffer::<u64>::from_host_raw(self, &in64)?;
        let d_in32 = DeviceBuffer::<u32>::from_host_raw(self, &in32)?;
        let d_out64 = DeviceBuffer::<u64>::from_host_raw(self, &[0xA5A5_A5A5_A5A5_A5A5u64; 12])?;
        let d_out32 = DeviceBuffer::<u32>::from_host_raw(self, &[0xA5A5_A5A5u32; 16])?;
        let (mut a, mut b, mut c, mut d) = (d_in64.ptr, d_out64.ptr, d_in32.ptr, d_out32.ptr);
        let mut args = [
            &mut a as *mut _ as *mut c_void,
            &mut b as *mut _ as *mut c_void,
            &mut c as *mut _ as *mut c_void,
            &mut d as *mut _ as *mut c_void,
        ];
        let f = Func {
            f: self.probe,
            max_threads: 1,
        };
        // SAFETY: the buffers have the sizes rs_probe reads and writes.
        unsafe {
            self.launch(&f, 1, 1, 0, Stream::DEFAULT, &mut args)?;
            result::stream::synchronize(std::ptr::null_mut()).map_err(drv("cuStreamSynchronize"))?;
        }
        let got64 = d_out64.to_host_raw()?;
        let got32 = d_out32.to_host_raw()?;
        for (i, (g, w)) in got64.iter().zip(want64.iter()).enumerate() {
            if g != w {
                return Err(GpuError::ProbeFailed(format!(
                    "f64 probe {i}: got {g:#018x}, want {w:#018x}"
                )));
            }
        }
        for (i, (g, w)) in got32.iter().zip(want32.iter()).enumerate() {
            if g != w {
                return Err(GpuError::ProbeFailed(format!(
                    "f32 probe {i}: got {g:#010x}, want {w:#010x}"
                )));
            }
        }
        Ok(())
    }

    fn self_check(&self) -> Result<(), GpuError> {
        let xs = self_check_input();
        let fs: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
        for fold in [2, 3, 8] {
            let (a, v) = self.accumulate_host_with::<f64>(&xs, fold, Stream::DEFAULT, &Launch::default())?;
            let want = reprosum_core::sum_fold(&xs, fold)?;
            let mut c = DynAccumulator::<f64>::new(fold)?;
            c.add_slice(&xs)?;
            if v.to_bits() != want.to_bits() || a.to_bytes().as_bytes() != c.to_bytes().as_bytes() {
                return Err(GpuError::ProbeFailed(format!("f64 self-check at fold {fold}")));
            }
            let (a, v) = self.accumulate_host_with::<f32>(&fs, fold, Stream::DEFAULT, &Launch::default())?;
            let want = reprosum_core::sum_fold(&fs, fold)?;
            let mut c = DynAccumulator::<f32>::new(fold)?;
            c.add_slice(&fs)?;
            if v.to_bits() != want.to_bits() || a.to_bytes().as_bytes() != c.to_bytes().as_bytes() {
                return Err(GpuError::ProbeFailed(format!("f32 self-check at fold {fold}")));
            }
        }
        Ok(())
    }
}

/// A fixed input with subnormals, huge values (the top-bin path), cancellations and
/// signed zeros, summed on the device at first use and compared with the core.
fn self_check_input() -> Vec<f64> {
    let mut v = vec![
        f64::MAX,
        -f64::MAX,
        f64::MAX / 3.0,
        1e308,
        f64::from_bits(1),
        f64::from_bits(3),
        -f64::from_bits(0x000F_FFFF_FFFF_FFFF),
        -0.0,
        0.0,
        1.0,
        f64::EPSILON / 2.0,
        -1e-300,
        3.5,
        -2.25,
        1e16,
        -1e16,
    ];
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    for i in 0..3000 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let e = (s >> 53) as i32 % 60 - 30;
        let m = (s >> 11) as f64 / (1u64 << 53) as f64;
        v.push(if i % 2 == 0 { m } else { -m } * 2f64.powi(e));
    }
    v
}

/// Probe inputs (f64 pairs, f32 pairs) and the results IEEE round-to-nearest-even
/// arithmetic without flush-to-zero gives, computed on the host.
#[doc(hidden)]
pub fn probe_cases() -> (Vec<u64>, Vec<u32>, Vec<u64>, Vec<u32>) {
    let in64: Vec<u64> = vec![
        3,
        0x8000_0000_0000_0001, // subnormal - subnormal
        0x0010_0000_0000_0001,
        0x8010_0000_0000_0000, // normal - normal = subnormal
        0x3FF0_0000_0000_0000,
        0x3CA0_0000_0000_0000, // 1 + 2^-53: tie to even (1)
        0x3FF0_0000_0000_0001,
        0x3CA0_0000_0000_0000, // tie to even (up)
        0x8000_0000_0000_0000,
        0x8000_0000_0000_0000, // -0 + -0 = -0
        0,
        0x8000_0000_0000_0000, // 0 + -0 = +0
        0x3FF0_0000_0000_0000,
        0xBFF0_0000_0000_0000, // 1 - 1 = +0
        0xBFF8_0000_0000_0000,
        0x3CA0_0000_0000_0000, // -1.5 + 2^-53: tie to even
        0x0010_0000_0000_0000,
        0x3FE0_0000_0000_0000, // min normal * 0.5 = subnormal
        3,
        0x3FE0_0000_0000_0000, // 3 ulp * 0.5: tie to even
        0xBFF0_0000_0000_0000,
        0, // -1 * 0 = -0
        0x1E60_0000_0000_0000,
        0x1E60_0000_0000_0000, // 2^-537 squared = 2^-1074
        0x3FF0_0000_1000_0000, // f32(1 + 2^-24): tie to even
        0x3FF0_0000_3000_0000, // f32(1 + 3 * 2^-24): tie to even (up)
        0x36A0_0000_0000_0000, // f32(2^-149): subnormal
        0x8000_0000_0000_0000, // f32(-0)
    ];
    let in32: Vec<u32> = vec![
        3,
        0x8000_0001,
        0x0080_0001,
        0x8080_0000,
        0x3F80_0000,
        0x3380_0000,
        0x3F80_0001,
        0x3380_0000,
        0x8000_0000,
        0x8000_0000,
        0,
        0x8000_0000,
        0x3F80_0000,
        0xBF80_0000,
        0xBFC0_0000,
        0x3380_0000,
        0x0080_0000,
        0x3F00_0000,
        3,
        0x3F00_0000,
        0xBF80_0000,
        0,
        0x1A80_0000,
        0x1A00_0000,
    ];
    let mut want64 = Vec::new();
    let mut want32 = Vec::new();
    for i in 0..12 {
        let (a, b) = (f64::from_bits(in64[2 * i]), f64::from_bits(in64[2 * i + 1]));
        want64.push(if i < 8 { a + b } else { a * b }.to_bits());
        let (a, b) = (f32::from_bits(in32[2 * i]), f32::from_bits(in32[2 * i + 1]));
        want32.push(if i < 8 { a + b } else { a * b }.to_bits());
    }
    for i in 0..4 {
        want32.push((f64::from_bits(in64[24 + i]) as f32).to_bits());
    }
    (in64, in32, want64, want32)
}

fn le_word(b: &[u8], size: usize) -> u64 {
    let mut w = [0u8; 8];
    w[..size].copy_from_slice(&b[..size]);
    u64::from_le_bytes(w)
}

/// Builds the core's accumulator from a state the kernels wrote (K primaries, K carries,
/// the flags slot; little-endian), with the count the host knows.
fn state_to_accumulator<T: GpuFloat>(
    raw: &[u8],
    fold: usize,
    count: u64,
) -> Result<DynAccumulator<T>, GpuError> {
    let size = T::BYTES;
    let mut bytes = Vec::with_capacity(encoding::encoded_len(size, fold));
    bytes.extend_from_slice(&encoding::MAGIC);
    // Version 1 (no checksum): the state is decoded and checked like any stored one.
    bytes.push(encoding::VERSION_1);
    bytes.push(T::DTYPE.code());
    bytes.push(fold as u8);
    bytes.push(le_word(&raw[2 * fold * size..], size) as u8);
    bytes.extend_from_slice(&count.to_le_bytes());
    bytes.extend_from_slice(&raw[..2 * fold * size]);
    DynAccumulator::from_bytes(&bytes).map_err(GpuError::Core)
}

fn memset_async(ptr: sys::CUdeviceptr, bytes: usize, stream: Stream) -> Result<(), GpuError> {
    // SAFETY: ptr is a device allocation of at least `bytes` bytes.
    unsafe { result::memset_d8_async(ptr, 0, bytes, stream.0) }.map_err(drv("cuMemsetD8Async"))
}

/// A device allocation of `len` values of T, freed on drop.
pub struct DeviceBuffer<T> {
    ptr: sys::CUdeviceptr,
    len: usize,
    ordinal: usize,
    ctx: sys::CUcontext,
    _t: PhantomData<T>,
}

// SAFETY: the buffer owns its device memory; the handle is usable from any thread.
unsafe impl<T: Send> Send for DeviceBuffer<T> {}
// SAFETY: shared references only read the handle.
unsafe impl<T: Sync> Sync for DeviceBuffer<T> {}

impl<T: Copy> DeviceBuffer<T> {
    /// An uninitialised buffer of `len` values.
    ///
    /// # Errors
    /// A driver error (out of memory).
    pub fn alloc(dev: &Device, len: usize) -> Result<Self, GpuError> {
        dev.bind()?;
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or(GpuError::CapacityExceeded)?
            .max(1);
        // SAFETY: a plain device allocation in the device's context.
        let ptr = unsafe { result::malloc_sync(bytes) }.map_err(drv("cuMemAlloc"))?;
        Ok(DeviceBuffer {
            ptr,
            len,
            ordinal: dev.ordinal,
            ctx: dev.ctx,
            _t: PhantomData,
        })
    }

    fn from_host_raw(dev: &Device, xs: &[T]) -> Result<Self, GpuError> {
        let b = Self::alloc(dev, xs.len())?;
        b.copy_from_host(xs)?;
        Ok(b)
    }

    /// A buffer holding a copy of `xs`.
    ///
    /// # Errors
    /// A driver error.
    pub fn from_host(dev: &Device, xs: &[T]) -> Result<Self, GpuError> {
        Self::from_host_raw(dev, xs)
    }

    /// Copies `xs` (of the buffer's length) into the buffer.
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`], a driver error.
    pub fn copy_from_host(&self, xs: &[T]) -> Result<(), GpuError> {
        if xs.len() != self.len {
            return Err(GpuError::LengthMismatch);
        }
        if xs.is_empty() {
            return Ok(());
        }
        self.bind()?;
        // SAFETY: the allocation holds len values of T.
        unsafe { result::memcpy_htod_sync(self.ptr, xs) }.map_err(drv("cuMemcpyHtoD"))
    }

    fn to_host_raw(&self) -> Result<Vec<T>, GpuError>
    where
        T: Default,
    {
        let mut v = host::host_vec(self.len, T::default())?;
        self.copy_to_host(&mut v)?;
        Ok(v)
    }

    /// A host copy of the buffer.
    ///
    /// # Errors
    /// A driver error, [`GpuError::HostOutOfMemory`].
    pub fn to_host(&self) -> Result<Vec<T>, GpuError>
    where
        T: Default,
    {
        self.to_host_raw()
    }

    /// Copies the buffer into `out` (of the buffer's length).
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`], a driver error.
    pub fn copy_to_host(&self, out: &mut [T]) -> Result<(), GpuError> {
        if out.len() != self.len {
            return Err(GpuError::LengthMismatch);
        }
        if out.is_empty() {
            return Ok(());
        }
        self.bind()?;
        // SAFETY: the allocation holds len values of T.
        unsafe { result::memcpy_dtoh_sync(out, self.ptr) }.map_err(drv("cuMemcpyDtoH"))
    }

    /// Sets every byte of the buffer to `byte` (to poison outputs in tests).
    ///
    /// # Errors
    /// A driver error.
    pub fn fill_bytes(&mut self, byte: u8) -> Result<(), GpuError> {
        self.bind()?;
        let bytes = self.len * std::mem::size_of::<T>();
        // SAFETY: the allocation holds `bytes` bytes.
        unsafe { result::memset_d8_sync(self.ptr, byte, bytes) }.map_err(drv("cuMemsetD8"))
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address (a `CUdeviceptr`).
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// The ordinal of the device holding the buffer.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    fn bind(&self) -> Result<(), GpuError> {
        // SAFETY: ctx is a retained primary context.
        unsafe { result::ctx::set_current(self.ctx) }.map_err(drv("cuCtxSetCurrent"))
    }
}

impl<T> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: ptr came from malloc_sync in ctx; every call using it has synchronised.
        unsafe {
            let _ = result::ctx::set_current(self.ctx);
            let _ = result::free_sync(self.ptr);
        }
    }
}

/// Where a pointer points, by the driver's pointer attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    /// Host memory (pageable or page-locked): copied.
    Host,
    /// Device (or managed) memory of the device with this ordinal: used in place.
    Device(usize),
}

/// Asks the driver what kind of memory `ptr` is.
///
/// # Errors
/// [`GpuError::NoDriver`] or a driver error.
pub fn memory_of(ptr: *const c_void) -> Result<Memory, GpuError> {
    init_driver()?;
    // Make sure a context exists (pointer queries need an initialised driver and context).
    let _ = device(current_ordinal()?)?;
    let mut kind: u32 = 0;
    // SAFETY: the attribute is a 32-bit value written to `kind`.
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

/// The ordinal of the device of the calling thread's current context, or 0 when no context
/// is current (where host inputs are copied to).
///
/// # Errors
/// [`GpuError::NoDriver`] or a driver error.
pub fn current_ordinal() -> Result<usize, GpuError> {
    init_driver()?;
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

/// The sum of `n` values at `x`, wherever they live: device memory is used in place (on
/// the device that holds it), host memory is copied to the current device
/// ([`current_ordinal`]: that of the thread's current context, else 0). Returns the accumulator
/// and its value; the stream (null: the default stream) is synchronised before returning.
/// This is what `adn_cuda_sum_*` call.
///
/// # Safety
/// `x` must point to `n` readable, aligned values of T (host or device), and `stream` be
/// null or a live stream of the device that runs the call.
///
/// # Errors
/// [`GpuError::NoDriver`], [`GpuError::NoDevice`], [`GpuError::UnsupportedFold`],
/// [`GpuError::InvalidPointer`], [`GpuError::CapacityExceeded`], a driver error.
pub unsafe fn accumulate_ptr<T: GpuFloat>(
    x: *const T,
    n: usize,
    fold: usize,
    stream: *mut c_void,
) -> Result<(DynAccumulator<T>, T), GpuError> {
    check_fold(fold)?;
    if n == 0 {
        device(current_ordinal()?)?;
        let a = DynAccumulator::<T>::new(fold)?;
        let v = a.value();
        return Ok((a, v));
    }
    if x.is_null() || (x as usize) & (T::BYTES - 1) != 0 {
        return Err(GpuError::InvalidPointer("null or misaligned input"));
    }
    let stream = Stream::from_raw(stream);
    match memory_of(x as *const c_void)? {
        Memory::Device(ord) => {
            device(ord)?.accumulate_raw::<T>(x as u64, n, fold, stream, &Launch::default())
        }
        Memory::Host => {
            let xs = std::slice::from_raw_parts(x, n);
            device(current_ordinal()?)?.accumulate_host_with(xs, fold, stream, &Launch::default())
        }
    }
}

/// The sum's value only; see [`accumulate_ptr`].
///
/// # Safety
/// As [`accumulate_ptr`].
///
/// # Errors
/// As [`accumulate_ptr`].
pub unsafe fn sum_ptr<T: GpuFloat>(
    x: *const T,
    n: usize,
    fold: usize,
    stream: *mut c_void,
) -> Result<T, GpuError> {
    accumulate_ptr(x, n, fold, stream).map(|r| r.1)
}

/// Adds `n` values at `x`, wherever they live (as [`accumulate_ptr`]: device memory used in
/// place on its device, host memory copied to the current device), to `acc` at `acc`'s fold:
/// afterwards `acc` has the bytes `acc.add_slice` of the same values gives. `acc` is
/// unchanged on any error. This is what `adn_cuda_acc_*_add_array` call.
///
/// # Safety
/// As [`accumulate_ptr`].
///
/// # Errors
/// [`GpuError::UnsupportedFold`] (`acc`'s fold outside 2..=8) and
/// [`GpuError::CapacityExceeded`] (`acc`'s count and `n` together pass the capacity), both
/// before any device work; then as [`accumulate_ptr`].
pub unsafe fn add_ptr<T: GpuFloat>(
    acc: &mut DynAccumulator<T>,
    x: *const T,
    n: usize,
    stream: *mut c_void,
) -> Result<(), GpuError> {
    check_fold(acc.fold())?;
    host::check_room::<T>(acc.count(), n)?;
    let (part, _) = accumulate_ptr(x, n, acc.fold(), stream)?;
    host::add_part(acc, &part)
}

/// The cumulative sum of `n` values at `x` into `out`, which must live where `x` lives
/// (both device memory of one device, used in place, or both host memory, copied to the
/// current device); `out == x` is allowed, any other overlap is an error. This is what
/// `adn_cuda_cumsum_*` call.
///
/// # Safety
/// `x` must point to `n` readable values of T and `out` to `n` writable ones (aligned);
/// `stream` null or a live stream of the device that runs the call.
///
/// # Errors
/// As [`accumulate_ptr`], and [`GpuError::InvalidPointer`] when `x` and `out` live in
/// different memories. Errors before the launch leave `out` untouched; a device fault
/// during the kernels may leave a device-resident `out` partly written.
pub unsafe fn cumsum_ptr<T: GpuFloat>(
    x: *const T,
    out: *mut T,
    n: usize,
    fold: usize,
    stream: *mut c_void,
) -> Result<(), GpuError> {
    cumsum_ptr_from(x, out, n, fold, None, stream)
}

/// The cumulative sum of `n` values at `x` into `out` continued from `start`: `out[i]` gets
/// the value of `start` with `x[0..=i]` added (the bits of `reprosum::cumsum_from`), at
/// `start`'s fold; the pointers follow the rules of [`cumsum_ptr`] (`out == x` allowed).
/// `start` is not changed (add the values to it with [`add_ptr`] to go on). This is what
/// `adn_cuda_cumsum_*_from` call.
///
/// # Safety
/// As [`cumsum_ptr`].
///
/// # Errors
/// [`GpuError::UnsupportedFold`] (`start`'s fold outside 2..=8) and
/// [`GpuError::CapacityExceeded`] (`start`'s count and `n` together pass the capacity), both
/// before any device work; then as [`cumsum_ptr`]. Errors before the launch leave `out`
/// untouched.
pub unsafe fn cumsum_from_ptr<T: GpuFloat>(
    start: &DynAccumulator<T>,
    x: *const T,
    out: *mut T,
    n: usize,
    stream: *mut c_void,
) -> Result<(), GpuError> {
    cumsum_ptr_from(x, out, n, start.fold(), Some(start), stream)
}

/// [`cumsum_ptr`], from `start` when there is one (then `fold` is its fold).
///
/// # Safety
/// As [`cumsum_ptr`].
unsafe fn cumsum_ptr_from<T: GpuFloat>(
    x: *const T,
    out: *mut T,
    n: usize,
    fold: usize,
    start: Option<&DynAccumulator<T>>,
    stream: *mut c_void,
) -> Result<(), GpuError> {
    check_fold(fold)?;
    host::check_room::<T>(start.map_or(0, |s| s.count()), n)?;
    if n == 0 {
        device(current_ordinal()?)?;
        return Ok(());
    }
    if x.is_null()
        || out.is_null()
        || (x as usize) & (T::BYTES - 1) != 0
        || (out as usize) & (T::BYTES - 1) != 0
    {
        return Err(GpuError::InvalidPointer("null or misaligned input or output"));
    }
    let (xa, oa, bytes) = (x as usize, out as usize, n.saturating_mul(T::BYTES));
    if xa != oa && xa < oa.saturating_add(bytes) && oa < xa.saturating_add(bytes) {
        return Err(GpuError::InvalidPointer(
            "input and output overlap (only out == x is allowed)",
        ));
    }
    let stream = Stream::from_raw(stream);
    let launch = Launch::default();
    match (memory_of(x as *const c_void)?, memory_of(out as *const c_void)?) {
        (Memory::Device(a), Memory::Device(b)) if a == b => {
            device(a)?.cumsum_dev::<T>(x as u64, out as u64, n, fold, start, stream, &launch)
        }
        (Memory::Host, Memory::Host) => {
            // A copy: `out` may be `x`, and `out` is written only once the result is complete.
            let xs = host::host_copy(std::slice::from_raw_parts(x, n))?;
            let outs = std::slice::from_raw_parts_mut(out, n);
            device(current_ordinal()?)?.cumsum_host_from::<T>(&xs, outs, fold, start, stream, &launch)
        }
        _ => Err(GpuError::InvalidPointer("input and output in different memories")),
    }
}

/// The calling thread's current CUDA context, made current again when this is dropped.
///
/// The calls of this module make the device's primary context current on the calling
/// thread. An entry point for callers that manage their own contexts (the C library's
/// `adn_cuda_*`, the facade's pointer functions) holds one of these across the call, so that
/// the caller's context (or none) is current again afterwards, as cudarc does. Without a
/// driver it holds nothing and restores nothing.
#[must_use = "the context is restored when this is dropped"]
pub struct RestoreContext {
    saved: Option<sys::CUcontext>,
    /// Not `Send`: it restores the context of the thread that made it.
    _thread: core::marker::PhantomData<*const ()>,
}

impl RestoreContext {
    /// Saves the calling thread's current context (possibly none).
    pub fn save() -> Self {
        let saved = init_driver()
            .ok()
            .and_then(|()| result::ctx::get_current().ok())
            .map(|c| c.unwrap_or(std::ptr::null_mut()));
        RestoreContext {
            saved,
            _thread: core::marker::PhantomData,
        }
    }
}

impl Drop for RestoreContext {
    fn drop(&mut self) {
        if let Some(ctx) = self.saved {
            // SAFETY: `ctx` was current on this thread when saved (or null, which unbinds);
            // a context the caller destroyed since is the caller's error, reported by the
            // driver and ignored here.
            let _ = unsafe { result::ctx::set_current(ctx) };
        }
    }
}
