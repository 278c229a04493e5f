//! "Never panics", proven at link time (in the manner of the `no-panic` crate that libm
//! uses): a `no_std` program that calls every public API of `reprosum-core` on inputs the
//! optimiser cannot see, with a panic handler that calls a function defined nowhere. If any
//! panic path survives optimisation (a bounds check, an `unwrap`, an overflow check, a
//! slice-length assertion of `copy_from_slice`), the handler is reachable, the undefined
//! symbol is referenced and the link fails, naming the function that kept the path.
//!
//! Inputs: every slice is built from a pointer and a length read with
//! `core::ptr::read_volatile` from statics, so its address, length and contents are unknown
//! to the optimiser; folds, paths and indices are read the same way; every result is written
//! out with `write_volatile`, so nothing is optimised away.
//!
//! Built by `check.sh` (beside this directory's Cargo.toml) for `thumbv7em-none-eabihf` and
//! `x86_64-unknown-linux-gnu` with the profiles `release` (opt-level "s") and `nopanic-o3`
//! (opt-level 3), both fat LTO, one codegen unit, panic = abort. The program also runs
//! (under qemu on the Cortex-M4F, natively on x86-64) and checks a few results against each
//! other; it exits 0.
//!
//! Not called (outside the claim): the derived `Debug` of the accumulators, which formats
//! floats with `core`'s own float printing.
//!
//! With the feature `deliberate-index`, one `xs[i]` with an unknown `i` is added: the link
//! must fail (run-all.sh checks that it does).

#![no_std]
#![no_main]

use core::cell::UnsafeCell;
use core::fmt::Write;
use core::ptr::{read_volatile, write_volatile};

use reprosum_core::simd::{self, Path};
use reprosum_core::{encoding, fpenv, Accumulator, Dtype, DynAccumulator, EncodingError, Error, Float};

/// Elements of each buffer: more than a cumulative-sum chunk (128 / 32 values) and two f64
/// endurances (2048), so that the calls renormalise and deposit several blocks. (The
/// optimiser does not know it: the lengths are read with `read_volatile`.)
const N: usize = 2 * 2048 + 37;

/// A buffer that only this single-threaded program touches, through raw pointers.
#[repr(transparent)]
struct Buf<T, const L: usize>(UnsafeCell<[T; L]>);

// SAFETY: the program has one thread (and no interrupt handlers that touch the buffers);
// every access goes through the raw pointers of `Raw`, never two live `&mut` at once.
unsafe impl<T, const L: usize> Sync for Buf<T, L> {}

/// A pointer and a length, read back with `read_volatile`.
#[derive(Clone, Copy)]
struct Raw<T> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: the pointers name the static buffers above; see `Buf`.
unsafe impl<T> Sync for Raw<T> {}

/// 64 pseudo-random bits for element `i` (a fixed stream), from which the inputs take their
/// signs, exponents and significands: magnitudes over 2^-100..2^100 (f64) and 2^-20..2^20
/// (f32), so that the window rises several times; one +Inf among the f64.
const fn stream(i: usize) -> u64 {
    let mut s = 0x9E37_79B9_7F4A_7C15u64 ^ (i as u64).wrapping_mul(0x2545_F491_4F6C_DD1D);
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    s
}

const fn values64() -> [f64; N] {
    let mut a = [0.0; N];
    let mut i = 0;
    while i < N {
        let s = stream(i);
        // Exponent fields 1023 +- 100, any sign and significand; an Inf at 4000.
        let field = 923 + (s >> 56) % 200;
        let bits = (s & (1 << 63)) | (field << 52) | (s & ((1 << 52) - 1));
        a[i] = if i == 4000 {
            f64::INFINITY
        } else {
            f64::from_bits(bits)
        };
        i += 1;
    }
    a
}

