//! The HIP back end: reproducible sum and cumsum on AMD GPUs, from the same kernel source
//! as the CUDA back end.
//!
//! **Not run on AMD hardware.** The kernels are compiled (`gpu/scripts/build-hip.sh`,
//! Debian's hipcc, ROCm 5.2) and their text is run on the CPU at wave widths 32 and 64
//! (`gpu/tests/emu`); this module's calls into the HIP runtime have only been exercised
//! up to "no device" (see `docs/EQUIVALENCE.md` (HIP)).
//!
//! The committed code-object bundle `gpu/kernels/reprosum.hipfb` (gfx906, gfx908, gfx90a,
//! gfx1030) is embedded; `hipModuleLoadData` picks the code object of the device's target.
//! The HIP runtime (`libamdhip64`) is opened at run time with libloading, trying
//! `libamdhip64.so.7`, `.so.6`, `.so.5`, then `libamdhip64.so` (and the same names under
//! `/opt/rocm/lib`), or only `$REPROSUM_HIP_LIBRARY` when that is set: the crate builds with
//! no ROCm installed, one binary serves ROCm 5, 6 and 7, and a machine without the runtime
//! or without a device gets an error value ([`GpuError::NoHipRuntime`],
//! [`GpuError::NoHipDevice`]), never a panic.
//!
//! * [`device`] opens (once per ordinal, then cached) a [`Device`]: the module is loaded,
//!   the arithmetic probe and a known-answer self-check run, and a workspace is kept for
//!   reuse by later calls.
//! * [`Device::sum`], [`Device::accumulate`], [`Device::cumsum`] work on [`DeviceBuffer`]s;
//!   the `_host` variants on host slices; the `_raw` variants on raw device pointers and a
//!   caller's stream ([`Stream`], a `hipStream_t`).
//! * [`Device::add_to`] adds a buffer's values to an existing accumulator (the bytes
//!   `add_slice` gives); [`Device::cumsum_from`] is a cumulative sum continued from an
//!   accumulator (element `i` is the value of the start with `x[0..=i]` added).
//! * [`sum_ptr`], [`accumulate_ptr`], [`add_ptr`], [`cumsum_ptr`] and [`cumsum_from_ptr`] take
//!   any pointer, find out with `hipPointerGetAttributes` whether it is device memory (used
//!   in place) or host memory (copied), and are what the C entry points call.
//!
//! Every runtime call's status is checked. Every call returns when its result is written
//! (the stream is synchronised). Errors found before a launch leave every output untouched;
//! a device fault in the middle of a cumsum may leave a device-resident output partly
//! written.
//!
//! ABI facts this module relies on (checked against the ROCm 5.2 headers here and the
//! ROCm 6.x headers; the same in 7.x): `hipError_t`, `hipMemcpyKind` (1 host to device, 2
//! device to host, 3 device to device), `hipFunction_attribute` 0 (max threads per block),
//! `hipDeviceAttribute_t` 63 (multiprocessor count), 74 (max
//! shared memory per block), 87 (warp size); `hipPointerAttribute_t` is 32 bytes with the
//! memory type (a 32-bit enum) first and the device ordinal second in every version, but
//! the memory type's values changed in ROCm 6 (5.x: 0 host, 1 device, 2 array, 3 unified;
//! 6.x: 0 unregistered, 1 host, 2 device, 3 managed, 10 array, 11 unified), so they are read
//! by the runtime's major version (`hipRuntimeGetVersion`); ROCm 5 answers a pageable host
//! pointer with `hipErrorInvalidValue`, ROCm 6 with type 0, both meaning host memory.
//! `hipDeviceProp_t` changed in ROCm 6 (`hipGetDevicePropertiesR0600`): it is read only for
//! the target name (`gcnArchName`, at byte 396 of the 5.x layout, 1160 of the R0600 one,
//! into an 8 KiB buffer), which is informational.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, OnceLock};

use reprosum_core::{encoding, DynAccumulator, Float};

use crate::host::{self, MAX_STATE_BYTES};
use crate::layout::{CONTROL_BYTES, GROUP};
use crate::{check_fold, GpuError};

const BUNDLE_LEN: usize = include_bytes!("../kernels/reprosum.hipfb").len();

#[repr(C, align(64))]
struct Aligned([u8; BUNDLE_LEN]);

static BUNDLE: Aligned = Aligned(*include_bytes!("../kernels/reprosum.hipfb"));

/// The embedded code-object bundle (a clang offload bundle: code objects for gfx906,
/// gfx908, gfx90a and gfx1030).
pub fn bundle() -> &'static [u8] {
    &BUNDLE.0
}

/// The gfx targets the embedded bundle holds code objects for.
pub const TARGETS: [&str; 4] = ["gfx906", "gfx908", "gfx90a", "gfx1030"];

/// Raking threads of the kernels' block scan (`RS_RAKE`).
const RAKE: usize = 32;

/// The default threads per block (halved for the default launch while a kernel's shared
/// memory would not fit the device's 64 KiB of LDS).
pub const DEFAULT_BLOCK: u32 = 256;

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
}

impl GpuFloat for f64 {
    const SUFFIX: &'static str = "f64";
    const SLOT: usize = 0;
    const TILE_ITEMS: u32 = 16;
}

impl GpuFloat for f32 {
    const SUFFIX: &'static str = "f32";
    const SLOT: usize = 1;
    const TILE_ITEMS: u32 = 32;
}

// ---------------------------------------------------------------------------------------
// The runtime, opened at run time.

type HipErr = c_int;
type Ptr = *mut c_void;

const HIP_SUCCESS: HipErr = 0;
const HIP_ERROR_INVALID_VALUE: HipErr = 1;
const HIP_ERROR_NO_DEVICE: HipErr = 100;
const MEMCPY_H2D: c_int = 1;
const MEMCPY_D2H: c_int = 2;
const ATTR_MULTIPROCESSOR_COUNT: c_int = 63;
const ATTR_MAX_SHARED_MEMORY_PER_BLOCK: c_int = 74;
const ATTR_WARP_SIZE: c_int = 87;
const FUNC_ATTR_MAX_THREADS_PER_BLOCK: c_int = 0;

/// `hipPointerAttribute_t` (the same layout in ROCm 5, 6 and 7; the first field's values
/// differ, see the module docs).
#[repr(C)]
struct PointerAttributes {
    memory_type: c_uint,
    device: c_int,
    device_pointer: Ptr,
    host_pointer: Ptr,
    is_managed: c_int,
    allocation_flags: c_uint,
}

