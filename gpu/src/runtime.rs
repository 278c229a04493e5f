//! What a GPU runtime gives the generic host ([`crate::device`]): the CUDA driver
//! ([`crate::cuda::Cuda`], through cudarc's `sys`/`result` levels) and the HIP runtime
//! ([`crate::hip::Hip`], through a table of functions loaded at run time) implement
//! [`Runtime`]. Everything else (workspaces, launches, the sum, the cumulative sum, the
//! probe and the self-check) is written once, in [`crate::device`].

use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use crate::device::Device;
pub use crate::error::Api;
use crate::GpuError;

/// An opaque runtime handle (module, function, stream, event).
pub type Handle = *mut c_void;

/// What a runtime's host path uses beyond the calls every runtime has. The kernels are one
/// source; these say which of its kernels and host techniques a back end has run with.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    /// The cumulative sum's fixed-window tile kernels (`rs_tile_*_fixed`), their tile lists
    /// and the sums the reduce pass hands the scan pass. Without them the general kernels
    /// take every tile.
    pub fixed_window: bool,
    /// Tile 0 of a cumulative sum on a second stream of the device (needs `fixed_window`).
    pub side_stream: bool,
    /// The single-pass cumulative sum (`rs_cumsum_lookback_*`: decoupled look-back over the
    /// tiles' states, blocks spinning on other blocks' status words; needs `fixed_window`).
    /// Without it (or where it cannot take a call) the multi-pass kernels run. On CUDA, where
    /// by default it takes calls of a few tiles only (`LOOKBACK_MAX_TILES`; slower than the
    /// multi-pass kernels at 1e8 on the H200); off on HIP (no fixed-window kernels there).
    pub single_pass: bool,
    /// The block limit for dynamic shared memory is an opt-in attribute above 48 KiB,
    /// raised per function (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`).
    pub smem_opt_in: bool,
}

/// A kernel of the loaded module.
#[derive(Clone, Copy)]
pub struct Func {
    /// The runtime's function handle.
    pub f: Handle,
    /// The largest block it can be launched with.
    pub max_threads: u32,
}

/// What a device reports when it is opened, and its loaded module.
pub struct Opened<C> {
    /// The device's context (CUDA) or ordinal (HIP), made current by every call.
    pub ctx: C,
    /// The device's name.
    pub name: String,
    /// Its target: `sm_90`, `gfx90a:sramecc+:xnack-`, or "unknown".
    pub arch: String,
    /// The compute capability (CUDA; (0, 0) on HIP).
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors (CUDA) or compute units (HIP).
    pub multiprocessors: u32,
    /// The most dynamic shared memory one block can have (with the opt-in on CUDA).
    pub max_smem: u32,
    /// The warp (wavefront) width.
    pub warp_size: u32,
    /// The module holding the kernels.
    pub module: Handle,
}

/// Where a pointer points, by the runtime's pointer attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    /// Host memory (pageable, registered or page-locked): copied.
    Host,
    /// Device (or managed) memory of the device with this ordinal: used in place.
    Device(usize),
}

/// A second stream of a device and two events to order it with a caller's stream.
pub struct Side {
    /// The stream (non-blocking).
    pub stream: Handle,
    /// Recorded on the caller's stream before the side stream's work.
    pub fork: Handle,
    /// Recorded on the side stream after its work.
    pub join: Handle,
}

