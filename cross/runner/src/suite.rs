//! The suite every target runs: `no_std`, no allocation, the same code on bare metal and
//! under qemu-user.
//!
//! Every case of the known answers (`tests/vectors/known_answers.txt`, including the
//! 1,000,000-value wide-range input, generated here from its recipe) and of the core
//! vectors (`tests/vectors/core_vectors.txt`, all 169 cases: every exponent range, special
//! value, fold 2..=52 / 2..=21 and cumulative sum) runs through [`DynAccumulator`] at the
//! case's fold and, for folds 2, 3, 4, 6, 21 and (f64) 52, through `Accumulator<T, K>`
//! (every known answer and all but 60 one-to-three-value core cases). Block deposits run
//! on every [`simd::Path`] this target can run (portable and scalar everywhere, NEON on
//! aarch64, AVX2 / AVX-512 on an x86-64 host that has them). The inputs are read once per
//! case and streamed (no big arrays); for each form:
//!
//! - `add`, one value at a time: the sum's bits, the count, and where the case has a
//!   cumulative sum, every prefix's bits (the value after each `add`);
//! - `add_slice` on chunks of varying lengths (1 to 2049, across the endurance boundaries
//!   512 and 2048) through a fixed buffer, once per block-deposit path: the sum's bits;
//! - `add_slice` of every third chunk into three accumulators (the paths taking turns),
//!   merged in two orders;
//! - `to_bytes()` of each of these equals the case's `bytes` line, written on x86-64 (all
//!   core vectors have one), or, for cases without one, the encodings of all paths are
//!   equal; `from_bytes` gives the sum back and encodes back to the same bytes;
//! - for cases that fit the buffer (all but five known answers), on every path:
//!   `add_slice` of the whole input, the whole-slice `sum_fold` / `sum_k` / `sum`, and
//!   where the case has a cumulative sum, `cumsum_fold` / `cumsum_k` / `cumsum`,
//!   `cumsum_in_place*`, and `add_running` / `add_running_in_place` on chunks, every
//!   prefix compared.
//!
//! Every comparison is of bit patterns. On bare metal the stack the run used is measured
//! and checked to have stayed in its region. The run ends with the line `N passed, M
//! failed`.
//!
//! On the Cortex-M0 (`thumbv6m-none-eabi`, the micro:bit's 256 KiB of flash and 16 KiB of
//! RAM; `cfg(reprosum_small)`, set by build.rs) the same checks run on less: the core
//! vectors of at most 32 values (86 of the 169 cases, every class and every fold; build.rs
//! writes them), `Accumulator<T, K>` at the default fold 3 only, a buffer of 32 values
//! (`add_slice` chunks of 1 to 32 values; the whole-slice functions on inputs of at most
//! 32 values) and the two block-deposit paths the target has, so that the stack fits.

use core::fmt::Write;

use reprosum_core::encoding::MAX_ENCODED_LEN;
use reprosum_core::simd::{self, Path};
use reprosum_core::{Accumulator, Dtype, DynAccumulator, Encoded, Error, Float};
use reprosum_testkit::{cases, Case, KNOWN_ANSWERS};

/// The core vectors this build runs: all of them.
#[cfg(not(reprosum_small))]
const CORE_VECTORS: &str = reprosum_testkit::CORE_VECTORS;
/// The core vectors this build runs: on the Cortex-M0, the cases of at most 32 values.
#[cfg(reprosum_small)]
const CORE_VECTORS: &str = include_str!(concat!(env!("OUT_DIR"), "/core_vectors_small.txt"));

/// Elements of the input buffer (and of the cumulative-sum output buffer): the largest
/// core-vectors case (4133 values) fits, so every such case also runs the whole-slice
/// functions.
#[cfg(not(reprosum_small))]
pub const BUF_LEN: usize = 4608;
/// Elements of the input buffer on the Cortex-M0: every case of its core vectors fits.
#[cfg(reprosum_small)]
pub const BUF_LEN: usize = 32;

/// The lengths `add_slice` is called with, in turn: across the f32 (512) and f64 (2048)
/// endurance, so that the block path renormalises inside and between calls.
#[cfg(not(reprosum_small))]
const CHUNKS: [usize; 8] = [1, 3, 511, 513, 2047, 2049, 4, 600];
/// The lengths `add_slice` is called with on the Cortex-M0 (at most the buffer).
#[cfg(reprosum_small)]
const CHUNKS: [usize; 8] = [1, 3, 15, 17, 31, 32, 4, 25];