/// The runtime functions this module uses, and the library that holds them (kept open for
/// the life of the process).
struct Api {
    _lib: libloading::Library,
    path: String,
    version: c_int,
    get_device_count: unsafe extern "C" fn(*mut c_int) -> HipErr,
    set_device: unsafe extern "C" fn(c_int) -> HipErr,
    get_device: unsafe extern "C" fn(*mut c_int) -> HipErr,
    device_get_attribute: unsafe extern "C" fn(*mut c_int, c_int, c_int) -> HipErr,
    device_get_name: unsafe extern "C" fn(*mut c_char, c_int, c_int) -> HipErr,
    props_r0600: Option<unsafe extern "C" fn(*mut c_void, c_int) -> HipErr>,
    props_r0000: Option<unsafe extern "C" fn(*mut c_void, c_int) -> HipErr>,
    module_load_data: unsafe extern "C" fn(*mut Ptr, *const c_void) -> HipErr,
    module_get_function: unsafe extern "C" fn(*mut Ptr, Ptr, *const c_char) -> HipErr,
    func_get_attribute: unsafe extern "C" fn(*mut c_int, c_int, Ptr) -> HipErr,
    #[allow(clippy::type_complexity)]
    module_launch_kernel: unsafe extern "C" fn(
        Ptr,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        Ptr,
        *mut *mut c_void,
        *mut *mut c_void,
    ) -> HipErr,
    malloc: unsafe extern "C" fn(*mut Ptr, usize) -> HipErr,
    free: unsafe extern "C" fn(Ptr) -> HipErr,
    memcpy: unsafe extern "C" fn(Ptr, *const c_void, usize, c_int) -> HipErr,
    memcpy_async: unsafe extern "C" fn(Ptr, *const c_void, usize, c_int, Ptr) -> HipErr,
    memset: unsafe extern "C" fn(Ptr, c_int, usize) -> HipErr,
    memset_async: unsafe extern "C" fn(Ptr, c_int, usize, Ptr) -> HipErr,
    stream_synchronize: unsafe extern "C" fn(Ptr) -> HipErr,
    pointer_get_attributes: unsafe extern "C" fn(*mut PointerAttributes, *const c_void) -> HipErr,
    get_last_error: unsafe extern "C" fn() -> HipErr,
    get_error_name: unsafe extern "C" fn(HipErr) -> *const c_char,
}

// SAFETY: the function pointers are plain C entry points of a library that stays loaded;
// the HIP runtime is thread-safe.
unsafe impl Send for Api {}
// SAFETY: as above.
unsafe impl Sync for Api {}

/// The names tried, in order, when `REPROSUM_HIP_LIBRARY` is not set.
pub const LIBRARY_NAMES: [&str; 8] = [
    "libamdhip64.so.7",
    "libamdhip64.so.6",
    "libamdhip64.so.5",
    "libamdhip64.so",
    "/opt/rocm/lib/libamdhip64.so.7",
    "/opt/rocm/lib/libamdhip64.so.6",
    "/opt/rocm/lib/libamdhip64.so.5",
    "/opt/rocm/lib/libamdhip64.so",
];

fn open_library(names: &[&str]) -> Result<(libloading::Library, String), GpuError> {
    for name in names {
        // SAFETY: loading the HIP runtime runs its initialisers, which only set up the
        // runtime's own state (no device work happens before the first API call).
        if let Ok(lib) = unsafe { libloading::Library::new(*name) } {
            return Ok((lib, (*name).to_string()));
        }
    }
    Err(GpuError::NoHipRuntime)
}

/// Tries to open the first of `names` that loads and resolve every function this module
/// uses, without installing it; returns the name that loaded. For tests of the "no
/// runtime" path.
///
/// # Errors
/// [`GpuError::NoHipRuntime`] when none loads or a function is missing.
#[doc(hidden)]
pub fn try_load(names: &[&str]) -> Result<String, GpuError> {
    let (lib, path) = open_library(names)?;
    Api::resolve(lib, path).map(|a| a.path)
}

macro_rules! sym {
    ($lib:expr, $name:literal) => {{
        // SAFETY: the symbol is a C function of the HIP runtime with the signature of the
        // field it is stored in (checked against the headers of ROCm 5, 6 and 7).
        match unsafe { $lib.get(concat!($name, "\0").as_bytes()) } {
            Ok(s) => *s,
            Err(_) => return Err(GpuError::NoHipRuntime),
        }
    }};
}

macro_rules! opt_sym {
    ($lib:expr, $name:literal) => {{
        // SAFETY: as in sym!.
        unsafe { $lib.get(concat!($name, "\0").as_bytes()) }
            .ok()
            .map(|s| *s)
    }};
}

impl Api {
    fn resolve(lib: libloading::Library, path: String) -> Result<Api, GpuError> {
        let runtime_get_version: unsafe extern "C" fn(*mut c_int) -> HipErr =
            sym!(lib, "hipRuntimeGetVersion");
        let mut version: c_int = 0;
        // SAFETY: writes one int.
        let r = unsafe { runtime_get_version(&mut version) };
        if r != HIP_SUCCESS {
            version = 0;
        }
        Ok(Api {
            version,
            get_device_count: sym!(lib, "hipGetDeviceCount"),
            set_device: sym!(lib, "hipSetDevice"),
            get_device: sym!(lib, "hipGetDevice"),
            device_get_attribute: sym!(lib, "hipDeviceGetAttribute"),
            device_get_name: sym!(lib, "hipDeviceGetName"),
            props_r0600: opt_sym!(lib, "hipGetDevicePropertiesR0600"),
            props_r0000: opt_sym!(lib, "hipGetDeviceProperties"),
            module_load_data: sym!(lib, "hipModuleLoadData"),
            module_get_function: sym!(lib, "hipModuleGetFunction"),
            func_get_attribute: sym!(lib, "hipFuncGetAttribute"),
            module_launch_kernel: sym!(lib, "hipModuleLaunchKernel"),
            malloc: sym!(lib, "hipMalloc"),
            free: sym!(lib, "hipFree"),
            memcpy: sym!(lib, "hipMemcpy"),
            memcpy_async: sym!(lib, "hipMemcpyAsync"),
            memset: sym!(lib, "hipMemset"),
            memset_async: sym!(lib, "hipMemsetAsync"),
            stream_synchronize: sym!(lib, "hipStreamSynchronize"),
            pointer_get_attributes: sym!(lib, "hipPointerGetAttributes"),
            get_last_error: sym!(lib, "hipGetLastError"),
            get_error_name: sym!(lib, "hipGetErrorName"),
            _lib: lib,
            path,
        })
    }

    /// The runtime's major version (5, 6, 7, ...; 0 if it did not say).
    fn major(&self) -> i32 {
        self.version / 10_000_000
    }

