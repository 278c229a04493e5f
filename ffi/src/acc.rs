//! The caller-allocated accumulator structs `adn_acc_f64` and `adn_acc_f32`.
//!
//! A struct is a tag word and storage for a `DynAccumulator<T>` of the core. The tag holds a
//! magic number, the type and the fold; every function checks it (and the fold stored in
//! the accumulator) before touching the storage, so a zeroed or never-initialised struct
//! gives `ADN_NOT_INITIALIZED`, not undefined behaviour. The storage is only ever accessed
//! as a `DynAccumulator<T>`, whose fields are integers and floats: any bytes there (from
//! `memcpy`, MPI, or a caller's stray write) are a valid value, at worst a wrong sum.
//!
//! The struct bytes are meaningful to the same build of the library only (all ranks of an
//! MPI job link the same `libreprosum.a`); the byte encoding (`_to_bytes`) is the portable,
//! versioned form for files and for other builds.

use crate::args::{array, byte_range, disjoint, non_null};
use crate::panic;
use crate::status::{
    adn_status, from_error, ADN_BAD_ENCODING, ADN_BUFFER_TOO_SMALL, ADN_MISALIGNED, ADN_NOT_INITIALIZED,
    ADN_NULL_POINTER,
};
use crate::sum::fold_of;
use core::ffi::c_uint;
use core::mem::{align_of, size_of, MaybeUninit};
use reprosum_core::{DynAccumulator, Float};

/// 64-bit words of an `adn_acc_f64`'s storage (the struct is 1024 bytes).
pub const ADN_ACC_F64_STATE_WORDS: usize = 127;
/// 64-bit words of an `adn_acc_f32`'s storage (the struct is 512 bytes).
pub const ADN_ACC_F32_STATE_WORDS: usize = 63;

/// A reproducible accumulator of doubles: caller-allocated, fixed size (1024 bytes,
/// aligned as a `uint64_t`), set up by `adn_acc_f64_init` or `adn_acc_f64_from_bytes`.
/// Opaque: do not read or write the fields. May be copied with `memcpy` or assignment, and
/// sent between processes running the same library build as `sizeof(adn_acc_f64)` bytes
/// (for MPI: one element of `MPI_Type_contiguous(sizeof(adn_acc_f64), MPI_BYTE)`).
#[repr(C)]
pub struct adn_acc_f64 {
    /// Magic number, type and fold.
    _tag: u64,
    /// The accumulator state.
    // MaybeUninit: the core's state has padding bytes, which a typed copy in Rust leaves
    // undefined (C copies them as any bytes).
    _state: [MaybeUninit<u64>; ADN_ACC_F64_STATE_WORDS],
}

/// A reproducible accumulator of floats: caller-allocated, fixed size (512 bytes, aligned
/// as a `uint64_t`), set up by `adn_acc_f32_init` or `adn_acc_f32_from_bytes`. As
/// `adn_acc_f64`.
#[repr(C)]
pub struct adn_acc_f32 {
    /// Magic number, type and fold.
    _tag: u64,
    /// The accumulator state.
    // MaybeUninit: see adn_acc_f64.
    _state: [MaybeUninit<u64>; ADN_ACC_F32_STATE_WORDS],
}

// The storage must hold a DynAccumulator at its alignment; the sizes are ABI.
const _: () = {
    assert!(size_of::<DynAccumulator<f64>>() <= ADN_ACC_F64_STATE_WORDS * 8);
    assert!(size_of::<DynAccumulator<f32>>() <= ADN_ACC_F32_STATE_WORDS * 8);
    assert!(align_of::<DynAccumulator<f64>>() <= align_of::<u64>());
    assert!(align_of::<DynAccumulator<f32>>() <= align_of::<u64>());
    assert!(size_of::<adn_acc_f64>() == 1024);
    assert!(size_of::<adn_acc_f32>() == 512);
};

/// "ADNACC" in the top six bytes; then the type code (1 = f32, 2 = f64) and the fold.
const TAG_MAGIC: u64 = 0x4144_4E41_4343_0000;
const TAG_MAGIC_MASK: u64 = 0xFFFF_FFFF_FFFF_0000;