const fn values32() -> [f32; N] {
    let mut a = [0.0; N];
    let mut i = 0;
    while i < N {
        let s = stream(i);
        let field = 107 + ((s >> 56) % 40) as u32;
        let bits = ((s >> 32) as u32 & (1 << 31)) | (field << 23) | (s as u32 & ((1 << 23) - 1));
        a[i] = f32::from_bits(bits);
        i += 1;
    }
    a
}

static IN64: Buf<f64, N> = Buf(UnsafeCell::new(values64()));
static OUT64: Buf<f64, N> = Buf(UnsafeCell::new([0.0; N]));
static IO64: Buf<f64, N> = Buf(UnsafeCell::new([0.0; N]));
static IN32: Buf<f32, N> = Buf(UnsafeCell::new(values32()));
static OUT32: Buf<f32, N> = Buf(UnsafeCell::new([0.0; N]));
static IO32: Buf<f32, N> = Buf(UnsafeCell::new([0.0; N]));
/// Bytes for `from_bytes`, filled from an encoding at run time.
static BYTES: Buf<u8, { encoding::MAX_ENCODED_LEN }> = Buf(UnsafeCell::new([0; encoding::MAX_ENCODED_LEN]));
static SINK: Buf<u64, 1> = Buf(UnsafeCell::new([0]));

static RAW_IN64: Raw<f64> = Raw {
    ptr: IN64.0.get().cast(),
    len: N,
};
static RAW_OUT64: Raw<f64> = Raw {
    ptr: OUT64.0.get().cast(),
    len: N,
};
static RAW_IO64: Raw<f64> = Raw {
    ptr: IO64.0.get().cast(),
    len: N,
};
static RAW_IN32: Raw<f32> = Raw {
    ptr: IN32.0.get().cast(),
    len: N,
};
static RAW_OUT32: Raw<f32> = Raw {
    ptr: OUT32.0.get().cast(),
    len: N,
};
static RAW_IO32: Raw<f32> = Raw {
    ptr: IO32.0.get().cast(),
    len: N,
};
static RAW_BYTES: Raw<u8> = Raw {
    ptr: BYTES.0.get().cast(),
    len: encoding::MAX_ENCODED_LEN,
};

/// Numbers the optimiser cannot see.
struct Knobs {
    /// A run-time fold for `DynAccumulator` and the `_fold` functions.
    fold: usize,
    /// A fold no accumulator takes (the error paths).
    bad_fold: usize,
    /// An index into `Path::ALL`.
    path: usize,
    /// An index for the deliberate panic.
    #[cfg_attr(not(feature = "deliberate-index"), allow(dead_code))]
    index: usize,
}

static KNOBS: Knobs = Knobs {
    fold: 5,
    bad_fold: 1,
    path: 4,
    index: 7,
};

/// A number read with `read_volatile`.
fn knob(x: &'static usize) -> usize {
    // SAFETY: a valid, aligned, initialised static.
    unsafe { read_volatile(x) }
}

/// The buffer `r` names, as the optimiser cannot know it.
///
/// # Safety
/// No other reference to the same buffer may be live while the result is.
// The `&mut` comes from the raw pointer inside `r`, not from `r` itself.
#[allow(clippy::mut_from_ref)]
unsafe fn slice<T>(r: &'static Raw<T>) -> &'static mut [T] {
    // SAFETY: `r` is never written, so the volatile read gives its initial value: a
    // pointer to a static buffer of `len` initialised elements, aligned for T.
    let r = unsafe { read_volatile(r) };
    // SAFETY: see above; the caller guarantees no other reference to it is live.
    unsafe { core::slice::from_raw_parts_mut(r.ptr, r.len) }
}

/// Keeps a result.
fn sink(v: u64) {
    // SAFETY: SINK's one element, valid for writes; single-threaded.
    unsafe { write_volatile(SINK.0.get().cast::<u64>(), v) }
}

/// A `fmt::Write` that keeps the length of what is written (the `Display` impls).
struct Out;

impl Write for Out {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        sink(s.len() as u64);
        Ok(())
    }
}

