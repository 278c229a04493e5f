//! The host side of the kernels, written once for every [`Runtime`]: opening and checking a
//! device, its reusable workspace, device buffers, the sum, the accumulator, the cumulative
//! sum (from a start or not) on device pointers, device buffers and host slices, and the
//! pointer entry points the C library calls.
//!
//! Every call makes the device's context current and the caller's current again when it
//! returns ([`Bound`]). Every call returns when its result is written (the stream is
//! synchronised). Errors found before a launch leave every output untouched; a device fault
//! in the middle of a cumsum may leave a device-resident output partly written.

use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, MutexGuard};

use reprosum_core::{encoding, DynAccumulator, Float};

use crate::host::{self, MAX_STATE_BYTES};
use crate::layout::{CONTROL_BYTES, GROUP, RAKE};
use crate::runtime::{Func, Handle, Memory, Runtime, Side};
use crate::{check_fold, GpuError, TUNED_FOLDS};

#[path = "keyed.rs"]
mod keyed;
#[path = "segmented.rs"]
mod segmented;
pub use keyed::sum_by_key_ptr;
pub use segmented::{
    segmented_cumsum_ptr, segmented_sum_ptr, sum_rows_ptr, DENSE_MIN_AVG, DENSE_TEAMS_BELOW, SEG_BLOCK,
};

/// The default threads per block of the sum (halved for the default launch while a kernel's
/// shared memory would not fit the device).
pub const DEFAULT_BLOCK: u32 = 256;
/// Threads per block of the cumulative sum's tile kernels unless a launch says otherwise
/// (measured on the H200: 128 threads beat 256 by about 15%; any block size is correct).
pub const CUMSUM_BLOCK: u32 = 128;

/// The largest block a cumulative sum takes by default for an input that such a block
/// scans whole, as one tile (the general kernel alone: one launch instead of several).
pub const ONE_TILE_MAX_BLOCK: u32 = 1024;

/// The most tiles for which a cumulative sum takes the single-pass kernel by default (see
/// [`Launch::single_pass`]): the look-back stays short, and it makes one launch (with a small
/// one for the tiles it lists) instead of the passes' five. On the H200 it was the faster
/// up to 1e5 values (49 f64 tiles), the passes at 129 tiles (2026-12-03 21:10 UTC).
pub const LOOKBACK_MAX_TILES: u64 = 64;
/// Shared memory a block may use without an opt-in.
const SMEM_DEFAULT_LIMIT: usize = 48 * 1024;

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
    /// Positions each thread of a segmented-sum tile handles (`RsF<T>::SEG_E` in the kernel
    /// source).
    #[doc(hidden)]
    const SEG_ITEMS: u32;
}

impl GpuFloat for f64 {
    const SUFFIX: &'static str = "f64";
    const SLOT: usize = 0;
    const TILE_ITEMS: u32 = 16;
    const SEG_ITEMS: u32 = 16;
    const REUSE_TILE_MAX: u64 = 8192;
}

impl GpuFloat for f32 {
    const SUFFIX: &'static str = "f32";
    const SLOT: usize = 1;
    const TILE_ITEMS: u32 = 32;
    const SEG_ITEMS: u32 = 32;
    const REUSE_TILE_MAX: u64 = 4096;
}

/// A stream handle (`CUstream` / `cudaStream_t`, or `hipStream_t`). The default is the
/// null (legacy default) stream.
#[derive(Clone, Copy, Debug)]
pub struct Stream(Handle);

// SAFETY: a stream handle is an opaque runtime handle usable from any thread.
unsafe impl Send for Stream {}
// SAFETY: as above; the handle is never dereferenced on the host.
unsafe impl Sync for Stream {}

impl Stream {
    /// The null (default) stream.
    pub const DEFAULT: Stream = Stream(std::ptr::null_mut());

    /// Wraps a raw stream handle (null means the default stream).
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
    /// Threads per block (default [`DEFAULT_BLOCK`] for the sum, [`CUMSUM_BLOCK`] for the
    /// cumulative sum, or for an input that a block of at most [`ONE_TILE_MAX_BLOCK`] threads
    /// scans whole, with `single_pass` left to the device, that block); any value from 1 to
    /// the kernel's limit whose shared memory fits.
    pub block: Option<u32>,
    /// Blocks of the sum kernel (default: enough to fill the device); any value >= 1.
    pub grid: Option<u32>,
    /// The cumulative sum's kernels: `Some(true)` the single-pass kernel wherever it can take
    /// the call (more than one tile, a runtime that runs it, its shared memory fits the block),
    /// `Some(false)` the multi-pass kernels; default: the single pass for at most
    /// [`LOOKBACK_MAX_TILES`] tiles. Every choice gives the same bits.
    pub single_pass: Option<bool>,
}

/// One launch's kernel arguments, by value (each kernel parameter is a 64-bit address or
/// count): built for the one launch, in the order of that kernel's parameter list.
struct Args<const N: usize>([u64; N]);

impl<const N: usize> Args<N> {
    /// The pointers to the values the runtime reads at launch.
    fn pointers(&mut self) -> [*mut c_void; N] {
        let mut out = [std::ptr::null_mut(); N];
        for (p, v) in out.iter_mut().zip(self.0.iter_mut()) {
            *p = v as *mut u64 as *mut c_void;
        }
        out
    }
}

// Parameters of each kernel (checked against the kernel source by a test). Every kernel's
// last parameter is the fold (the kernels built for one fold ignore it; the `_kn` kernels
// run at it).
const SUM_PARAMS: usize = 6;
const REDUCE_PARAMS: usize = 6;
const REDUCE_FIXED_PARAMS: usize = 8;
const PREFIXES_PARAMS: usize = 4;
const SCAN_PARAMS: usize = 9;
const SCAN_FIXED_PARAMS: usize = 11;
const LOOKBACK_PARAMS: usize = 12;
const PROBE_PARAMS: usize = 4;

/// `rs_sum_*(x, n, states, counter, result, fold)`.
fn sum_args(x: u64, n: u64, states: u64, counter: u64, result: u64, fold: usize) -> Args<SUM_PARAMS> {
    Args([x, n, states, counter, result, fold as u64])
}

/// `rs_tile_reduce_*(x, n, tiles, count, list, fold)`; the fixed kernel also takes
/// `(parts, tops)` before the fold ([`reduce_fixed_args`]).
fn reduce_args(x: u64, n: u64, tiles: u64, ctl: u64, list: u64, fold: usize) -> Args<REDUCE_PARAMS> {
    Args([x, n, tiles, ctl, list, fold as u64])
}

/// `rs_tile_reduce_fixed_*(x, n, tiles, count, list, parts, tops, fold)`.
#[allow(clippy::too_many_arguments)]
fn reduce_fixed_args(
    x: u64,
    n: u64,
    tiles: u64,
    ctl: u64,
    list: u64,
    parts: u64,
    tops: u64,
    fold: usize,
) -> Args<REDUCE_FIXED_PARAMS> {
    Args([x, n, tiles, ctl, list, parts, tops, fold as u64])
}

/// `rs_tile_prefixes_*(tiles, ntiles, ctl, fold)`.
fn prefixes_args(tiles: u64, ntiles: u64, ctl: u64, fold: usize) -> Args<PREFIXES_PARAMS> {
    Args([tiles, ntiles, ctl, fold as u64])
}

/// The scan kernels' common arguments.
#[derive(Clone, Copy)]
struct Scan {
    x: u64,
    out: u64,
    n: u64,
    prefixes: u64,
    start: u64,
    ntiles: u64,
    ctl: u64,
    fold: u64,
}

/// `rs_tile_scan_*(x, out, n, prefixes, start, ntiles, count, list, fold)`.
fn scan_args(s: Scan, list: u64) -> Args<SCAN_PARAMS> {
    Args([
        s.x, s.out, s.n, s.prefixes, s.start, s.ntiles, s.ctl, list, s.fold,
    ])
}

/// `rs_tile_scan_fixed_*(x, out, n, prefixes, start, ntiles, count, list, parts, tops, fold)`.
fn scan_fixed_args(s: Scan, list: u64, parts: u64, tops: u64) -> Args<SCAN_FIXED_PARAMS> {
    Args([
        s.x, s.out, s.n, s.prefixes, s.start, s.ntiles, s.ctl, list, parts, tops, s.fold,
    ])
}

/// `rs_cumsum_lookback_*(x, out, n, start, ntiles, states, status, ctl, prefixes, list,
/// epoch, fold)`.
#[allow(clippy::too_many_arguments)]
fn lookback_args(
    s: Scan,
    states: u64,
    status: u64,
    ctl: u64,
    prefixes: u64,
    list: u64,
    epoch: u32,
) -> Args<LOOKBACK_PARAMS> {
    Args([
        s.x,
        s.out,
        s.n,
        s.start,
        s.ntiles,
        states,
        status,
        ctl,
        prefixes,
        list,
        epoch as u64,
        s.fold,
    ])
}

/// The largest epoch of the single-pass cumsum's status words (`(epoch << 2) | status` in
/// 32 bits); past it the host zeroes the words and starts again at 1.
const MAX_EPOCH: u32 = (1 << 30) - 1;

/// The kernels of one type and fold ([`TUNED_FOLDS`]), or of one type at any larger fold
/// (the `_kn` kernels, which have no fixed-window kernels).
#[derive(Clone, Copy)]
struct Kernels {
    sum: Func,
    tile_reduce: Func,
    tile_prefixes: Func,
    tile_scan: Func,
    /// With [`crate::runtime::Caps::fixed_window`].
    tile_reduce_fixed: Option<Func>,
    /// With [`crate::runtime::Caps::fixed_window`].
    tile_scan_fixed: Option<Func>,
    /// The segmented sums (`segmented.rs`).
    seg_sum: Func,
    seg_long: Func,
    seg_join: Func,
    seg_dense: Func,
    seg_dense_teams: Func,
    seg_dense_join: Func,
    rows_short: Func,
    rows_long: Func,
    /// With [`crate::runtime::Caps::single_pass`].
    cumsum_lookback: Option<Func>,
}

/// The calling thread's current context, made current again when this is dropped.
///
/// Every call of this crate holds one while it works on a device (so the caller's context,
/// or none, is current again afterwards, as cudarc does); an entry point may also hold one
/// across several calls ([`Bound::save`]). Without a runtime it holds nothing and restores
/// nothing.
#[must_use = "the context is restored when this is dropped"]
pub struct Bound<R: Runtime> {
    saved: Option<R::Ctx>,
    /// Not `Send`: it restores the context of the thread that made it.
    _thread: PhantomData<*const ()>,
}

impl<R: Runtime> Bound<R> {
    /// Saves the calling thread's current context (possibly none).
    pub fn save() -> Self {
        Bound {
            saved: R::init().and_then(|()| R::current()).ok(),
            _thread: PhantomData,
        }
    }

    /// Saves the current context, then makes `ctx` current.
    fn bind(ctx: R::Ctx) -> Result<Self, GpuError> {
        let saved = Self::save();
        R::make_current(ctx)?;
        Ok(saved)
    }
}

impl<R: Runtime> Drop for Bound<R> {
    fn drop(&mut self) {
        if let Some(ctx) = self.saved.take() {
            // A context the caller destroyed meanwhile is the caller's error; the runtime
            // reports it and it is ignored here (drop cannot report).
            let _ = R::make_current(ctx);
        }
    }
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

    /// At least `bytes` bytes. The device's context must be current (the workspace's
    /// methods are called with it bound).
    fn ensure<R: Runtime>(&mut self, bytes: usize) -> Result<(), GpuError> {
        if bytes <= self.bytes && self.ptr != 0 {
            return Ok(());
        }
        let bytes = bytes.max(256);
        if self.ptr != 0 {
            // SAFETY: ptr came from malloc in this context and no work using it is pending
            // (every call synchronises before releasing the workspace).
            unsafe { R::free(self.ptr) }?;
            self.ptr = 0;
            self.bytes = 0;
        }
        // SAFETY: the device's context is current (see above).
        self.ptr = unsafe { R::malloc(bytes) }?;
        self.bytes = bytes;
        Ok(())
    }
}