/// What the generic functions need of an accumulator struct.
pub(crate) trait Slot {
    /// The element type.
    type T: Float;
    /// A pointer to the tag word (offset 0; only an address is computed).
    fn tag(p: *mut Self) -> *mut u64;
    /// A pointer to the state storage (offset 8; only an address is computed).
    fn state(p: *mut Self) -> *mut DynAccumulator<Self::T>;
}

macro_rules! slot {
    ($s:ty, $t:ty) => {
        // repr(C): the tag is at offset 0, the storage at offset 8.
        const _: () = assert!(core::mem::offset_of!($s, _tag) == 0 && core::mem::offset_of!($s, _state) == 8);
        impl Slot for $s {
            type T = $t;
            fn tag(p: *mut Self) -> *mut u64 {
                p.cast()
            }
            fn state(p: *mut Self) -> *mut DynAccumulator<$t> {
                p.cast::<u8>().wrapping_add(8).cast()
            }
        }
    };
}
slot!(adn_acc_f64, f64);
slot!(adn_acc_f32, f32);

// The grouped adds (`adn_acc_*_add_segments`, `_add_by_key`) read and write the accumulators
// of a C array in place, after `checked` accepted every element.
macro_rules! group_slot {
    ($s:ty, $t:ty) => {
        impl facade::AccumulatorSlot<$t> for $s {
            fn get(&self) -> DynAccumulator<$t> {
                let p = core::ptr::from_ref(self).cast_mut();
                // SAFETY: `self` is a live, aligned struct whose tag and fold `checked`
                // accepted (the one use: the grouped adds check every element first); its
                // storage holds a DynAccumulator (const assertions), any bits of which are
                // valid. Only read.
                unsafe { <$s as Slot>::state(p).read() }
            }
            fn set(&mut self, acc: DynAccumulator<$t>) {
                let p = core::ptr::from_mut(self);
                // SAFETY: `self` is a live, aligned, exclusively borrowed struct; the storage
                // fits a DynAccumulator (const assertions). The tag stays: the fold is the
                // one held (the grouped adds never change it).
                unsafe { <$s as Slot>::state(p).write(acc) }
            }
        }
    };
}
group_slot!(adn_acc_f64, f64);
group_slot!(adn_acc_f32, f32);

fn tag_of<T: Float>(fold: usize) -> u64 {
    TAG_MAGIC | (u64::from(T::DTYPE.code()) << 8) | fold as u64
}

/// The fold a tag states, if it is a valid tag of type `T`.
fn fold_in_tag<T: Float>(tag: u64) -> Option<usize> {
    let fold = (tag & 0xFF) as usize;
    (tag & TAG_MAGIC_MASK == TAG_MAGIC
        && (tag >> 8) & 0xFF == u64::from(T::DTYPE.code())
        && (2..=T::MAX_FOLD).contains(&fold))
    .then_some(fold)
}

/// Checks an accumulator struct pointer: non-NULL, aligned, tagged, and its accumulator of
/// the tagged fold. Returns a pointer to the `DynAccumulator`.
///
/// # Safety
/// `p` is NULL or points to a readable struct of type `S` (any bytes).
pub(crate) unsafe fn checked<S: Slot>(p: *mut S) -> Result<*mut DynAccumulator<S::T>, adn_status> {
    non_null(p.cast_const())?;
    // SAFETY: `p` is non-NULL, aligned, and readable (the caller); a u64 has no invalid bits.
    let tag = unsafe { S::tag(p).read() };
    let fold = fold_in_tag::<S::T>(tag).ok_or(ADN_NOT_INITIALIZED)?;
    let state = S::state(p);
    // SAFETY: the storage is readable, aligned and large enough (const assertions), and
    // every bit pattern is a valid DynAccumulator (integers and floats only).
    if unsafe { (*state).fold() } != fold {
        return Err(ADN_NOT_INITIALIZED);
    }
    Ok(state)
}