/// Keeps an error, through its `Display` and `Debug`.
fn err(e: Error) {
    let _ = write!(Out, "{e} {e:?}");
    if let Error::Encoding(k) = e {
        let _ = write!(Out, "{k} {k:?}");
    }
}

fn keep(r: Result<(), Error>) {
    if let Err(e) = r {
        err(e);
    }
}

fn keep_value<T: Float>(r: Result<T, Error>) -> u64 {
    match r {
        Ok(v) => {
            sink(v.bits());
            v.bits()
        }
        Err(e) => {
            err(e);
            u64::MAX
        }
    }
}

/// Counts results that should agree but did not.
struct Check(u32);

impl Check {
    fn same(&mut self, a: u64, b: u64) {
        self.0 += u32::from(a != b);
    }
}

/// The operations of one element type (input, output and in-place buffers of unknown
/// length, and bytes of unknown content).
struct Bufs<'a, T> {
    xs: &'a [T],
    out: &'a mut [T],
    io: &'a mut [T],
    bytes: &'a mut [u8],
}

/// Every method of `Accumulator<T, K>`, and the `_k` whole-slice functions.
fn fixed<T: Float, const K: usize>(b: &mut Bufs<'_, T>, ck: &mut Check) {
    let xs = b.xs;
    let mut a = Accumulator::<T, K>::new();
    for &x in xs.iter().take(9) {
        keep(a.add(x));
    }
    keep(a.add_slice(xs));
    keep(a.add_running(xs, b.out));
    let n = b.io.len().min(b.out.len());
    b.io[..n].copy_from_slice(&b.out[..n]);
    keep(a.add_running_in_place(b.io));
    let mut c = Accumulator::<T, K>::default();
    keep(c.add_slice(xs));
    keep(a.merge(&c));
    sink(a.value().bits());
    sink(a.count());
    sink((Accumulator::<T, K>::FOLD + Accumulator::<T, K>::ENCODED_LEN) as u64);
    let e = a.to_bytes();
    sink(e.as_bytes().len() as u64 + e.len() as u64);
    let _ = write!(Out, "{e:?}");
    {
        match Accumulator::<T, K>::from_bytes(&e) {
            Ok(d) => ck.same(d.value().bits(), a.value().bits()),
            Err(x) => err(x),
        }
        // Bytes the optimiser cannot see (a copy of an encoding, perhaps of another fold).
        let n = e.len().min(b.bytes.len());
        b.bytes[..n].copy_from_slice(&e[..n]);
        match Accumulator::<T, K>::from_bytes(b.bytes) {
            Ok(d) => sink(d.value().bits()),
            Err(x) => err(x),
        }
    }
    let d: DynAccumulator<T> = a.into();
    match Accumulator::<T, K>::try_from(d) {
        Ok(back) => ck.same(back.value().bits(), a.value().bits()),
        Err(x) => err(x),
    }
    let s = keep_value(reprosum_core::sum_k::<T, K>(xs));
    let mut one = Accumulator::<T, K>::new();
    keep(one.add_slice(xs));
    ck.same(s, one.value().bits());
    keep(reprosum_core::cumsum_k::<T, K>(xs, b.out));
    if let Some(last) = b.out.last() {
        ck.same(last.bits(), s);
    }
    keep(reprosum_core::cumsum_in_place_k::<T, K>(b.io));
}

