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
//! or without a device gets an error value ([`GpuError::NoRuntime`],
//! [`GpuError::NoDevice`]), never a panic.
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
use std::sync::{Arc, Mutex, OnceLock};

use crate::device::{runtime_module, Device as GenericDevice};
use crate::runtime::{Api, Caps, Func, Handle, Opened, Runtime, Side};
use crate::GpuError;

runtime_module!(Hip);

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
struct Table {
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
    memcpy_async: unsafe extern "C" fn(Ptr, *const c_void, usize, c_int, Ptr) -> HipErr,
    memset_async: unsafe extern "C" fn(Ptr, c_int, usize, Ptr) -> HipErr,
    stream_synchronize: unsafe extern "C" fn(Ptr) -> HipErr,
    pointer_get_attributes: unsafe extern "C" fn(*mut PointerAttributes, *const c_void) -> HipErr,
    get_last_error: unsafe extern "C" fn() -> HipErr,
    get_error_name: unsafe extern "C" fn(HipErr) -> *const c_char,
}

// SAFETY: the function pointers are plain C entry points of a library that stays loaded;
// the HIP runtime is thread-safe.
unsafe impl Send for Table {}
// SAFETY: as above.
unsafe impl Sync for Table {}

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
    Err(GpuError::NoRuntime(Api::Hip))
}

/// Tries to open the first of `names` that loads and resolve every function this module
/// uses, without installing it; returns the name that loaded. For tests of the "no
/// runtime" path.
///
/// # Errors
/// [`GpuError::NoRuntime`] when none loads or a function is missing.
#[doc(hidden)]
pub fn try_load(names: &[&str]) -> Result<String, GpuError> {
    let (lib, path) = open_library(names)?;
    Table::resolve(lib, path).map(|a| a.path)
}