/// Reads a copy of an accumulator struct's accumulator, from a pointer of any alignment.
///
/// # Safety
/// `p` is NULL or points to `size_of::<S>()` readable bytes.
unsafe fn copy_of<S: Slot>(p: *const S) -> Result<DynAccumulator<S::T>, adn_status> {
    if p.is_null() {
        return Err(ADN_NULL_POINTER);
    }
    let p = p.cast_mut();
    // SAFETY: readable (the caller); read_unaligned needs no alignment; any bits are valid.
    let tag = unsafe { S::tag(p).read_unaligned() };
    let fold = fold_in_tag::<S::T>(tag).ok_or(ADN_NOT_INITIALIZED)?;
    // SAFETY: as for the tag: the storage fits in the struct (const assertions) and every
    // bit pattern is a valid DynAccumulator.
    let acc = unsafe { S::state(p).read_unaligned() };
    if acc.fold() != fold {
        return Err(ADN_NOT_INITIALIZED);
    }
    Ok(acc)
}

/// Writes a fresh accumulator into a struct: zero bytes, then the accumulator and the tag.
///
/// # Safety
/// `p` is non-NULL, aligned and points to a writable struct of type `S`.
unsafe fn store<S: Slot>(p: *mut S, acc: DynAccumulator<S::T>) {
    // SAFETY: the caller guarantees a writable, aligned struct; the storage fits (const
    // assertions). Zeroing first makes every byte of the struct defined (MPI, memcmp).
    unsafe {
        p.cast::<u8>().write_bytes(0, size_of::<S>());
        S::state(p).write(acc);
        S::tag(p).write(tag_of::<S::T>(acc.fold()));
    }
}

unsafe fn init<S: Slot>(p: *mut S, fold: c_uint) -> adn_status {
    panic::status(|| {
        non_null(p.cast_const())?;
        let k = fold_of::<S::T>(fold)?;
        let acc = DynAccumulator::<S::T>::new(k).map_err(from_error)?;
        // SAFETY: non-NULL and aligned (checked); writable (the caller).
        unsafe { store(p, acc) };
        Ok(())
    })
}

unsafe fn add<S: Slot>(p: *mut S, x: S::T) -> adn_status {
    panic::status(|| {
        // SAFETY: the caller passes NULL or a readable and writable struct.
        let acc = unsafe { checked(p)? };
        // SAFETY: `checked` returned a valid, aligned accumulator; C does not touch it during
        // the call, and nothing else here refers to it.
        let acc = unsafe { &mut *acc };
        crate::ieee(|| acc.add(x)).map_err(from_error)
    })
}

unsafe fn add_array<S: Slot>(p: *mut S, x: *const S::T, n: usize) -> adn_status {
    panic::status(|| {
        if p.is_null() || (n > 0 && x.is_null()) {
            return Err(ADN_NULL_POINTER);
        }
        // SAFETY: the caller passes a readable and writable struct.
        let state = unsafe { checked(p)? };
        array(x, n)?;
        if n == 0 {
            return Ok(());
        }
        disjoint(byte_range(x, n)?, byte_range(p.cast_const(), 1)?)?;
        // SAFETY: `array` checked the slice; the caller guarantees `n` readable values; they
        // do not overlap the struct (checked), so the two references do not alias.
        let (xs, acc) = unsafe { (crate::args::slice(x, n), &mut *state) };
        if n < THREADED_ADD {
            return crate::ieee(|| acc.add_slice(xs)).map_err(from_error);
        }
        // On the facade's threads, then one exact merge: the state `add_slice` gives (the
        // merge checks the capacity before changing `acc`).
        let part = facade::accumulate(xs, &facade::Options::with_fold(acc.fold())).map_err(from_error)?;
        crate::ieee(|| acc.merge(&part)).map_err(from_error)
    })
}

/// From this many values on, `_add_array` runs on the facade's threads.
const THREADED_ADD: usize = 1 << 17;