/// At most this many failure lines are printed (all failures are counted).
const MAX_FAIL_LINES: u64 = 60;

/// Number of block-deposit paths the suite keeps accumulators for: every path the core
/// knows (only those this target runs are used).
#[cfg(not(reprosum_small))]
const NPATH: usize = Path::ALL.len();
/// On the Cortex-M0: its two paths (portable and scalar), to save RAM.
#[cfg(reprosum_small)]
const NPATH: usize = 2;

/// What the suite should do.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Corrupt one expected sum (its lowest bit) and run only the known answers that fit
    /// the buffer: a self-check that a wrong bit fails the run and its exit status.
    pub force_fail: bool,
    /// A clock in milliseconds (host time; on bare metal, semihosting's `SYS_CLOCK`), to
    /// print how long the big cases and each file took.
    pub clock: Option<fn() -> u64>,
    /// (Bytes of stack used at most, bytes of the stack region), on bare metal: printed, and
    /// checked to leave at least `STACK_MARGIN` bytes of the region untouched.
    pub stack: Option<fn() -> (usize, usize)>,
}

/// Bytes of the stack region that must never have been touched (else the stack may have
/// overflowed into the data below it).
const STACK_MARGIN: usize = 64;

/// The block-deposit paths this target runs: the default (detected) one first.
#[derive(Clone, Copy)]
struct SimdPaths {
    list: [Path; NPATH],
    n: usize,
    default: Path,
}

impl SimdPaths {
    fn detect() -> Self {
        let default = simd::path();
        let mut list = [default; NPATH];
        let mut n = 1;
        for p in Path::ALL {
            if p != default && n < NPATH && simd::select(p).is_ok() {
                list[n] = p;
                n += 1;
            }
        }
        let _ = simd::select(default);
        SimdPaths { list, n, default }
    }

    fn paths(&self) -> &[Path] {
        &self.list[..self.n.min(NPATH)]
    }

    /// Selects a path (one of `paths()`, so the selection cannot fail).
    fn use_path(&self, p: Path) {
        let _ = simd::select(p);
    }

    fn restore(&self) {
        let _ = simd::select(self.default);
    }
}

/// Where a check is: the case, the accumulator form and the block-deposit path.
#[derive(Clone, Copy)]
struct At<'a> {
    case: &'a str,
    form: &'static str,
    simd: &'static str,
}

/// Counts checks and prints failures.
struct Report<'a> {
    out: &'a mut dyn Write,
    passed: u64,
    failed: u64,
    /// XORed into the next case's expected sum, then cleared (the force-fail self-check).
    corrupt: u64,
    clock: Option<fn() -> u64>,
}

impl Report<'_> {
    fn now(&self) -> u64 {
        self.clock.map_or(0, |c| c())
    }

    fn check(&mut self, ok: bool, at: At<'_>, what: &str) -> bool {
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
            if self.failed <= MAX_FAIL_LINES {
                let _ = writeln!(self.out, "FAIL {} [{} {}]: {what}", at.case, at.form, at.simd);
            }
        }
        ok
    }

    /// A detail line under the last failure (if failure lines are still printed).
    fn detail(&mut self, args: core::fmt::Arguments<'_>) {
        if self.failed <= MAX_FAIL_LINES {
            let _ = writeln!(self.out, "     {args}");
        }
    }

    fn bits(&mut self, at: At<'_>, what: &str, got: u64, want: u64) {
        if !self.check(got == want, at, what) {
            self.detail(format_args!("got {got:#018x}, want {want:#018x}"));
        }
    }

    fn result(&mut self, at: At<'_>, what: &str, got: Result<u64, Error>, want: u64) {
        match got {
            Ok(g) => self.bits(at, what, g, want),
            Err(e) => {
                self.check(false, at, what);
                self.detail(format_args!("error: {e}"));
            }
        }
    }
}