/// Every method of `DynAccumulator<T>` at a fold the optimiser cannot see, and the `_fold`
/// and default-fold whole-slice functions.
fn dynamic<T: Float>(b: &mut Bufs<'_, T>, ck: &mut Check) {
    let xs = b.xs;
    let fold = knob(&KNOBS.fold);
    if let Err(e) = DynAccumulator::<T>::new(knob(&KNOBS.bad_fold)) {
        err(e);
    }
    let mut a = match DynAccumulator::<T>::new(fold) {
        Ok(a) => a,
        Err(e) => return err(e),
    };
    sink(a.fold() as u64);
    for &x in xs.iter().take(9) {
        keep(a.add(x));
    }
    keep(a.add_slice(xs));
    keep(a.add_running(xs, b.out));
    keep(a.add_running_in_place(b.io));
    let mut c = match DynAccumulator::<T>::new(fold) {
        Ok(c) => c,
        Err(e) => return err(e),
    };
    keep(c.add_slice(xs));
    keep(a.merge(&c));
    if let Ok(other) = DynAccumulator::<T>::new(fold ^ 1) {
        keep(a.merge(&other));
    }
    sink(a.value().bits());
    sink(a.count());
    let e = a.to_bytes();
    {
        match DynAccumulator::<T>::from_bytes(&e) {
            Ok(d) => ck.same(d.value().bits(), a.value().bits()),
            Err(x) => err(x),
        }
        let n = e.len().min(b.bytes.len());
        b.bytes[..n].copy_from_slice(&e[..n]);
        match DynAccumulator::<T>::from_bytes(b.bytes) {
            Ok(d) => sink(d.value().bits()),
            Err(x) => err(x),
        }
    }
    let s = keep_value(reprosum_core::sum_fold(xs, fold));
    keep_value(reprosum_core::sum_fold(xs, knob(&KNOBS.bad_fold)));
    keep(reprosum_core::cumsum_fold(xs, b.out, fold));
    if let Some(last) = b.out.last() {
        ck.same(last.bits(), s);
    }
    if let Some(shorter) = b.out.get_mut(1..) {
        // A length mismatch: an error, nothing written.
        keep(reprosum_core::cumsum_fold(xs, shorter, fold));
    }
    keep(reprosum_core::cumsum_in_place_fold(b.io, fold));

    let s3 = keep_value(reprosum_core::sum(xs));
    keep(reprosum_core::cumsum(xs, b.out));
    if let Some(last) = b.out.last() {
        ck.same(last.bits(), s3);
    }
    keep(reprosum_core::cumsum_in_place(b.io));
    ck.same(keep_value(fpenv::with_ieee_fp(|| reprosum_core::sum(xs))), s3);
    let g = fpenv::IeeeGuard::new();
    keep_value(reprosum_core::sum_fold(xs, fold));
    drop(g);
    let g = fpenv::IeeeGuard::default();
    drop(g);
}

/// Everything for one element type, at the folds of the const form and a run-time fold.
fn all<T: Float, const MAX: usize>(b: &mut Bufs<'_, T>, ck: &mut Check) {
    sink(T::DTYPE.code() as u64 + T::DTYPE.max_fold() as u64 + T::DTYPE.size() as u64);
    let _ = write!(Out, "{} {:?}", T::DTYPE, T::DTYPE);
    sink(T::MAX_FOLD as u64 + T::CAPACITY + T::BYTES as u64 + T::SIGN_BIT);
    sink(T::ZERO.bits() ^ T::NAN.bits() ^ T::from_bits_u64(knob(&KNOBS.path) as u64).bits());
    fixed::<T, 2>(b, ck);
    fixed::<T, 3>(b, ck);
    fixed::<T, 4>(b, ck);
    fixed::<T, 6>(b, ck);
    fixed::<T, MAX>(b, ck);
    dynamic::<T>(b, ck);
}