/// The host buffer a sum's result arrives in: page-locked (and mapped, when the runtime
/// can: the kernel then writes it directly), or a heap buffer and a copy.
enum HostResult {
    None,
    Pinned { ptr: *mut u8, bytes: usize, dev: u64 },
    Heap(Vec<u8>),
}

/// Bytes of each of the two page-locked staging buffers of a workspace.
const STAGE_BYTES: usize = 4 << 20;

/// The most threads that fill a staging buffer (host offsets and keys are checked as they
/// are staged: one thread reads them at its memory rate, about 5 GB/s on the H200's host,
/// below what the copies to the device take).
const STAGE_THREADS: usize = 8;

/// A workspace's staging buffers: not allocated yet, two page-locked buffers of
/// `STAGE_BYTES` (kept for the device's life, as the device buffers are), or none where the
/// runtime has no page-locked memory.
enum Stage {
    Untried,
    Pinned([*mut u8; 2]),
    Unavailable,
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
    /// `start_host` (here for the life of the device: it outlives any copy).
    start: DevMem,
    start_host: [u8; MAX_STATE_BYTES],
    input: DevMem,
    output: DevMem,
    /// The segmented sums' error words, tile numbers and pieces of groups crossing tiles.
    seg: DevMem,
    /// The dense segmented sum's error words: two pairs (one call takes one, and its join
    /// kernel zeroes the other for the next call), then the verdict's two words and the last
    /// offset where the host buffer is not mapped. See `segmented::seg_dense_locked`.
    seg_err: DevMem,
    /// The pair of `seg_err` the next dense call takes (0 or 1).
    seg_err_pair: u64,
    /// The pairs may not be as the kernels leave them (never used, or a call failed):
    /// zero them before the next dense call.
    seg_err_dirty: bool,
    /// The last offset of the last segmented sum of device offsets (their address and
    /// count, then the offset), which chooses the next such call's kernels without reading
    /// it first (see `segmented_sum_raw`).
    seg_span: Option<(u64, usize, u64)>,
    /// Host offsets of a segmented sum, uploaded (64-bit).
    seg_off: DevMem,
    /// The keyed sum's error words, counts (then offsets), cursors, scan parts and the
    /// blocks' counts.
    key: DevMem,
    /// The keyed sum's values gathered by key (the key-range path: its pairs after the first
    /// partition pass).
    key_sorted: DevMem,
    /// The key-range path's pairs after its second partition pass.
    key_pairs: DevMem,
    /// The key-range path's states of ranges of several tiles.
    key_states: DevMem,
    /// Host keys of a keyed sum, uploaded.
    key_in: DevMem,
    host: HostResult,
    /// Page-locked buffers that host offsets and keys are staged through on their way to
    /// the device (see `upload_mapped`).
    stage: Stage,
    /// The counter may be non-zero (a launch failed): zero it before the next sum.
    dirty: bool,
    /// The cumsum's control words (`counter`, bytes 16..48) may not be as the kernels leave
    /// them (never used, or a call failed): zero them before the next cumsum.
    ctl_dirty: bool,
    /// The single-pass cumsum's tile states (two per tile: aggregate, inclusive prefix).
    lb_states: DevMem,
    /// Its status words (one per tile), valid for the epoch they carry.
    lb_status: DevMem,
    /// The epoch of its last call (0: none since the words were zeroed).
    lb_epoch: u32,
}

impl Workspace {
    fn new() -> Self {
        Workspace {
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
            seg: DevMem::empty(),
            seg_err: DevMem::empty(),
            seg_err_pair: 0,
            seg_err_dirty: true,
            seg_span: None,
            seg_off: DevMem::empty(),
            key: DevMem::empty(),
            key_sorted: DevMem::empty(),
            key_pairs: DevMem::empty(),
            key_states: DevMem::empty(),
            key_in: DevMem::empty(),
            host: HostResult::None,
            stage: Stage::Untried,
            dirty: true,
            ctl_dirty: true,
            lb_states: DevMem::empty(),
            lb_status: DevMem::empty(),
            lb_epoch: 0,
        }
    }

    /// A host result buffer of at least `bytes` bytes: its host address and, when the
    /// kernel can write it directly, its device address (else 0).
    fn ensure_host<R: Runtime>(&mut self, bytes: usize) -> Result<(*mut u8, u64), GpuError> {
        match &mut self.host {
            HostResult::Pinned {
                ptr,
                bytes: have,
                dev,
            } if *have >= bytes => return Ok((*ptr, *dev)),
            HostResult::Heap(v) if v.len() >= bytes => return Ok((v.as_mut_ptr(), 0)),
            HostResult::Pinned { ptr, .. } => {
                // SAFETY: ptr came from malloc_host; no copy into it or kernel writing it is
                // pending (every call synchronises before releasing the workspace).
                unsafe { R::free_host(*ptr) }?;
                self.host = HostResult::None;
            }
            _ => {}
        }
        let bytes = bytes.max(1024);
        // Page-locked and mapped into the device's address space, so that a small sum's
        // result needs no copy after the kernel (the copy costs a few microseconds of
        // latency). Where the runtime has none, a heap buffer and a copy.
        // SAFETY: the device's context is current (the caller holds it bound).
        self.host = match unsafe { R::malloc_host(bytes) }? {
            Some((ptr, dev)) => HostResult::Pinned { ptr, bytes, dev },
            None => HostResult::Heap(host::host_vec(bytes, 0u8)?),
        };
        self.ensure_host::<R>(bytes)
    }

    /// The staging buffers, allocated on first use; `None` where the runtime has no
    /// page-locked memory.
    fn ensure_stage<R: Runtime>(&mut self) -> Result<Option<[*mut u8; 2]>, GpuError> {
        if let Stage::Untried = self.stage {
            let mut bufs = [std::ptr::null_mut(); 2];
            for b in &mut bufs {
                // SAFETY: the device's context is current (the caller holds it bound).
                match unsafe { R::malloc_host(STAGE_BYTES) } {
                    Ok(Some((ptr, _))) => *b = ptr,
                    // No page-locked memory (none on this path, or none left): the uploads
                    // go through the heap, as fast as a pageable copy is.
                    Ok(None) | Err(_) => {
                        if !bufs[0].is_null() {
                            // SAFETY: from malloc_host above; nothing uses it yet.
                            unsafe { R::free_host(bufs[0]) }?;
                        }
                        self.stage = Stage::Unavailable;
                        return Ok(None);
                    }
                }
            }
            self.stage = Stage::Pinned(bufs);
        }
        Ok(match self.stage {
            Stage::Pinned(bufs) => Some(bufs),
            _ => None,
        })
    }

    /// Copies `src` to the device memory at `dst` as `fill(at, part, out)` converts it
    /// (`part` is `src[at..at + part.len()]`, `out` as long; each call returns what it found,
    /// which `take` receives, for the parts in the order of `src`), except where `same_bits`
    /// lets the copy skip it, and synchronises `stream` (every copy is complete when this
    /// returns, error or not). Through the page-locked staging buffers where there are some:
    /// the host converts one buffer's worth while the device copies the other's, on up to
    /// `STAGE_THREADS` threads for a large `src` (each buffer's worth split between them).
    /// Else straight from `src` when `same_bits` (`fill` copies bytes as they are), or
    /// through a heap copy.
    ///
    /// # Safety
    /// The device's context is current; `dst` holds `src.len()` values of D in its memory;
    /// `stream` is a live stream of it (or the default); with `same_bits`, S and D have the
    /// same size and `fill` copies each element's bytes.
    pub(crate) unsafe fn upload_mapped<R: Runtime, S: Copy + Sync, D: Copy + Default + Send, V: Send>(
        &mut self,
        dst: u64,
        src: &[S],
        fill: impl Fn(usize, &[S], &mut [D]) -> V + Sync,
        mut take: impl FnMut(V),
        same_bits: bool,
        stream: Stream,
    ) -> Result<(), GpuError> {
        let size = std::mem::size_of::<D>();
        if src.is_empty() {
            return Ok(());
        }
        let Some(bufs) = self.ensure_stage::<R>()? else {
            if same_bits {
                // SAFETY: `dst` holds the values, which are src's bytes (the caller's
                // contract); `src` lives until the synchronisation.
                return unsafe {
                    R::copy_htod(dst, src.as_ptr().cast(), std::mem::size_of_val(src), stream.0)
                        .and_then(|()| R::synchronize(stream.0))
                };
            }
            let mut v = host::host_vec(src.len(), D::default())?;
            take(fill(0, src, &mut v));
            // SAFETY: `dst` holds the values (the caller's contract); `v` lives until the
            // synchronisation.
            return unsafe {
                R::copy_htod(dst, v.as_ptr().cast(), v.len() * size, stream.0)
                    .and_then(|()| R::synchronize(stream.0))
            };
        };
        let per = STAGE_BYTES / size;
        let pieces = src.len().div_ceil(per);
        // The buffers as addresses, which the helper threads may hold.
        let addrs = [bufs[0] as usize, bufs[1] as usize];
        let threads = if pieces >= 2 {
            std::thread::available_parallelism().map_or(1, |n| n.get().min(STAGE_THREADS))
        } else {
            1
        };
        // Part w of `threads` of piece i: its range in `src`.
        let part = |i: usize, w: usize| {
            let at = i * per;
            let len = per.min(src.len() - at);
            (at + len * w / threads, at + len * (w + 1) / threads)
        };
        // Fills part w of piece i into its buffer.
        let fill_part = |i: usize, w: usize| {
            let (a, b) = part(i, w);
            let buf = (addrs[i % 2] as *mut D).wrapping_add(a - i * per);
            // SAFETY: the buffer holds STAGE_BYTES (page-aligned, so aligned for D), part w
            // of the piece lies inside it, no other thread writes that part, and no copy
            // from the buffer is pending (the caller waited for it).
            let out = unsafe { std::slice::from_raw_parts_mut(buf, b - a) };
            fill(a, &src[a..b], out)
        };
        std::thread::scope(|scope| {
            // Helper threads, one per part beyond the first: each fills its part of every
            // piece it is sent and sends back what it found, and ends when its sender is
            // dropped. A part whose thread could not be started, or ended without an answer,
            // is filled here.
            let mut helpers = Vec::new();
            for w in 1..threads {
                let (tx, rx) = std::sync::mpsc::channel::<usize>();
                let (done_tx, done_rx) = std::sync::mpsc::channel::<V>();
                let fill_part = &fill_part;
                let started = std::thread::Builder::new().spawn_scoped(scope, move || {
                    while let Ok(i) = rx.recv() {
                        if done_tx.send(fill_part(i, w)).is_err() {
                            break;
                        }
                    }
                });
                helpers.push(started.ok().map(|_| (tx, done_rx)));
            }
            let mut run = || -> Result<(), GpuError> {
                let mut sent = vec![false; threads];
                for i in 0..pieces {
                    if i >= 2 && i % 2 == 0 {
                        // Both buffers' copies are complete before either is refilled.
                        // SAFETY: the caller's stream of this context.
                        unsafe { R::synchronize(stream.0) }?;
                    }
                    for (h, s) in helpers.iter().zip(sent.iter_mut().skip(1)) {
                        *s = h.as_ref().is_some_and(|(tx, _)| tx.send(i).is_ok());
                    }
                    take(fill_part(i, 0));
                    for (w, h) in helpers.iter().enumerate() {
                        let answer = match h {
                            Some((_, rx)) if sent[w + 1] => rx.recv().ok(),
                            _ => None,
                        };
                        take(answer.unwrap_or_else(|| fill_part(i, w + 1)));
                    }
                    let (at, len) = (i * per, per.min(src.len() - i * per));
                    // SAFETY: the piece's place in `dst` (the caller's contract); the buffer
                    // is page-locked and not written again before the copy completes.
                    unsafe {
                        R::copy_htod(
                            dst + (at * size) as u64,
                            addrs[i % 2] as *const u8,
                            len * size,
                            stream.0,
                        )
                    }?;
                }
                Ok(())
            };
            let copies = run();
            // The helpers end: their senders are dropped.
            drop(helpers);
            // SAFETY: as above. No copy from the staging buffers may outlive this call.
            let synced = unsafe { R::synchronize(stream.0) };
            copies.and(synced)
        })
    }
}