/// The checks and the work of `adn_cumsum_*_from`: the start accumulator first, then as the
/// other cumulative sums.
///
/// # Safety
/// `start` is NULL or points to a readable struct; `input` and `out` as for
/// `adn_cumsum_f64`.
unsafe fn cumsum_from<S: Slot>(start: *const S, input: *const S::T, out: *mut S::T, n: usize) -> adn_status {
    let acc = panic::boundary(Err(crate::status::ADN_INTERNAL_ERROR), || {
        // SAFETY: NULL or a readable struct (the caller); `checked` reads it only. The copy
        // is taken before anything is written, so a `start` inside `out` is harmless.
        unsafe { checked(start.cast_mut()).map(|p| *p) }
    });
    match acc {
        // SAFETY: the caller keeps `cumsum_impl`'s contract for the arrays.
        Ok(acc) => unsafe { crate::sum::cumsum_impl(Ok(acc), input, out, n) },
        Err(s) => s,
    }
}

/// The reproducible cumulative sum of `n` doubles continued from `*start`: `out[i]` gets the
/// bits of the value of `*start` merged with `input[0]` to `input[i]`, at `*start`'s fold.
/// `*start` is only read. With `MPI_Exscan` of the ranks' accumulators as `start`, each
/// rank's slice of a distributed cumulative sum has the bits of the one-process one.
///
/// `input == out` computes in place; any other overlap is `ADN_OVERLAP`. The capacity counts
/// what `*start` holds. Every check happens before anything is written.
///
/// # Safety
/// `start` points to a readable `adn_acc_f64`; `input` to `n` readable doubles and `out` to
/// `n` writable doubles (or `n == 0`).
#[no_mangle]
pub unsafe extern "C" fn adn_cumsum_f64_from(
    start: *const adn_acc_f64,
    input: *const f64,
    out: *mut f64,
    n: usize,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `cumsum_from`'s.
    unsafe { cumsum_from(start, input, out, n) }
}

/// The float twin of `adn_cumsum_f64_from`.
///
/// # Safety
/// `start` points to a readable `adn_acc_f32`; `input` to `n` readable floats and `out` to
/// `n` writable floats (or `n == 0`).
#[no_mangle]
pub unsafe extern "C" fn adn_cumsum_f32_from(
    start: *const adn_acc_f32,
    input: *const f32,
    out: *mut f32,
    n: usize,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `cumsum_from`'s.
    unsafe { cumsum_from(start, input, out, n) }
}

unsafe fn merge<S: Slot>(p: *mut S, other: *const S) -> adn_status {
    panic::status(|| {
        if p.is_null() || other.is_null() {
            return Err(ADN_NULL_POINTER);
        }
        // A copy: `other` may be `p` itself, or an unaligned buffer (an MPI reduction's).
        // SAFETY: the caller passes a readable struct at `other`.
        let o = unsafe { copy_of(other)? };
        // SAFETY: the caller passes a readable and writable struct at `p`.
        let state = unsafe { checked(p)? };
        // SAFETY: valid and aligned (checked); `o` is a copy, so nothing aliases it.
        let acc = unsafe { &mut *state };
        crate::ieee(|| acc.merge(&o)).map_err(from_error)
    })
}

unsafe fn value<S: Slot>(p: *const S, out: *mut S::T) -> adn_status {
    panic::status(|| {
        if p.is_null() {
            return Err(ADN_NULL_POINTER);
        }
        non_null(out.cast_const())?;
        // SAFETY: the caller passes a readable struct (it is only read here).
        let state = unsafe { checked(p.cast_mut())? };
        // SAFETY: valid and aligned (checked); only read, and the reference ends before the
        // write to `out`.
        let v = crate::ieee(|| unsafe { (*state).value() });
        // SAFETY: non-NULL and aligned (checked), writable (the caller).
        unsafe { out.write(v) };
        Ok(())
    })
}

unsafe fn count<S: Slot>(p: *const S, out: *mut u64) -> adn_status {
    panic::status(|| {
        if p.is_null() {
            return Err(ADN_NULL_POINTER);
        }
        non_null(out.cast_const())?;
        // SAFETY: the caller passes a readable struct.
        let state = unsafe { checked(p.cast_mut())? };
        // SAFETY: valid and aligned (checked); only read.
        let c = unsafe { (*state).count() };
        // SAFETY: non-NULL and aligned (checked), writable (the caller).
        unsafe { out.write(c) };
        Ok(())
    })
}