/// The operations the suite runs, for both accumulator forms.
trait Acc<T: Float>: Copy {
    /// Printed in failure lines.
    const FORM: &'static str;
    /// Whether this form is checked ([`Skip`] is not).
    const ENABLED: bool = true;
    fn make(fold: usize) -> Result<Self, Error>;
    fn add(&mut self, x: T) -> Result<(), Error>;
    fn add_slice(&mut self, xs: &[T]) -> Result<(), Error>;
    fn add_running(&mut self, xs: &[T], out: &mut [T]) -> Result<(), Error>;
    fn add_running_in_place(&mut self, xs: &mut [T]) -> Result<(), Error>;
    fn merge(&mut self, other: &Self) -> Result<(), Error>;
    fn value(&self) -> T;
    fn count(&self) -> u64;
    fn encode(&self) -> Encoded;
    fn decode(bytes: &[u8]) -> Result<Self, Error>;
    /// The whole-slice sum of this form.
    fn sum(xs: &[T], fold: usize) -> Result<T, Error>;
    /// The whole-slice cumulative sum of this form.
    fn cumsum(xs: &[T], out: &mut [T], fold: usize) -> Result<(), Error>;
    /// The in-place cumulative sum of this form.
    fn cumsum_in_place(xs: &mut [T], fold: usize) -> Result<(), Error>;
}

impl<T: Float> Acc<T> for DynAccumulator<T> {
    const FORM: &'static str = "DynAccumulator";
    fn make(fold: usize) -> Result<Self, Error> {
        DynAccumulator::new(fold)
    }
    fn add(&mut self, x: T) -> Result<(), Error> {
        DynAccumulator::add(self, x)
    }
    fn add_slice(&mut self, xs: &[T]) -> Result<(), Error> {
        DynAccumulator::add_slice(self, xs)
    }
    fn add_running(&mut self, xs: &[T], out: &mut [T]) -> Result<(), Error> {
        DynAccumulator::add_running(self, xs, out)
    }
    fn add_running_in_place(&mut self, xs: &mut [T]) -> Result<(), Error> {
        DynAccumulator::add_running_in_place(self, xs)
    }
    fn merge(&mut self, other: &Self) -> Result<(), Error> {
        DynAccumulator::merge(self, other)
    }
    fn value(&self) -> T {
        DynAccumulator::value(self)
    }
    fn count(&self) -> u64 {
        DynAccumulator::count(self)
    }
    fn encode(&self) -> Encoded {
        self.to_bytes()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        DynAccumulator::from_bytes(bytes)
    }
    fn sum(xs: &[T], fold: usize) -> Result<T, Error> {
        reprosum_core::sum_fold(xs, fold)
    }
    fn cumsum(xs: &[T], out: &mut [T], fold: usize) -> Result<(), Error> {
        reprosum_core::cumsum_fold(xs, out, fold)
    }
    fn cumsum_in_place(xs: &mut [T], fold: usize) -> Result<(), Error> {
        reprosum_core::cumsum_in_place_fold(xs, fold)
    }
}

impl<T: Float, const K: usize> Acc<T> for Accumulator<T, K> {
    const FORM: &'static str = "Accumulator<T, K>";
    fn make(fold: usize) -> Result<Self, Error> {
        if fold == K {
            Ok(Accumulator::new())
        } else {
            Err(Error::FoldMismatch)
        }
    }
    fn add(&mut self, x: T) -> Result<(), Error> {
        Accumulator::add(self, x)
    }
    fn add_slice(&mut self, xs: &[T]) -> Result<(), Error> {
        Accumulator::add_slice(self, xs)
    }
    fn add_running(&mut self, xs: &[T], out: &mut [T]) -> Result<(), Error> {
        Accumulator::add_running(self, xs, out)
    }
    fn add_running_in_place(&mut self, xs: &mut [T]) -> Result<(), Error> {
        Accumulator::add_running_in_place(self, xs)
    }
    fn merge(&mut self, other: &Self) -> Result<(), Error> {
        Accumulator::merge(self, other)
    }
    fn value(&self) -> T {
        Accumulator::value(self)
    }
    fn count(&self) -> u64 {
        Accumulator::count(self)
    }
    fn encode(&self) -> Encoded {
        self.to_bytes()
    }
    fn decode(bytes: &[u8]) -> Result<Self, Error> {
        Accumulator::from_bytes(bytes)
    }
    // At the default fold, the default-fold functions (`sum`, `cumsum`, `cumsum_in_place`);
    // at the others, the `_k` functions they are defined by.
    fn sum(xs: &[T], _fold: usize) -> Result<T, Error> {
        if K == reprosum_core::DEFAULT_FOLD {
            reprosum_core::sum(xs)
        } else {
            reprosum_core::sum_k::<T, K>(xs)
        }
    }
    fn cumsum(xs: &[T], out: &mut [T], _fold: usize) -> Result<(), Error> {
        if K == reprosum_core::DEFAULT_FOLD {
            reprosum_core::cumsum(xs, out)
        } else {
            reprosum_core::cumsum_k::<T, K>(xs, out)
        }
    }
    fn cumsum_in_place(xs: &mut [T], _fold: usize) -> Result<(), Error> {
        if K == reprosum_core::DEFAULT_FOLD {
            reprosum_core::cumsum_in_place(xs)
        } else {
            reprosum_core::cumsum_in_place_k::<T, K>(xs)
        }
    }
}