    fn check(&self, call: &'static str, code: HipErr) -> Result<(), GpuError> {
        if code == HIP_SUCCESS {
            return Ok(());
        }
        // SAFETY: hipGetErrorName returns a static NUL-terminated string (or null).
        let p = unsafe { (self.get_error_name)(code) };
        let name = if p.is_null() {
            String::new()
        } else {
            // SAFETY: non-null, NUL-terminated, static.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        };
        Err(GpuError::Driver { call, code, name })
    }
}

fn api() -> Result<&'static Api, GpuError> {
    static API: OnceLock<Result<Api, GpuError>> = OnceLock::new();
    API.get_or_init(|| {
        let (lib, path) = match std::env::var("REPROSUM_HIP_LIBRARY") {
            Ok(p) if !p.is_empty() => open_library(&[p.as_str()])?,
            _ => open_library(&LIBRARY_NAMES)?,
        };
        Api::resolve(lib, path)
    })
    .as_ref()
    .map_err(|e| e.clone())
}

/// Whether the HIP runtime library can be opened (and has every function this module uses).
pub fn runtime_present() -> bool {
    api().is_ok()
}

/// The runtime library that was opened and its `hipRuntimeGetVersion` (for example
/// `("libamdhip64.so.5", 50221153)`).
///
/// # Errors
/// [`GpuError::NoHipRuntime`].
pub fn runtime_version() -> Result<(String, i32), GpuError> {
    let a = api()?;
    Ok((a.path.clone(), a.version))
}

/// How many HIP devices the runtime reports (0 when it reports `hipErrorNoDevice`).
///
/// # Errors
/// [`GpuError::NoHipRuntime`], or a runtime error.
pub fn device_count() -> Result<usize, GpuError> {
    let a = api()?;
    let mut n: c_int = 0;
    // SAFETY: writes one int.
    let r = unsafe { (a.get_device_count)(&mut n) };
    if r == HIP_ERROR_NO_DEVICE {
        return Ok(0);
    }
    a.check("hipGetDeviceCount", r)?;
    Ok(n.max(0) as usize)
}

/// A HIP stream handle (`hipStream_t`). The default is the null stream.
#[derive(Clone, Copy, Debug)]
pub struct Stream(Ptr);

// SAFETY: a stream handle is an opaque runtime handle usable from any thread.
unsafe impl Send for Stream {}
// SAFETY: as above; the handle is never dereferenced on the host.
unsafe impl Sync for Stream {}

impl Stream {
    /// The null (default) stream.
    pub const DEFAULT: Stream = Stream(std::ptr::null_mut());

    /// Wraps a `hipStream_t` (null means the default stream).
    ///
    /// # Safety
    /// `raw` must be null or a live stream of the device the call runs on, and stay live
    /// during the call.
    pub unsafe fn from_raw(raw: *mut c_void) -> Self {
        Stream(raw)
    }

    /// The raw handle.
    pub fn as_raw(self) -> *mut c_void {
        self.0
    }
}

/// Launch settings, for tests and tuning (the defaults are chosen per device).
#[derive(Clone, Copy, Debug, Default)]
pub struct Launch {
    /// Threads per block (default [`DEFAULT_BLOCK`]); any value from 1 to the kernel's limit
    /// whose shared memory fits the device.
    pub block: Option<u32>,
    /// Blocks of the sum kernel (default: enough to fill the device); any value >= 1.
    pub grid: Option<u32>,
}

#[derive(Clone, Copy)]
struct Func {
    f: Ptr,
    max_threads: u32,
}

#[derive(Clone, Copy)]
struct Kernels {
    sum: Func,
    tile_reduce: Func,
    tile_prefixes: Func,
    tile_scan: Func,
}

/// Device memory owned by a workspace (grown, never shrunk).
struct DevMem {
    ptr: u64,
    bytes: usize,
}

impl DevMem {
    const fn empty() -> Self {
        DevMem { ptr: 0, bytes: 0 }
    }

    fn ensure(&mut self, a: &Api, bytes: usize) -> Result<(), GpuError> {
        if bytes <= self.bytes && self.ptr != 0 {
            return Ok(());
        }
        let bytes = bytes.max(256);
        if self.ptr != 0 {
            // SAFETY: ptr came from hipMalloc and no work using it is pending (every call
            // synchronises before releasing the workspace).
            a.check("hipFree", unsafe { (a.free)(self.ptr as Ptr) })?;
            self.ptr = 0;
            self.bytes = 0;
        }
        let mut p: Ptr = std::ptr::null_mut();
        // SAFETY: a plain device allocation on the current device.
        a.check("hipMalloc", unsafe { (a.malloc)(&mut p, bytes) })?;
        if p.is_null() {
            return Err(GpuError::Driver {
                call: "hipMalloc",
                code: 0,
                name: "null allocation".into(),
            });
        }
        self.ptr = p as u64;
        self.bytes = bytes;
        Ok(())
    }
}

struct Workspace {
    states: DevMem,
    counter: DevMem,
    result: DevMem,
    tiles: DevMem,
    /// A cumsum's start state (the kernels' layout), uploaded on the call's stream from
    /// `start_host` (pageable, here for the life of the device: it outlives any copy).
    start: DevMem,
    start_host: [u8; MAX_STATE_BYTES],
    input: DevMem,
    output: DevMem,
    /// The counter may be non-zero (a launch failed): zero it before the next sum.
    dirty: bool,
    /// The cumsum's control words (`counter`, bytes 16..32) may not be as the kernels leave
    /// them (never used, or a call failed): zero them before the next cumsum.
    ctl_dirty: bool,
}

/// A HIP device with the reprosum module loaded and checked.
pub struct Device {
    ordinal: usize,
    name: String,
    arch: String,
    warp_size: u32,
    cu_count: u32,
    max_smem: u32,
    kernels: [[Kernels; 7]; 2],
    probe: Ptr,
    ws: Mutex<Workspace>,
}

// SAFETY: module and function handles are runtime handles usable from any thread (each
// call selects the device first); the workspace is behind a Mutex.
unsafe impl Send for Device {}
// SAFETY: as above.
unsafe impl Sync for Device {}