unsafe fn to_bytes<S: Slot>(p: *const S, buf: *mut u8, cap: usize, len: *mut usize) -> adn_status {
    panic::status(|| {
        if p.is_null() || buf.is_null() {
            return Err(ADN_NULL_POINTER);
        }
        non_null(len.cast_const())?;
        // SAFETY: the caller passes a readable struct.
        let state = unsafe { checked(p.cast_mut())? };
        // SAFETY: valid and aligned (checked); only read, into a local copy of the bytes.
        let enc = crate::ieee(|| unsafe { (*state).to_bytes() });
        let bytes = enc.as_bytes();
        if bytes.len() > cap {
            return Err(ADN_BUFFER_TOO_SMALL);
        }
        // SAFETY: `buf` holds `cap >= bytes.len()` writable bytes (the caller); the source is
        // a local, so the ranges cannot overlap; `len` is non-NULL, aligned and writable.
        unsafe {
            core::ptr::copy_nonoverlapping(bytes.as_ptr(), buf, bytes.len());
            len.write(bytes.len());
        }
        Ok(())
    })
}

unsafe fn from_bytes<S: Slot>(p: *mut S, bytes: *const u8, n: usize) -> adn_status {
    panic::status(|| {
        if p.is_null() || (n > 0 && bytes.is_null()) {
            return Err(ADN_NULL_POINTER);
        }
        if !p.is_aligned() {
            return Err(ADN_MISALIGNED);
        }
        if n == 0 {
            return Err(ADN_BAD_ENCODING);
        }
        byte_range(bytes, n)?;
        let acc = {
            // SAFETY: non-NULL, fits the address space (checked), `n` readable bytes (the
            // caller). The slice ends before the struct is written, so overlap is harmless.
            let b = unsafe { core::slice::from_raw_parts(bytes, n) };
            DynAccumulator::<S::T>::from_bytes(b).map_err(from_error)?
        };
        // SAFETY: non-NULL and aligned (checked); writable (the caller).
        unsafe { store(p, acc) };
        Ok(())
    })
}

/// Sets up an empty double accumulator of fold `fold` (2 to 52; `ADN_DEFAULT_FOLD` is 3).
/// Any previous content of `*acc` is overwritten; nothing is written on error.
///
/// # Safety
/// `acc` points to a writable `adn_acc_f64` (its content may be anything).
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f64_init(acc: *mut adn_acc_f64, fold: c_uint) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `init`'s.
    unsafe { init(acc, fold) }
}

/// Adds one double. `ADN_CAPACITY_EXCEEDED` (accumulator unchanged) once it holds
/// `ADN_CAPACITY_F64` values. Adding many values with `adn_acc_f64_add_array` is faster.
///
/// # Safety
/// `acc` points to a readable and writable `adn_acc_f64`.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f64_add(acc: *mut adn_acc_f64, x: f64) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `add`'s.
    unsafe { add(acc, x) }
}

/// Adds `n` doubles (`x` may be NULL only when `n == 0`). The capacity is checked before any
/// value is added; the array must not overlap `*acc`.
///
/// # Safety
/// `acc` points to a readable and writable `adn_acc_f64`; `x` to `n` readable doubles.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f64_add_array(acc: *mut adn_acc_f64, x: *const f64, n: usize) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `add_array`'s.
    unsafe { add_array(acc, x, n) }
}

/// Adds the values of `*other` (same fold, else `ADN_FOLD_MISMATCH`) to `*acc`. Exact: any
/// merge order or tree gives the same state. `other` may equal `acc` and need not be
/// aligned (an MPI reduction buffer); `*acc` is unchanged on error.
///
/// # Safety
/// `acc` points to a readable and writable `adn_acc_f64`; `other` to a readable one.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f64_merge(acc: *mut adn_acc_f64, other: *const adn_acc_f64) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `merge`'s.
    unsafe { merge(acc, other) }
}

/// The sum of the values added so far, into `*out`.
///
/// # Safety
/// `acc` points to a readable `adn_acc_f64`; `out` to a writable double.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f64_value(acc: *const adn_acc_f64, out: *mut f64) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `value`'s.
    unsafe { value(acc, out) }
}