/// No second form: for the folds that `Accumulator<T, K>` is not instantiated at.
#[derive(Clone, Copy)]
struct Skip;

impl<T: Float> Acc<T> for Skip {
    const FORM: &'static str = "-";
    const ENABLED: bool = false;
    fn make(_fold: usize) -> Result<Self, Error> {
        Ok(Skip)
    }
    fn add(&mut self, _x: T) -> Result<(), Error> {
        Ok(())
    }
    fn add_slice(&mut self, _xs: &[T]) -> Result<(), Error> {
        Ok(())
    }
    fn add_running(&mut self, _xs: &[T], _out: &mut [T]) -> Result<(), Error> {
        Ok(())
    }
    fn add_running_in_place(&mut self, _xs: &mut [T]) -> Result<(), Error> {
        Ok(())
    }
    fn merge(&mut self, _other: &Self) -> Result<(), Error> {
        Ok(())
    }
    fn value(&self) -> T {
        T::ZERO
    }
    fn count(&self) -> u64 {
        0
    }
    fn encode(&self) -> Encoded {
        Accumulator::<T, 2>::new().to_bytes()
    }
    fn decode(_bytes: &[u8]) -> Result<Self, Error> {
        Ok(Skip)
    }
    fn sum(_xs: &[T], _fold: usize) -> Result<T, Error> {
        Ok(T::ZERO)
    }
    fn cumsum(_xs: &[T], _out: &mut [T], _fold: usize) -> Result<(), Error> {
        Ok(())
    }
    fn cumsum_in_place(_xs: &mut [T], _fold: usize) -> Result<(), Error> {
        Ok(())
    }
}

/// The case's `bytes` line, if it has one.
fn expected_bytes(case: &Case<'_>, buf: &mut [u8; MAX_ENCODED_LEN + 1]) -> Option<usize> {
    let it = case.bytes()?;
    let mut n = 0;
    for b in it {
        // One byte past the longest encoding is kept, so that a too-long line fails below.
        if let Some(slot) = buf.get_mut(n) {
            *slot = b;
            n += 1;
        }
    }
    Some(n)
}

/// Compares every prefix of `got` with the case's cumulative sum.
fn check_prefixes<T: Float>(r: &mut Report<'_>, case: &Case<'_>, at: At<'_>, what: &str, got: &[T]) {
    let Some(want) = case.cumsum() else { return };
    let mut n = 0usize;
    let mut bad = None;
    for (i, w) in want.enumerate() {
        n += 1;
        let g = got.get(i).map_or(u64::MAX, |g| g.bits());
        if g != w && bad.is_none() {
            bad = Some((i, g, w));
        }
    }
    if n != got.len() && bad.is_none() {
        bad = Some((n, 0, 0));
    }
    if !r.check(bad.is_none(), at, what) {
        if let Some((i, g, w)) = bad {
            r.detail(format_args!(
                "first bad prefix {i}: got {g:#018x}, want {w:#018x}"
            ));
        }
    }
}

/// The accumulators of one form that one pass over a case's inputs feeds.
struct Feeds<A> {
    /// `add`, one value at a time (its value after each add is the prefix sum).
    one: A,
    /// `add_slice` on every chunk, one accumulator per block-deposit path.
    chunked: [A; NPATH],
    /// `add_slice` on every third chunk each (the paths taking turns), merged at the end.
    parts: [A; 3],
    /// Calls that returned an error.
    errors: u32,
    /// The first prefix whose value differed: (index, got, want).
    cum_bad: Option<(usize, u64, u64)>,
}

impl<A: Copy> Feeds<A> {
    /// Copies of `a`. Not inlined: built in this frame and written once into the caller's
    /// (inlined, the array copies took a second, temporary copy of the whole struct there:
    /// 4 KB more at the peak of the Cortex-M0's stack).
    #[inline(never)]
    fn new(a: &A) -> Self {
        Feeds {
            one: *a,
            chunked: [*a; NPATH],
            parts: [*a; 3],
            errors: 0,
            cum_bad: None,
        }
    }