/// The program: returns the exit status (0: every check agreed).
fn run() -> u32 {
    // SAFETY: each buffer is taken once, here, and nothing else refers to it.
    let (in64, out64, io64, in32, out32, io32, bytes) = unsafe {
        (
            slice(&RAW_IN64),
            slice(&RAW_OUT64),
            slice(&RAW_IO64),
            slice(&RAW_IN32),
            slice(&RAW_OUT32),
            slice(&RAW_IO32),
            slice(&RAW_BYTES),
        )
    };
    let mut ck = Check(0);

    #[cfg(feature = "deliberate-index")]
    sink(in64[knob(&KNOBS.index)].bits());

    // The path functions.
    let detected = simd::detect();
    sink(simd::path().name().len() as u64 + detected.name().len() as u64);
    for p in Path::ALL {
        sink(u64::from(p.compiled()) + u64::from(simd::supported(p)) + p.name().len() as u64);
    }
    let _ = write!(Out, "{:?}", simd::path());
    if let Some(&p) = Path::ALL.get(knob(&KNOBS.path)) {
        if let Err(q) = simd::select(p) {
            sink(q.name().len() as u64);
        }
    }
    let _ = simd::select(detected);
    // The paths as values: every `Platform` this CPU runs, through the `_on` methods at a
    // run-time fold.
    for pf in simd::Platform::all().into_iter().flatten() {
        let fold = knob(&KNOBS.fold);
        if let Ok(mut a) = DynAccumulator::<f64>::new(fold) {
            let _ = a.add_slice_on(pf, &in64[..]);
            let _ = a.add_running_on(pf, &in64[..], &mut out64[..]);
            sink(a.value().bits() + pf.path().name().len() as u64);
        }
        if let Ok(mut a) = DynAccumulator::<f32>::new(fold.min(21)) {
            let _ = a.add_slice_on(pf, &in32[..]);
            let _ = a.add_running_on(pf, &in32[..], &mut out32[..]);
            sink(a.value().bits());
        }
    }
    sink(
        simd::Platform::portable().path().name().len() as u64
            + simd::Platform::current().path().name().len() as u64,
    );
    if let Some(pf) = Path::ALL
        .get(knob(&KNOBS.path))
        .and_then(|&p| simd::Platform::new(p))
    {
        sink(simd::Platform::detected().path().name().len() as u64 + pf.path().name().len() as u64);
    }
    let _ = write!(Out, "{} {}", Error::Encoding(EncodingError::State), Dtype::F32);
    sink(
        reprosum_core::DEFAULT_FOLD as u64
            + reprosum_core::CAPACITY_F32
            + reprosum_core::CAPACITY_F64
            + encoding::encoded_len(8, knob(&KNOBS.fold)) as u64
            + encoding::HEADER_LEN as u64
            + u64::from(encoding::VERSION)
            + u64::from(encoding::MAGIC[0]),
    );

    // Everything, on every block-deposit path this CPU runs (all are compiled in).
    let mut b64 = Bufs {
        xs: &in64[..],
        out: out64,
        io: io64,
        bytes: &mut bytes[..],
    };
    for p in Path::ALL {
        if simd::select(p).is_ok() {
            all::<f64, 52>(&mut b64, &mut ck);
        }
    }
    let mut b32 = Bufs {
        xs: &in32[..],
        out: out32,
        io: io32,
        bytes: b64.bytes,
    };
    for p in Path::ALL {
        if simd::select(p).is_ok() {
            all::<f32, 21>(&mut b32, &mut ck);
        }
    }
    let _ = simd::select(detected);
    ck.0
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    extern "C" {
        /// Defined nowhere: any reference to it fails the link.
        fn reprosum_nopanic_a_panic_path_survived() -> !;
    }
    // SAFETY: the function does not exist, so a program that can reach this call does not
    // link; a program that links has no call of it.
    unsafe { reprosum_nopanic_a_panic_path_survived() }
}

#[cfg(target_os = "none")]
reprosum_baremetal::entry!(run);

/// Linux: the process entry point, without the C start-up files (`-nostartfiles`, see
/// build.rs): aligns the stack, runs the program and exits with its status.
#[cfg(target_os = "linux")]
#[no_mangle]
extern "C" fn reprosum_nopanic_main() -> u32 {
    run()
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
core::arch::global_asm!(
    ".globl _start",
    ".type _start, @function",
    "_start:",
    "    xor ebp, ebp",
    "    and rsp, -16",
    "    call reprosum_nopanic_main",
    "    mov edi, eax",
    "    mov eax, 231", // exit_group
    "    syscall",
    "    ud2",
);