/// A device with the reprosum module loaded and checked.
pub struct Device<R: Runtime> {
    ordinal: usize,
    ctx: R::Ctx,
    name: String,
    arch: String,
    compute_capability: (i32, i32),
    multiprocessors: u32,
    max_smem: u32,
    warp_size: u32,
    kernels: [[Kernels; 7]; 2],
    /// The `_kn` kernels (a fold given at run time) of f64 and f32.
    runtime_fold: [Kernels; 2],
    probe: Func,
    /// The segmented sums' first kernel (one for every type and fold).
    seg_prep: Func,
    /// The segmented sums' list of the tiles with short groups.
    seg_list: Func,
    /// The keyed sum's kernels (`keyed.rs`).
    keyed: keyed::KeyKernels,
    /// The segmented cumsum's kernels (`segmented.rs`).
    segcs: segmented::SegCsKernels,
    ws: Mutex<Workspace>,
    occ: Mutex<Vec<OccEntry>>,
    /// Used only with the workspace locked.
    side: Option<Side>,
}

/// A cached occupancy: (function, block, shared memory) -> blocks per multiprocessor.
type OccEntry = ((usize, u32, u32), Option<u32>);

// SAFETY: the context, module, function, stream and event handles are runtime handles usable
// from any thread (each call makes the context current first); the workspace is behind a
// Mutex.
unsafe impl<R: Runtime> Send for Device<R> {}
// SAFETY: as above.
unsafe impl<R: Runtime> Sync for Device<R> {}

/// The device with this ordinal, opened, probed and cached on first use.
///
/// # Errors
/// [`GpuError::NoRuntime`], [`GpuError::NoDevice`], a runtime error, or
/// [`GpuError::ProbeFailed`] if the device's arithmetic is not the IEEE arithmetic the
/// format needs. A failure is not cached: a later call tries again.
pub fn device<R: Runtime>(ordinal: usize) -> Result<Arc<Device<R>>, GpuError> {
    R::init()?;
    let count = R::device_count()?;
    if ordinal >= count {
        return Err(GpuError::NoDevice {
            api: R::API,
            ordinal,
            count,
        });
    }
    let mut cache = R::devices().lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() < count {
        cache.resize(count, None);
    }
    if let Some(d) = &cache[ordinal] {
        return Ok(d.clone());
    }
    let d = Arc::new(Device::<R>::open(ordinal)?);
    d.probe()?;
    d.self_check()?;
    cache[ordinal] = Some(d.clone());
    Ok(d)
}