    fn add<T: Float>(&mut self, i: usize, x: T, prefix: Option<Option<u64>>)
    where
        A: Acc<T>,
    {
        self.errors += u32::from(self.one.add(x).is_err());
        if let Some(w) = prefix {
            let got = self.one.value().bits();
            if w != Some(got) && self.cum_bad.is_none() {
                self.cum_bad = Some((i, got, w.unwrap_or(u64::MAX)));
            }
        }
    }

    fn add_chunk<T: Float>(&mut self, sp: &SimdPaths, turn: usize, xs: &[T])
    where
        A: Acc<T>,
    {
        for (acc, &p) in self.chunked.iter_mut().zip(sp.paths()) {
            sp.use_path(p);
            self.errors += u32::from(acc.add_slice(xs).is_err());
        }
        sp.use_path(sp.paths()[turn % sp.paths().len()]);
        self.errors += u32::from(self.parts[turn % 3].add_slice(xs).is_err());
        sp.restore();
    }
}

/// Runs every check of one case through the forms `A` and `B` (the inputs are read once).
#[inline(never)]
fn run_case<T: Float, A: Acc<T>, B: Acc<T>>(
    r: &mut Report<'_>,
    sp: &SimdPaths,
    case: &Case<'_>,
    buf: &mut [T],
    out: &mut [T],
) {
    let n = case.len();
    let at = At {
        case: case.name,
        form: "-",
        simd: "",
    };
    let (Ok(a), Ok(b)) = (A::make(case.fold), B::make(case.fold)) else {
        r.check(false, at, "new accumulators at the case's fold");
        return;
    };
    let mut fa = Feeds::new(&a);
    let mut fb = Feeds::new(&b);
    let whole = n <= buf.len();
    let (seen, cum_extra) = feed(sp, case, buf, &mut fa, &mut fb);
    let want = case.sum ^ core::mem::take(&mut r.corrupt);
    r.check(seen == n, at, "number of inputs");
    let xs = if whole && seen == n { buf.get(..seen) } else { None };
    finish(r, sp, case, &fa, want, cum_extra, xs, out);
    finish(r, sp, case, &fb, want, cum_extra, xs, out);
}

/// One pass over the inputs of a case into both forms' accumulators: per-value adds and
/// prefix sums; chunks for add_slice. Returns the number of inputs seen and, if the case has
/// a cumulative sum, whether it has more prefixes than inputs.
///
/// Not inlined (nor are [`run_case`], [`finish`] and its parts), so that the input stream
/// (the generator state of a generated input) and the checks' temporaries are not on the
/// stack at the same time: the Cortex-M0 has 16 KiB of RAM.
#[inline(never)]
fn feed<T: Float, A: Acc<T>, B: Acc<T>>(
    sp: &SimdPaths,
    case: &Case<'_>,
    buf: &mut [T],
    fa: &mut Feeds<A>,
    fb: &mut Feeds<B>,
) -> (usize, Option<bool>) {
    let n = case.len();
    let whole = n <= buf.len();
    let mut cum = case.cumsum();
    let mut seen = 0usize;
    let mut fill = 0usize;
    let mut turn = 0usize;
    for (i, bits) in case.inputs().enumerate() {
        let x = T::from_bits_u64(bits);
        seen = i + 1;
        let prefix = cum.as_mut().map(Iterator::next);
        fa.add(i, x, prefix);
        fb.add(i, x, prefix);
        if whole {
            if let Some(slot) = buf.get_mut(i) {
                *slot = x;
            }
        } else if let Some(slot) = buf.get_mut(fill) {
            *slot = x;
            fill += 1;
            if fill == CHUNKS[turn % CHUNKS.len()] {
                fa.add_chunk(sp, turn, &buf[..fill]);
                fb.add_chunk(sp, turn, &buf[..fill]);
                fill = 0;
                turn += 1;
            }
        }
    }
    if whole {
        let mut rest = &buf[..seen.min(n)];
        while !rest.is_empty() {
            let k = CHUNKS[turn % CHUNKS.len()].min(rest.len());
            fa.add_chunk(sp, turn, &rest[..k]);
            fb.add_chunk(sp, turn, &rest[..k]);
            rest = &rest[k..];
            turn += 1;
        }
    } else {
        fa.add_chunk(sp, turn, &buf[..fill]);
        fb.add_chunk(sp, turn, &buf[..fill]);
    }
    (seen, cum.as_mut().map(|c| c.next().is_some()))
}