/// The calls the generic host makes. Every call's status is checked and returned as a
/// [`GpuError`] naming the runtime function. Every safe call that reaches the runtime opens
/// it first ([`Runtime::init`]), so that without one it is [`GpuError::NoRuntime`], never a
/// panic.
pub trait Runtime: Sized + Send + Sync + 'static {
    /// Which API this is.
    const API: Api;
    /// What its host path uses (see [`Caps`]).
    const CAPS: Caps;
    /// A thread's current context (CUDA: a `CUcontext`, or null for none; HIP: the current
    /// device's ordinal). A device's own is made current for its calls, and the one saved
    /// before is current again afterwards.
    type Ctx: Copy + Send + Sync + 'static;

    /// Opens the runtime library and initialises it (once).
    ///
    /// # Errors
    /// [`GpuError::NoRuntime`], or the initialisation's error.
    fn init() -> Result<(), GpuError>;

    /// How many devices the runtime reports (0 for none).
    ///
    /// # Errors
    /// As [`Runtime::init`], or the query's error.
    fn device_count() -> Result<usize, GpuError>;

    /// Opens a device (an ordinal below the count): makes its context current, reads its
    /// attributes and loads the embedded kernels.
    ///
    /// # Errors
    /// A runtime error.
    fn open(ordinal: usize) -> Result<Opened<Self::Ctx>, GpuError>;

    /// The process's cache of opened devices of this runtime.
    fn devices() -> &'static Mutex<Vec<Option<Arc<Device<Self>>>>>;

    /// The calling thread's current context.
    ///
    /// # Errors
    /// A runtime error.
    fn current() -> Result<Self::Ctx, GpuError>;

    /// Makes `ctx` the calling thread's current context.
    ///
    /// # Errors
    /// A runtime error.
    fn make_current(ctx: Self::Ctx) -> Result<(), GpuError>;

    /// The ordinal of the device of the calling thread's current context (0 when there is
    /// none): where host inputs are copied to.
    ///
    /// # Errors
    /// A runtime error.
    fn current_ordinal() -> Result<usize, GpuError>;

    /// A kernel of `module` by name.
    ///
    /// # Safety
    /// `module` is a live module of the current context (from [`Runtime::open`]).
    ///
    /// # Errors
    /// A runtime error (no such function).
    unsafe fn function(module: Handle, name: &str) -> Result<Func, GpuError>;

    /// Blocks of `f` per multiprocessor at this block size and shared memory, when the
    /// runtime can say (the default grid fills the device with them; without an answer,
    /// 8 blocks per multiprocessor).
    ///
    /// # Errors
    /// A runtime error.
    fn occupancy(f: &Func, block: u32, smem: u32) -> Result<Option<u32>, GpuError>;

    /// Allows `f` this much dynamic shared memory (above 48 KiB, with
    /// [`Caps::smem_opt_in`]).
    ///
    /// # Errors
    /// A runtime error.
    fn allow_smem(f: &Func, bytes: u32) -> Result<(), GpuError>;

    /// A device allocation in the current context (never 0 on success).
    ///
    /// # Safety
    /// The device's context must be current.
    ///
    /// # Errors
    /// A runtime error (out of memory).
    unsafe fn malloc(bytes: usize) -> Result<u64, GpuError>;

    /// Frees a device allocation.
    ///
    /// # Safety
    /// `ptr` came from [`Runtime::malloc`] in the current context and no queued work uses it.
    ///
    /// # Errors
    /// A runtime error.
    unsafe fn free(ptr: u64) -> Result<(), GpuError>;

    /// Page-locked host memory mapped into the device's address space: the host address and
    /// the device's address of it (0 when it could not be mapped). `None` when the runtime
    /// path has no page-locked host memory (a heap buffer and a copy are used instead).
    ///
    /// # Safety
    /// The device's context must be current.
    ///
    /// # Errors
    /// A runtime error.
    unsafe fn malloc_host(bytes: usize) -> Result<Option<(*mut u8, u64)>, GpuError>;

    /// Frees memory from [`Runtime::malloc_host`].
    ///
    /// # Safety
    /// `p` came from `malloc_host` and no queued work uses it.
    ///
    /// # Errors
    /// A runtime error.
    unsafe fn free_host(p: *mut u8) -> Result<(), GpuError>;

    /// Queues a copy of `bytes` bytes from host `src` to device `dst` on `stream`.
    ///
    /// # Safety
    /// Both ranges are valid for the copy until `stream` has run it.
    ///
    /// # Errors
    /// A runtime error.
    unsafe fn copy_htod(dst: u64, src: *const u8, bytes: usize, stream: Handle) -> Result<(), GpuError>;

    /// Queues a copy of `bytes` bytes from device `src` to host `dst` on `stream`.
    ///
    /// # Safety
    /// Both ranges are valid for the copy until `stream` has run it.
    ///
    /// # Errors
    /// A runtime error.
    unsafe fn copy_dtoh(dst: *mut u8, src: u64, bytes: usize, stream: Handle) -> Result<(), GpuError>;

    /// Queues setting `bytes` bytes at `ptr` to `byte` on `stream`.
    ///
    /// # Safety
    /// The range is device memory of the current context.
    ///
    /// # Errors
    /// A runtime error.
    unsafe fn memset(ptr: u64, byte: u8, bytes: usize, stream: Handle) -> Result<(), GpuError>;

    /// Launches `f` on `stream` with one pointer per kernel parameter.
    ///
    /// # Safety
    /// `args` match the kernel's parameters, and every address in them is valid for the
    /// access the kernel makes until `stream` has run it.
    ///
    /// # Errors
    /// A runtime error (launch configuration).
    unsafe fn launch(
        f: &Func,
        grid: u32,
        block: u32,
        smem: u32,
        stream: Handle,
        args: &mut [*mut c_void],
    ) -> Result<(), GpuError>;

    /// Waits for everything queued on `stream`.
    ///
    /// # Safety
    /// `stream` is null or a live stream of the current context.
    ///
    /// # Errors
    /// A runtime error (the queued work's fault).
    unsafe fn synchronize(stream: Handle) -> Result<(), GpuError>;

    /// A side stream and its events (with [`Caps::side_stream`]; `None` otherwise).
    ///
    /// # Errors
    /// A runtime error.
    fn side() -> Result<Option<Side>, GpuError>;

    /// Records `event` on `stream`.
    ///
    /// # Safety
    /// Both are live handles of the current context.
    ///
    /// # Errors
    /// A runtime error.
    unsafe fn record(event: Handle, stream: Handle) -> Result<(), GpuError>;

    /// Makes `stream` wait for `event`.
    ///
    /// # Safety
    /// Both are live handles of the current context.
    ///
    /// # Errors
    /// A runtime error.
    unsafe fn wait(stream: Handle, event: Handle) -> Result<(), GpuError>;

    /// What kind of memory `ptr` is.
    ///
    /// # Errors
    /// As [`Runtime::init`], [`GpuError::NoDevice`], a runtime error.
    fn memory_of(ptr: *const c_void) -> Result<Memory, GpuError>;
}