/// The number of values added so far, into `*out`.
///
/// # Safety
/// `acc` points to a readable `adn_acc_f64`; `out` to a writable `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f64_count(acc: *const adn_acc_f64, out: *mut u64) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `count`'s.
    unsafe { count(acc, out) }
}

/// Writes the canonical, portable byte encoding (`20 + 16 * fold` bytes, at most
/// `ADN_ACC_ENCODED_MAX`) to `buf` and its length to `*len`. `ADN_BUFFER_TOO_SMALL`, with
/// nothing written, if `cap` is less than that.
///
/// # Safety
/// `acc` points to a readable `adn_acc_f64`; `buf` to `cap` writable bytes; `len` to a
/// writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f64_to_bytes(
    acc: *const adn_acc_f64,
    buf: *mut u8,
    cap: usize,
    len: *mut usize,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `to_bytes`'s.
    unsafe { to_bytes(acc, buf, cap, len) }
}

/// Sets `*acc` from a byte encoding of a double accumulator (any fold), checking every
/// field: `ADN_BAD_ENCODING`, with `*acc` unchanged, for anything else.
///
/// # Safety
/// `acc` points to a writable `adn_acc_f64`; `bytes` to `n` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f64_from_bytes(
    acc: *mut adn_acc_f64,
    bytes: *const u8,
    n: usize,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `from_bytes`'s.
    unsafe { from_bytes(acc, bytes, n) }
}

/// Sets up an empty float accumulator of fold `fold` (2 to 21). As `adn_acc_f64_init`.
///
/// # Safety
/// `acc` points to a writable `adn_acc_f32`.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f32_init(acc: *mut adn_acc_f32, fold: c_uint) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `init`'s.
    unsafe { init(acc, fold) }
}

/// Adds one float. As `adn_acc_f64_add`.
///
/// # Safety
/// `acc` points to a readable and writable `adn_acc_f32`.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f32_add(acc: *mut adn_acc_f32, x: f32) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `add`'s.
    unsafe { add(acc, x) }
}

/// Adds `n` floats. As `adn_acc_f64_add_array`.
///
/// # Safety
/// `acc` points to a readable and writable `adn_acc_f32`; `x` to `n` readable floats.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f32_add_array(acc: *mut adn_acc_f32, x: *const f32, n: usize) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `add_array`'s.
    unsafe { add_array(acc, x, n) }
}

/// Adds the values of `*other` to `*acc`. As `adn_acc_f64_merge`.
///
/// # Safety
/// `acc` points to a readable and writable `adn_acc_f32`; `other` to a readable one.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f32_merge(acc: *mut adn_acc_f32, other: *const adn_acc_f32) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `merge`'s.
    unsafe { merge(acc, other) }
}

/// The sum of the values added so far, into `*out`.
///
/// # Safety
/// `acc` points to a readable `adn_acc_f32`; `out` to a writable float.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f32_value(acc: *const adn_acc_f32, out: *mut f32) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `value`'s.
    unsafe { value(acc, out) }
}

/// The number of values added so far, into `*out`.
///
/// # Safety
/// `acc` points to a readable `adn_acc_f32`; `out` to a writable `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f32_count(acc: *const adn_acc_f32, out: *mut u64) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `count`'s.
    unsafe { count(acc, out) }
}

/// Writes the byte encoding (`20 + 8 * fold` bytes). As `adn_acc_f64_to_bytes`.
///
/// # Safety
/// As `adn_acc_f64_to_bytes`, for an `adn_acc_f32`.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f32_to_bytes(
    acc: *const adn_acc_f32,
    buf: *mut u8,
    cap: usize,
    len: *mut usize,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `to_bytes`'s.
    unsafe { to_bytes(acc, buf, cap, len) }
}

/// Sets `*acc` from a byte encoding of a float accumulator. As `adn_acc_f64_from_bytes`.
///
/// # Safety
/// `acc` points to a writable `adn_acc_f32`; `bytes` to `n` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn adn_acc_f32_from_bytes(
    acc: *mut adn_acc_f32,
    bytes: *const u8,
    n: usize,
) -> adn_status {
    // SAFETY: the caller keeps this function's contract, which is `from_bytes`'s.
    unsafe { from_bytes(acc, bytes, n) }
}