/// The checks of one form after the pass over the inputs. `whole` is the whole input when
/// it fit the buffer.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn finish<T: Float, A: Acc<T>>(
    r: &mut Report<'_>,
    sp: &SimdPaths,
    case: &Case<'_>,
    f: &Feeds<A>,
    want: u64,
    cum_extra: Option<bool>,
    whole: Option<&[T]>,
    out: &mut [T],
) {
    if !A::ENABLED {
        return;
    }
    let n = case.len() as u64;
    let at = At {
        case: case.name,
        form: A::FORM,
        simd: "",
    };
    r.check(f.errors == 0, at, "no error from add / add_slice");
    r.bits(at, "add, one value at a time", f.one.value().bits(), want);
    r.bits(at, "count", f.one.count(), n);

    // Cumulative sum, prefix by prefix (value after each add).
    if let Some(extra) = cum_extra {
        if !r.check(
            f.cum_bad.is_none() && !extra,
            at,
            "cumsum prefixes via add + value",
        ) {
            if let Some((i, g, w)) = f.cum_bad {
                r.detail(format_args!(
                    "first bad prefix {i}: got {g:#018x}, want {w:#018x}"
                ));
            }
        }
    }

    // The byte encoding: equal to the x86-64 bytes where the case has them, else equal
    // across paths; decoding gives the sum back and re-encodes to the same bytes.
    let mut eb = [0u8; MAX_ENCODED_LEN + 1];
    let len = reference_bytes(r, case, at, &f.one, want, &mut eb);
    let reference = &eb[..len.min(eb.len())];

    // add_slice on chunks, per block-deposit path.
    for (acc, &p) in f.chunked.iter().zip(sp.paths()) {
        let at = At { simd: p.name(), ..at };
        r.bits(at, "add_slice on chunks", acc.value().bits(), want);
        r.bits(at, "count (add_slice)", acc.count(), n);
        r.check(encodes_to(acc, reference), at, "to_bytes (add_slice)");
    }

    merges(r, at, f, want, n, reference);

    // The whole-slice functions, when the input fits the buffer, on every path.
    let Some(xs) = whole else { return };
    for &p in sp.paths() {
        sp.use_path(p);
        whole_slice::<T, A>(r, case, At { simd: p.name(), ..at }, xs, out, want);
    }
    sp.restore();
}

/// Whether `a` encodes to `bytes`.
#[inline(never)]
fn encodes_to<T: Float, A: Acc<T>>(a: &A, bytes: &[u8]) -> bool {
    a.encode().as_bytes() == bytes
}

/// The bytes the accumulators of a case must encode to, in `eb` (its length returned):
/// the case's x86-64 bytes, checked against `one`'s encoding, or where the case has none,
/// `one`'s encoding. Also checks that decoding them gives the sum back and encodes back to
/// the same bytes.
#[inline(never)]
fn reference_bytes<T: Float, A: Acc<T>>(
    r: &mut Report<'_>,
    case: &Case<'_>,
    at: At<'_>,
    one: &A,
    want: u64,
    eb: &mut [u8; MAX_ENCODED_LEN + 1],
) -> usize {
    let e_one = one.encode();
    let len = match expected_bytes(case, eb) {
        Some(len) => {
            r.check(
                e_one.as_bytes() == &eb[..len],
                at,
                "to_bytes (add) == x86-64 bytes",
            );
            len
        }
        None => {
            let e = e_one.as_bytes();
            let len = e.len().min(eb.len());
            eb[..len].copy_from_slice(&e[..len]);
            len
        }
    };
    let reference = &eb[..len];
    match A::decode(reference) {
        Ok(d) => {
            r.bits(at, "from_bytes, value", d.value().bits(), want);
            r.check(encodes_to(&d, reference), at, "from_bytes, to_bytes again");
        }
        Err(e) => {
            r.check(false, at, "from_bytes");
            r.detail(format_args!("error: {e}"));
        }
    }
    len
}

/// Merges of the three parts of `f` (built on the paths in turn), in two orders.
#[inline(never)]
fn merges<T: Float, A: Acc<T>>(
    r: &mut Report<'_>,
    at: At<'_>,
    f: &Feeds<A>,
    want: u64,
    n: u64,
    reference: &[u8],
) {
    let at_m = At { simd: "mixed", ..at };
    let mut merged = f.parts[0];
    let mut merge_errors = u32::from(merged.merge(&f.parts[1]).is_err());
    merge_errors += u32::from(merged.merge(&f.parts[2]).is_err());
    let mut merged_rev = f.parts[2];
    merge_errors += u32::from(merged_rev.merge(&f.parts[1]).is_err());
    merge_errors += u32::from(merged_rev.merge(&f.parts[0]).is_err());
    r.check(merge_errors == 0, at_m, "no error from merge");
    r.bits(
        at_m,
        "merge of 3 parts (add_slice on every third chunk)",
        merged.value().bits(),
        want,
    );
    r.bits(at_m, "merge in the other order", merged_rev.value().bits(), want);
    r.bits(at_m, "count (merge)", merged.count(), n);
    r.check(encodes_to(&merged, reference), at_m, "to_bytes (merge)");
    r.check(
        encodes_to(&merged_rev, reference),
        at_m,
        "to_bytes (merge, other order)",
    );
}