macro_rules! sym {
    ($lib:expr, $name:literal) => {{
        // SAFETY: the symbol is a C function of the HIP runtime with the signature of the
        // field it is stored in (checked against the headers of ROCm 5, 6 and 7).
        match unsafe { $lib.get(concat!($name, "\0").as_bytes()) } {
            Ok(s) => *s,
            Err(_) => return Err(GpuError::NoRuntime(Api::Hip)),
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

impl Table {
    fn resolve(lib: libloading::Library, path: String) -> Result<Table, GpuError> {
        let runtime_get_version: unsafe extern "C" fn(*mut c_int) -> HipErr =
            sym!(lib, "hipRuntimeGetVersion");
        let mut version: c_int = 0;
        // SAFETY: writes one int.
        let r = unsafe { runtime_get_version(&mut version) };
        if r != HIP_SUCCESS {
            version = 0;
        }
        Ok(Table {
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
            memcpy_async: sym!(lib, "hipMemcpyAsync"),
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

fn api() -> Result<&'static Table, GpuError> {
    static API: OnceLock<Result<Table, GpuError>> = OnceLock::new();
    API.get_or_init(|| {
        let (lib, path) = match std::env::var("REPROSUM_HIP_LIBRARY") {
            Ok(p) if !p.is_empty() => open_library(&[p.as_str()])?,
            _ => open_library(&LIBRARY_NAMES)?,
        };
        Table::resolve(lib, path)
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
/// [`GpuError::NoRuntime`].
pub fn runtime_version() -> Result<(String, i32), GpuError> {
    let a = api()?;
    Ok((a.path.clone(), a.version))
}

/// The target name (`gcnArchName`, e.g. `gfx90a:sramecc+:xnack-`) from the properties
/// struct of the runtime's layout, or "unknown".
fn arch_name(a: &Table, ordinal: c_int) -> String {
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

/// The HIP runtime as a [`Runtime`]. Until the HIP path has run on AMD hardware it uses the
/// general cumsum kernels only, on the caller's stream, and copies a sum's result back
/// (no page-locked host memory).
pub struct Hip;

impl Runtime for Hip {
    const API: Api = Api::Hip;
    const CAPS: Caps = Caps {
        fixed_window: false,
        side_stream: false,
        single_pass: false,
        smem_opt_in: false,
    };
    type Ctx = c_int;

    fn init() -> Result<(), GpuError> {
        api().map(|_| ())
    }

    fn device_count() -> Result<usize, GpuError> {
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

    fn open(ordinal: usize) -> Result<Opened<c_int>, GpuError> {
        let a = api()?;
        let ord = ordinal as c_int;
        Self::make_current(ord)?;
        let attr = |which: c_int| -> Result<c_int, GpuError> {
            let mut v: c_int = 0;
            // SAFETY: writes one int; which is a device attribute valid in ROCm 5, 6, 7.
            a.check("hipDeviceGetAttribute", unsafe {
                (a.device_get_attribute)(&mut v, which, ord)
            })?;
            Ok(v)
        };
        let warp_size = attr(ATTR_WARP_SIZE)?.max(1) as u32;
        let multiprocessors = attr(ATTR_MULTIPROCESSOR_COUNT)?.max(1) as u32;
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
        Ok(Opened {
            ctx: ord,
            name,
            arch,
            compute_capability: (0, 0),
            multiprocessors,
            max_smem,
            warp_size,
            module,
        })
    }

    fn devices() -> &'static Mutex<Vec<Option<Arc<GenericDevice<Hip>>>>> {
        static DEVICES: Mutex<Vec<Option<Arc<GenericDevice<Hip>>>>> = Mutex::new(Vec::new());
        &DEVICES
    }

    fn current() -> Result<c_int, GpuError> {
        let a = api()?;
        let mut d: c_int = 0;
        // SAFETY: writes one int.
        a.check("hipGetDevice", unsafe { (a.get_device)(&mut d) })?;
        Ok(d)
    }

    fn make_current(ordinal: c_int) -> Result<(), GpuError> {
        let a = api()?;
        // SAFETY: the runtime checks the ordinal.
        a.check("hipSetDevice", unsafe { (a.set_device)(ordinal) })
    }

    fn current_ordinal() -> Result<usize, GpuError> {
        Ok(Self::current()?.max(0) as usize)
    }

    unsafe fn function(module: Handle, name: &str) -> Result<Func, GpuError> {
        let a = api()?;
        let cname = CString::new(name).map_err(|_| GpuError::InvalidLaunch(name.into()))?;
        let mut f: Ptr = std::ptr::null_mut();
        // SAFETY: module is a live module (the caller's contract); the name is NUL-terminated.
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

    fn occupancy(_f: &Func, _block: u32, _smem: u32) -> Result<Option<u32>, GpuError> {
        Ok(None)
    }

    fn allow_smem(_f: &Func, _bytes: u32) -> Result<(), GpuError> {
        Ok(())
    }

    unsafe fn malloc(bytes: usize) -> Result<u64, GpuError> {
        let a = api()?;
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
        Ok(p as u64)
    }

    unsafe fn free(ptr: u64) -> Result<(), GpuError> {
        let a = api()?;
        // SAFETY: the caller's contract.
        a.check("hipFree", unsafe { (a.free)(ptr as Ptr) })
    }

    unsafe fn malloc_host(_bytes: usize) -> Result<Option<(*mut u8, u64)>, GpuError> {
        Ok(None)
    }

    unsafe fn free_host(_p: *mut u8) -> Result<(), GpuError> {
        Ok(())
    }

    unsafe fn copy_htod(dst: u64, src: *const u8, bytes: usize, stream: Handle) -> Result<(), GpuError> {
        let a = api()?;
        // SAFETY: the caller's contract.
        a.check("hipMemcpyAsync", unsafe {
            (a.memcpy_async)(dst as Ptr, src as *const c_void, bytes, MEMCPY_H2D, stream)
        })
    }

    unsafe fn copy_dtoh(dst: *mut u8, src: u64, bytes: usize, stream: Handle) -> Result<(), GpuError> {
        let a = api()?;
        // SAFETY: the caller's contract.
        a.check("hipMemcpyAsync", unsafe {
            (a.memcpy_async)(dst as Ptr, src as *const c_void, bytes, MEMCPY_D2H, stream)
        })
    }

    unsafe fn memset(ptr: u64, byte: u8, bytes: usize, stream: Handle) -> Result<(), GpuError> {
        let a = api()?;
        // SAFETY: the caller's contract.
        a.check("hipMemsetAsync", unsafe {
            (a.memset_async)(ptr as Ptr, byte as c_int, bytes, stream)
        })
    }

    unsafe fn launch(
        f: &Func,
        grid: u32,
        block: u32,
        smem: u32,
        stream: Handle,
        args: &mut [*mut c_void],
    ) -> Result<(), GpuError> {
        let a = api()?;
        // hipModuleLaunchKernel returns launch-configuration errors itself (unlike a
        // triple-chevron launch); execution errors come back from the synchronisation.
        // SAFETY: the caller's contract (arguments match the kernel's parameters).
        a.check("hipModuleLaunchKernel", unsafe {
            (a.module_launch_kernel)(
                f.f,
                grid,
                1,
                1,
                block,
                1,
                1,
                smem,
                stream,
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        })
    }

    unsafe fn synchronize(stream: Handle) -> Result<(), GpuError> {
        let a = api()?;
        // SAFETY: the caller's contract.
        a.check("hipStreamSynchronize", unsafe { (a.stream_synchronize)(stream) })
    }

    fn side() -> Result<Option<Side>, GpuError> {
        Ok(None)
    }

    unsafe fn record(_event: Handle, _stream: Handle) -> Result<(), GpuError> {
        Err(GpuError::InvalidLaunch("the HIP path has no side stream".into()))
    }

    unsafe fn wait(_stream: Handle, _event: Handle) -> Result<(), GpuError> {
        Err(GpuError::InvalidLaunch("the HIP path has no side stream".into()))
    }

    fn memory_of(ptr: *const c_void) -> Result<Memory, GpuError> {
        let a = api()?;
        // Without a device the query fails with a device error; say what is missing instead.
        let count = Self::device_count()?;
        if count == 0 {
            return Err(GpuError::NoDevice {
                api: Api::Hip,
                ordinal: 0,
                count,
            });
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
}