impl<R: Runtime> Device<R> {
    fn open(ordinal: usize) -> Result<Self, GpuError> {
        let _bound = Bound::<R>::save();
        let o = R::open(ordinal)?;
        let mut kernels = Vec::with_capacity(2);
        let mut runtime_fold = Vec::with_capacity(2);
        for t in ["f64", "f32"] {
            // `k` a fold of TUNED_FOLDS, or "n" (the run-time-fold kernels: no fixed-window ones).
            let lookup = |k: &str| -> Result<Kernels, GpuError> {
                // SAFETY: the module `open` just loaded, in the context it made current.
                let f = |name: &str| unsafe { R::function(o.module, &format!("rs_{name}_{t}_k{k}")) };
                let fixed = |name: &str| -> Result<Option<Func>, GpuError> {
                    if R::CAPS.fixed_window && k != "n" {
                        f(name).map(Some)
                    } else {
                        Ok(None)
                    }
                };
                Ok(Kernels {
                    sum: f("sum")?,
                    tile_reduce: f("tile_reduce")?,
                    tile_prefixes: f("tile_prefixes")?,
                    tile_scan: f("tile_scan")?,
                    tile_reduce_fixed: fixed("tile_reduce_fixed")?,
                    tile_scan_fixed: fixed("tile_scan_fixed")?,
                    seg_sum: f("seg_sum")?,
                    seg_long: f("seg_long")?,
                    seg_join: f("seg_join")?,
                    seg_dense: f("seg_dense")?,
                    seg_dense_teams: f("seg_dense_teams")?,
                    seg_dense_join: f("seg_dense_join")?,
                    rows_short: f("rows_short")?,
                    rows_long: f("rows_long")?,
                    cumsum_lookback: if R::CAPS.single_pass {
                        fixed("cumsum_lookback")?
                    } else {
                        None
                    },
                })
            };
            let row = TUNED_FOLDS
                .map(|k| lookup(&k.to_string()))
                .collect::<Result<Vec<_>, _>>()?;
            kernels.push(row);
            runtime_fold.push(lookup("n")?);
        }
        let to7 = |v: &[Kernels]| -> [Kernels; 7] { [v[0], v[1], v[2], v[3], v[4], v[5], v[6]] };
        let kernels = [to7(&kernels[0]), to7(&kernels[1])];
        let runtime_fold = [runtime_fold[0], runtime_fold[1]];
        // SAFETY: as above.
        let probe = unsafe { R::function(o.module, "rs_probe") }?;
        // SAFETY: as above.
        let seg_prep = unsafe { R::function(o.module, "rs_seg_prep") }?;
        // SAFETY: as above.
        let seg_list = unsafe { R::function(o.module, "rs_seg_list") }?;
        // SAFETY: as above.
        let keyed = unsafe { keyed::KeyKernels::load::<R>(o.module) }?;
        // SAFETY: as above.
        let segcs = unsafe { segmented::SegCsKernels::load::<R>(o.module) }?;
        Ok(Device {
            ordinal,
            ctx: o.ctx,
            name: o.name,
            arch: o.arch,
            compute_capability: o.compute_capability,
            multiprocessors: o.multiprocessors,
            max_smem: o.max_smem,
            warp_size: o.warp_size,
            kernels,
            runtime_fold,
            probe,
            seg_prep,
            seg_list,
            keyed,
            segcs,
            ws: Mutex::new(Workspace::new()),
            occ: Mutex::new(Vec::new()),
            side: R::side()?,
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

    /// The target: `sm_90` (CUDA), `gfx90a:sramecc+:xnack-` (HIP), or "unknown".
    pub fn arch(&self) -> &str {
        &self.arch
    }

    /// The compute capability (major, minor) on CUDA; (0, 0) on HIP.
    pub fn compute_capability(&self) -> (i32, i32) {
        self.compute_capability
    }

    /// Streaming multiprocessors (CUDA) or compute units (HIP).
    pub fn sm_count(&self) -> u32 {
        self.multiprocessors
    }

    /// Compute units (HIP's name for [`Device::sm_count`]).
    pub fn cu_count(&self) -> u32 {
        self.multiprocessors
    }

    /// The warp (wavefront) width: 32 on NVIDIA and RDNA, 64 on CDNA. The kernels do not
    /// depend on it.
    pub fn warp_size(&self) -> u32 {
        self.warp_size
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

    /// The largest block size the cumulative sum of this type and fold takes on this device
    /// (the general tile-scan kernel's limit and the device's shared memory).
    ///
    /// # Errors
    /// [`GpuError::UnsupportedFold`].
    pub fn max_cumsum_block<T: GpuFloat>(&self, fold: usize) -> Result<u32, GpuError> {
        let f = self.kernels::<T>(fold)?.tile_scan;
        let (per, fixed) = scan_smem::<T>(fold);
        let fit = (self.max_smem as usize).saturating_sub(fixed) / per;
        Ok(f.max_threads.min(fit as u32))
    }

    fn bind(&self) -> Result<Bound<R>, GpuError> {
        Bound::bind(self.ctx)
    }

    fn lock(&self) -> MutexGuard<'_, Workspace> {
        self.ws.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn kernels<T: GpuFloat>(&self, fold: usize) -> Result<Kernels, GpuError> {
        check_fold::<T>(fold)?;
        Ok(if TUNED_FOLDS.contains(&fold) {
            self.kernels[T::SLOT][fold - TUNED_FOLDS.start()]
        } else {
            self.runtime_fold[T::SLOT]
        })
    }

    fn occupancy(&self, f: &Func, block: u32, smem: u32) -> Result<Option<u32>, GpuError> {
        let key = (f.f as usize, block, smem);
        let mut cache = self.occ.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&(_, v)) = cache.iter().find(|(k, _)| *k == key) {
            return Ok(v);
        }
        let v = R::occupancy(f, block, smem)?;
        cache.push((key, v));
        Ok(v)
    }

    /// The block size and dynamic shared memory of a launch of `f`. An explicit block size
    /// that does not fit is an error; the default is halved until it fits.
    fn block_for(
        &self,
        f: &Func,
        block: Option<u32>,
        default: u32,
        smem_per_thread: usize,
        smem_fixed: usize,
    ) -> Result<(u32, u32), GpuError> {
        let smem_of = |b: u32| smem_fixed + smem_per_thread * b as usize;
        let b = match block {
            Some(b) => b,
            None => {
                let mut b = default.min(f.max_threads);
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
        if smem > SMEM_DEFAULT_LIMIT && R::CAPS.smem_opt_in {
            R::allow_smem(f, smem as u32)?;
        }
        Ok((b, smem as u32))
    }

    /// Launches `f` with `args`.
    ///
    /// # Safety
    /// `args` are `f`'s parameters, and every address in them is valid for the access the
    /// kernel makes until the stream has run it.
    unsafe fn launch<const N: usize>(
        &self,
        f: &Func,
        grid: u32,
        block: u32,
        smem: u32,
        stream: Stream,
        mut args: Args<N>,
    ) -> Result<(), GpuError> {
        let mut p = args.pointers();
        // SAFETY: the caller's contract; `args` outlives the call (the runtime copies the
        // values at launch).
        unsafe { R::launch(f, grid, block, smem, stream.0, &mut p) }
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
        let _bound = self.bind()?;
        let mut ws = self.lock();
        // SAFETY: the caller's contract; the context is bound and the workspace locked.
        unsafe { self.sum_locked(&mut ws, x, n, fold, stream, launch) }
    }

    /// [`Device::sum_state`] with the context bound and the workspace locked.
    ///
    /// # Safety
    /// As [`Device::sum_state`].
    unsafe fn sum_locked<T: GpuFloat>(
        &self,
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
        let small = (n as u64)
            .div_ceil(4 * vec)
            .next_power_of_two()
            .clamp(32, DEFAULT_BLOCK as u64) as u32;
        let (block, smem) = self.block_for(&k.sum, launch.block, small, slots * T::BYTES, 16)?;
        let per_block = block as u64 * 4 * vec;
        let blocks = (n as u64).div_ceil(per_block).max(1);
        let grid = match launch.grid {
            Some(0) => return Err(GpuError::InvalidLaunch("grid size 0".into())),
            Some(g) => g,
            None if blocks <= self.multiprocessors as u64 => blocks as u32,
            None => {
                let per_mp = self.occupancy(&k.sum, block, smem)?.unwrap_or(8).max(1);
                (self.multiprocessors as u64 * per_mp as u64).min(blocks) as u32
            }
        };
        ws.states.ensure::<R>(grid as usize * slots * T::BYTES)?;
        let first = ws.counter.ptr == 0;
        ws.counter.ensure::<R>(CONTROL_BYTES)?;
        ws.result.ensure::<R>((slots + 1) * T::BYTES)?;
        let bytes = (slots + 1) * T::BYTES;
        let (host_ptr, host_dev) = ws.ensure_host::<R>(bytes)?;
        if first || ws.dirty {
            // SAFETY: the counter holds CONTROL_BYTES >= 16 bytes of this context.
            unsafe { R::memset(ws.counter.ptr, 0, 16, stream.0) }?;
        }
        ws.dirty = true;
        let mapped = host_dev != 0;
        let result = if mapped { host_dev } else { ws.result.ptr };
        // Poison the result, so that a kernel that did not write it cannot pass for one
        // that did (the state's flags slot would not decode).
        // SAFETY: the host buffer holds at least `bytes` bytes; nothing else uses it while the
        // workspace is locked.
        unsafe { std::ptr::write_bytes(host_ptr, 0xFF, bytes) };
        let args = sum_args(x, n as u64, ws.states.ptr, ws.counter.ptr, result, fold);
        // SAFETY: the kernel reads n values at x (the caller's contract) and writes `grid`
        // states, the counter and the result, all allocated above for this launch.
        unsafe { self.launch(&k.sum, grid, block, smem, stream, args) }?;
        if !mapped {
            // SAFETY: the host buffer holds `bytes` bytes and stays allocated (workspace
            // locked) until the synchronisation below.
            unsafe { R::copy_dtoh(host_ptr, ws.result.ptr, bytes, stream.0) }?;
        }
        // The kernel's writes to mapped memory are visible to the host once the stream
        // is synchronised.
        // SAFETY: the caller's stream (or the default one) of this context.
        unsafe { R::synchronize(stream.0) }?;
        ws.dirty = false;
        // SAFETY: `bytes` bytes written by the kernel or the copy, now complete.
        let raw = unsafe { std::slice::from_raw_parts(host_ptr, bytes) };
        let acc = state_to_accumulator::<T>(raw, fold, n as u64)?;
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
        let _bound = self.bind()?;
        let mut ws = self.lock();
        // SAFETY: the caller's contract; the context is bound and the workspace locked.
        unsafe { self.cumsum_locked::<T>(&mut ws, x, out, n, fold, start, stream, launch) }
    }

    /// [`Device::cumsum_dev`] with the context bound and the workspace locked. Returns when
    /// every kernel of the call has finished; on an error, when the side stream's kernel
    /// (tile 0) has, if it was queued (kernels already queued on the caller's stream may
    /// still run).
    ///
    /// # Safety
    /// As [`Device::cumsum_dev`].
    #[allow(clippy::too_many_arguments)]
    unsafe fn cumsum_locked<T: GpuFloat>(
        &self,
        ws: &mut Workspace,
        x: u64,
        out: u64,
        n: usize,
        fold: usize,
        start: Option<&DynAccumulator<T>>,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        let mut forked = false;
        // SAFETY: the caller's contract.
        let queued =
            unsafe { self.cumsum_queue::<T>(ws, x, out, n, fold, start, stream, launch, &mut forked) };
        let r = queued.and_then(|queued| {
            if let (true, Some(side)) = (forked, &self.side) {
                // SAFETY: live handles of this context.
                unsafe { R::wait(stream.0, side.join) }?;
            }
            if queued {
                // SAFETY: the caller's stream of this context.
                unsafe { R::synchronize(stream.0) }?;
            }
            Ok(queued)
        });
        if let (true, true, Some(side)) = (forked, r.is_err(), &self.side) {
            // Nothing the call queued may still run once it returns: the side stream's
            // tile writes to the output. (Its own error, if any, is the same fault.)
            // SAFETY: the device's own side stream.
            let _ = unsafe { R::synchronize(side.stream) };
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
        x: u64,
        out: u64,
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
        let rake = RAKE * slots * T::BYTES;
        let (per_thread, scan_fixed) = scan_smem::<T>(fold);
        // By default an input that one block of at most ONE_TILE_MAX_BLOCK threads takes whole
        // is one tile of such a block: the general kernel alone, one launch.
        let items = T::TILE_ITEMS as u64;
        let whole = (n as u64).div_ceil(items).next_multiple_of(32);
        let one_tile = (launch.block.is_none()
            && launch.single_pass.is_none()
            && n as u64 > CUMSUM_BLOCK as u64 * items
            && whole <= ONE_TILE_MAX_BLOCK as u64)
            .then(|| {
                self.block_for(
                    &k.tile_scan,
                    Some(whole as u32),
                    CUMSUM_BLOCK,
                    per_thread,
                    scan_fixed,
                )
            })
            .and_then(Result::ok);
        let (block, smem_scan) = match one_tile {
            Some(b) => b,
            None => self.block_for(&k.tile_scan, launch.block, CUMSUM_BLOCK, per_thread, scan_fixed)?,
        };
        let tile = block as u64 * items;
        let ntiles = (n as u64).div_ceil(tile);
        if ntiles > i32::MAX as u64 {
            return Err(GpuError::InvalidLaunch("too many tiles".into()));
        }
        let (rblock, smem_reduce) =
            self.block_for(&k.tile_reduce, Some(block), block, slots * T::BYTES, 16)?;
        if rblock != block {
            return Err(GpuError::InvalidLaunch("block size".into()));
        }
        // The fixed-window kernels' shared memory (`rs_fixed_smem`): per thread K doubles (and
        // one pad double every 16 threads, bounded by K bytes per thread), a magnitude and a
        // run of E values; K (RAKE + 1) doubles, RAKE magnitudes and a state more, after a
        // 16-byte header, with 16 bytes to align the runs. None when a kernel cannot take
        // this block (or the runtime does not run them): the general kernels take all.
        let fixed_per_thread = fold * 9 + T::BYTES + T::TILE_ITEMS as usize * T::BYTES;
        let fixed_smem = |f: Option<Func>| {
            let f = f?;
            let fixed = 32 + fold * 8 + RAKE * (fold * 8 + T::BYTES) + slots * T::BYTES;
            self.block_for(&f, Some(block), block, fixed_per_thread, fixed)
                .ok()
                .map(|(_, smem)| (f, smem))
        };
        let rfixed = fixed_smem(k.tile_reduce_fixed);
        let sfixed = fixed_smem(k.tile_scan_fixed).filter(|_| ntiles > 1);
        // The tiles' prefix tree (`rs_tile_prefixes`): a block per group of GROUP tiles.
        let (pblock, smem_prefixes) =
            self.block_for(&k.tile_prefixes, None, DEFAULT_BLOCK, slots * T::BYTES, 16 + rake)?;
        let ngroups = ntiles.div_ceil(GROUP);
        ws.counter.ensure::<R>(CONTROL_BYTES)?;
        let ctl = ws.counter.ptr + 16;
        // The control words are as the kernels leave them after a completed call; after a
        // failed one (or before the first), zero them.
        if ws.ctl_dirty {
            // SAFETY: the counter holds CONTROL_BYTES bytes of this context.
            unsafe { R::memset(ctl, 0, CONTROL_BYTES - 16, stream.0) }?;
        }
        ws.ctl_dirty = true;
        // The start state in the kernels' layout, on the caller's stream before every kernel
        // of the call (the side stream's tile 0 is ordered after the first pass, so after the
        // upload too). Null: no start (each scan kernel checks once per tile). An empty start
        // (no value: no window, no flag) changes nothing and is none.
        let mut start_ptr = 0;
        if let Some(st) = start.filter(|s| s.count() > 0) {
            let len = host::kernel_state(st, &mut ws.start_host);
            ws.start.ensure::<R>(len)?;
            // SAFETY: `start_host` lives as long as the device (it outlives the copy).
            unsafe { R::copy_htod(ws.start.ptr, ws.start_host.as_ptr(), len, stream.0) }?;
            start_ptr = ws.start.ptr;
        }
        let mut scan = Scan {
            x,
            out,
            n: n as u64,
            prefixes: 0,
            start: start_ptr,
            ntiles,
            ctl: ctl + 4,
            fold: fold as u64,
        };
        // More than one tile: the single-pass kernel (`rs_cumsum_lookback`: one block per
        // tile, decoupled look-back over the tiles' states), when the runtime runs it and its
        // shared memory fits this block; otherwise (and for one tile, which the general
        // kernel scans alone) the passes below.
        let single = launch.single_pass.unwrap_or(ntiles <= LOOKBACK_MAX_TILES);
        let lookback = k.cumsum_lookback.filter(|_| ntiles > 1 && single).and_then(|f| {
            self.block_for(&f, Some(block), block, 0, lookback_smem::<T>(fold, block))
                .ok()
                .map(|(_, smem)| (f, smem))
        });
        if let Some((f, smem)) = lookback {
            ws.lb_states.ensure::<R>(2 * ntiles as usize * slots * T::BYTES)?;
            // The listed tiles' prefixes (the general kernel's layout: a state per tile, then
            // one per group, which the kernel leaves empty) and their list.
            ws.tiles
                .ensure::<R>((ntiles + ngroups) as usize * slots * T::BYTES)?;
            ws.list.ensure::<R>(ntiles as usize * 4)?;
            let before = (ws.lb_status.ptr, ws.lb_status.bytes);
            ws.lb_status.ensure::<R>(ntiles as usize * 4)?;
            // The kernel's control words: the fourth to sixth (the tile counter, the two list
            // counts), as the kernel leaves them after a completed call.
            let lctl = ctl + 12;
            // Fresh words (or every epoch used): zero them and the control words, so that no
            // word holds an epoch that a call will use and both counts start at zero.
            if before != (ws.lb_status.ptr, ws.lb_status.bytes) || ws.lb_epoch >= MAX_EPOCH {
                ws.lb_epoch = 0;
                // SAFETY: the status buffer holds at least `bytes` bytes, and the counter
                // CONTROL_BYTES >= 16 + 24 bytes, of this context.
                unsafe {
                    R::memset(ws.lb_status.ptr, 0, ws.lb_status.bytes, stream.0)?;
                    R::memset(lctl, 0, 12, stream.0)?;
                }
            }
            ws.lb_epoch += 1;
            let epoch = ws.lb_epoch;
            let (prefixes, list) = (ws.tiles.ptr, ws.list.ptr);
            let args = lookback_args(
                scan,
                ws.lb_states.ptr,
                ws.lb_status.ptr,
                lctl,
                prefixes,
                list,
                epoch,
            );
            // SAFETY: the kernel reads n values at x, the start and the states and words of
            // this call, and writes `out` (n values, the caller's contract), the states, the
            // words, the control words, the prefixes and the list, allocated above; a grid of
            // one block per tile.
            unsafe { self.launch(&f, ntiles as u32, block, smem, stream, args) }?;
            // The tiles it listed: the general kernel from their stored prefixes (the start is
            // in them), over the list whose count is this epoch's word.
            let listed = Scan {
                prefixes,
                start: 0,
                ctl: lctl + 4 + 4 * (epoch as u64 & 1),
                ..scan
            };
            let grid = (ntiles as u32).min(self.multiprocessors.saturating_mul(4).max(1));
            let args = scan_args(listed, list);
            // SAFETY: the kernel reads the input, the prefixes and the list the kernel above
            // wrote, and writes the listed tiles of `out`.
            unsafe { self.launch(&k.tile_scan, grid, block, smem_scan, stream, args) }?;
            return Ok(true);
        }
        // Two lists of tiles for the general kernels (reduce, then scan); their counts are
        // control words. Null lists: the general kernel takes every tile.
        let (mut list_reduce, mut list_scan) = (0, 0);
        // What the fixed reduce kernel hands the fixed scan kernel (none: the scan kernel
        // takes every tile's pieces itself, as it does when the allocation fails).
        let (mut parts, mut tops) = (0, 0);
        if ntiles > 1 {
            ws.tiles
                .ensure::<R>((ntiles + ngroups) as usize * slots * T::BYTES)?;
            let tiles = ws.tiles.ptr;
            if rfixed.is_some() || sfixed.is_some() {
                ws.list.ensure::<R>(2 * ntiles as usize * 4)?;
            }
            if rfixed.is_some() {
                list_reduce = ws.list.ptr;
            }
            if sfixed.is_some() {
                list_scan = ws.list.ptr + ntiles * 4;
            }
            if rfixed.is_some() && sfixed.is_some() && tile <= T::REUSE_TILE_MAX {
                let handed = ntiles as usize * fold * block as usize * T::BYTES;
                if ws.parts.ensure::<R>(handed + ntiles as usize * 4).is_ok() {
                    parts = ws.parts.ptr;
                    tops = ws.parts.ptr + handed as u64;
                }
            }
            let np = n as u64;
            // The first pass: the fixed-window kernel over every tile, listing those it
            // leaves; the general kernel over the list (a grid-stride loop, so a small grid),
            // or over every tile without the fixed kernel.
            let mut grid = ntiles as u32;
            if let Some((f, smem)) = rfixed {
                let args = reduce_fixed_args(x, np, tiles, ctl, list_reduce, parts, tops, fold);
                // SAFETY: the kernel reads n values at x and writes the tiles' states, the
                // list, its count and the handed sums, allocated above.
                unsafe { self.launch(&f, grid, block, smem, stream, args) }?;
                grid = grid.min(self.multiprocessors.saturating_mul(4).max(1));
            }
            let args = reduce_args(x, np, tiles, ctl, list_reduce, fold);
            // SAFETY: as above; the general kernel reads the list the fixed one wrote (or
            // takes every tile with a null list).
            unsafe { self.launch(&k.tile_reduce, grid, block, smem_reduce, stream, args) }?;
            if let (Some(side), true) = (&self.side, sfixed.is_some() && R::CAPS.side_stream) {
                // Tile 0 (its prefix is the start, or empty) on the general path, which takes
                // a block's whole latency: on the side stream, once the reduce pass has read
                // it (the output may be the input), beside the passes below. The fixed-window
                // scan leaves it alone.
                let args = scan_args(Scan { prefixes: 0, ..scan }, 0);
                // SAFETY: live handles of this context; the kernel writes tile 0 of `out`,
                // which no other kernel of the call writes, after the first pass has read it.
                unsafe {
                    R::record(side.fork, stream.0)?;
                    R::wait(side.stream, side.fork)?;
                    self.launch(&k.tile_scan, 1, block, smem_scan, Stream(side.stream), args)?;
                    R::record(side.join, side.stream)?;
                }
                *forked = true;
            }
            let args = prefixes_args(tiles, ntiles, ctl, fold);
            // SAFETY: the kernel turns the tiles' states into their prefixes in place (the
            // buffer holds ntiles + ngroups states).
            unsafe {
                self.launch(
                    &k.tile_prefixes,
                    ngroups as u32,
                    pblock,
                    smem_prefixes,
                    stream,
                    args,
                )
            }?;
            scan.prefixes = tiles;
        }
        // Tiles: the fixed-window kernel takes every tile it can (but tile 0) and lists the
        // others, which the general kernel then takes (a grid-stride loop over the list).
        // With one tile (no prefixes) or a block the fixed kernel cannot take, the general
        // kernel takes all.
        let mut grid = ntiles as u32;
        if let Some((f, smem)) = sfixed {
            let args = scan_fixed_args(scan, list_scan, parts, tops);
            // SAFETY: the kernel reads the input, the prefixes, the start and the handed sums
            // and writes its tiles of `out` (n values, the caller's contract) and the list.
            unsafe { self.launch(&f, grid, block, smem, stream, args) }?;
            grid = grid.min(self.multiprocessors.saturating_mul(4).max(1));
        }
        let args = scan_args(scan, list_scan);
        // SAFETY: as above, for the listed tiles (or every tile with a null list).
        unsafe { self.launch(&k.tile_scan, grid, block, smem_scan, stream, args) }?;
        Ok(true)
    }

    /// The reproducible sum of a device buffer at fold 3.
    ///
    /// # Errors
    /// A runtime error, [`GpuError::CapacityExceeded`].
    pub fn sum<T: GpuFloat>(&self, x: &DeviceBuffer<R, T>) -> Result<T, GpuError> {
        self.sum_fold(x, reprosum_core::DEFAULT_FOLD)
    }

    /// The reproducible sum of a device buffer at a fold in [`GPU_FOLDS`](crate::GPU_FOLDS).
    ///
    /// # Errors
    /// [`GpuError::UnsupportedFold`], a runtime error, [`GpuError::CapacityExceeded`].
    pub fn sum_fold<T: GpuFloat>(&self, x: &DeviceBuffer<R, T>, fold: usize) -> Result<T, GpuError> {
        self.accumulate_with(x, fold, &Launch::default()).map(|r| r.1)
    }

    /// The accumulator of a device buffer's values: the core's state (same bytes), ready
    /// to merge with CPU accumulators.
    ///
    /// # Errors
    /// As [`Device::sum_fold`].
    pub fn accumulate<T: GpuFloat>(
        &self,
        x: &DeviceBuffer<R, T>,
        fold: usize,
    ) -> Result<DynAccumulator<T>, GpuError> {
        self.accumulate_with(x, fold, &Launch::default()).map(|r| r.0)
    }

    /// [`Device::accumulate`] with explicit launch settings, returning the accumulator and
    /// the value converted on the device.
    ///
    /// # Errors
    /// As [`Device::sum_fold`], and [`GpuError::InvalidLaunch`].
    pub fn accumulate_with<T: GpuFloat>(
        &self,
        x: &DeviceBuffer<R, T>,
        fold: usize,
        launch: &Launch,
    ) -> Result<(DynAccumulator<T>, T), GpuError> {
        self.check_buffer(x)?;
        // SAFETY: the buffer holds x.len values of T on this device.
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
        // SAFETY: the caller's contract.
        unsafe { self.sum_state::<T>(x, n, fold, stream, launch) }
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
        check_fold::<T>(fold)?;
        if xs.len() as u64 > T::CAPACITY {
            return Err(GpuError::CapacityExceeded);
        }
        let _bound = self.bind()?;
        let mut ws = self.lock();
        let bytes = std::mem::size_of_val(xs);
        ws.input.ensure::<R>(bytes)?;
        let ptr = ws.input.ptr;
        // SAFETY: the staging buffer holds at least xs's bytes; the stream orders the copy
        // before the kernel, and the call synchronises the stream before returning (so xs
        // outlives the copy). The workspace stays locked throughout.
        unsafe {
            if bytes > 0 {
                R::copy_htod(ptr, xs.as_ptr().cast(), bytes, stream.0)?;
            }
            self.sum_locked::<T>(&mut ws, ptr, xs.len(), fold, stream, launch)
        }
    }

    /// The cumulative sum of a device buffer into another of the same length.
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`], [`GpuError::UnsupportedFold`], a runtime error.
    pub fn cumsum<T: GpuFloat>(
        &self,
        x: &DeviceBuffer<R, T>,
        out: &mut DeviceBuffer<R, T>,
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
        x: &DeviceBuffer<R, T>,
        out: &mut DeviceBuffer<R, T>,
        fold: usize,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        self.check_pair(x, out)?;
        // SAFETY: both buffers hold len values of T on this device.
        unsafe { self.cumsum_dev::<T>(x.ptr, out.ptr, x.len, fold, None, Stream::DEFAULT, launch) }
    }

    /// The cumulative sum of a device buffer, in place.
    ///
    /// # Errors
    /// As [`Device::cumsum`].
    pub fn cumsum_in_place<T: GpuFloat>(
        &self,
        x: &mut DeviceBuffer<R, T>,
        fold: usize,
    ) -> Result<(), GpuError> {
        self.check_buffer(x)?;
        let launch = Launch::default();
        // SAFETY: the buffer holds len values of T; the kernels allow out == x.
        unsafe { self.cumsum_dev::<T>(x.ptr, x.ptr, x.len, fold, None, Stream::DEFAULT, &launch) }
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
        // SAFETY: the caller's contract.
        unsafe { self.cumsum_dev::<T>(x, out, n, fold, None, stream, launch) }
    }

    /// The cumulative sum of a host slice into a host slice (copied through the workspace;
    /// the result is copied into `out` once the kernels have finished).
    ///
    /// # Errors
    /// As [`Device::cumsum`]; `out` is untouched on error (but a failure of the final copy
    /// itself).
    pub fn cumsum_host<T: GpuFloat>(&self, xs: &[T], out: &mut [T], fold: usize) -> Result<(), GpuError> {
        self.cumsum_host_with(xs, out, fold, Stream::DEFAULT, &Launch::default())
    }

    /// [`Device::cumsum_host`] with explicit stream and launch settings.
    ///
    /// # Errors
    /// As [`Device::cumsum_host`].
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
        if xs.len() != out.len() {
            check_fold::<T>(fold)?;
            return Err(GpuError::LengthMismatch);
        }
        // SAFETY: two slices of xs.len() values (distinct: one is borrowed mutably).
        unsafe {
            self.cumsum_host_raw::<T>(
                xs.as_ptr(),
                out.as_mut_ptr(),
                xs.len(),
                fold,
                start,
                stream,
                launch,
            )
        }
    }

    /// The cumsum of `n` values in host memory at `x` into host memory at `out` (`out == x`
    /// allowed), from `start` when there is one. The values are copied to the workspace,
    /// the kernels run and finish, then the result is copied straight into `out`: `out` is
    /// written only once the result is complete (untouched on every error but a failure of
    /// that last copy itself), and `x` is read before `out` is written, so in place is safe.
    /// No host copy of either (with pinned memory the call runs at the copies' speed).
    ///
    /// # Safety
    /// `x` holds `n` readable values of T and `out` `n` writable ones in host memory, equal
    /// or disjoint; `stream` is null or a live stream of this device.
    #[allow(clippy::too_many_arguments)]
    unsafe fn cumsum_host_raw<T: GpuFloat>(
        &self,
        x: *const T,
        out: *mut T,
        n: usize,
        fold: usize,
        start: Option<&DynAccumulator<T>>,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        check_fold::<T>(fold)?;
        host::check_room::<T>(start.map_or(0, |s| s.count()), n)?;
        if n == 0 {
            return Ok(());
        }
        let _bound = self.bind()?;
        let mut ws = self.lock();
        let bytes = n * T::BYTES;
        ws.input.ensure::<R>(bytes)?;
        ws.output.ensure::<R>(bytes)?;
        let (ip, op) = (ws.input.ptr, ws.output.ptr);
        // SAFETY: workspace buffers of n values each, used under the workspace lock; the
        // stream orders the copy in before the kernels, cumsum_locked returns once they have
        // finished, and the copy back is synchronised before `out` is released.
        unsafe {
            R::copy_htod(ip, x.cast(), bytes, stream.0)?;
            self.cumsum_locked::<T>(&mut ws, ip, op, n, fold, start, stream, launch)?;
            R::copy_dtoh(out.cast(), op, bytes, stream.0)?;
            R::synchronize(stream.0)
        }
    }

    /// Adds a device buffer's values to `acc`, on the device at `acc`'s fold: afterwards
    /// `acc` has the bytes `acc.add_slice` of the same values gives (the device's
    /// accumulator of the buffer, merged exactly into `acc`). `acc` is unchanged on error.
    ///
    /// # Errors
    /// [`GpuError::UnsupportedFold`] (`acc`'s fold outside [`GPU_FOLDS`](crate::GPU_FOLDS)),
    /// [`GpuError::CapacityExceeded`] (`acc`'s count and the buffer's length together pass
    /// the capacity), both before any device work; [`GpuError::InvalidPointer`] (a buffer of
    /// another device), a runtime error.
    pub fn add_to<T: GpuFloat>(
        &self,
        acc: &mut DynAccumulator<T>,
        x: &DeviceBuffer<R, T>,
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
        check_fold::<T>(acc.fold())?;
        host::check_room::<T>(acc.count(), n)?;
        if n == 0 {
            return Ok(());
        }
        // SAFETY: the caller's contract.
        let (part, _) = unsafe { self.sum_state::<T>(x, n, acc.fold(), stream, launch) }?;
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
        check_fold::<T>(acc.fold())?;
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
    /// [`GpuError::UnsupportedFold`] (`start`'s fold outside [`GPU_FOLDS`](crate::GPU_FOLDS)),
    /// [`GpuError::LengthMismatch`], [`GpuError::CapacityExceeded`] (`start`'s count and the
    /// length together pass the capacity), a runtime error. Errors found before the launch
    /// leave `out` untouched.
    pub fn cumsum_from<T: GpuFloat>(
        &self,
        start: &DynAccumulator<T>,
        x: &DeviceBuffer<R, T>,
        out: &mut DeviceBuffer<R, T>,
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
        x: &DeviceBuffer<R, T>,
        out: &mut DeviceBuffer<R, T>,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        check_fold::<T>(start.fold())?;
        self.check_pair(x, out)?;
        let fold = start.fold();
        // SAFETY: both buffers hold len values of T on this device.
        unsafe { self.cumsum_dev::<T>(x.ptr, out.ptr, x.len, fold, Some(start), Stream::DEFAULT, launch) }
    }

    /// [`Device::cumsum_from`] in place.
    ///
    /// # Errors
    /// As [`Device::cumsum_from`].
    pub fn cumsum_from_in_place<T: GpuFloat>(
        &self,
        start: &DynAccumulator<T>,
        x: &mut DeviceBuffer<R, T>,
    ) -> Result<(), GpuError> {
        check_fold::<T>(start.fold())?;
        self.check_buffer(x)?;
        let (fold, launch) = (start.fold(), Launch::default());
        // SAFETY: the buffer holds len values of T; the kernels allow out == x.
        unsafe { self.cumsum_dev::<T>(x.ptr, x.ptr, x.len, fold, Some(start), Stream::DEFAULT, &launch) }
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
        check_fold::<T>(start.fold())?;
        // SAFETY: the caller's contract.
        unsafe { self.cumsum_dev::<T>(x, out, n, start.fold(), Some(start), stream, launch) }
    }

    /// [`Device::cumsum_from`] of a host slice into a host slice (staged through the
    /// workspace).
    ///
    /// # Errors
    /// As [`Device::cumsum_from`]; `out` is untouched on error (but a failure of the final
    /// copy itself).
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

    fn check_buffer<T>(&self, b: &DeviceBuffer<R, T>) -> Result<(), GpuError> {
        if b.ordinal != self.ordinal {
            return Err(GpuError::InvalidPointer("buffer of another device"));
        }
        Ok(())
    }

    fn check_pair<T>(&self, x: &DeviceBuffer<R, T>, out: &DeviceBuffer<R, T>) -> Result<(), GpuError> {
        self.check_buffer(x)?;
        self.check_buffer(out)?;
        if x.len != out.len {
            return Err(GpuError::LengthMismatch);
        }
        Ok(())
    }

    fn probe(&self) -> Result<(), GpuError> {
        let (in64, in32, want64, want32) = probe_cases();
        let d_in64 = DeviceBuffer::<R, u64>::from_host(self, &in64)?;
        let d_in32 = DeviceBuffer::<R, u32>::from_host(self, &in32)?;
        let d_out64 = DeviceBuffer::<R, u64>::from_host(self, &[0xA5A5_A5A5_A5A5_A5A5u64; 12])?;
        let d_out32 = DeviceBuffer::<R, u32>::from_host(self, &[0xA5A5_A5A5u32; 16])?;
        let args: Args<PROBE_PARAMS> = Args([d_in64.ptr, d_out64.ptr, d_in32.ptr, d_out32.ptr]);
        {
            let _bound = self.bind()?;
            // SAFETY: the buffers have the sizes rs_probe reads and writes.
            unsafe {
                self.launch(&self.probe, 1, 1, 0, Stream::DEFAULT, args)?;
                R::synchronize(std::ptr::null_mut())?;
            }
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
        // The tuned kernels at three folds, the run-time-fold ones at f32's largest.
        for fold in [2, 3, 8, 21] {
            self.self_check_one(&xs, fold)?;
            self.self_check_one(&fs, fold)?;
        }
        Ok(())
    }

    fn self_check_one<T: GpuFloat>(&self, xs: &[T], fold: usize) -> Result<(), GpuError> {
        let (acc, v) = self.accumulate_host_with::<T>(xs, fold, Stream::DEFAULT, &Launch::default())?;
        let want = reprosum_core::sum_fold(xs, fold)?;
        let mut c = DynAccumulator::<T>::new(fold)?;
        c.add_slice(xs)?;
        if v.bits() != want.bits() || acc.to_bytes().as_bytes() != c.to_bytes().as_bytes() {
            return Err(GpuError::ProbeFailed(format!(
                "{} self-check at fold {fold}",
                T::SUFFIX
            )));
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

/// The general tile-scan kernel's shared memory at `fold`: bytes per thread (a state and a
/// padded run of the tile) and fixed bytes (a 16-byte header, the raking threads' states).
fn scan_smem<T: GpuFloat>(fold: usize) -> (usize, usize) {
    let slots = 2 * fold + 1;
    (
        slots * T::BYTES + (T::TILE_ITEMS as usize + 1) * T::BYTES,
        16 + RAKE * slots * T::BYTES,
    )
}

/// The single-pass kernel's shared memory at `fold` and `block` (`rs_lb_smem_bytes`): the
/// fixed-window kernels' layout with room at the tile for a block reduce's states.
fn lookback_smem<T: GpuFloat>(fold: usize, block: u32) -> usize {
    let b = block as usize;
    let e = T::TILE_ITEMS as usize;
    let st = 2 * fold + 1;
    let m = 16 + fold * (b + b / 16 + 1 + RAKE) * 8;
    let v = (m + (b + RAKE) * T::BYTES + st * T::BYTES + 15) & !15;
    v + b * e.max(st) * T::BYTES
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
pub struct DeviceBuffer<R: Runtime, T> {
    ptr: u64,
    len: usize,
    ordinal: usize,
    ctx: R::Ctx,
    _t: PhantomData<T>,
}

// SAFETY: the buffer owns its device memory; the address is usable from any thread.
unsafe impl<R: Runtime, T: Send> Send for DeviceBuffer<R, T> {}
// SAFETY: shared references only read the address.
unsafe impl<R: Runtime, T: Sync> Sync for DeviceBuffer<R, T> {}

impl<R: Runtime, T: Copy> DeviceBuffer<R, T> {
    /// A buffer of `len` values whose contents are whatever the device memory held.
    ///
    /// # Safety
    /// The contents are not initialised: reading them before writing them (a copy, a
    /// kernel's output, [`DeviceBuffer::fill_bytes`]) reads unspecified bits, which for
    /// types with invalid bit patterns is undefined behaviour.
    ///
    /// # Errors
    /// [`GpuError::CapacityExceeded`] when the size in bytes overflows, a runtime error (out
    /// of memory).
    pub unsafe fn uninit(dev: &Device<R>, len: usize) -> Result<Self, GpuError> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or(GpuError::CapacityExceeded)?
            .max(1);
        let _bound = dev.bind()?;
        // SAFETY: the device's context is bound.
        let ptr = unsafe { R::malloc(bytes) }?;
        Ok(DeviceBuffer {
            ptr,
            len,
            ordinal: dev.ordinal,
            ctx: dev.ctx,
            _t: PhantomData,
        })
    }

    /// A buffer of `len` values whose bytes are all zero.
    ///
    /// # Errors
    /// As [`DeviceBuffer::uninit`].
    pub fn zeroed(dev: &Device<R>, len: usize) -> Result<Self, GpuError> {
        // SAFETY: every byte is written before the buffer is returned.
        let mut b = unsafe { Self::uninit(dev, len) }?;
        b.fill_bytes(0)?;
        Ok(b)
    }

    /// A buffer holding a copy of `xs`.
    ///
    /// # Errors
    /// As [`DeviceBuffer::uninit`].
    pub fn from_host(dev: &Device<R>, xs: &[T]) -> Result<Self, GpuError> {
        // SAFETY: every value is written by the copy before the buffer is returned.
        let b = unsafe { Self::uninit(dev, xs.len()) }?;
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
        let _bound = Bound::<R>::bind(self.ctx)?;
        // SAFETY: the allocation holds len values of T; the copy is complete when the
        // default stream is synchronised, before xs can go away.
        unsafe {
            R::copy_htod(
                self.ptr,
                xs.as_ptr().cast(),
                std::mem::size_of_val(xs),
                std::ptr::null_mut(),
            )?;
            R::synchronize(std::ptr::null_mut())
        }
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
        let _bound = Bound::<R>::bind(self.ctx)?;
        // SAFETY: the allocation holds len values of T; the copy is complete when the
        // default stream is synchronised, before `out` can be read.
        unsafe {
            R::copy_dtoh(
                out.as_mut_ptr().cast(),
                self.ptr,
                std::mem::size_of_val(out),
                std::ptr::null_mut(),
            )?;
            R::synchronize(std::ptr::null_mut())
        }
    }

    /// Sets every byte of the buffer to `byte` (to poison outputs in tests).
    ///
    /// # Errors
    /// A runtime error.
    pub fn fill_bytes(&mut self, byte: u8) -> Result<(), GpuError> {
        let _bound = Bound::<R>::bind(self.ctx)?;
        let bytes = self.len * std::mem::size_of::<T>();
        // SAFETY: the allocation holds `bytes` bytes (checked when it was made).
        unsafe {
            R::memset(self.ptr, byte, bytes, std::ptr::null_mut())?;
            R::synchronize(std::ptr::null_mut())
        }
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
}

impl<R: Runtime, T> Drop for DeviceBuffer<R, T> {
    fn drop(&mut self) {
        if let Ok(_bound) = Bound::<R>::bind(self.ctx) {
            // SAFETY: ptr came from malloc in ctx; every call using it has synchronised. A
            // failure cannot be reported from drop.
            let _ = unsafe { R::free(self.ptr) };
        }
    }
}

/// The sum of `n` values at `x`, wherever they live: device memory is used in place (on
/// the device that holds it), host memory is copied to the current device
/// ([`Runtime::current_ordinal`]). Returns the accumulator and its value; the stream (null:
/// the default stream) is synchronised before returning. This is what `adn_cuda_sum_*` and
/// `adn_hip_sum_*` call.
///
/// # Safety
/// `x` must point to `n` readable, aligned values of T (host or device), and `stream` be
/// null or a live stream of the device that runs the call.
///
/// # Errors
/// [`GpuError::NoRuntime`], [`GpuError::NoDevice`], [`GpuError::UnsupportedFold`],
/// [`GpuError::InvalidPointer`], [`GpuError::CapacityExceeded`], a runtime error.
pub unsafe fn accumulate_ptr<R: Runtime, T: GpuFloat>(
    x: *const T,
    n: usize,
    fold: usize,
    stream: *mut c_void,
) -> Result<(DynAccumulator<T>, T), GpuError> {
    check_fold::<T>(fold)?;
    if n == 0 {
        device::<R>(R::current_ordinal()?)?;
        let a = DynAccumulator::<T>::new(fold)?;
        let v = a.value();
        return Ok((a, v));
    }
    if x.is_null() || (x as usize) & (T::BYTES - 1) != 0 {
        return Err(GpuError::InvalidPointer("null or misaligned input"));
    }
    // SAFETY: the caller's contract.
    let stream = unsafe { Stream::from_raw(stream) };
    match R::memory_of(x.cast())? {
        // SAFETY: n values of T in that device's memory (the caller's contract).
        Memory::Device(ord) => unsafe {
            device::<R>(ord)?.accumulate_raw::<T>(x as u64, n, fold, stream, &Launch::default())
        },
        Memory::Host => {
            // SAFETY: n readable values of T in host memory (the caller's contract).
            let xs = unsafe { std::slice::from_raw_parts(x, n) };
            device::<R>(R::current_ordinal()?)?.accumulate_host_with(xs, fold, stream, &Launch::default())
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
pub unsafe fn sum_ptr<R: Runtime, T: GpuFloat>(
    x: *const T,
    n: usize,
    fold: usize,
    stream: *mut c_void,
) -> Result<T, GpuError> {
    // SAFETY: the caller's contract.
    unsafe { accumulate_ptr::<R, T>(x, n, fold, stream) }.map(|r| r.1)
}

/// Adds `n` values at `x`, wherever they live (as [`accumulate_ptr`]: device memory used in
/// place on its device, host memory copied to the current device), to `acc` at `acc`'s fold:
/// afterwards `acc` has the bytes `acc.add_slice` of the same values gives. `acc` is
/// unchanged on any error. This is what `adn_cuda_acc_*_add_array` and
/// `adn_hip_acc_*_add_array` call.
///
/// # Safety
/// As [`accumulate_ptr`].
///
/// # Errors
/// [`GpuError::UnsupportedFold`] (`acc`'s fold outside [`GPU_FOLDS`](crate::GPU_FOLDS)) and
/// [`GpuError::CapacityExceeded`] (`acc`'s count and `n` together pass the capacity), both
/// before any device work; then as [`accumulate_ptr`].
pub unsafe fn add_ptr<R: Runtime, T: GpuFloat>(
    acc: &mut DynAccumulator<T>,
    x: *const T,
    n: usize,
    stream: *mut c_void,
) -> Result<(), GpuError> {
    check_fold::<T>(acc.fold())?;
    host::check_room::<T>(acc.count(), n)?;
    // SAFETY: the caller's contract.
    let (part, _) = unsafe { accumulate_ptr::<R, T>(x, n, acc.fold(), stream) }?;
    host::add_part(acc, &part)
}

/// The cumulative sum of `n` values at `x` into `out`, which must live where `x` lives
/// (both device memory of one device, used in place, or both host memory, copied to the
/// current device); `out == x` is allowed, any other overlap is an error. This is what
/// `adn_cuda_cumsum_*` and `adn_hip_cumsum_*` call.
///
/// # Safety
/// `x` must point to `n` readable values of T and `out` to `n` writable ones (aligned);
/// `stream` null or a live stream of the device that runs the call.
///
/// # Errors
/// As [`accumulate_ptr`], and [`GpuError::InvalidPointer`] when `x` and `out` live in
/// different memories. Errors before the launch leave `out` untouched; a device fault
/// during the kernels may leave a device-resident `out` partly written.
pub unsafe fn cumsum_ptr<R: Runtime, T: GpuFloat>(
    x: *const T,
    out: *mut T,
    n: usize,
    fold: usize,
    stream: *mut c_void,
) -> Result<(), GpuError> {
    // SAFETY: the caller's contract.
    unsafe { cumsum_ptr_from::<R, T>(x, out, n, fold, None, stream) }
}

/// The cumulative sum of `n` values at `x` into `out` continued from `start`: `out[i]` gets
/// the value of `start` with `x[0..=i]` added (the bits of `reprosum::cumsum_from`), at
/// `start`'s fold; the pointers follow the rules of [`cumsum_ptr`] (`out == x` allowed).
/// `start` is not changed (add the values to it with [`add_ptr`] to go on). This is what
/// `adn_cuda_cumsum_*_from` and `adn_hip_cumsum_*_from` call.
///
/// # Safety
/// As [`cumsum_ptr`].
///
/// # Errors
/// [`GpuError::UnsupportedFold`] (`start`'s fold outside [`GPU_FOLDS`](crate::GPU_FOLDS)) and
/// [`GpuError::CapacityExceeded`] (`start`'s count and `n` together pass the capacity), both
/// before any device work; then as [`cumsum_ptr`]. Errors before the launch leave `out`
/// untouched.
pub unsafe fn cumsum_from_ptr<R: Runtime, T: GpuFloat>(
    start: &DynAccumulator<T>,
    x: *const T,
    out: *mut T,
    n: usize,
    stream: *mut c_void,
) -> Result<(), GpuError> {
    // SAFETY: the caller's contract.
    unsafe { cumsum_ptr_from::<R, T>(x, out, n, start.fold(), Some(start), stream) }
}

/// [`cumsum_ptr`], from `start` when there is one (then `fold` is its fold).
///
/// # Safety
/// As [`cumsum_ptr`].
unsafe fn cumsum_ptr_from<R: Runtime, T: GpuFloat>(
    x: *const T,
    out: *mut T,
    n: usize,
    fold: usize,
    start: Option<&DynAccumulator<T>>,
    stream: *mut c_void,
) -> Result<(), GpuError> {
    check_fold::<T>(fold)?;
    host::check_room::<T>(start.map_or(0, |s| s.count()), n)?;
    if n == 0 {
        device::<R>(R::current_ordinal()?)?;
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
        return Err(GpuError::Overlap("input and output (only out == x is allowed)"));
    }
    // SAFETY: the caller's contract.
    let stream = unsafe { Stream::from_raw(stream) };
    let launch = Launch::default();
    match (R::memory_of(x.cast())?, R::memory_of(out.cast())?) {
        (Memory::Device(a), Memory::Device(b)) if a == b => {
            // SAFETY: n values of T at x and at out in that device's memory (the caller's
            // contract); overlap was refused above unless out == x.
            unsafe { device::<R>(a)?.cumsum_dev::<T>(x as u64, out as u64, n, fold, start, stream, &launch) }
        }
        (Memory::Host, Memory::Host) => {
            // `out` may be `x`: the values are on the device before `out` is written.
            // SAFETY: n values of T at x and at out in host memory (the caller's contract),
            // equal or disjoint (overlap was refused above).
            unsafe {
                device::<R>(R::current_ordinal()?)?
                    .cumsum_host_raw::<T>(x, out, n, fold, start, stream, &launch)
            }
        }
        _ => Err(GpuError::InvalidPointer("input and output in different memories")),
    }
}

/// The entry points of one runtime's module (`crate::cuda`, `crate::hip`): the generic host
/// named for that runtime.
macro_rules! runtime_module {
    ($rt:ty) => {
        pub use crate::device::{
            probe_cases, GpuFloat, Launch, Stream, CUMSUM_BLOCK, DEFAULT_BLOCK, LOOKBACK_MAX_TILES, SEG_BLOCK,
        };
        pub use crate::runtime::Memory;

        /// A device of this runtime.
        pub type Device = crate::device::Device<$rt>;
        /// A device allocation of this runtime.
        pub type DeviceBuffer<T> = crate::device::DeviceBuffer<$rt, T>;
        /// The calling thread's current context (or device), made current again when this is
        /// dropped. Every call of this module restores it by itself; an entry point may hold
        /// one across several calls.
        pub type RestoreContext = crate::device::Bound<$rt>;

        /// The device with this ordinal, opened, probed and cached on first use.
        ///
        /// # Errors
        /// As [`crate::device::device`].
        pub fn device(ordinal: usize) -> Result<std::sync::Arc<Device>, crate::GpuError> {
            crate::device::device::<$rt>(ordinal)
        }

        /// How many devices the runtime reports.
        ///
        /// # Errors
        /// [`crate::GpuError::NoRuntime`], or a runtime error.
        pub fn device_count() -> Result<usize, crate::GpuError> {
            <$rt as crate::runtime::Runtime>::init()?;
            <$rt as crate::runtime::Runtime>::device_count()
        }

        /// What kind of memory `ptr` is.
        ///
        /// # Errors
        /// [`crate::GpuError::NoRuntime`], [`crate::GpuError::NoDevice`], a runtime error.
        pub fn memory_of(ptr: *const std::ffi::c_void) -> Result<Memory, crate::GpuError> {
            <$rt as crate::runtime::Runtime>::memory_of(ptr)
        }

        /// The ordinal of the calling thread's current device (0 when none is current):
        /// where host inputs are copied to.
        ///
        /// # Errors
        /// [`crate::GpuError::NoRuntime`], or a runtime error.
        pub fn current_ordinal() -> Result<usize, crate::GpuError> {
            <$rt as crate::runtime::Runtime>::init()?;
            <$rt as crate::runtime::Runtime>::current_ordinal()
        }

        /// [`crate::device::accumulate_ptr`] on this runtime.
        ///
        /// # Safety
        /// As [`crate::device::accumulate_ptr`].
        ///
        /// # Errors
        /// As [`crate::device::accumulate_ptr`].
        pub unsafe fn accumulate_ptr<T: GpuFloat>(
            x: *const T,
            n: usize,
            fold: usize,
            stream: *mut std::ffi::c_void,
        ) -> Result<(reprosum_core::DynAccumulator<T>, T), crate::GpuError> {
            // SAFETY: the caller's contract.
            unsafe { crate::device::accumulate_ptr::<$rt, T>(x, n, fold, stream) }
        }

        /// [`crate::device::sum_ptr`] on this runtime.
        ///
        /// # Safety
        /// As [`crate::device::accumulate_ptr`].
        ///
        /// # Errors
        /// As [`crate::device::accumulate_ptr`].
        pub unsafe fn sum_ptr<T: GpuFloat>(
            x: *const T,
            n: usize,
            fold: usize,
            stream: *mut std::ffi::c_void,
        ) -> Result<T, crate::GpuError> {
            // SAFETY: the caller's contract.
            unsafe { crate::device::sum_ptr::<$rt, T>(x, n, fold, stream) }
        }

        /// [`crate::device::add_ptr`] on this runtime.
        ///
        /// # Safety
        /// As [`crate::device::accumulate_ptr`].
        ///
        /// # Errors
        /// As [`crate::device::add_ptr`].
        pub unsafe fn add_ptr<T: GpuFloat>(
            acc: &mut reprosum_core::DynAccumulator<T>,
            x: *const T,
            n: usize,
            stream: *mut std::ffi::c_void,
        ) -> Result<(), crate::GpuError> {
            // SAFETY: the caller's contract.
            unsafe { crate::device::add_ptr::<$rt, T>(acc, x, n, stream) }
        }

        /// [`crate::device::cumsum_ptr`] on this runtime.
        ///
        /// # Safety
        /// As [`crate::device::cumsum_ptr`].
        ///
        /// # Errors
        /// As [`crate::device::cumsum_ptr`].
        pub unsafe fn cumsum_ptr<T: GpuFloat>(
            x: *const T,
            out: *mut T,
            n: usize,
            fold: usize,
            stream: *mut std::ffi::c_void,
        ) -> Result<(), crate::GpuError> {
            // SAFETY: the caller's contract.
            unsafe { crate::device::cumsum_ptr::<$rt, T>(x, out, n, fold, stream) }
        }

        /// [`crate::device::cumsum_from_ptr`] on this runtime.
        ///
        /// # Safety
        /// As [`crate::device::cumsum_ptr`].
        ///
        /// # Errors
        /// As [`crate::device::cumsum_from_ptr`].
        pub unsafe fn cumsum_from_ptr<T: GpuFloat>(
            start: &reprosum_core::DynAccumulator<T>,
            x: *const T,
            out: *mut T,
            n: usize,
            stream: *mut std::ffi::c_void,
        ) -> Result<(), crate::GpuError> {
            // SAFETY: the caller's contract.
            unsafe { crate::device::cumsum_from_ptr::<$rt, T>(start, x, out, n, stream) }
        }

        /// [`crate::device::segmented_sum_ptr`] on this runtime.
        ///
        /// # Safety
        /// As [`crate::device::segmented_sum_ptr`].
        ///
        /// # Errors
        /// As [`crate::device::segmented_sum_ptr`].
        pub unsafe fn segmented_sum_ptr<T: GpuFloat>(
            x: *const T,
            offsets: *const usize,
            nseg: usize,
            fold: usize,
            out: *mut T,
            stream: *mut std::ffi::c_void,
        ) -> Result<(), crate::GpuError> {
            // SAFETY: the caller's contract.
            unsafe { crate::device::segmented_sum_ptr::<$rt, T>(x, offsets, nseg, fold, out, stream) }
        }

        /// [`crate::device::segmented_cumsum_ptr`] on this runtime.
        ///
        /// # Safety
        /// As [`crate::device::segmented_cumsum_ptr`].
        ///
        /// # Errors
        /// As [`crate::device::segmented_cumsum_ptr`].
        pub unsafe fn segmented_cumsum_ptr<T: GpuFloat>(
            input: *const T,
            out: *mut T,
            offsets: *const usize,
            nseg: usize,
            fold: usize,
            stream: *mut std::ffi::c_void,
        ) -> Result<(), crate::GpuError> {
            // SAFETY: the caller's contract.
            unsafe { crate::device::segmented_cumsum_ptr::<$rt, T>(input, out, offsets, nseg, fold, stream) }
        }

        /// [`crate::device::sum_rows_ptr`] on this runtime.
        ///
        /// # Safety
        /// As [`crate::device::sum_rows_ptr`].
        ///
        /// # Errors
        /// As [`crate::device::sum_rows_ptr`].
        pub unsafe fn sum_rows_ptr<T: GpuFloat>(
            x: *const T,
            rows: usize,
            cols: usize,
            row_stride: usize,
            fold: usize,
            out: *mut T,
            stream: *mut std::ffi::c_void,
        ) -> Result<(), crate::GpuError> {
            // SAFETY: the caller's contract.
            unsafe { crate::device::sum_rows_ptr::<$rt, T>(x, rows, cols, row_stride, fold, out, stream) }
        }

        /// [`crate::device::sum_by_key_ptr`] on this runtime.
        ///
        /// # Safety
        /// As [`crate::device::sum_by_key_ptr`].
        ///
        /// # Errors
        /// As [`crate::device::sum_by_key_ptr`].
        pub unsafe fn sum_by_key_ptr<T: GpuFloat>(
            x: *const T,
            keys: *const i64,
            n: usize,
            nkeys: usize,
            fold: usize,
            out: *mut T,
            stream: *mut std::ffi::c_void,
        ) -> Result<(), crate::GpuError> {
            // SAFETY: the caller's contract.
            unsafe { crate::device::sum_by_key_ptr::<$rt, T>(x, keys, n, nkeys, fold, out, stream) }
        }
    };
}
pub(crate) use runtime_module;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::KERNELS;

    /// The kernel source with the sum's and the dense path's launch bounds
    /// (`void RS_SUM_BOUNDS_##TN##_##KN rs_sum_...`) left out, so that every kernel reads `RS_KERNEL void NAME...(`.
    fn source() -> String {
        KERNELS
            .replace("RS_KERNEL void RS_SUM_BOUNDS_##TN##_##KN ", "RS_KERNEL void ")
            .replace("RS_KERNEL void RS_DENSE_BOUNDS_##TN##_##KN ", "RS_KERNEL void ")
    }

    /// The parameter count of each `RS_KERNEL void NAME...(...)` in the kernel source.
    fn params(name: &str) -> usize {
        let src = source();
        let at = src
            .find(&format!("RS_KERNEL void {name}("))
            .or_else(|| src.find(&format!("RS_KERNEL void {name}_##TN##_k##KN(")))
            .or_else(|| src.find(&format!("RS_KERNEL void {name}_##TN##_k##K(")))
            .or_else(|| src.find(&format!("RS_KERNEL void {name}_##TN##_kn(")))
            .or_else(|| src.find(&format!("RS_KERNEL void {name}_##TN(")))
            .unwrap_or_else(|| panic!("no kernel {name} in the source"));
        let open = at + src[at..].find('(').unwrap();
        let close = open + src[open..].find(')').unwrap();
        src[open + 1..close].split(',').count()
    }

    #[test]
    fn argument_lists_are_the_kernels_parameter_lists() {
        assert_eq!(params("rs_sum"), SUM_PARAMS);
        assert_eq!(params("rs_tile_reduce"), REDUCE_PARAMS);
        assert_eq!(params("rs_tile_reduce_fixed"), REDUCE_FIXED_PARAMS);
        assert_eq!(params("rs_tile_prefixes"), PREFIXES_PARAMS);
        assert_eq!(params("rs_tile_scan"), SCAN_PARAMS);
        assert_eq!(params("rs_tile_scan_fixed"), SCAN_FIXED_PARAMS);
        assert_eq!(params("rs_cumsum_lookback"), LOOKBACK_PARAMS);
        assert_eq!(params("rs_probe"), PROBE_PARAMS);
        assert_eq!(params("rs_seg_prep"), segmented::SEG_PREP_PARAMS);
        assert_eq!(params("rs_seg_list"), segmented::SEG_LIST_PARAMS);
        assert_eq!(params("rs_seg_sum"), segmented::SEG_SUM_PARAMS);
        assert_eq!(params("rs_seg_long"), segmented::SEG_LONG_PARAMS);
        assert_eq!(params("rs_seg_join"), segmented::SEG_JOIN_PARAMS);
        assert_eq!(params("rs_seg_dense"), segmented::SEG_DENSE_PARAMS);
        assert_eq!(params("rs_seg_dense_teams"), segmented::SEG_DENSE_PARAMS);
        assert_eq!(params("rs_seg_dense_join"), segmented::SEG_DENSE_JOIN_PARAMS);
        assert_eq!(params("rs_rows_short"), segmented::ROWS_SHORT_PARAMS);
        assert_eq!(params("rs_rows_long"), segmented::ROWS_LONG_PARAMS);
        assert_eq!(params("rs_segcs_reduce"), segmented::SEGCS_REDUCE_PARAMS);
        assert_eq!(params("rs_segcs_carry"), segmented::SEGCS_CARRY_PARAMS);
        assert_eq!(params("rs_segcs_scan"), segmented::SEGCS_SCAN_PARAMS);
        assert_eq!(params("rs_key_count"), keyed::KEY_COUNT_PARAMS);
        assert_eq!(params("rs_u64_scan_up"), keyed::SCAN_UP_PARAMS);
        assert_eq!(params("rs_u64_scan_parts"), keyed::SCAN_PARTS_PARAMS);
        assert_eq!(params("rs_u64_scan_down"), keyed::SCAN_DOWN_PARAMS);
        assert_eq!(params("rs_key_scatter_f64"), keyed::KEY_SCATTER_PARAMS);
        assert_eq!(params("rs_key_scatter_f32"), keyed::KEY_SCATTER_PARAMS);
        assert_eq!(params("rs_kr_count"), keyed::KR_COUNT_PARAMS);
        assert_eq!(params("rs_kr_plan"), keyed::KR_PLAN_PARAMS);
        assert_eq!(params("rs_kr_part"), keyed::KR_PART_PARAMS);
        assert_eq!(params("rs_kr_part2"), keyed::KR_PART2_PARAMS);
        assert_eq!(params("rs_kr_acc"), keyed::KR_ACC_PARAMS);
        assert_eq!(params("rs_kr_merge"), keyed::KR_MERGE_PARAMS);
    }

    /// The single-pass kernel's shared memory as the kernel's `rs_lb_smem_bytes` gives it
    /// (its values computed from the kernel text compiled for the CPU).
    #[test]
    fn lookback_smem_is_the_kernels() {
        for (block, want) in [
            (32, [6288, 9312, 6016, 5472]),
            (100, [17264, 23712, 16720, 15600]),
            (128, [21792, 29664, 21136, 19776]),
            (512, [83808, 111072, 81616, 76992]),
        ] {
            let got = [
                lookback_smem::<f64>(3, block),
                lookback_smem::<f64>(8, block),
                lookback_smem::<f32>(3, block),
                lookback_smem::<f32>(2, block),
            ];
            assert_eq!(got, want, "block {block}");
        }
    }

    /// The body of `struct RsF<T>` for one type.
    fn traits_of(ty: &str) -> &'static str {
        let at = KERNELS
            .find(&format!("struct RsF<{ty}> {{"))
            .expect("RsF specialisation");
        &KERNELS[at..at + KERNELS[at..].find("};").unwrap()]
    }

    #[test]
    fn host_constants_are_the_kernels() {
        assert!(KERNELS.contains(&format!("#define RS_RAKE {RAKE}\n")));
        assert!(KERNELS.contains(&format!(
            "#define RS_UNROLL {}\n",
            segmented::ROWS_SHORT_CHUNK_BYTES / 16
        )));
        assert!(KERNELS.contains(&format!("#define RS_ROW_TEAM {}\n", segmented::ROW_TEAM)));
        assert!(KERNELS.contains(&format!("#define RS_KEY_LOCAL {}\n", keyed::KEY_LOCAL)));
        assert!(KERNELS.contains(&format!("#define RS_SCAN_E {}\n", keyed::SCAN_ITEMS)));
        assert!(KERNELS.contains(&format!("#define RS_KR_U {}\n", keyed::KR_ITEMS)));
        assert!(keyed::KEY_TABLE_SLOTS.is_power_of_two());
        assert!(KERNELS.contains(&format!(
            "#define RS_KEY_TS_LOG2 {}\n",
            keyed::KEY_TABLE_SLOTS.trailing_zeros()
        )));
        for (ty, items) in [("double", f64::TILE_ITEMS), ("float", f32::TILE_ITEMS)] {
            assert!(
                traits_of(ty).contains(&format!("TILE_E = {items};")),
                "{ty} TILE_E"
            );
        }
        for (ty, items) in [("double", f64::SEG_ITEMS), ("float", f32::SEG_ITEMS)] {
            assert!(traits_of(ty).contains(&format!("SEG_E = {items};")), "{ty} SEG_E");
        }
        assert!(KERNELS.contains(&format!(
            "return sizeof(T) == 8 ? {}u : {}u;",
            f64::REUSE_TILE_MAX,
            f32::REUSE_TILE_MAX
        )));
        // The format constants the host relies on through the core.
        for (ty, w, endurance) in [("double", 40, 2048), ("float", 13, 512)] {
            assert!(traits_of(ty).contains(&format!("W = {w},")), "{ty} W");
            assert!(
                traits_of(ty).contains(&format!("ENDURANCE = {endurance};")),
                "{ty} endurance"
            );
        }
        // The folds the host looks up are the ones instantiated, and no others; the
        // run-time-fold kernels take every fold of the format.
        for (ty, tn, max) in [
            ("double", "f64", <f64 as Float>::MAX_FOLD),
            ("float", "f32", <f32 as Float>::MAX_FOLD),
        ] {
            let built: Vec<usize> = (1..=64)
                .filter(|k| KERNELS.contains(&format!("RS_INSTANTIATE({ty}, {tn}, {k})\n")))
                .collect();
            assert_eq!(built, TUNED_FOLDS.collect::<Vec<_>>(), "{ty} folds");
            assert!(
                KERNELS.contains(&format!("RS_INSTANTIATE_GENERAL({ty}, {tn}, n, -{max})\n")),
                "{ty} run-time-fold kernels up to {max}"
            );
            assert_eq!(
                KERNELS.matches(&format!("RS_INSTANTIATE_GENERAL({ty}, ")).count(),
                1
            );
        }
        // Every kernel's last parameter is the fold.
        for name in [
            "rs_sum",
            "rs_tile_reduce",
            "rs_tile_reduce_fixed",
            "rs_tile_prefixes",
            "rs_seg_sum",
            "rs_seg_long",
            "rs_seg_join",
            "rs_seg_dense",
            "rs_seg_dense_teams",
            "rs_seg_dense_join",
            "rs_rows_short",
            "rs_rows_long",
            "rs_cumsum_lookback",
            "rs_segcs_reduce",
            "rs_segcs_carry",
            "rs_segcs_scan",
        ] {
            let src = source();
            let at = src.find(&format!("RS_KERNEL void {name}_##TN##_k")).unwrap();
            let close = at + src[at..].find(')').unwrap();
            assert!(
                src[at..close]
                    .trim_end_matches(['\\', ' ', '\n'])
                    .ends_with("rs_u64 fold"),
                "{name}"
            );
        }
    }
}