/// The whole-slice sums and cumulative sums of one form on the selected path.
#[inline(never)]
fn whole_slice<T: Float, A: Acc<T>>(
    r: &mut Report<'_>,
    case: &Case<'_>,
    at: At<'_>,
    xs: &[T],
    out: &mut [T],
    want: u64,
) {
    let fold = case.fold;
    let got = A::make(fold).and_then(|mut w| {
        w.add_slice(xs)?;
        Ok(w.value().bits())
    });
    r.result(at, "add_slice of the whole input", got, want);
    r.result(at, "whole-slice sum", A::sum(xs, fold).map(Float::bits), want);
    if case.cumsum().is_none() {
        return;
    }
    let o = &mut out[..xs.len()];
    match A::cumsum(xs, o, fold) {
        Ok(()) => check_prefixes(r, case, at, "whole-slice cumsum", o),
        Err(_) => {
            r.check(false, at, "whole-slice cumsum");
        }
    }
    o.copy_from_slice(xs);
    match A::cumsum_in_place(o, fold) {
        Ok(()) => check_prefixes(r, case, at, "cumsum_in_place", o),
        Err(_) => {
            r.check(false, at, "cumsum_in_place");
        }
    }
    // Running values across calls, on chunks of varying lengths.
    let mut errors = 0u32;
    if let Ok(mut acc) = A::make(fold) {
        let (mut start, mut turn) = (0usize, 0usize);
        while start < xs.len() {
            let end = (start + CHUNKS[turn % CHUNKS.len()]).min(xs.len());
            errors += u32::from(acc.add_running(&xs[start..end], &mut o[start..end]).is_err());
            start = end;
            turn += 1;
        }
    }
    r.check(errors == 0, at, "no error from add_running");
    check_prefixes(r, case, at, "add_running on chunks", o);
    o.copy_from_slice(xs);
    if let Ok(mut acc) = A::make(fold) {
        let (mut start, mut turn) = (0usize, 3usize);
        while start < o.len() {
            let end = (start + CHUNKS[turn % CHUNKS.len()]).min(o.len());
            errors += u32::from(acc.add_running_in_place(&mut o[start..end]).is_err());
            start = end;
            turn += 1;
        }
    }
    r.check(errors == 0, at, "no error from add_running_in_place");
    check_prefixes(r, case, at, "add_running_in_place on chunks", o);
}

/// Runs `run_case` with `DynAccumulator<$t>` and `Accumulator<$t, K>`, `K` the case's fold,
/// if it is one of the listed folds, else with `DynAccumulator<$t>` alone. Evaluates to
/// whether `Accumulator<$t, K>` ran.
macro_rules! const_fold {
    ($t:ty, $r:expr, $sp:expr, $case:expr, $buf:expr, $out:expr; $($k:literal)+) => {
        match $case.fold {
            $($k => {
                run_case::<$t, DynAccumulator<$t>, Accumulator<$t, $k>>($r, $sp, $case, $buf, $out);
                true
            })+
            _ => {
                run_case::<$t, DynAccumulator<$t>, Skip>($r, $sp, $case, $buf, $out);
                false
            }
        }
    };
}

/// The buffers the suite works in (on the stack of `run`).
struct Buffers {
    in64: [f64; BUF_LEN],
    out64: [f64; BUF_LEN],
    in32: [f32; BUF_LEN],
    out32: [f32; BUF_LEN],
}