/// The device with this ordinal, opened, probed and cached on first use.
///
/// # Errors
/// [`GpuError::NoHipRuntime`], [`GpuError::NoHipDevice`], a runtime error (for example
/// `hipErrorNoBinaryForGpu` from `hipModuleLoadData` on a target the bundle does not hold),
/// or [`GpuError::ProbeFailed`] if the device's arithmetic is not the IEEE arithmetic the
/// format needs. A failure is not cached: a later call tries again.
pub fn device(ordinal: usize) -> Result<Arc<Device>, GpuError> {
    static DEVICES: OnceLock<Mutex<Vec<Option<Arc<Device>>>>> = OnceLock::new();
    api()?;
    let count = device_count()?;
    if ordinal >= count {
        return Err(GpuError::NoHipDevice { ordinal, count });
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

fn func(a: &Api, module: Ptr, name: &str) -> Result<Func, GpuError> {
    let cname = CString::new(name).map_err(|_| GpuError::InvalidLaunch(name.into()))?;
    let mut f: Ptr = std::ptr::null_mut();
    // SAFETY: module is a live module; the name is NUL-terminated.
    a.check("hipModuleGetFunction", unsafe {
        (a.module_get_function)(&mut f, module, cname.as_ptr())
    })?;
    let mut max_threads: c_int = 0;
    // SAFETY: f is a live function handle; writes one int.
    a.check("hipFuncGetAttribute", unsafe {
        (a.func_get_attribute)(&mut max_threads, FUNC_ATTR_MAX_THREADS_PER_BLOCK, f)
    })?;
    Ok(Func {
        f,
        max_threads: max_threads.max(1) as u32,
    })
}

/// The target name (`gcnArchName`, e.g. `gfx90a:sramecc+:xnack-`) from the properties
/// struct of the runtime's layout, or "unknown".
fn arch_name(a: &Api, ordinal: c_int) -> String {
    #[repr(C, align(16))]
    struct Buf([u8; 8192]);
    let mut buf = Box::new(Buf([0u8; 8192]));
    let (f, off) = match (a.props_r0600, a.props_r0000) {
        (Some(f), _) => (f, 1160usize),
        (None, Some(f)) if a.major() < 6 => (f, 396usize),
        _ => return "unknown".into(),
    };
    // SAFETY: the buffer is larger than hipDeviceProp_t of every ROCm version (792 bytes
    // in 5.x, 1472 in R0600) and suitably aligned.
    if unsafe { f(buf.0.as_mut_ptr() as *mut c_void, ordinal) } != HIP_SUCCESS {
        return "unknown".into();
    }
    let field = &buf.0[off..off + 256];
    let end = field.iter().position(|&b| b == 0).unwrap_or(0);
    match std::str::from_utf8(&field[..end]) {
        Ok(s) if s.starts_with("gfx") => s.to_string(),
        _ => "unknown".into(),
    }
}

impl Device {
    fn open(ordinal: usize) -> Result<Device, GpuError> {
        let a = api()?;
        let ord = ordinal as c_int;
        // SAFETY: a valid ordinal (checked against the device count).
        a.check("hipSetDevice", unsafe { (a.set_device)(ord) })?;
        let attr = |which: c_int| -> Result<c_int, GpuError> {
            let mut v: c_int = 0;
            // SAFETY: writes one int; which is a device attribute valid in ROCm 5, 6, 7.
            a.check("hipDeviceGetAttribute", unsafe {
                (a.device_get_attribute)(&mut v, which, ord)
            })?;
            Ok(v)
        };
        let warp_size = attr(ATTR_WARP_SIZE)?.max(1) as u32;
        let cu_count = attr(ATTR_MULTIPROCESSOR_COUNT)?.max(1) as u32;
        let max_smem = attr(ATTR_MAX_SHARED_MEMORY_PER_BLOCK)?.max(0) as u32;
        let mut nbuf = [0 as c_char; 256];
        // SAFETY: writes at most 256 bytes, NUL-terminated.
        a.check("hipDeviceGetName", unsafe {
            (a.device_get_name)(nbuf.as_mut_ptr(), 256, ord)
        })?;
        nbuf[255] = 0;
        // SAFETY: NUL-terminated within the buffer.
        let name = unsafe { CStr::from_ptr(nbuf.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        let arch = arch_name(a, ord);
        let mut module: Ptr = std::ptr::null_mut();
        // SAFETY: the image is a complete offload bundle, aligned, in static memory.
        a.check("hipModuleLoadData", unsafe {
            (a.module_load_data)(&mut module, BUNDLE.0.as_ptr() as *const c_void)
        })
        .map_err(|e| match e {
            GpuError::Driver { call, code, name } => GpuError::Driver {
                call,
                code,
                name: format!(
                    "{name} (device target {arch}; the bundle holds {})",
                    TARGETS.join(", ")
                ),
            },
            e => e,
        })?;
        let mut kernels = Vec::with_capacity(2);
        for t in ["f64", "f32"] {
            let mut row = Vec::with_capacity(7);
            for k in 2..=8 {
                row.push(Kernels {
                    sum: func(a, module, &format!("rs_sum_{t}_k{k}"))?,
                    tile_reduce: func(a, module, &format!("rs_tile_reduce_{t}_k{k}"))?,
                    tile_prefixes: func(a, module, &format!("rs_tile_prefixes_{t}_k{k}"))?,
                    tile_scan: func(a, module, &format!("rs_tile_scan_{t}_k{k}"))?,
                });
            }
            kernels.push(row);
        }
        let to7 = |v: &[Kernels]| -> [Kernels; 7] { [v[0], v[1], v[2], v[3], v[4], v[5], v[6]] };
        let kernels = [to7(&kernels[0]), to7(&kernels[1])];
        let probe = func(a, module, "rs_probe")?.f;
        Ok(Device {
            ordinal,
            name,
            arch,
            warp_size,
            cu_count,
            max_smem,
            kernels,
            probe,
            ws: Mutex::new(Workspace {
                states: DevMem::empty(),
                counter: DevMem::empty(),
                result: DevMem::empty(),
                tiles: DevMem::empty(),
                start: DevMem::empty(),
                start_host: [0; MAX_STATE_BYTES],
                input: DevMem::empty(),
                output: DevMem::empty(),
                dirty: true,
                ctl_dirty: true,
            }),
        })
    }

    /// The device ordinal.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The device name the runtime reports.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The target (`gcnArchName`, for example `gfx90a:sramecc+:xnack-`), or "unknown".
    pub fn arch(&self) -> &str {
        &self.arch
    }

    /// The wavefront width (64 on CDNA, 32 on RDNA). The kernels do not depend on it.
    pub fn warp_size(&self) -> u32 {
        self.warp_size
    }

    /// Compute units.
    pub fn cu_count(&self) -> u32 {
        self.cu_count
    }

    /// The largest block size the sum kernel of this type and fold takes on this device
    /// (the kernel's limit and the device's shared memory).
    ///
    /// # Errors
    /// [`GpuError::UnsupportedFold`].
    pub fn max_sum_block<T: GpuFloat>(&self, fold: usize) -> Result<u32, GpuError> {
        let f = self.kernels::<T>(fold)?.sum;
        let per = (2 * fold + 1) * T::BYTES;
        let fit = (self.max_smem as usize).saturating_sub(16) / per;
        Ok(f.max_threads.min(fit as u32))
    }

    fn bind(&self) -> Result<&'static Api, GpuError> {
        let a = api()?;
        // SAFETY: a valid ordinal.
        a.check("hipSetDevice", unsafe { (a.set_device)(self.ordinal as c_int) })?;
        Ok(a)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Workspace> {
        self.ws.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn kernels<T: GpuFloat>(&self, fold: usize) -> Result<Kernels, GpuError> {
        check_fold(fold)?;
        Ok(self.kernels[T::SLOT][fold - 2])
    }

    /// The block size and dynamic shared memory of a launch of `f`. An explicit block size
    /// that does not fit is an error; the default (256) is halved until it fits.
    fn block_for(
        &self,
        f: &Func,
        launch: &Launch,
        smem_per_thread: usize,
        smem_fixed: usize,
    ) -> Result<(u32, u32), GpuError> {
        let smem_of = |b: u32| smem_fixed + smem_per_thread * b as usize;
        let b = match launch.block {
            Some(b) => b,
            None => {
                let mut b = DEFAULT_BLOCK.min(f.max_threads);
                while b > 32 && smem_of(b) > self.max_smem as usize {
                    b /= 2;
                }
                b
            }
        };
        if b == 0 || b > f.max_threads {
            return Err(GpuError::InvalidLaunch(format!(
                "block size {b} (this kernel takes 1..={})",
                f.max_threads
            )));
        }
        let smem = smem_of(b);
        if smem > self.max_smem as usize {
            return Err(GpuError::InvalidLaunch(format!(
                "block size {b} needs {smem} bytes of shared memory (device limit {})",
                self.max_smem
            )));
        }
        Ok((b, smem as u32))
    }

    /// Launches `f` with the given argument pointers.
    ///
    /// # Safety
    /// `args` must match the kernel's parameters, and every pointer in them must be valid
    /// for the access the kernel makes.
    #[allow(clippy::too_many_arguments)]
    unsafe fn launch(
        &self,
        a: &Api,
        f: &Func,
        grid: u32,
        block: u32,
        smem: u32,
        stream: Stream,
        args: &mut [*mut c_void],
    ) -> Result<(), GpuError> {
        // hipModuleLaunchKernel returns launch-configuration errors itself (unlike a
        // triple-chevron launch); execution errors come back from the synchronisation.
        a.check(
            "hipModuleLaunchKernel",
            (a.module_launch_kernel)(
                f.f,
                grid,
                1,
                1,
                block,
                1,
                1,
                smem,
                stream.0,
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            ),
        )
    }

    /// The sum of `n` values at device address `x`, as the accumulator state plus the
    /// device-converted value.
    ///
    /// # Safety
    /// `x` must point to `n` readable values of type T in this device's memory (or be
    /// anything when `n == 0`), aligned to T.
    unsafe fn sum_state<T: GpuFloat>(
        &self,
        x: u64,
        n: usize,
        fold: usize,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(DynAccumulator<T>, T), GpuError> {
        let a = self.bind()?;
        let mut ws = self.lock();
        self.sum_locked(a, &mut ws, x, n, fold, stream, launch)
    }

    /// [`Device::sum_state`] with the workspace already locked.
    ///
    /// # Safety
    /// As [`Device::sum_state`].
    #[allow(clippy::too_many_arguments)]
    unsafe fn sum_locked<T: GpuFloat>(
        &self,
        a: &Api,
        ws: &mut Workspace,
        x: u64,
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
                let mut b = want.min(k.sum.max_threads);
                while b > 32 && 16 + slots * T::BYTES * b as usize > self.max_smem as usize {
                    b /= 2;
                }
                Some(b)
            }),
            grid: launch.grid,
        };
        let (block, smem) = self.block_for(&k.sum, &launch, slots * T::BYTES, 16)?;
        let per_block = block as u64 * 4 * vec;
        let grid = match launch.grid {
            Some(0) => return Err(GpuError::InvalidLaunch("grid size 0".into())),
            Some(g) => g,
            None => {
                let full = self.cu_count as u64 * 8;
                full.min((n as u64).div_ceil(per_block)).max(1) as u32
            }
        };
        ws.states.ensure(a, grid as usize * slots * T::BYTES)?;
        let first = ws.counter.ptr == 0;
        ws.counter.ensure(a, CONTROL_BYTES)?;
        ws.result.ensure(a, (slots + 1) * T::BYTES)?;
        if first || ws.dirty {
            a.check(
                "hipMemsetAsync",
                (a.memset_async)(ws.counter.ptr as Ptr, 0, 16, stream.0),
            )?;
        }
        ws.dirty = true;
        let mut xp = x;
        let mut np = n as u64;
        let mut sp = ws.states.ptr;
        let mut cp = ws.counter.ptr;
        let mut rp = ws.result.ptr;
        let mut args = [
            &mut xp as *mut _ as *mut c_void,
            &mut np as *mut _ as *mut c_void,
            &mut sp as *mut _ as *mut c_void,
            &mut cp as *mut _ as *mut c_void,
            &mut rp as *mut _ as *mut c_void,
        ];
        self.launch(a, &k.sum, grid, block, smem, stream, &mut args)?;
        let bytes = (slots + 1) * T::BYTES;
        let mut raw = vec![0u8; bytes];
        a.check(
            "hipMemcpyAsync",
            (a.memcpy_async)(
                raw.as_mut_ptr() as Ptr,
                ws.result.ptr as *const c_void,
                bytes,
                MEMCPY_D2H,
                stream.0,
            ),
        )?;
        a.check("hipStreamSynchronize", (a.stream_synchronize)(stream.0))?;
        ws.dirty = false;
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
        x: u64,
        out: u64,
        n: usize,
        fold: usize,
        start: Option<&DynAccumulator<T>>,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        let a = self.bind()?;
        let mut ws = self.lock();
        self.cumsum_locked::<T>(a, &mut ws, x, out, n, fold, start, stream, launch)
    }

    /// [`Device::cumsum_dev`] with the workspace already locked.
    ///
    /// # Safety
    /// As [`Device::cumsum_dev`].
    #[allow(clippy::too_many_arguments)]
    unsafe fn cumsum_locked<T: GpuFloat>(
        &self,
        a: &Api,
        ws: &mut Workspace,
        x: u64,
        out: u64,
        n: usize,
        fold: usize,
        start: Option<&DynAccumulator<T>>,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        let k = self.kernels::<T>(fold)?;
        debug_assert!(
            start.is_none_or(|s| s.fold() == fold),
            "a start's cumsum runs at its fold"
        );
        host::check_room::<T>(start.map_or(0, |s| s.count()), n)?;
        if n == 0 {
            return Ok(());
        }
        if x == 0 || out == 0 || x & (T::BYTES as u64 - 1) != 0 || out & (T::BYTES as u64 - 1) != 0 {
            return Err(GpuError::InvalidPointer("null or misaligned input or output"));
        }
        let slots = 2 * fold + 1;
        let per_thread = slots * T::BYTES + (T::TILE_ITEMS as usize + 1) * T::BYTES;
        let rake = RAKE * slots * T::BYTES;
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
        // The tiles' prefix tree (`rs_tile_prefixes`): one block per group of GROUP tiles.
        let plaunch = Launch {
            block: None,
            grid: None,
        };
        let (pblock, smem_prefixes) =
            self.block_for(&k.tile_prefixes, &plaunch, slots * T::BYTES, 16 + rake)?;
        let ngroups = ntiles.div_ceil(GROUP);
        ws.counter.ensure(a, CONTROL_BYTES)?;
        let mut ctl = ws.counter.ptr + 16;
        let mut xp = x;
        let mut op = out;
        let mut np = n as u64;
        let mut nt = ntiles;
        let mut prefixes: u64 = 0;
        // No lists: the general kernels take every tile. (The CUDA back end first runs the
        // fixed-window kernels of the same source and lists what they leave; here only the
        // general kernels run until that path has run on AMD hardware.)
        let mut no_list: u64 = 0;
        // The control words are as the kernels leave them after a completed call; after a
        // failed one (or before the first), zero them.
        if ws.ctl_dirty {
            a.check(
                "hipMemsetAsync",
                (a.memset_async)(ctl as Ptr, 0, CONTROL_BYTES - 16, stream.0),
            )?;
        }
        ws.ctl_dirty = true;
        // The start state in the kernels' layout, uploaded on the caller's stream before the
        // kernels; null: no start (each scan kernel checks once per tile). An empty start
        // (no value: no window, no flag) changes nothing and is none.
        let mut sp: u64 = 0;
        if let Some(st) = start.filter(|s| s.count() > 0) {
            let len = host::kernel_state(st, &mut ws.start_host);
            ws.start.ensure(a, len)?;
            a.check(
                "hipMemcpyAsync",
                (a.memcpy_async)(
                    ws.start.ptr as Ptr,
                    ws.start_host.as_ptr() as *const c_void,
                    len,
                    MEMCPY_H2D,
                    stream.0,
                ),
            )?;
            sp = ws.start.ptr;
        }
        if ntiles > 1 {
            ws.tiles
                .ensure(a, (ntiles + ngroups) as usize * slots * T::BYTES)?;
            let mut tp = ws.tiles.ptr;
            let mut a1 = [
                &mut xp as *mut _ as *mut c_void,
                &mut np as *mut _ as *mut c_void,
                &mut tp as *mut _ as *mut c_void,
                &mut ctl as *mut _ as *mut c_void,
                &mut no_list as *mut _ as *mut c_void,
            ];
            self.launch(
                a,
                &k.tile_reduce,
                ntiles as u32,
                block,
                smem_reduce,
                stream,
                &mut a1,
            )?;
            let mut a2 = [
                &mut tp as *mut _ as *mut c_void,
                &mut nt as *mut _ as *mut c_void,
                &mut ctl as *mut _ as *mut c_void,
            ];
            self.launch(
                a,
                &k.tile_prefixes,
                ngroups as u32,
                pblock,
                smem_prefixes,
                stream,
                &mut a2,
            )?;
            prefixes = ws.tiles.ptr;
        }
        let mut ctl_scan = ctl + 4;
        let mut a3 = [
            &mut xp as *mut _ as *mut c_void,
            &mut op as *mut _ as *mut c_void,
            &mut np as *mut _ as *mut c_void,
            &mut prefixes as *mut _ as *mut c_void,
            &mut sp as *mut _ as *mut c_void,
            &mut nt as *mut _ as *mut c_void,
            &mut ctl_scan as *mut _ as *mut c_void,
            &mut no_list as *mut _ as *mut c_void,
        ];
        self.launch(a, &k.tile_scan, ntiles as u32, block, smem_scan, stream, &mut a3)?;
        a.check("hipStreamSynchronize", (a.stream_synchronize)(stream.0))?;
        ws.ctl_dirty = false;
        Ok(())
    }

    /// The reproducible sum of a device buffer at fold 3.
    ///
    /// # Errors
    /// A runtime error, [`GpuError::CapacityExceeded`].
    pub fn sum<T: GpuFloat>(&self, x: &DeviceBuffer<T>) -> Result<T, GpuError> {
        self.sum_fold(x, reprosum_core::DEFAULT_FOLD)
    }

    /// The reproducible sum of a device buffer at a fold in 2..=8.
    ///
    /// # Errors
    /// [`GpuError::UnsupportedFold`], a runtime error, [`GpuError::CapacityExceeded`].
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
        let a = self.bind()?;
        let mut ws = self.lock();
        ws.input.ensure(a, std::mem::size_of_val(xs))?;
        let ptr = ws.input.ptr;
        // SAFETY: the staging buffer holds at least xs's bytes; the stream orders the copy
        // before the kernel, and the call synchronises the stream before returning (so xs
        // outlives the copy). The workspace stays locked throughout.
        unsafe {
            if !xs.is_empty() {
                a.check(
                    "hipMemcpyAsync",
                    (a.memcpy_async)(
                        ptr as Ptr,
                        xs.as_ptr() as *const c_void,
                        std::mem::size_of_val(xs),
                        MEMCPY_H2D,
                        stream.0,
                    ),
                )?;
            }
            self.sum_locked::<T>(a, &mut ws, ptr, xs.len(), fold, stream, launch)
        }
    }

    /// The cumulative sum of a device buffer into another of the same length.
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`], [`GpuError::UnsupportedFold`], a runtime error.
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
        let a = self.bind()?;
        let mut ws = self.lock();
        let bytes = std::mem::size_of_val(xs);
        ws.input.ensure(a, bytes)?;
        ws.output.ensure(a, bytes)?;
        let (ip, op) = (ws.input.ptr, ws.output.ptr);
        // SAFETY: staging buffers of xs.len values each, used under the workspace lock; the
        // stream orders copy, kernels and copy back, and is synchronised before reading tmp.
        unsafe {
            a.check(
                "hipMemcpyAsync",
                (a.memcpy_async)(
                    ip as Ptr,
                    xs.as_ptr() as *const c_void,
                    bytes,
                    MEMCPY_H2D,
                    stream.0,
                ),
            )?;
            self.cumsum_locked::<T>(a, &mut ws, ip, op, xs.len(), fold, start, stream, launch)?;
            a.check(
                "hipMemcpyAsync",
                (a.memcpy_async)(
                    tmp.as_mut_ptr() as Ptr,
                    op as *const c_void,
                    bytes,
                    MEMCPY_D2H,
                    stream.0,
                ),
            )?;
            a.check("hipStreamSynchronize", (a.stream_synchronize)(stream.0))?;
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
    /// another device), a runtime error.
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
    /// length together pass the capacity), a runtime error. Errors found before the launch
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
        let a = self.bind()?;
        let d_in64 = DeviceBuffer::<u64>::from_host(self, &in64)?;
        let d_in32 = DeviceBuffer::<u32>::from_host(self, &in32)?;
        let d_out64 = DeviceBuffer::<u64>::from_host(self, &[0xA5A5_A5A5_A5A5_A5A5u64; 12])?;
        let d_out32 = DeviceBuffer::<u32>::from_host(self, &[0xA5A5_A5A5u32; 16])?;
        let (mut p0, mut p1, mut p2, mut p3) = (d_in64.ptr, d_out64.ptr, d_in32.ptr, d_out32.ptr);
        let mut args = [
            &mut p0 as *mut _ as *mut c_void,
            &mut p1 as *mut _ as *mut c_void,
            &mut p2 as *mut _ as *mut c_void,
            &mut p3 as *mut _ as *mut c_void,
        ];
        let f = Func {
            f: self.probe,
            max_threads: 1,
        };
        // SAFETY: the buffers have the sizes rs_probe reads and writes.
        unsafe {
            self.launch(a, &f, 1, 1, 0, Stream::DEFAULT, &mut args)?;
            a.check(
                "hipStreamSynchronize",
                (a.stream_synchronize)(std::ptr::null_mut()),
            )?;
        }
        let got64 = d_out64.to_host()?;
        let got32 = d_out32.to_host()?;
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
            let (acc, v) =
                self.accumulate_host_with::<f64>(&xs, fold, Stream::DEFAULT, &Launch::default())?;
            let want = reprosum_core::sum_fold(&xs, fold)?;
            let mut c = DynAccumulator::<f64>::new(fold)?;
            c.add_slice(&xs)?;
            if v.to_bits() != want.to_bits() || acc.to_bytes().as_bytes() != c.to_bytes().as_bytes() {
                return Err(GpuError::ProbeFailed(format!("f64 self-check at fold {fold}")));
            }
            let (acc, v) =
                self.accumulate_host_with::<f32>(&fs, fold, Stream::DEFAULT, &Launch::default())?;
            let want = reprosum_core::sum_fold(&fs, fold)?;
            let mut c = DynAccumulator::<f32>::new(fold)?;
            c.add_slice(&fs)?;
            if v.to_bits() != want.to_bits() || acc.to_bytes().as_bytes() != c.to_bytes().as_bytes() {
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
/// arithmetic without flush-to-zero gives, computed on the host (the same cases as the
/// CUDA back end's probe).
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

/// A device allocation of `len` values of T, freed on drop.
pub struct DeviceBuffer<T> {
    ptr: u64,
    len: usize,
    ordinal: usize,
    _t: PhantomData<T>,
}

// SAFETY: the buffer owns its device memory; the address is usable from any thread.
unsafe impl<T: Send> Send for DeviceBuffer<T> {}
// SAFETY: shared references only read the address.
unsafe impl<T: Sync> Sync for DeviceBuffer<T> {}

impl<T: Copy> DeviceBuffer<T> {
    /// An uninitialised buffer of `len` values.
    ///
    /// # Errors
    /// A runtime error (out of memory).
    pub fn alloc(dev: &Device, len: usize) -> Result<Self, GpuError> {
        let a = dev.bind()?;
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or(GpuError::CapacityExceeded)?
            .max(1);
        let mut p: Ptr = std::ptr::null_mut();
        // SAFETY: a plain device allocation on the device.
        a.check("hipMalloc", unsafe { (a.malloc)(&mut p, bytes) })?;
        if p.is_null() {
            return Err(GpuError::Driver {
                call: "hipMalloc",
                code: 0,
                name: "null allocation".into(),
            });
        }
        Ok(DeviceBuffer {
            ptr: p as u64,
            len,
            ordinal: dev.ordinal,
            _t: PhantomData,
        })
    }

    /// A buffer holding a copy of `xs`.
    ///
    /// # Errors
    /// A runtime error.
    pub fn from_host(dev: &Device, xs: &[T]) -> Result<Self, GpuError> {
        let b = Self::alloc(dev, xs.len())?;
        b.copy_from_host(xs)?;
        Ok(b)
    }

    /// Copies `xs` (of the buffer's length) into the buffer.
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`], a runtime error.
    pub fn copy_from_host(&self, xs: &[T]) -> Result<(), GpuError> {
        if xs.len() != self.len {
            return Err(GpuError::LengthMismatch);
        }
        if xs.is_empty() {
            return Ok(());
        }
        let a = self.bind()?;
        // SAFETY: the allocation holds len values of T; hipMemcpy is synchronous.
        a.check("hipMemcpy", unsafe {
            (a.memcpy)(
                self.ptr as Ptr,
                xs.as_ptr() as *const c_void,
                std::mem::size_of_val(xs),
                MEMCPY_H2D,
            )
        })
    }

    /// A host copy of the buffer.
    ///
    /// # Errors
    /// A runtime error, [`GpuError::HostOutOfMemory`].
    pub fn to_host(&self) -> Result<Vec<T>, GpuError>
    where
        T: Default,
    {
        let mut v = host::host_vec(self.len, T::default())?;
        self.copy_to_host(&mut v)?;
        Ok(v)
    }

    /// Copies the buffer into `out` (of the buffer's length).
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`], a runtime error.
    pub fn copy_to_host(&self, out: &mut [T]) -> Result<(), GpuError> {
        if out.len() != self.len {
            return Err(GpuError::LengthMismatch);
        }
        if out.is_empty() {
            return Ok(());
        }
        let a = self.bind()?;
        // SAFETY: the allocation holds len values of T; hipMemcpy is synchronous.
        a.check("hipMemcpy", unsafe {
            (a.memcpy)(
                out.as_mut_ptr() as Ptr,
                self.ptr as *const c_void,
                std::mem::size_of_val(out),
                MEMCPY_D2H,
            )
        })
    }

    /// Sets every byte of the buffer to `byte` (to poison outputs in tests).
    ///
    /// # Errors
    /// A runtime error.
    pub fn fill_bytes(&mut self, byte: u8) -> Result<(), GpuError> {
        let a = self.bind()?;
        let bytes = self.len * std::mem::size_of::<T>();
        // SAFETY: the allocation holds `bytes` bytes; hipMemset is synchronous.
        a.check("hipMemset", unsafe {
            (a.memset)(self.ptr as Ptr, byte as c_int, bytes)
        })
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// The ordinal of the device holding the buffer.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    fn bind(&self) -> Result<&'static Api, GpuError> {
        let a = api()?;
        // SAFETY: the ordinal of an opened device.
        a.check("hipSetDevice", unsafe { (a.set_device)(self.ordinal as c_int) })?;
        Ok(a)
    }
}

impl<T> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if let Ok(a) = api() {
            // SAFETY: ptr came from hipMalloc on this device; every call using it has
            // synchronised. A failure cannot be reported from drop.
            unsafe {
                let _ = (a.set_device)(self.ordinal as c_int);
                let _ = (a.free)(self.ptr as Ptr);
            }
        }
    }
}

/// Where a pointer points, by the runtime's pointer attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    /// Host memory (pageable, registered or page-locked): copied.
    Host,
    /// Device (or managed) memory of the device with this ordinal: used in place.
    Device(usize),
}

/// Asks the runtime what kind of memory `ptr` is (`hipPointerGetAttributes`, read by the
/// runtime's major version; see the module docs).
///
/// # Errors
/// [`GpuError::NoHipRuntime`], [`GpuError::NoHipDevice`] when there is no device,
/// [`GpuError::InvalidPointer`] for array memory, or a runtime error.
pub fn memory_of(ptr: *const c_void) -> Result<Memory, GpuError> {
    let a = api()?;
    // Without a device the query fails with a device error; say what is missing instead.
    let count = device_count()?;
    if count == 0 {
        return Err(GpuError::NoHipDevice { ordinal: 0, count });
    }
    let mut at = PointerAttributes {
        memory_type: 0,
        device: 0,
        device_pointer: std::ptr::null_mut(),
        host_pointer: std::ptr::null_mut(),
        is_managed: 0,
        allocation_flags: 0,
    };
    // The runtime only looks the address up; it never dereferences it.
    let addr = ptr as usize;
    // SAFETY: writes one hipPointerAttribute_t (32 bytes in every ROCm version).
    let r = unsafe { (a.pointer_get_attributes)(&mut at, addr as *const c_void) };
    if r == HIP_ERROR_INVALID_VALUE {
        // ROCm 5: memory the runtime does not know is host memory. Clear the error this
        // query left as the thread's last error, so that it does not surface later.
        // SAFETY: no arguments.
        let _ = unsafe { (a.get_last_error)() };
        return Ok(Memory::Host);
    }
    a.check("hipPointerGetAttributes", r)?;
    let dev = Memory::Device(at.device.max(0) as usize);
    if at.is_managed != 0 {
        return Ok(dev);
    }
    match (a.major() >= 6, at.memory_type) {
        (true, 0 | 1) | (false, 0) => Ok(Memory::Host),
        (true, 2 | 3 | 11) | (false, 1 | 3) => Ok(dev),
        _ => Err(GpuError::InvalidPointer("array memory")),
    }
}

/// The calling thread's current HIP device (`hipGetDevice`; 0 unless the thread selected
/// another), where host inputs are copied to.
///
/// # Errors
/// [`GpuError::NoHipRuntime`] or a runtime error.
pub fn current_ordinal() -> Result<usize, GpuError> {
    let a = api()?;
    let mut d: c_int = 0;
    // SAFETY: writes one int.
    a.check("hipGetDevice", unsafe { (a.get_device)(&mut d) })?;
    Ok(d.max(0) as usize)
}

/// The sum of `n` values at `x`, wherever they live: device memory is used in place (on
/// the device that holds it), host memory is copied to the current device
/// ([`current_ordinal`]). Returns the accumulator and its value; the stream (null: the
/// default stream) is synchronised before returning. This is what `adn_hip_sum_*` call.
///
/// # Safety
/// `x` must point to `n` readable, aligned values of T (host or device), and `stream` be
/// null or a live stream of the device that runs the call.
///
/// # Errors
/// [`GpuError::NoHipRuntime`], [`GpuError::NoHipDevice`], [`GpuError::UnsupportedFold`],
/// [`GpuError::InvalidPointer`], [`GpuError::CapacityExceeded`], a runtime error.
pub unsafe fn accumulate_ptr<T: GpuFloat>(
    x: *const T,
    n: usize,
    fold: usize,
    stream: *mut c_void,
) -> Result<(DynAccumulator<T>, T), GpuError> {
    check_fold(fold)?;
    if n == 0 {
        device(current_ordinal()?)?;
        let acc = DynAccumulator::<T>::new(fold)?;
        let v = acc.value();
        return Ok((acc, v));
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
/// unchanged on any error. This is what `adn_hip_acc_*_add_array` call.
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
/// `adn_hip_cumsum_*` call.
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
/// `adn_hip_cumsum_*_from` call.
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

/// The calling thread's current HIP device, made current again when this is dropped.
///
/// The calls of this module make their device current on the calling thread
/// (`hipSetDevice`). An entry point for callers that manage the current device (the C
/// library's `adn_hip_*`, the facade's pointer functions) holds one of these across the call,
/// so that the caller's device is current again afterwards. Without a runtime it holds
/// nothing and restores nothing.
#[must_use = "the device is restored when this is dropped"]
pub struct RestoreContext {
    saved: Option<c_int>,
    /// Not `Send`: it restores the device of the thread that made it.
    _thread: core::marker::PhantomData<*const ()>,
}

impl RestoreContext {
    /// Saves the calling thread's current device.
    pub fn save() -> Self {
        let saved = api().ok().and_then(|a| {
            let mut d: c_int = 0;
            // SAFETY: writes one int.
            (unsafe { (a.get_device)(&mut d) } == 0).then_some(d)
        });
        RestoreContext {
            saved,
            _thread: core::marker::PhantomData,
        }
    }
}

impl Drop for RestoreContext {
    fn drop(&mut self) {
        if let (Some(d), Ok(a)) = (self.saved, api()) {
            // SAFETY: `d` is the ordinal the runtime reported current on this thread.
            let _ = unsafe { (a.set_device)(d) };
        }
    }
}