/// Runs the cases of one vectors file; returns (cases, cases through the const form).
/// `small_only`: only the cases that fit the buffer.
fn run_file(r: &mut Report<'_>, sp: &SimdPaths, text: &str, b: &mut Buffers, small_only: bool) -> (u32, u32) {
    let (mut total, mut consts) = (0u32, 0u32);
    for (i, case) in cases(text).enumerate() {
        let case = match case {
            Ok(c) => c,
            Err(e) => {
                let at = At {
                    case: "vectors file",
                    form: "parser",
                    simd: "",
                };
                r.check(false, at, "a case that parses");
                r.detail(format_args!("case {i}, line {}", e.line));
                continue;
            }
        };
        if small_only && case.len() > BUF_LEN {
            continue;
        }
        total += 1;
        let t0 = r.now();
        // `Accumulator<T, K>` at the folds of most cases (each instantiation costs seconds
        // of build time); `DynAccumulator` at every fold.
        // On the Cortex-M0, at the default fold only (for its flash).
        let ran = match case.dtype {
            #[cfg(not(reprosum_small))]
            Dtype::F64 => {
                const_fold!(f64, r, sp, &case, &mut b.in64, &mut b.out64; 2 3 4 6 21 52)
            }
            #[cfg(not(reprosum_small))]
            Dtype::F32 => {
                const_fold!(f32, r, sp, &case, &mut b.in32, &mut b.out32; 2 3 4 6 21)
            }
            #[cfg(reprosum_small)]
            Dtype::F64 => const_fold!(f64, r, sp, &case, &mut b.in64, &mut b.out64; 3),
            #[cfg(reprosum_small)]
            Dtype::F32 => const_fold!(f32, r, sp, &case, &mut b.in32, &mut b.out32; 3),
            // A type this suite does not know (Dtype may grow): counted as a failure.
            #[allow(unreachable_patterns)]
            _ => {
                let at = At {
                    case: case.name,
                    form: "-",
                    simd: "",
                };
                r.check(false, at, "a known element type");
                false
            }
        };
        consts += u32::from(ran);
        if r.clock.is_some() && case.len() > BUF_LEN {
            let ms = r.now().saturating_sub(t0);
            let _ = writeln!(
                r.out,
                "  {}: {} values, {}.{:03} s",
                case.name,
                case.len(),
                ms / 1000,
                ms % 1000
            );
        }
    }
    (total, consts)
}

/// Runs the suite, printing to `out`, and returns the number of failed checks. The last
/// line printed is `N passed, M failed`.
pub fn run(out: &mut dyn Write, opts: Options) -> u64 {
    let _ = writeln!(
        out,
        "reprosum cross suite on {} ({}-endian, {}-bit pointers)",
        env!("REPROSUM_CROSS_TARGET"),
        if cfg!(target_endian = "big") {
            "big"
        } else {
            "little"
        },
        usize::BITS
    );
    let sp = SimdPaths::detect();
    let _ = write!(out, "block-deposit paths:");
    for p in sp.paths() {
        let _ = write!(out, " {}", p.name());
    }
    let _ = writeln!(out, " (default {})", sp.default.name());
    let mut b = Buffers {
        in64: [0.0; BUF_LEN],
        out64: [0.0; BUF_LEN],
        in32: [0.0; BUF_LEN],
        out32: [0.0; BUF_LEN],
    };
    let mut r = Report {
        out,
        passed: 0,
        failed: 0,
        corrupt: 0,
        clock: opts.clock,
    };
    let files: &[(&str, &str)] = if opts.force_fail {
        let _ = writeln!(
            r.out,
            "force-fail: the first case's expected sum has its lowest bit flipped; only the \
             known answers that fit the buffer run"
        );
        r.corrupt = 1;
        &[("known answers", KNOWN_ANSWERS)]
    } else {
        &[("known answers", KNOWN_ANSWERS), ("core vectors", CORE_VECTORS)]
    };
    for &(title, text) in files {
        let t0 = r.now();
        let (n, k) = run_file(&mut r, &sp, text, &mut b, opts.force_fail);
        let _ = write!(r.out, "{title}: {n} cases ({k} also through Accumulator<T, K>)");
        if r.clock.is_some() {
            let ms = r.now().saturating_sub(t0);
            let _ = write!(r.out, " in {}.{:03} s", ms / 1000, ms % 1000);
        }
        let _ = writeln!(r.out);
    }
    if let Some(stack) = opts.stack {
        let (used, size) = stack();
        let _ = writeln!(r.out, "stack: {used} of {size} bytes used");
        let at = At {
            case: "the whole run",
            form: "-",
            simd: "",
        };
        r.check(used + STACK_MARGIN <= size, at, "the stack stayed in its region");
    }
    if r.failed > MAX_FAIL_LINES {
        let _ = writeln!(r.out, "({} more failures not printed)", r.failed - MAX_FAIL_LINES);
    }
    let _ = writeln!(r.out, "{} passed, {} failed", r.passed, r.failed);
    r.failed
}
