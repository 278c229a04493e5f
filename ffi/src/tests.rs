//! Unit tests of the C ABI, called from Rust. Small enough for miri
//! (`cargo +nightly miri test -p reprosum-ffi --lib`); under miri the large vectors cases
//! are left out (and counted) and the floating-point-mode tests are ignored (miri cannot run
//! the inline assembly that reads and writes the control register).

use crate::acc::*;
use crate::batch::*;
use crate::status::*;
use crate::sum::*;
use crate::{ADN_ACC_ENCODED_MAX, ADN_CAPACITY_F32, ADN_CAPACITY_F64};
use core::ffi::CStr;
use core::mem::MaybeUninit;
use reprosum_core::{Accumulator, Dtype, DynAccumulator};
use reprosum_testkit::{cases, Case, CORE_VECTORS, KNOWN_ANSWERS};

/// Under miri (an interpreter, thousands of times slower) only the first few short,
/// small-fold cases of each file run; the rest are counted and run natively.
const MIRI_MAX_LEN: usize = 12;
const MIRI_MAX_FOLD: usize = 4;
const MIRI_MAX_CASES: usize = 8;

/// A poison value: an output that was not written keeps it.
const POISON64: f64 = f64::from_bits(0x7FF4_DEAD_BEEF_0001);
const POISON32: f32 = f32::from_bits(0x7FA0_BEEF);

fn all_cases(text: &str) -> (Vec<Case<'_>>, usize) {
    let mut run = Vec::new();
    let mut skipped = 0;
    for c in cases(text) {
        let c = c.expect("vectors file parses");
        if cfg!(miri) && (run.len() >= MIRI_MAX_CASES || c.fold > MIRI_MAX_FOLD || c.len() > MIRI_MAX_LEN) {
            skipped += 1;
        } else {
            run.push(c);
        }
    }
    if skipped > 0 {
        eprintln!(
            "miri: {} cases run, {skipped} left out (they run natively)",
            run.len()
        );
    }
    (run, skipped)
}

fn zeroed<T>() -> T {
    // SAFETY: used only for the accumulator structs, plain integers.
    unsafe { MaybeUninit::zeroed().assume_init() }
}

fn acc64(fold: u32) -> adn_acc_f64 {
    let mut a: adn_acc_f64 = zeroed();
    // SAFETY: a valid, writable struct.
    assert_eq!(unsafe { adn_acc_f64_init(&mut a, fold) }, ADN_OK);
    a
}

fn acc32(fold: u32) -> adn_acc_f32 {
    let mut a: adn_acc_f32 = zeroed();
    // SAFETY: a valid, writable struct.
    assert_eq!(unsafe { adn_acc_f32_init(&mut a, fold) }, ADN_OK);
    a
}

fn value64(a: &adn_acc_f64) -> u64 {
    let mut v = POISON64;
    // SAFETY: valid pointers.
    assert_eq!(unsafe { adn_acc_f64_value(a, &mut v) }, ADN_OK);
    v.to_bits()
}

fn value32(a: &adn_acc_f32) -> u64 {
    let mut v = POISON32;
    // SAFETY: valid pointers.
    assert_eq!(unsafe { adn_acc_f32_value(a, &mut v) }, ADN_OK);
    v.to_bits() as u64
}

/// Every result the C ABI gives for one case, against the case's bits.
fn check_case(c: &Case<'_>, failures: &mut Vec<String>) {
    let fold = c.fold as u32;
    macro_rules! check {
        ($what:expr, $got:expr, $want:expr) => {{
            let (got, want): (u64, u64) = ($got, $want);
            if got != want {
                failures.push(format!("{} {}: got {got:#X}, expected {want:#X}", c.name, $what));
            }
        }};
    }
    let want_cum: Option<Vec<u64>> = c.cumsum().map(|it| it.collect());
    let want_bytes: Option<Vec<u8>> = c.bytes().map(|it| it.collect());
    match c.dtype {
        Dtype::F64 => {
            let x: Vec<f64> = c.inputs_f64().collect();
            let mut s = POISON64;
            // SAFETY: valid pointers and length.
            let st = unsafe { adn_sum_f64_fold(x.as_ptr(), x.len(), fold, &mut s) };
            check!("sum status", st as u64, 0);
            check!("sum", s.to_bits(), c.sum);
            if fold == 3 {
                let mut s = POISON64;
                // SAFETY: as above.
                let st = unsafe { adn_sum_f64(x.as_ptr(), x.len(), &mut s) };
                check!("sum (K = 3) status", st as u64, 0);
                check!("sum (K = 3)", s.to_bits(), c.sum);
            }
            // Two accumulators, the array split at a third, merged.
            let cut = x.len() / 3;
            let mut a = acc64(fold);
            let mut b = acc64(fold);
            // SAFETY: valid structs and arrays.
            unsafe {
                check!(
                    "add_array",
                    adn_acc_f64_add_array(&mut a, x[..cut].as_ptr(), cut) as u64,
                    0
                );
                for &v in &x[cut..] {
                    check!("add", adn_acc_f64_add(&mut b, v) as u64, 0);
                }
                check!("merge", adn_acc_f64_merge(&mut b, &a) as u64, 0);
            }
            check!("accumulator", value64(&b), c.sum);
            let mut buf = [0u8; ADN_ACC_ENCODED_MAX];
            let mut len = 0usize;
            // SAFETY: valid pointers; `buf` holds ADN_ACC_ENCODED_MAX bytes.
            let st = unsafe { adn_acc_f64_to_bytes(&b, buf.as_mut_ptr(), buf.len(), &mut len) };
            check!("to_bytes status", st as u64, 0);
            if let Some(want) = &want_bytes {
                if &buf[..len] != want.as_slice() {
                    failures.push(format!("{}: encoding differs", c.name));
                }
            }
            let mut d: adn_acc_f64 = zeroed();
            // SAFETY: valid pointers.
            let st = unsafe { adn_acc_f64_from_bytes(&mut d, buf.as_ptr(), len) };
            check!("from_bytes status", st as u64, 0);
            check!("decoded accumulator", value64(&d), c.sum);
            if let Some(want) = &want_cum {
                let mut out = vec![POISON64; x.len()];
                // SAFETY: valid, disjoint arrays of the same length.
                let st = unsafe { adn_cumsum_f64_fold(x.as_ptr(), out.as_mut_ptr(), x.len(), fold) };
                check!("cumsum status", st as u64, 0);
                let got: Vec<u64> = out.iter().map(|v| v.to_bits()).collect();
                if &got != want {
                    failures.push(format!("{}: cumsum differs", c.name));
                }
                let mut inplace = x.clone();
                // SAFETY: in place: the same array as input and output.
                let st =
                    unsafe { adn_cumsum_f64_fold(inplace.as_ptr(), inplace.as_mut_ptr(), x.len(), fold) };
                check!("in-place cumsum status", st as u64, 0);
                let got: Vec<u64> = inplace.iter().map(|v| v.to_bits()).collect();
                if &got != want {
                    failures.push(format!("{}: in-place cumsum differs", c.name));
                }
                // Continued from the accumulator of the first `cut` values: the rest of the
                // whole cumulative sum, into a separate array and in place.
                let mut start = acc64(fold);
                // SAFETY: valid struct and array.
                let st = unsafe { adn_acc_f64_add_array(&mut start, x[..cut].as_ptr(), cut) };
                check!("start status", st as u64, 0);
                let rest = &x[cut..];
                let mut out = vec![POISON64; rest.len()];
                // SAFETY: a valid start, disjoint arrays of one length.
                let st = unsafe { adn_cumsum_f64_from(&start, rest.as_ptr(), out.as_mut_ptr(), rest.len()) };
                check!("cumsum_from status", st as u64, 0);
                let got: Vec<u64> = out.iter().map(|v| v.to_bits()).collect();
                if got != want[cut..] {
                    failures.push(format!("{}: cumsum_from differs", c.name));
                }
                let mut inplace = rest.to_vec();
                // SAFETY: in place.
                let st = unsafe {
                    adn_cumsum_f64_from(&start, inplace.as_ptr(), inplace.as_mut_ptr(), rest.len())
                };
                check!("in-place cumsum_from status", st as u64, 0);
                let got: Vec<u64> = inplace.iter().map(|v| v.to_bits()).collect();
                if got != want[cut..] {
                    failures.push(format!("{}: in-place cumsum_from differs", c.name));
                }
            }
        }
        Dtype::F32 => {
            let x: Vec<f32> = c.inputs_f32().collect();
            let mut s = POISON32;
            // SAFETY: valid pointers and length.
            let st = unsafe { adn_sum_f32_fold(x.as_ptr(), x.len(), fold, &mut s) };
            check!("sum status", st as u64, 0);
            check!("sum", s.to_bits() as u64, c.sum);
            if fold == 3 {
                let mut s = POISON32;
                // SAFETY: as above.
                let st = unsafe { adn_sum_f32(x.as_ptr(), x.len(), &mut s) };
                check!("sum (K = 3) status", st as u64, 0);
                check!("sum (K = 3)", s.to_bits() as u64, c.sum);
            }
            let cut = x.len() / 3;
            let mut a = acc32(fold);
            let mut b = acc32(fold);
            // SAFETY: valid structs and arrays.
            unsafe {
                check!(
                    "add_array",
                    adn_acc_f32_add_array(&mut a, x[..cut].as_ptr(), cut) as u64,
                    0
                );
                for &v in &x[cut..] {
                    check!("add", adn_acc_f32_add(&mut b, v) as u64, 0);
                }
                check!("merge", adn_acc_f32_merge(&mut b, &a) as u64, 0);
            }
            check!("accumulator", value32(&b), c.sum);
            let mut buf = [0u8; ADN_ACC_ENCODED_MAX];
            let mut len = 0usize;
            // SAFETY: valid pointers.
            let st = unsafe { adn_acc_f32_to_bytes(&b, buf.as_mut_ptr(), buf.len(), &mut len) };
            check!("to_bytes status", st as u64, 0);
            if let Some(want) = &want_bytes {
                if &buf[..len] != want.as_slice() {
                    failures.push(format!("{}: encoding differs", c.name));
                }
            }
            let mut d: adn_acc_f32 = zeroed();
            // SAFETY: valid pointers.
            let st = unsafe { adn_acc_f32_from_bytes(&mut d, buf.as_ptr(), len) };
            check!("from_bytes status", st as u64, 0);
            check!("decoded accumulator", value32(&d), c.sum);
            if let Some(want) = &want_cum {
                let mut out = vec![POISON32; x.len()];
                // SAFETY: valid, disjoint arrays.
                let st = unsafe { adn_cumsum_f32_fold(x.as_ptr(), out.as_mut_ptr(), x.len(), fold) };
                check!("cumsum status", st as u64, 0);
                let got: Vec<u64> = out.iter().map(|v| v.to_bits() as u64).collect();
                if &got != want {
                    failures.push(format!("{}: cumsum differs", c.name));
                }
                let mut inplace = x.clone();
                // SAFETY: in place.
                let st =
                    unsafe { adn_cumsum_f32_fold(inplace.as_ptr(), inplace.as_mut_ptr(), x.len(), fold) };
                check!("in-place cumsum status", st as u64, 0);
                let got: Vec<u64> = inplace.iter().map(|v| v.to_bits() as u64).collect();
                if &got != want {
                    failures.push(format!("{}: in-place cumsum differs", c.name));
                }
                // Continued from the accumulator of the first `cut` values: the rest of the
                // whole cumulative sum, into a separate array and in place.
                let mut start = acc32(fold);
                // SAFETY: valid struct and array.
                let st = unsafe { adn_acc_f32_add_array(&mut start, x[..cut].as_ptr(), cut) };
                check!("start status", st as u64, 0);
                let rest = &x[cut..];
                let mut out = vec![POISON32; rest.len()];
                // SAFETY: a valid start, disjoint arrays of one length.
                let st = unsafe { adn_cumsum_f32_from(&start, rest.as_ptr(), out.as_mut_ptr(), rest.len()) };
                check!("cumsum_from status", st as u64, 0);
                let got: Vec<u64> = out.iter().map(|v| v.to_bits() as u64).collect();
                if got != want[cut..] {
                    failures.push(format!("{}: cumsum_from differs", c.name));
                }
                let mut inplace = rest.to_vec();
                // SAFETY: in place.
                let st = unsafe {
                    adn_cumsum_f32_from(&start, inplace.as_ptr(), inplace.as_mut_ptr(), rest.len())
                };
                check!("in-place cumsum_from status", st as u64, 0);
                let got: Vec<u64> = inplace.iter().map(|v| v.to_bits() as u64).collect();
                if got != want[cut..] {
                    failures.push(format!("{}: in-place cumsum_from differs", c.name));
                }
            }
        }
    }
}

fn run_vectors(text: &str) {
    let (run, _) = all_cases(text);
    assert!(!run.is_empty());
    let mut failures = Vec::new();
    for c in &run {
        check_case(c, &mut failures);
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn known_answers() {
    run_vectors(KNOWN_ANSWERS);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "640 KB of vectors text is too slow to parse under miri; runs natively"
)]
fn core_vectors() {
    run_vectors(CORE_VECTORS);
}

#[test]
fn status_strings() {
    let codes = [
        ADN_OK,
        ADN_NULL_POINTER,
        ADN_CAPACITY_EXCEEDED,
        ADN_INVALID_FOLD,
        ADN_OVERLAP,
        ADN_BAD_ENCODING,
        ADN_NOT_BUILT,
        ADN_NO_DEVICE,
        ADN_DEVICE_ERROR,
        ADN_OUT_OF_MEMORY,
        ADN_INTERNAL_ERROR,
        ADN_FOLD_MISMATCH,
        ADN_BUFFER_TOO_SMALL,
        ADN_NOT_INITIALIZED,
        ADN_MISALIGNED,
        ADN_INVALID_POINTER,
        ADN_MPI_ERROR,
        ADN_KEY_OUT_OF_RANGE,
        ADN_INVALID_OFFSETS,
        ADN_INVALID_STRIDE,
    ];
    let text = |s| {
        let p = adn_status_string(s);
        assert!(!p.is_null());
        // SAFETY: adn_status_string returns a static NUL-terminated string.
        unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned()
    };
    let unknown = text(-1);
    assert_eq!(unknown, "unknown status code");
    assert_eq!(text(i32::MAX), unknown);
    assert_eq!(text(codes.len() as i32), unknown);
    let mut seen = std::collections::HashSet::new();
    for (i, &c) in codes.iter().enumerate() {
        assert_eq!(c, i as i32, "codes are fixed and consecutive");
        let t = text(c);
        assert!(!t.is_empty() && t != unknown, "{c}: {t}");
        assert!(seen.insert(t), "{c}: duplicate text");
    }
}

#[test]
fn panic_boundary() {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let s = crate::panic::status(|| panic!("a bug"));
    let v = crate::panic::boundary(7, || -> i32 { panic!("a bug") });
    std::panic::set_hook(prev);
    assert_eq!(s, ADN_INTERNAL_ERROR);
    assert_eq!(v, 7);
    assert_eq!(crate::panic::status(|| Err(ADN_OVERLAP)), ADN_OVERLAP);
    assert_eq!(crate::panic::status(|| Ok(())), ADN_OK);
}

#[test]
fn sum_statuses() {
    let x = [1.0f64, 2.0, 3.0];
    let xf = [1.0f32, 2.0, 3.0];
    let mut out = POISON64;
    let mut outf = POISON32;
    let dangling = core::ptr::NonNull::<f64>::dangling().as_ptr();
    let dangling32 = core::ptr::NonNull::<f32>::dangling().as_ptr();
    // SAFETY: every call is either valid or refused before any memory is touched (miri
    // checks the latter: the dangling pointers are never read).
    unsafe {
        assert_eq!(
            adn_sum_f64(x.as_ptr(), 3, core::ptr::null_mut()),
            ADN_NULL_POINTER
        );
        assert_eq!(adn_sum_f64(core::ptr::null(), 3, &mut out), ADN_NULL_POINTER);
        assert_eq!(adn_sum_f32(core::ptr::null(), 1, &mut outf), ADN_NULL_POINTER);
        assert_eq!(adn_sum_f64_fold(x.as_ptr(), 3, 1, &mut out), ADN_INVALID_FOLD);
        assert_eq!(adn_sum_f64_fold(x.as_ptr(), 3, 53, &mut out), ADN_INVALID_FOLD);
        assert_eq!(adn_sum_f32_fold(xf.as_ptr(), 3, 22, &mut outf), ADN_INVALID_FOLD);
        assert_eq!(
            adn_sum_f32_fold(xf.as_ptr(), 3, u32::MAX, &mut outf),
            ADN_INVALID_FOLD
        );
        // Capacity: refused before reading (the pointer is dangling).
        assert_eq!(adn_sum_f64(dangling, usize::MAX, &mut out), ADN_CAPACITY_EXCEEDED);
        assert_eq!(
            adn_sum_f64(dangling, ADN_CAPACITY_F64 as usize + 1, &mut out),
            ADN_CAPACITY_EXCEEDED
        );
        // Within the capacity but not an array that can exist (n * 8 > isize::MAX).
        assert_eq!(
            adn_sum_f64(dangling, ADN_CAPACITY_F64 as usize, &mut out),
            ADN_CAPACITY_EXCEEDED
        );
        assert_eq!(
            adn_sum_f32(dangling32, ADN_CAPACITY_F32 as usize + 1, &mut outf),
            ADN_CAPACITY_EXCEEDED
        );
        let misaligned = x.as_ptr().cast::<u8>().wrapping_add(1).cast::<f64>();
        assert_eq!(adn_sum_f64(misaligned, 1, &mut out), ADN_MISALIGNED);
        let mut two = [0.0f64; 2];
        let out_mis = two.as_mut_ptr().cast::<u8>().wrapping_add(4).cast::<f64>();
        assert_eq!(adn_sum_f64(x.as_ptr(), 3, out_mis), ADN_MISALIGNED);
        assert_eq!(out.to_bits(), POISON64.to_bits(), "not written on error");
        assert_eq!(outf.to_bits(), POISON32.to_bits(), "not written on error");
        assert_eq!(two, [0.0; 2]);
        // n == 0: NULL allowed, +0.0.
        assert_eq!(adn_sum_f64(core::ptr::null(), 0, &mut out), ADN_OK);
        assert_eq!(out.to_bits(), 0);
        assert_eq!(adn_sum_f32(core::ptr::null(), 0, &mut outf), ADN_OK);
        assert_eq!(outf.to_bits(), 0);
        // n == 0 with a misaligned pointer: nothing is read.
        assert_eq!(adn_sum_f64(misaligned, 0, &mut out), ADN_OK);
        assert_eq!(adn_sum_f64(x.as_ptr(), 3, &mut out), ADN_OK);
        assert_eq!(out, 6.0);
        // The output inside the input is allowed (written after reading).
        let mut y = [1.0f64, 2.0, 4.0];
        let p = y.as_mut_ptr();
        assert_eq!(adn_sum_f64(p, 3, p.add(1)), ADN_OK);
        assert_eq!(y, [1.0, 7.0, 4.0]);
    }
}

#[test]
fn cumsum_from_statuses() {
    let x = [1.0f64, 2.0, 3.0, 4.0];
    let mut out = [POISON64; 4];
    let poisoned = |o: &[f64]| o.iter().all(|v| v.to_bits() == POISON64.to_bits());
    let dangling = core::ptr::NonNull::<f64>::dangling().as_ptr();
    let mut start = acc64(5);
    let garbage: adn_acc_f64 = zeroed();
    // SAFETY: every call is valid or refused before memory is touched.
    unsafe {
        assert_eq!(adn_acc_f64_add(&mut start, 0.5), ADN_OK);
        assert_eq!(
            adn_cumsum_f64_from(core::ptr::null(), x.as_ptr(), out.as_mut_ptr(), 4),
            ADN_NULL_POINTER
        );
        assert_eq!(
            adn_cumsum_f64_from(&garbage, x.as_ptr(), out.as_mut_ptr(), 4),
            ADN_NOT_INITIALIZED
        );
        let mis = (&raw const start)
            .cast::<u8>()
            .wrapping_add(4)
            .cast::<adn_acc_f64>();
        assert_eq!(
            adn_cumsum_f64_from(mis, x.as_ptr(), out.as_mut_ptr(), 4),
            ADN_MISALIGNED
        );
        assert_eq!(
            adn_cumsum_f64_from(&start, core::ptr::null(), out.as_mut_ptr(), 4),
            ADN_NULL_POINTER
        );
        assert_eq!(
            adn_cumsum_f64_from(&start, x.as_ptr(), core::ptr::null_mut(), 4),
            ADN_NULL_POINTER
        );
        assert_eq!(
            adn_cumsum_f64_from(&start, dangling, dangling, usize::MAX),
            ADN_CAPACITY_EXCEEDED
        );
        let mut buf = [1.0f64, 2.0, 3.0, 4.0, 5.0];
        let p = buf.as_mut_ptr();
        assert_eq!(adn_cumsum_f64_from(&start, p, p.add(1), 4), ADN_OVERLAP);
        assert_eq!(buf, [1.0, 2.0, 3.0, 4.0, 5.0], "nothing written");
        assert!(poisoned(&out));
        // n == 0: NULL arrays allowed, nothing written.
        assert_eq!(
            adn_cumsum_f64_from(&start, core::ptr::null(), core::ptr::null_mut(), 0),
            ADN_OK
        );
        // The capacity counts what the start holds.
        let full = {
            let mut e = [0u8; 16 + 2 * 3 * 8];
            e[..4].copy_from_slice(b"ADNB");
            e[4] = 1;
            e[5] = 2;
            e[6] = 3;
            e[7] = 1; // NaN seen: the simplest state that may hold that many values
            e[8..16].copy_from_slice(&(ADN_CAPACITY_F64 - 2).to_le_bytes());
            let mut a = acc64(3);
            assert_eq!(adn_acc_f64_from_bytes(&mut a, e.as_ptr(), e.len()), ADN_OK);
            a
        };
        assert_eq!(
            adn_cumsum_f64_from(&full, x.as_ptr(), out.as_mut_ptr(), 3),
            ADN_CAPACITY_EXCEEDED
        );
        assert!(poisoned(&out));
        assert_eq!(
            adn_cumsum_f64_from(&full, x.as_ptr(), out.as_mut_ptr(), 2),
            ADN_OK
        );
        assert!(out[..2].iter().all(|v| v.to_bits() == 0x7FF8_0000_0000_0000));
        // The start's fold (5) and values: 0.5 before everything; `start` only read.
        assert_eq!(
            adn_cumsum_f64_from(&start, x.as_ptr(), out.as_mut_ptr(), 4),
            ADN_OK
        );
        assert_eq!(out, [1.5, 3.5, 6.5, 10.5]);
        let mut c = 0u64;
        assert_eq!(adn_acc_f64_count(&start, &mut c), ADN_OK);
        assert_eq!(c, 1);
        // In place, and the f32 twin.
        let mut y = x;
        assert_eq!(adn_cumsum_f64_from(&start, y.as_ptr(), y.as_mut_ptr(), 4), ADN_OK);
        assert_eq!(y, [1.5, 3.5, 6.5, 10.5]);
        let mut sf = acc32(21);
        assert_eq!(adn_acc_f32_add(&mut sf, -1.0), ADN_OK);
        let xf = [1.0f32, 2.0, 3.0];
        let mut of = [POISON32; 3];
        assert_eq!(adn_cumsum_f32_from(&sf, xf.as_ptr(), of.as_mut_ptr(), 3), ADN_OK);
        assert_eq!(of, [0.0, 2.0, 5.0]);
        assert_eq!(of[0].to_bits(), 0, "+0.0");
        let g32: adn_acc_f32 = zeroed();
        assert_eq!(
            adn_cumsum_f32_from(&g32, xf.as_ptr(), of.as_mut_ptr(), 3),
            ADN_NOT_INITIALIZED
        );
    }
}

/// Every thread count gives the bits of one thread, for every CPU entry point that uses
/// the pool (inputs large enough to be split).
#[test]
#[cfg_attr(miri, ignore = "large inputs on a thread pool (run natively)")]
fn every_thread_count_gives_the_same_bits() {
    use crate::threads::{adn_get_num_threads, adn_set_num_threads};
    let n = 300_000;
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let x: Vec<f64> = (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let e = if i % 5 == 0 {
                (s % 1200) as i32 - 600
            } else {
                (s % 60) as i32 - 30
            };
            let m = 1.0 + (s >> 12) as f64 / (1u64 << 52) as f64;
            let signed = if s & 1 == 0 { m } else { -m };
            signed * 2f64.powi(e)
        })
        .collect();
    let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let run = |fold: u32| {
        let mut r = (
            0u64,
            vec![POISON64; n],
            vec![POISON32; n],
            vec![POISON64; n - 1000],
            [0u8; ADN_ACC_ENCODED_MAX],
        );
        let mut sum = POISON64;
        let mut start = acc64(fold);
        let mut len = 0;
        // SAFETY: valid pointers and lengths.
        unsafe {
            assert_eq!(adn_sum_f64_fold(x.as_ptr(), n, fold, &mut sum), ADN_OK);
            assert_eq!(adn_cumsum_f64_fold(x.as_ptr(), r.1.as_mut_ptr(), n, fold), ADN_OK);
            r.2.copy_from_slice(&xf);
            assert_eq!(
                adn_cumsum_f32_fold(r.2.as_ptr(), r.2.as_mut_ptr(), n, fold),
                ADN_OK
            );
            assert_eq!(adn_acc_f64_add_array(&mut start, x.as_ptr(), 1000), ADN_OK);
            assert_eq!(
                adn_cumsum_f64_from(&start, x[1000..].as_ptr(), r.3.as_mut_ptr(), n - 1000),
                ADN_OK
            );
            assert_eq!(
                adn_acc_f64_add_array(&mut start, x[1000..].as_ptr(), n - 1000),
                ADN_OK
            );
            assert_eq!(
                adn_acc_f64_to_bytes(&start, r.4.as_mut_ptr(), ADN_ACC_ENCODED_MAX, &mut len),
                ADN_OK
            );
        }
        r.0 = sum.to_bits();
        r
    };
    for fold in [3u32, 7] {
        // The core, on one thread, is the reference.
        let want_sum = reprosum_core::sum_fold(&x, fold as usize).unwrap().to_bits();
        let mut want_cum = vec![0.0f64; n];
        reprosum_core::cumsum_fold(&x, &mut want_cum, fold as usize).unwrap();
        let mut want = DynAccumulator::<f64>::new(fold as usize).unwrap();
        want.add_slice(&x).unwrap();
        let mut reference = None;
        for threads in [1u32, 2, 3, 5, 8] {
            assert_eq!(adn_set_num_threads(threads), ADN_OK);
            assert_eq!(adn_get_num_threads(), threads);
            let r = run(fold);
            assert_eq!(r.0, want_sum, "fold {fold}, {threads} threads");
            assert!(
                r.1.iter().zip(&want_cum).all(|(a, b)| a.to_bits() == b.to_bits()),
                "cumsum, {threads} threads"
            );
            assert!(
                r.3.iter()
                    .zip(&want_cum[1000..])
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "cumsum_from, {threads} threads"
            );
            let enc = want.to_bytes();
            assert_eq!(
                &r.4[..enc.as_bytes().len()],
                enc.as_bytes(),
                "add_array state, {threads} threads"
            );
            let f32_bits: Vec<u32> = r.2.iter().map(|v| v.to_bits()).collect();
            match &reference {
                None => reference = Some(f32_bits),
                Some(b) => assert_eq!(&f32_bits, b, "f32 in-place cumsum, {threads} threads"),
            }
        }
    }
    assert_eq!(adn_set_num_threads(0), ADN_OK);
    assert!(adn_get_num_threads() >= 1);
}

#[test]
fn cumsum_statuses() {
    let x = [1.0f64, 2.0, 3.0, 4.0];
    let mut out = [POISON64; 4];
    let dangling = core::ptr::NonNull::<f64>::dangling().as_ptr();
    let poisoned = |o: &[f64]| o.iter().all(|v| v.to_bits() == POISON64.to_bits());
    // SAFETY: every call is valid or refused before memory is touched.
    unsafe {
        assert_eq!(
            adn_cumsum_f64(core::ptr::null(), out.as_mut_ptr(), 4),
            ADN_NULL_POINTER
        );
        assert_eq!(
            adn_cumsum_f64(x.as_ptr(), core::ptr::null_mut(), 4),
            ADN_NULL_POINTER
        );
        assert_eq!(
            adn_cumsum_f64(core::ptr::null(), core::ptr::null_mut(), 0),
            ADN_OK
        );
        assert_eq!(adn_cumsum_f64(x.as_ptr(), core::ptr::null_mut(), 0), ADN_OK);
        assert_eq!(
            adn_cumsum_f64_fold(x.as_ptr(), out.as_mut_ptr(), 4, 0),
            ADN_INVALID_FOLD
        );
        assert_eq!(
            adn_cumsum_f64(dangling, dangling, usize::MAX),
            ADN_CAPACITY_EXCEEDED
        );
        assert_eq!(
            adn_cumsum_f32(dangling.cast(), dangling.cast(), ADN_CAPACITY_F32 as usize + 1),
            ADN_CAPACITY_EXCEEDED
        );
        assert!(poisoned(&out));
        // Overlap: shifted by one element either way.
        let mut buf = [1.0f64, 2.0, 3.0, 4.0, 5.0];
        let p = buf.as_mut_ptr();
        assert_eq!(adn_cumsum_f64(p, p.add(1), 4), ADN_OVERLAP);
        assert_eq!(adn_cumsum_f64(p.add(1), p, 4), ADN_OVERLAP);
        // Partial overlap by a few bytes (misaligned out is caught first).
        let q = p.cast::<u8>().wrapping_add(4).cast::<f64>();
        assert_eq!(adn_cumsum_f64(p, q, 2), ADN_MISALIGNED);
        assert_eq!(buf, [1.0, 2.0, 3.0, 4.0, 5.0], "nothing written");
        // Adjacent is fine.
        assert_eq!(adn_cumsum_f64(p, p.add(2), 2), ADN_OK);
        assert_eq!(buf, [1.0, 2.0, 1.0, 3.0, 5.0]);
        assert_eq!(adn_cumsum_f64(x.as_ptr(), out.as_mut_ptr(), 4), ADN_OK);
        assert_eq!(out, [1.0, 3.0, 6.0, 10.0]);
        let mut xf = [0.5f32, 0.25, 0.125];
        let pf = xf.as_mut_ptr();
        assert_eq!(adn_cumsum_f32(pf, pf, 3), ADN_OK);
        assert_eq!(xf, [0.5, 0.75, 0.875]);
        let mut yf = [POISON32; 3];
        let pf = xf.as_ptr();
        assert_eq!(adn_cumsum_f32_fold(pf, yf.as_mut_ptr(), 3, 22), ADN_INVALID_FOLD);
        assert!(yf.iter().all(|v| v.to_bits() == POISON32.to_bits()));
    }
}

#[test]
fn accumulator_statuses() {
    let x = [1.0f64, 2.0, 3.0];
    // SAFETY: every call is valid or refused before memory is touched.
    unsafe {
        let mut zero: adn_acc_f64 = zeroed();
        let mut v = POISON64;
        let mut n = 0u64;
        assert_eq!(adn_acc_f64_add(&mut zero, 1.0), ADN_NOT_INITIALIZED);
        assert_eq!(
            adn_acc_f64_add_array(&mut zero, x.as_ptr(), 3),
            ADN_NOT_INITIALIZED
        );
        assert_eq!(adn_acc_f64_value(&zero, &mut v), ADN_NOT_INITIALIZED);
        assert_eq!(adn_acc_f64_count(&zero, &mut n), ADN_NOT_INITIALIZED);
        let good = acc64(3);
        assert_eq!(adn_acc_f64_merge(&mut zero, &good), ADN_NOT_INITIALIZED);
        let mut good2 = acc64(3);
        assert_eq!(adn_acc_f64_merge(&mut good2, &zero), ADN_NOT_INITIALIZED);
        // Garbage bytes.
        let mut junk: adn_acc_f64 = zeroed();
        let bytes = core::slice::from_raw_parts_mut((&mut junk as *mut adn_acc_f64).cast::<u8>(), 1024);
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(37).wrapping_add(11);
        }
        assert_eq!(adn_acc_f64_add(&mut junk, 1.0), ADN_NOT_INITIALIZED);
        // A valid tag over a zeroed accumulator (its own fold field disagrees).
        let mut half = acc64(3);
        let words = core::slice::from_raw_parts_mut((&mut half as *mut adn_acc_f64).cast::<u64>(), 128);
        words[1..].fill(0);
        assert_eq!(adn_acc_f64_add(&mut half, 1.0), ADN_NOT_INITIALIZED);
        // A float accumulator's tag is not a double accumulator's.
        let f = acc32(3);
        let mut as64: adn_acc_f64 = zeroed();
        core::ptr::copy_nonoverlapping(
            (&f as *const adn_acc_f32).cast::<u8>(),
            (&mut as64 as *mut adn_acc_f64).cast::<u8>(),
            512,
        );
        assert_eq!(adn_acc_f64_add(&mut as64, 1.0), ADN_NOT_INITIALIZED);

        assert_eq!(adn_acc_f64_init(core::ptr::null_mut(), 3), ADN_NULL_POINTER);
        let mut a: adn_acc_f64 = zeroed();
        assert_eq!(adn_acc_f64_init(&mut a, 1), ADN_INVALID_FOLD);
        assert_eq!(adn_acc_f64_init(&mut a, 53), ADN_INVALID_FOLD);
        assert_eq!(
            adn_acc_f64_add(&mut a, 1.0),
            ADN_NOT_INITIALIZED,
            "init did not write on error"
        );
        let mut a32: adn_acc_f32 = zeroed();
        assert_eq!(adn_acc_f32_init(&mut a32, 22), ADN_INVALID_FOLD);
        assert_eq!(adn_acc_f32_init(&mut a32, 21), ADN_OK);

        let mut a = acc64(3);
        assert_eq!(adn_acc_f64_add(core::ptr::null_mut(), 1.0), ADN_NULL_POINTER);
        assert_eq!(
            adn_acc_f64_add_array(&mut a, core::ptr::null(), 1),
            ADN_NULL_POINTER
        );
        assert_eq!(adn_acc_f64_add_array(&mut a, core::ptr::null(), 0), ADN_OK);
        assert_eq!(adn_acc_f64_merge(&mut a, core::ptr::null()), ADN_NULL_POINTER);
        assert_eq!(adn_acc_f64_value(&a, core::ptr::null_mut()), ADN_NULL_POINTER);
        assert_eq!(adn_acc_f64_value(core::ptr::null(), &mut v), ADN_NULL_POINTER);
        assert_eq!(adn_acc_f64_count(&a, core::ptr::null_mut()), ADN_NULL_POINTER);
        let mut k4 = acc64(4);
        assert_eq!(adn_acc_f64_merge(&mut k4, &a), ADN_FOLD_MISMATCH);
        // An array inside the struct itself is refused.
        let inside = (&a as *const adn_acc_f64).cast::<f64>().add(4);
        assert_eq!(adn_acc_f64_add_array(&mut a, inside, 2), ADN_OVERLAP);

        assert_eq!(adn_acc_f64_add_array(&mut a, x.as_ptr(), 3), ADN_OK);
        // Merging with itself doubles.
        assert_eq!(adn_acc_f64_merge(&mut a, &a), ADN_OK);
        assert_eq!(adn_acc_f64_value(&a, &mut v), ADN_OK);
        assert_eq!(v, 12.0);
        assert_eq!(adn_acc_f64_count(&a, &mut n), ADN_OK);
        assert_eq!(n, 6);
        // An unaligned copy as `other` (MPI buffers need not be aligned).
        let mut raw = vec![0u8; 1024 + 1];
        core::ptr::copy_nonoverlapping(
            (&a as *const adn_acc_f64).cast::<u8>(),
            raw.as_mut_ptr().add(1),
            1024,
        );
        let unaligned = raw.as_ptr().add(1).cast::<adn_acc_f64>();
        assert_eq!(adn_acc_f64_merge(&mut a, unaligned), ADN_OK);
        assert_eq!(adn_acc_f64_value(&a, &mut v), ADN_OK);
        assert_eq!(v, 24.0);
        // The accumulator itself must be aligned.
        let mut raw2 = vec![0u64; 129];
        let mis = raw2.as_mut_ptr().cast::<u8>().add(4).cast::<adn_acc_f64>();
        assert_eq!(adn_acc_f64_init(mis, 3), ADN_MISALIGNED);
        assert_eq!(adn_acc_f64_add(mis, 1.0), ADN_MISALIGNED);
        assert!(raw2.iter().all(|&w| w == 0));

        // Encoding.
        let mut buf = [0xAAu8; ADN_ACC_ENCODED_MAX];
        let mut len = 12345usize;
        assert_eq!(
            adn_acc_f64_to_bytes(&a, buf.as_mut_ptr(), 67, &mut len),
            ADN_BUFFER_TOO_SMALL
        );
        assert_eq!(len, 12345);
        assert!(buf.iter().all(|&b| b == 0xAA));
        assert_eq!(
            adn_acc_f64_to_bytes(&a, core::ptr::null_mut(), 68, &mut len),
            ADN_NULL_POINTER
        );
        assert_eq!(
            adn_acc_f64_to_bytes(&a, buf.as_mut_ptr(), 68, core::ptr::null_mut()),
            ADN_NULL_POINTER
        );
        assert_eq!(adn_acc_f64_to_bytes(&a, buf.as_mut_ptr(), 68, &mut len), ADN_OK);
        assert_eq!(len, 68);
        let core_acc = {
            let mut c = Accumulator::<f64>::new();
            for _ in 0..4 {
                c.add_slice(&x).unwrap();
            }
            c
        };
        assert_eq!(&buf[..68], core_acc.to_bytes().as_bytes());
        let mut b = acc64(5);
        let before = value64(&b);
        assert_eq!(adn_acc_f64_from_bytes(&mut b, buf.as_ptr(), 67), ADN_BAD_ENCODING);
        assert_eq!(adn_acc_f64_from_bytes(&mut b, buf.as_ptr(), 0), ADN_BAD_ENCODING);
        assert_eq!(
            adn_acc_f64_from_bytes(&mut b, core::ptr::null(), 0),
            ADN_BAD_ENCODING
        );
        assert_eq!(
            adn_acc_f64_from_bytes(&mut b, core::ptr::null(), 68),
            ADN_NULL_POINTER
        );
        let mut bad = buf;
        bad[0] ^= 1;
        assert_eq!(adn_acc_f64_from_bytes(&mut b, bad.as_ptr(), 68), ADN_BAD_ENCODING);
        let mut f32acc = acc32(3);
        assert_eq!(
            adn_acc_f32_from_bytes(&mut f32acc, buf.as_ptr(), 68),
            ADN_BAD_ENCODING
        );
        assert_eq!(value64(&b), before, "unchanged on error");
        let mut k: u64 = 0;
        assert_eq!(adn_acc_f64_count(&b, &mut k), ADN_OK);
        assert_eq!(k, 0);
        assert_eq!(adn_acc_f64_from_bytes(&mut b, buf.as_ptr(), 68), ADN_OK);
        assert_eq!(value64(&b), 24.0f64.to_bits());
    }
}

/// A NaN-only accumulator that already holds the capacity: the next value is refused.
#[test]
fn accumulator_capacity() {
    fn full(dtype: u8, fold: u8, bytes_per: usize, cap: u64) -> Vec<u8> {
        let mut e = vec![0u8; 16 + 2 * fold as usize * bytes_per];
        e[..4].copy_from_slice(b"ADNB");
        e[4] = 1;
        e[5] = dtype;
        e[6] = fold;
        e[7] = 1; // NaN seen
        e[8..16].copy_from_slice(&cap.to_le_bytes());
        e
    }
    let e64 = full(2, 3, 8, ADN_CAPACITY_F64);
    let e32 = full(1, 3, 4, ADN_CAPACITY_F32);
    let x = [1.0f64];
    let xf = [1.0f32];
    // SAFETY: valid pointers.
    unsafe {
        let mut a = acc64(3);
        assert_eq!(adn_acc_f64_from_bytes(&mut a, e64.as_ptr(), e64.len()), ADN_OK);
        assert_eq!(adn_acc_f64_add(&mut a, 1.0), ADN_CAPACITY_EXCEEDED);
        assert_eq!(
            adn_acc_f64_add_array(&mut a, x.as_ptr(), 1),
            ADN_CAPACITY_EXCEEDED
        );
        assert_eq!(adn_acc_f64_add_array(&mut a, x.as_ptr(), 0), ADN_OK);
        let mut one = acc64(3);
        assert_eq!(adn_acc_f64_add(&mut one, 1.0), ADN_OK);
        assert_eq!(adn_acc_f64_merge(&mut a, &one), ADN_CAPACITY_EXCEEDED);
        assert_eq!(adn_acc_f64_merge(&mut one, &a), ADN_CAPACITY_EXCEEDED);
        assert_eq!(value64(&one), 1.0f64.to_bits(), "unchanged on error");
        assert_eq!(value64(&a), 0x7FF8_0000_0000_0000);

        let mut b = acc32(3);
        assert_eq!(adn_acc_f32_from_bytes(&mut b, e32.as_ptr(), e32.len()), ADN_OK);
        assert_eq!(adn_acc_f32_add(&mut b, 1.0), ADN_CAPACITY_EXCEEDED);
        assert_eq!(
            adn_acc_f32_add_array(&mut b, xf.as_ptr(), 1),
            ADN_CAPACITY_EXCEEDED
        );
        let mut n = 0u64;
        assert_eq!(adn_acc_f32_count(&b, &mut n), ADN_OK);
        assert_eq!(n, ADN_CAPACITY_F32);
    }
}

#[test]
fn gpu_entry_points_without_a_device() {
    let x = [1.0f64];
    let xf = [1.0f32];
    let mut o = POISON64;
    let mut of = POISON32;
    let mut c = [POISON64];
    let mut cf = [POISON32];
    let mut a64 = acc64(3);
    let mut a32 = acc32(3);
    // The HIP half's own outputs: on a machine with a CUDA device the CUDA half writes its.
    let (mut oh, mut ofh, mut ch, mut cfh) = (POISON64, POISON32, [POISON64], [POISON32]);
    let (mut a64h, mut a32h) = (acc64(3), acc32(3));
    let null = core::ptr::null_mut();
    // SAFETY: valid host pointers; no stream (NULL).
    let (cuda, hip) = unsafe {
        use crate::gpu::*;
        (
            [
                adn_cuda_sum_f64(x.as_ptr(), 1, &mut o),
                adn_cuda_sum_f32(xf.as_ptr(), 1, &mut of),
                adn_cuda_sum_f64_fold(x.as_ptr(), 1, 3, &mut o),
                adn_cuda_sum_f32_fold(xf.as_ptr(), 1, 3, &mut of),
                adn_cuda_sum_f64_stream(x.as_ptr(), 1, 3, &mut o, null),
                adn_cuda_sum_f32_stream(xf.as_ptr(), 1, 3, &mut of, null),
                adn_cuda_cumsum_f64(x.as_ptr(), c.as_mut_ptr(), 1),
                adn_cuda_cumsum_f32(xf.as_ptr(), cf.as_mut_ptr(), 1),
                adn_cuda_cumsum_f64_fold(x.as_ptr(), c.as_mut_ptr(), 1, 3),
                adn_cuda_cumsum_f32_fold(xf.as_ptr(), cf.as_mut_ptr(), 1, 3),
                adn_cuda_cumsum_f64_stream(x.as_ptr(), c.as_mut_ptr(), 1, 3, null),
                adn_cuda_cumsum_f32_stream(xf.as_ptr(), cf.as_mut_ptr(), 1, 3, null),
                adn_cuda_acc_f64_add_array(&mut a64, x.as_ptr(), 1),
                adn_cuda_acc_f32_add_array(&mut a32, xf.as_ptr(), 1),
                adn_cuda_acc_f64_add_array_stream(&mut a64, x.as_ptr(), 1, null),
                adn_cuda_acc_f32_add_array_stream(&mut a32, xf.as_ptr(), 1, null),
                adn_cuda_cumsum_f64_from(&a64, x.as_ptr(), c.as_mut_ptr(), 1),
                adn_cuda_cumsum_f32_from(&a32, xf.as_ptr(), cf.as_mut_ptr(), 1),
                adn_cuda_cumsum_f64_from_stream(&a64, x.as_ptr(), c.as_mut_ptr(), 1, null),
                adn_cuda_cumsum_f32_from_stream(&a32, xf.as_ptr(), cf.as_mut_ptr(), 1, null),
            ],
            [
                adn_hip_sum_f64(x.as_ptr(), 1, &mut oh),
                adn_hip_sum_f32(xf.as_ptr(), 1, &mut ofh),
                adn_hip_sum_f64_fold(x.as_ptr(), 1, 3, &mut oh),
                adn_hip_sum_f32_fold(xf.as_ptr(), 1, 3, &mut ofh),
                adn_hip_sum_f64_stream(x.as_ptr(), 1, 3, &mut oh, null),
                adn_hip_sum_f32_stream(xf.as_ptr(), 1, 3, &mut ofh, null),
                adn_hip_cumsum_f64(x.as_ptr(), ch.as_mut_ptr(), 1),
                adn_hip_cumsum_f32(xf.as_ptr(), cfh.as_mut_ptr(), 1),
                adn_hip_cumsum_f64_fold(x.as_ptr(), ch.as_mut_ptr(), 1, 3),
                adn_hip_cumsum_f32_fold(xf.as_ptr(), cfh.as_mut_ptr(), 1, 3),
                adn_hip_cumsum_f64_stream(x.as_ptr(), ch.as_mut_ptr(), 1, 3, null),
                adn_hip_cumsum_f32_stream(xf.as_ptr(), cfh.as_mut_ptr(), 1, 3, null),
                adn_hip_acc_f64_add_array(&mut a64h, x.as_ptr(), 1),
                adn_hip_acc_f32_add_array(&mut a32h, xf.as_ptr(), 1),
                adn_hip_acc_f64_add_array_stream(&mut a64h, x.as_ptr(), 1, null),
                adn_hip_acc_f32_add_array_stream(&mut a32h, xf.as_ptr(), 1, null),
                adn_hip_cumsum_f64_from(&a64h, x.as_ptr(), ch.as_mut_ptr(), 1),
                adn_hip_cumsum_f32_from(&a32h, xf.as_ptr(), cfh.as_mut_ptr(), 1),
                adn_hip_cumsum_f64_from_stream(&a64h, x.as_ptr(), ch.as_mut_ptr(), 1, null),
                adn_hip_cumsum_f32_from_stream(&a32h, xf.as_ptr(), cfh.as_mut_ptr(), 1, null),
            ],
        )
    };
    #[cfg(feature = "cuda")]
    let cuda_expected = if reprosum_gpu::cuda::driver_present() {
        println!("gpu_entry_points_without_a_device: a CUDA driver is present; the CUDA half is checked by the GPU tests");
        None
    } else {
        Some(ADN_NO_DEVICE)
    };
    #[cfg(not(feature = "cuda"))]
    let cuda_expected = Some(ADN_NOT_BUILT);
    if let Some(want) = cuda_expected {
        assert!(cuda.iter().all(|&s| s == want), "{cuda:?}");
        assert_eq!(o.to_bits(), POISON64.to_bits());
        assert_eq!(of.to_bits(), POISON32.to_bits());
        assert_eq!(c[0].to_bits(), POISON64.to_bits());
        assert_eq!(cf[0].to_bits(), POISON32.to_bits());
        let (mut k64, mut k32) = (1u64, 1u64);
        // SAFETY: valid structs and outputs.
        unsafe {
            assert_eq!(adn_acc_f64_count(&a64, &mut k64), ADN_OK);
            assert_eq!(adn_acc_f32_count(&a32, &mut k32), ADN_OK);
        }
        assert_eq!((k64, k32), (0, 0), "accumulators unchanged");
    }
    #[cfg(feature = "hip")]
    let hip_expected = if reprosum_gpu::hip::device_count().is_ok_and(|n| n > 0) {
        println!("gpu_entry_points_without_a_device: a HIP device is present; the HIP half is checked by the GPU tests");
        None
    } else {
        Some(ADN_NO_DEVICE)
    };
    #[cfg(not(feature = "hip"))]
    let hip_expected = Some(ADN_NOT_BUILT);
    if let Some(want) = hip_expected {
        assert!(hip.iter().all(|&s| s == want), "{hip:?}");
        assert_eq!(oh.to_bits(), POISON64.to_bits());
        assert_eq!(ofh.to_bits(), POISON32.to_bits());
        assert_eq!(ch[0].to_bits(), POISON64.to_bits());
        assert_eq!(cfh[0].to_bits(), POISON32.to_bits());
        let (mut k64, mut k32) = (1u64, 1u64);
        // SAFETY: valid structs and outputs.
        unsafe {
            assert_eq!(adn_acc_f64_count(&a64h, &mut k64), ADN_OK);
            assert_eq!(adn_acc_f32_count(&a32h, &mut k32), ADN_OK);
        }
        assert_eq!((k64, k32), (0, 0), "accumulators unchanged");
    }
}

/// The same bits as the core for random inputs, folds and splits (a small property test).
#[test]
fn matches_core_on_random_inputs() {
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let rounds = if cfg!(miri) { 2 } else { 200 };
    for _ in 0..rounds {
        let n = (next() % if cfg!(miri) { 8 } else { 300 }) as usize;
        let fold = 2 + (next() % if cfg!(miri) { 3 } else { 51 }) as usize;
        let x: Vec<f64> = (0..n)
            .map(|_| {
                let r = next();
                // Finite values of every exponent range.
                f64::from_bits(r & 0xFFEF_FFFF_FFFF_FFFF)
            })
            .collect();
        let want = reprosum_core::sum_fold(&x, fold).unwrap().to_bits();
        let mut got = POISON64;
        // SAFETY: valid pointers.
        assert_eq!(
            unsafe { adn_sum_f64_fold(x.as_ptr(), n, fold as u32, &mut got) },
            ADN_OK
        );
        assert_eq!(got.to_bits(), want, "n {n} fold {fold}");
        let mut d = DynAccumulator::<f64>::new(fold).unwrap();
        d.add_slice(&x).unwrap();
        let mut a = acc64(fold as u32);
        for chunk in x.chunks(7) {
            let mut b = acc64(fold as u32);
            // SAFETY: valid pointers.
            unsafe {
                assert_eq!(adn_acc_f64_add_array(&mut b, chunk.as_ptr(), chunk.len()), ADN_OK);
                assert_eq!(adn_acc_f64_merge(&mut a, &b), ADN_OK);
            }
        }
        assert_eq!(value64(&a), d.value().to_bits());
        let xf: Vec<f32> = x
            .iter()
            .map(|&v| f32::from_bits((v.to_bits() >> 32) as u32 & 0xFF7F_FFFF))
            .collect();
        let ff = 2 + fold % 20;
        let want = reprosum_core::sum_fold(&xf, ff).unwrap().to_bits();
        let mut got = POISON32;
        // SAFETY: valid pointers.
        assert_eq!(
            unsafe { adn_sum_f32_fold(xf.as_ptr(), n, ff as u32, &mut got) },
            ADN_OK
        );
        assert_eq!(got.to_bits(), want, "f32 n {n} fold {ff}");
    }
}

/// The entry points set the standard floating-point mode: with FTZ, DAZ and round-down set
/// by the caller, every known answer keeps its bits, and the caller's mode is restored.
#[test]
#[cfg_attr(miri, ignore = "miri cannot run the inline assembly that sets the FP mode")]
fn hostile_fp_mode() {
    use reprosum_testkit::fpmode;
    #[cfg(target_arch = "x86_64")]
    let hostile = 0x1F80 | (1 << 15) | (1 << 6) | (1 << 13); // FTZ, DAZ, round down
    #[cfg(target_arch = "aarch64")]
    let hostile = fpmode::control() | (1 << 24) | (2 << 22); // FZ, round toward minus infinity
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        eprintln!("hostile_fp_mode: no control register handled on this target; nothing to test");
        return;
    }
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        let (run, _) = all_cases(KNOWN_ANSWERS);
        let mut failures = Vec::new();
        let mut checked = 0;
        for c in &run {
            if c.dtype != Dtype::F64 {
                continue;
            }
            let x: Vec<f64> = c.inputs_f64().collect();
            let mut a = acc64(c.fold as u32);
            let mut out = POISON64;
            let mut v = POISON64;
            let mut cum = vec![POISON64; x.len()];
            let saved = fpmode::control();
            // SAFETY: the mode sets no reserved bit and unmasks no exception; only the
            // entry points under test run in it (they set the standard mode themselves,
            // which is what this checks), and the saved mode is written back right after.
            // The pointers are valid for the lengths given.
            let (st, after) = unsafe {
                fpmode::set_control(hostile);
                let st = [
                    adn_sum_f64_fold(x.as_ptr(), x.len(), c.fold as u32, &mut out),
                    adn_acc_f64_add_array(&mut a, x.as_ptr(), x.len()),
                    adn_acc_f64_value(&a, &mut v),
                    adn_cumsum_f64_fold(x.as_ptr(), cum.as_mut_ptr(), x.len(), c.fold as u32),
                ];
                let after = fpmode::control();
                fpmode::set_control(saved);
                (st, after)
            };
            assert_eq!(after, hostile, "the caller's mode is restored");
            assert_eq!(st, [ADN_OK; 4]);
            if out.to_bits() != c.sum || v.to_bits() != c.sum {
                failures.push(format!(
                    "{}: {:#X} / {:#X}, expected {:#X}",
                    c.name,
                    out.to_bits(),
                    v.to_bits(),
                    c.sum
                ));
            }
            if let Some(want) = c.cumsum() {
                let want: Vec<u64> = want.collect();
                let got: Vec<u64> = cum.iter().map(|v| v.to_bits()).collect();
                if got != want {
                    failures.push(format!("{}: cumsum differs", c.name));
                }
            }
            checked += 1;
        }
        assert!(checked > 20);
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        // And the mode does matter: the plain core under the hostile mode gets a case wrong
        // (so this test would catch an entry point that forgot to set it).
        let sub: Vec<f64> = vec![f64::from_bits(0x0000_0002_540B_E400); 10_000];
        let saved = fpmode::control();
        // SAFETY: as above; the plain core's sum runs in the mode on purpose (it is what
        // this part shows to matter), the saved mode is written back before the unwrap.
        let raw = unsafe {
            fpmode::set_control(hostile);
            let raw = reprosum_core::sum(&sub);
            fpmode::set_control(saved);
            raw
        }
        .unwrap();
        assert_ne!(
            raw.to_bits(),
            0x0000_5AF2_7880_0000,
            "DAZ changes the plain core's sum"
        );
    }
}

/// Values of mixed magnitudes for the batched sums.
fn mixed(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let m = ((i * 7919) % 1000) as f64 * 1e-3 - 0.4;
            if i % 13 == 3 {
                m * 1e15
            } else {
                m
            }
        })
        .collect()
}

/// The sum of `x` at `fold` through `adn_sum_*_fold`, as bits.
fn sum_bits_f64(x: &[f64], fold: u32) -> u64 {
    let mut v = POISON64;
    // SAFETY: a valid slice and output.
    assert_eq!(
        unsafe { adn_sum_f64_fold(x.as_ptr(), x.len(), fold, &mut v) },
        ADN_OK
    );
    v.to_bits()
}

fn sum_bits_f32(x: &[f32], fold: u32) -> u64 {
    let mut v = POISON32;
    // SAFETY: a valid slice and output.
    assert_eq!(
        unsafe { adn_sum_f32_fold(x.as_ptr(), x.len(), fold, &mut v) },
        ADN_OK
    );
    u64::from(v.to_bits())
}

#[test]
fn batched_results() {
    let n = if cfg!(miri) { 40 } else { 3000 };
    let x = mixed(n);
    let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let offsets: Vec<usize> = [0, 0, 1, n / 3, n / 3, n / 2, n - 1, n].to_vec();
    let nseg = offsets.len() - 1;
    for fold in [2u32, 3, 8, 21] {
        let want: Vec<u64> = offsets
            .windows(2)
            .map(|w| sum_bits_f64(&x[w[0]..w[1]], fold))
            .collect();
        let wantf: Vec<u64> = offsets
            .windows(2)
            .map(|w| sum_bits_f32(&xf[w[0]..w[1]], fold))
            .collect();
        let mut out = vec![POISON64; nseg];
        let mut outf = vec![POISON32; nseg];
        // SAFETY: valid arrays of the stated lengths.
        unsafe {
            assert_eq!(
                adn_segmented_sum_f64(x.as_ptr(), offsets.as_ptr(), nseg, fold, out.as_mut_ptr()),
                ADN_OK
            );
            assert_eq!(
                adn_segmented_sum_f32(xf.as_ptr(), offsets.as_ptr(), nseg, fold, outf.as_mut_ptr()),
                ADN_OK
            );
        }
        assert_eq!(out.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want);
        assert_eq!(
            outf.iter().map(|v| u64::from(v.to_bits())).collect::<Vec<_>>(),
            wantf
        );

        // The same segments as keys, given in reverse.
        let mut keys = vec![0i64; n];
        for (s, w) in offsets.windows(2).enumerate() {
            keys[w[0]..w[1]].fill(s as i64);
        }
        let (rx, rk): (Vec<f64>, Vec<i64>) = x.iter().zip(&keys).rev().map(|(&a, &b)| (a, b)).unzip();
        let rxf: Vec<f32> = rx.iter().map(|&v| v as f32).collect();
        let mut out = vec![POISON64; nseg];
        let mut outf = vec![POISON32; nseg];
        // SAFETY: valid arrays of the stated lengths.
        unsafe {
            assert_eq!(
                adn_sum_by_key_f64(rx.as_ptr(), rk.as_ptr(), n, nseg, fold, out.as_mut_ptr()),
                ADN_OK
            );
            assert_eq!(
                adn_sum_by_key_f32(rxf.as_ptr(), rk.as_ptr(), n, nseg, fold, outf.as_mut_ptr()),
                ADN_OK
            );
        }
        assert_eq!(out.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want);
        assert_eq!(
            outf.iter().map(|v| u64::from(v.to_bits())).collect::<Vec<_>>(),
            wantf
        );

        // Rows of 7 values in a stride of 9 (the padding is NaN, never read).
        let (rows, cols, stride) = (n / 9, 7usize, 9usize);
        let m: Vec<f64> = (0..rows * stride)
            .map(|i| if i % stride < cols { x[i] } else { f64::NAN })
            .collect();
        let mf: Vec<f32> = m.iter().map(|&v| v as f32).collect();
        let want: Vec<u64> = (0..rows)
            .map(|r| sum_bits_f64(&m[r * stride..r * stride + cols], fold))
            .collect();
        let wantf: Vec<u64> = (0..rows)
            .map(|r| sum_bits_f32(&mf[r * stride..r * stride + cols], fold))
            .collect();
        let mut out = vec![POISON64; rows];
        let mut outf = vec![POISON32; rows];
        // SAFETY: valid arrays of the stated lengths.
        unsafe {
            assert_eq!(
                adn_sum_rows_f64(m.as_ptr(), rows, cols, stride, fold, out.as_mut_ptr()),
                ADN_OK
            );
            assert_eq!(
                adn_sum_rows_f32(mf.as_ptr(), rows, cols, stride, fold, outf.as_mut_ptr()),
                ADN_OK
            );
        }
        assert_eq!(out.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want);
        assert_eq!(
            outf.iter().map(|v| u64::from(v.to_bits())).collect::<Vec<_>>(),
            wantf
        );

        // Segmented cumulative sums, out of place and in place.
        let mut want = vec![0.0f64; n];
        let mut wantf = vec![0.0f32; n];
        for w in offsets.windows(2) {
            let (a, b) = (w[0], w[1]);
            // SAFETY: valid arrays of the stated lengths.
            unsafe {
                assert_eq!(
                    adn_cumsum_f64_fold(x[a..].as_ptr(), want[a..].as_mut_ptr(), b - a, fold),
                    ADN_OK
                );
                assert_eq!(
                    adn_cumsum_f32_fold(xf[a..].as_ptr(), wantf[a..].as_mut_ptr(), b - a, fold),
                    ADN_OK
                );
            }
        }
        let mut out = vec![POISON64; n];
        let mut outf = vec![POISON32; n];
        let mut inplace = x.clone();
        let mut inplacef = xf.clone();
        let (pi, pf) = (inplace.as_mut_ptr(), inplacef.as_mut_ptr());
        // SAFETY: valid arrays of the stated lengths; in place is input == out.
        unsafe {
            assert_eq!(
                adn_segmented_cumsum_f64(x.as_ptr(), out.as_mut_ptr(), offsets.as_ptr(), nseg, fold),
                ADN_OK
            );
            assert_eq!(
                adn_segmented_cumsum_f32(xf.as_ptr(), outf.as_mut_ptr(), offsets.as_ptr(), nseg, fold),
                ADN_OK
            );
            assert_eq!(
                adn_segmented_cumsum_f64(pi, pi, offsets.as_ptr(), nseg, fold),
                ADN_OK
            );
            assert_eq!(
                adn_segmented_cumsum_f32(pf, pf, offsets.as_ptr(), nseg, fold),
                ADN_OK
            );
        }
        let b64 = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let b32 = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(b64(&out), b64(&want));
        assert_eq!(b64(&inplace), b64(&want));
        assert_eq!(b32(&outf), b32(&wantf));
        assert_eq!(b32(&inplacef), b32(&wantf));
    }
}

#[test]
fn batched_statuses() {
    let null = core::ptr::null::<f64>();
    let nullk = core::ptr::null::<i64>();
    let nullo = core::ptr::null::<usize>();
    let dangling = core::ptr::NonNull::<f64>::dangling().as_ptr();
    let poisoned = |o: &[f64]| o.iter().all(|v| v.to_bits() == POISON64.to_bits());
    let x = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0];
    let mut out = [POISON64; 6];
    let o = out.as_mut_ptr();
    // SAFETY: every call is valid or refused before memory is touched.
    unsafe {
        // Segmented sums.
        let good = [0usize, 2, 6];
        assert_eq!(
            adn_segmented_sum_f64(x.as_ptr(), nullo, 2, 3, o),
            ADN_NULL_POINTER
        );
        assert_eq!(
            adn_segmented_sum_f64(null, good.as_ptr(), 2, 3, o),
            ADN_NULL_POINTER
        );
        assert_eq!(
            adn_segmented_sum_f64(x.as_ptr(), good.as_ptr(), 2, 3, core::ptr::null_mut()),
            ADN_NULL_POINTER
        );
        assert_eq!(
            adn_segmented_sum_f64(x.as_ptr(), good.as_ptr(), 2, 1, o),
            ADN_INVALID_FOLD
        );
        assert_eq!(
            adn_segmented_sum_f64(x.as_ptr(), good.as_ptr(), 2, 53, o),
            ADN_INVALID_FOLD
        );
        assert_eq!(
            adn_segmented_sum_f32(x.as_ptr().cast(), good.as_ptr(), 2, 22, o.cast()),
            ADN_INVALID_FOLD
        );
        assert_eq!(
            adn_segmented_sum_f64(x.as_ptr(), [0usize, 3, 2, 6].as_ptr(), 3, 3, o),
            ADN_INVALID_OFFSETS
        );
        assert_eq!(
            adn_segmented_sum_f64(x.as_ptr(), [1usize, 2, 6].as_ptr(), 2, 3, o),
            ADN_INVALID_OFFSETS
        );
        assert_eq!(
            adn_segmented_sum_f64(x.as_ptr(), good.as_ptr(), usize::MAX, 3, o),
            ADN_CAPACITY_EXCEEDED
        );
        assert_eq!(
            adn_segmented_sum_f64(dangling, [0usize, usize::MAX].as_ptr(), 1, 3, o),
            ADN_CAPACITY_EXCEEDED
        );
        let mis = good.as_ptr().cast::<u8>().wrapping_add(1).cast::<usize>();
        assert_eq!(adn_segmented_sum_f64(x.as_ptr(), mis, 2, 3, o), ADN_MISALIGNED);
        // out inside x, or over the offsets.
        let mut buf = [0.0f64, 1.0, 2.0, 3.0];
        let b = buf.as_mut_ptr();
        assert_eq!(
            adn_segmented_sum_f64(b, [0usize, 2, 4].as_ptr(), 2, 3, b.add(2)),
            ADN_OVERLAP
        );
        let mut offs = [0usize, 2, 6];
        let po = offs.as_mut_ptr();
        assert_eq!(
            adn_segmented_sum_f64(x.as_ptr(), po, 2, 3, po.add(1).cast()),
            ADN_OVERLAP
        );
        assert_eq!(offs, [0, 2, 6]);
        assert_eq!(buf, [0.0, 1.0, 2.0, 3.0]);
        assert!(poisoned(core::slice::from_raw_parts(o, 6)));
        // Nothing: no segment, no value (NULL allowed for both).
        assert_eq!(
            adn_segmented_sum_f64(null, [0usize].as_ptr(), 0, 3, core::ptr::null_mut()),
            ADN_OK
        );
        assert_eq!(adn_segmented_sum_f64(null, [0usize, 0].as_ptr(), 1, 3, o), ADN_OK);
        assert_eq!((*o).to_bits(), 0);
        *o = POISON64;

        // Rows.
        assert_eq!(
            adn_sum_rows_f64(x.as_ptr(), 2, 3, 3, 3, core::ptr::null_mut()),
            ADN_NULL_POINTER
        );
        assert_eq!(adn_sum_rows_f64(null, 2, 3, 3, 3, o), ADN_NULL_POINTER);
        assert_eq!(adn_sum_rows_f64(x.as_ptr(), 2, 3, 3, 0, o), ADN_INVALID_FOLD);
        assert_eq!(adn_sum_rows_f64(x.as_ptr(), 2, 4, 3, 3, o), ADN_INVALID_STRIDE);
        assert_eq!(
            adn_sum_rows_f64(dangling, 3, 1, usize::MAX, 3, o),
            ADN_CAPACITY_EXCEEDED
        );
        assert_eq!(
            adn_sum_rows_f64(x.as_ptr(), 2, 3, 3, 3, x.as_ptr().cast_mut().add(5)),
            ADN_OVERLAP
        );
        assert!(poisoned(core::slice::from_raw_parts(o, 6)));
        assert_eq!(adn_sum_rows_f64(null, 0, 3, 3, 3, core::ptr::null_mut()), ADN_OK);
        assert_eq!(adn_sum_rows_f64(null, 1, 0, 0, 3, o), ADN_OK);
        assert_eq!((*o).to_bits(), 0);
        *o = POISON64;

        // Keyed sums.
        let keys = [0i64, 1, 2, 0, 1, 2];
        assert_eq!(
            adn_sum_by_key_f64(null, keys.as_ptr(), 6, 3, 3, o),
            ADN_NULL_POINTER
        );
        assert_eq!(
            adn_sum_by_key_f64(x.as_ptr(), nullk, 6, 3, 3, o),
            ADN_NULL_POINTER
        );
        assert_eq!(
            adn_sum_by_key_f64(x.as_ptr(), keys.as_ptr(), 6, 3, 3, core::ptr::null_mut()),
            ADN_NULL_POINTER
        );
        assert_eq!(
            adn_sum_by_key_f64(x.as_ptr(), keys.as_ptr(), 6, 3, 99, o),
            ADN_INVALID_FOLD
        );
        assert_eq!(
            adn_sum_by_key_f64(x.as_ptr(), keys.as_ptr(), 6, 2, 3, o),
            ADN_KEY_OUT_OF_RANGE
        );
        assert_eq!(
            adn_sum_by_key_f64(x.as_ptr(), [0i64, 1, 2, 0, -1, 2].as_ptr(), 6, 3, 3, o),
            ADN_KEY_OUT_OF_RANGE
        );
        assert_eq!(
            adn_sum_by_key_f64(x.as_ptr(), keys.as_ptr(), 6, 0, 3, core::ptr::null_mut()),
            ADN_KEY_OUT_OF_RANGE
        );
        assert_eq!(
            adn_sum_by_key_f64(dangling, nullk.wrapping_add(1), usize::MAX, 3, 3, o),
            ADN_CAPACITY_EXCEEDED
        );
        assert_eq!(
            adn_sum_by_key_f64(x.as_ptr(), keys.as_ptr(), 6, 3, 3, x.as_ptr().cast_mut().add(2)),
            ADN_OVERLAP
        );
        let mut kbuf = [0i64, 1, 0, 1];
        let kp = kbuf.as_mut_ptr();
        assert_eq!(
            adn_sum_by_key_f64(x.as_ptr(), kp, 2, 2, 3, kp.add(1).cast()),
            ADN_OVERLAP
        );
        assert_eq!(kbuf, [0, 1, 0, 1]);
        assert!(poisoned(core::slice::from_raw_parts(o, 6)));
        assert_eq!(
            adn_sum_by_key_f64(null, nullk, 0, 0, 3, core::ptr::null_mut()),
            ADN_OK
        );
        assert_eq!(adn_sum_by_key_f64(null, nullk, 0, 2, 3, o), ADN_OK);
        assert_eq!(((*o).to_bits(), (*o.add(1)).to_bits()), (0, 0));
        *o = POISON64;
        *o.add(1) = POISON64;

        // Segmented cumulative sums.
        let good = [0usize, 2, 6];
        assert_eq!(
            adn_segmented_cumsum_f64(x.as_ptr(), o, nullo, 2, 3),
            ADN_NULL_POINTER
        );
        assert_eq!(
            adn_segmented_cumsum_f64(null, o, good.as_ptr(), 2, 3),
            ADN_NULL_POINTER
        );
        assert_eq!(
            adn_segmented_cumsum_f64(x.as_ptr(), core::ptr::null_mut(), good.as_ptr(), 2, 3),
            ADN_NULL_POINTER
        );
        assert_eq!(
            adn_segmented_cumsum_f64(x.as_ptr(), o, good.as_ptr(), 2, 53),
            ADN_INVALID_FOLD
        );
        assert_eq!(
            adn_segmented_cumsum_f64(x.as_ptr(), o, [0usize, 4, 3, 6].as_ptr(), 3, 3),
            ADN_INVALID_OFFSETS
        );
        assert_eq!(
            adn_segmented_cumsum_f64(x.as_ptr(), o, [2usize, 6].as_ptr(), 1, 3),
            ADN_INVALID_OFFSETS
        );
        assert_eq!(
            adn_segmented_cumsum_f64(dangling, dangling, [0usize, usize::MAX].as_ptr(), 1, 3),
            ADN_CAPACITY_EXCEEDED
        );
        let mut buf = [1.0f64, 2.0, 3.0, 4.0, 5.0];
        let b = buf.as_mut_ptr();
        assert_eq!(
            adn_segmented_cumsum_f64(b, b.add(1), [0usize, 4].as_ptr(), 1, 3),
            ADN_OVERLAP
        );
        assert_eq!(
            adn_segmented_cumsum_f64(b.add(1), b, [0usize, 4].as_ptr(), 1, 3),
            ADN_OVERLAP
        );
        assert_eq!(buf, [1.0, 2.0, 3.0, 4.0, 5.0]);
        let b = buf.as_mut_ptr();
        let mut offs = [0usize, 1, 2, 3];
        let po = offs.as_mut_ptr();
        assert_eq!(
            adn_segmented_cumsum_f64(x.as_ptr(), po.add(1).cast(), po, 1, 3),
            ADN_OVERLAP
        );
        assert_eq!(offs, [0, 1, 2, 3]);
        assert!(poisoned(core::slice::from_raw_parts(o, 6)));
        // In place, and nothing at all.
        assert_eq!(
            adn_segmented_cumsum_f64(b, b, [0usize, 2, 5].as_ptr(), 2, 3),
            ADN_OK
        );
        assert_eq!(buf, [1.0, 3.0, 3.0, 7.0, 12.0]);
        assert_eq!(
            adn_segmented_cumsum_f64(null, core::ptr::null_mut(), [0usize, 0].as_ptr(), 1, 3),
            ADN_OK
        );
    }
}

/// The GPU segmented and row sums: without a device (or without the back end) every export
/// returns that status with its output untouched; bad arguments the host can see are
/// refused first, in a build with the back end, device or not.
#[test]
fn gpu_segmented_entry_points_without_a_device() {
    use crate::gpu::*;
    let x = [1.0f64, 2.0, 3.0, 4.0];
    let xf = [1.0f32, 2.0, 3.0, 4.0];
    let off = [0usize, 3, 4];
    let null = core::ptr::null_mut();
    for (name, built, present) in [
        ("cuda", cfg!(feature = "cuda"), gpu_present(true)),
        ("hip", cfg!(feature = "hip"), gpu_present(false)),
    ] {
        if present {
            println!("{name}: a device is present; the GPU tests check these exports there");
            continue;
        }
        let mut o = [POISON64; 2];
        let mut of = [POISON32; 2];
        let cuda = name == "cuda";
        // SAFETY: valid host pointers of the lengths given; no stream (NULL).
        let got = unsafe {
            if cuda {
                [
                    adn_cuda_segmented_sum_f64(x.as_ptr(), off.as_ptr(), 2, 3, o.as_mut_ptr()),
                    adn_cuda_segmented_sum_f32(xf.as_ptr(), off.as_ptr(), 2, 3, of.as_mut_ptr()),
                    adn_cuda_segmented_sum_f64_stream(x.as_ptr(), off.as_ptr(), 2, 3, o.as_mut_ptr(), null),
                    adn_cuda_segmented_sum_f32_stream(xf.as_ptr(), off.as_ptr(), 2, 3, of.as_mut_ptr(), null),
                    adn_cuda_sum_rows_f64(x.as_ptr(), 2, 2, 2, 3, o.as_mut_ptr()),
                    adn_cuda_sum_rows_f32(xf.as_ptr(), 2, 2, 2, 3, of.as_mut_ptr()),
                    adn_cuda_sum_rows_f64_stream(x.as_ptr(), 2, 2, 2, 3, o.as_mut_ptr(), null),
                    adn_cuda_sum_rows_f32_stream(xf.as_ptr(), 2, 2, 2, 3, of.as_mut_ptr(), null),
                ]
            } else {
                [
                    adn_hip_segmented_sum_f64(x.as_ptr(), off.as_ptr(), 2, 3, o.as_mut_ptr()),
                    adn_hip_segmented_sum_f32(xf.as_ptr(), off.as_ptr(), 2, 3, of.as_mut_ptr()),
                    adn_hip_segmented_sum_f64_stream(x.as_ptr(), off.as_ptr(), 2, 3, o.as_mut_ptr(), null),
                    adn_hip_segmented_sum_f32_stream(xf.as_ptr(), off.as_ptr(), 2, 3, of.as_mut_ptr(), null),
                    adn_hip_sum_rows_f64(x.as_ptr(), 2, 2, 2, 3, o.as_mut_ptr()),
                    adn_hip_sum_rows_f32(xf.as_ptr(), 2, 2, 2, 3, of.as_mut_ptr()),
                    adn_hip_sum_rows_f64_stream(x.as_ptr(), 2, 2, 2, 3, o.as_mut_ptr(), null),
                    adn_hip_sum_rows_f32_stream(xf.as_ptr(), 2, 2, 2, 3, of.as_mut_ptr(), null),
                ]
            }
        };
        let want = if built { ADN_NO_DEVICE } else { ADN_NOT_BUILT };
        assert!(got.iter().all(|&s| s == want), "{name}: {got:?}");
        assert!(o.iter().all(|v| v.to_bits() == POISON64.to_bits()), "{name}");
        assert!(of.iter().all(|v| v.to_bits() == POISON32.to_bits()), "{name}");
        // Refused on the host before any device work (NOT_BUILT first without the back end).
        let mut o2 = [POISON64; 3];
        let p = o2.as_mut_ptr();
        // SAFETY: valid host pointers; the calls refuse before reading past them.
        let bad = unsafe {
            if cuda {
                [
                    adn_cuda_segmented_sum_f64(x.as_ptr(), core::ptr::null(), 2, 3, o.as_mut_ptr()),
                    adn_cuda_segmented_sum_f64(x.as_ptr(), off.as_ptr(), 2, 99, o.as_mut_ptr()),
                    adn_cuda_segmented_sum_f64(x.as_ptr(), off.as_ptr(), 2, 3, core::ptr::null_mut()),
                    adn_cuda_sum_rows_f64(x.as_ptr(), 2, 3, 2, 3, o.as_mut_ptr()),
                    adn_cuda_sum_rows_f64(p, 2, 1, 1, 3, p.wrapping_add(1)),
                ]
            } else {
                [
                    adn_hip_segmented_sum_f64(x.as_ptr(), core::ptr::null(), 2, 3, o.as_mut_ptr()),
                    adn_hip_segmented_sum_f64(x.as_ptr(), off.as_ptr(), 2, 99, o.as_mut_ptr()),
                    adn_hip_segmented_sum_f64(x.as_ptr(), off.as_ptr(), 2, 3, core::ptr::null_mut()),
                    adn_hip_sum_rows_f64(x.as_ptr(), 2, 3, 2, 3, o.as_mut_ptr()),
                    adn_hip_sum_rows_f64(p, 2, 1, 1, 3, p.wrapping_add(1)),
                ]
            }
        };
        let want_bad = if built {
            [
                ADN_NULL_POINTER,
                ADN_INVALID_FOLD,
                ADN_NULL_POINTER,
                ADN_INVALID_STRIDE,
                ADN_OVERLAP,
            ]
        } else {
            [ADN_NOT_BUILT; 5]
        };
        assert_eq!(bad, want_bad, "{name}");
        assert!(o.iter().all(|v| v.to_bits() == POISON64.to_bits()), "{name}");
        assert!(o2.iter().all(|v| v.to_bits() == POISON64.to_bits()), "{name}");
    }
}

#[test]
fn gpu_keyed_entry_points_without_a_device() {
    use crate::gpu::*;
    use core::ffi::{c_uint, c_void};
    let x = [1.0f64, 2.0, 3.0, 4.0];
    let xf = [1.0f32, 2.0, 3.0, 4.0];
    let keys = [1i64, 0, 1, 1];
    let null = core::ptr::null_mut();
    type F64 = unsafe extern "C" fn(*const f64, *const i64, usize, usize, c_uint, *mut f64) -> adn_status;
    type F32 = unsafe extern "C" fn(*const f32, *const i64, usize, usize, c_uint, *mut f32) -> adn_status;
    type F64S = unsafe extern "C" fn(
        *const f64,
        *const i64,
        usize,
        usize,
        c_uint,
        *mut f64,
        *mut c_void,
    ) -> adn_status;
    type F32S = unsafe extern "C" fn(
        *const f32,
        *const i64,
        usize,
        usize,
        c_uint,
        *mut f32,
        *mut c_void,
    ) -> adn_status;
    let sets: [(&str, bool, bool, F64, F32, F64S, F32S); 2] = [
        (
            "cuda",
            cfg!(feature = "cuda"),
            gpu_present(true),
            adn_cuda_sum_by_key_f64,
            adn_cuda_sum_by_key_f32,
            adn_cuda_sum_by_key_f64_stream,
            adn_cuda_sum_by_key_f32_stream,
        ),
        (
            "hip",
            cfg!(feature = "hip"),
            gpu_present(false),
            adn_hip_sum_by_key_f64,
            adn_hip_sum_by_key_f32,
            adn_hip_sum_by_key_f64_stream,
            adn_hip_sum_by_key_f32_stream,
        ),
    ];
    for (name, built, present, f64k, f32k, f64s, f32s) in sets {
        if present {
            println!("{name}: a device is present; the GPU tests check these exports there");
            continue;
        }
        let mut o = [POISON64; 2];
        let mut of = [POISON32; 2];
        // SAFETY: valid host pointers of the lengths given; no stream (NULL).
        let got = unsafe {
            [
                f64k(x.as_ptr(), keys.as_ptr(), 4, 2, 3, o.as_mut_ptr()),
                f32k(xf.as_ptr(), keys.as_ptr(), 4, 2, 3, of.as_mut_ptr()),
                f64s(x.as_ptr(), keys.as_ptr(), 4, 2, 3, o.as_mut_ptr(), null),
                f32s(xf.as_ptr(), keys.as_ptr(), 4, 2, 3, of.as_mut_ptr(), null),
            ]
        };
        let want = if built { ADN_NO_DEVICE } else { ADN_NOT_BUILT };
        assert!(got.iter().all(|&s| s == want), "{name}: {got:?}");
        // Refused on the host before any device work (NOT_BUILT first without the back end).
        let mut buf = [0.0f64; 6];
        let p = buf.as_mut_ptr();
        // SAFETY: valid host pointers; the calls refuse before reading past them.
        let bad = unsafe {
            [
                f64k(core::ptr::null(), keys.as_ptr(), 4, 2, 3, o.as_mut_ptr()),
                f64k(x.as_ptr(), core::ptr::null(), 4, 2, 3, o.as_mut_ptr()),
                f64k(x.as_ptr(), keys.as_ptr(), 4, 2, 3, core::ptr::null_mut()),
                f64k(x.as_ptr(), keys.as_ptr(), 4, 2, 99, o.as_mut_ptr()),
                f32k(xf.as_ptr(), keys.as_ptr(), 4, 2, 22, of.as_mut_ptr()),
                // The output over the values, then over the keys.
                f64k(p, keys.as_ptr(), 4, 2, 3, p.wrapping_add(3)),
                f64k(x.as_ptr(), p.cast::<i64>(), 4, 2, 3, p.wrapping_add(1)),
                // No keys with values: every key is out of range (found without a device).
                f64k(x.as_ptr(), keys.as_ptr(), 4, 0, 3, core::ptr::null_mut()),
                f64s(x.as_ptr(), keys.as_ptr(), 4, 2, 3, core::ptr::null_mut(), null),
            ]
        };
        let want_bad = if built {
            [
                ADN_NULL_POINTER,
                ADN_NULL_POINTER,
                ADN_NULL_POINTER,
                ADN_INVALID_FOLD,
                ADN_INVALID_FOLD,
                ADN_OVERLAP,
                ADN_OVERLAP,
                ADN_KEY_OUT_OF_RANGE,
                ADN_NULL_POINTER,
            ]
        } else {
            [ADN_NOT_BUILT; 9]
        };
        assert_eq!(bad, want_bad, "{name}");
        assert!(o.iter().all(|v| v.to_bits() == POISON64.to_bits()), "{name}");
        assert!(of.iter().all(|v| v.to_bits() == POISON32.to_bits()), "{name}");
        assert!(buf.iter().all(|v| v.to_bits() == 0), "{name}");
        // Nothing to do: no values and no keys.
        // SAFETY: no pointer is read (n = nkeys = 0).
        let none = unsafe {
            f64k(
                core::ptr::null(),
                core::ptr::null(),
                0,
                0,
                3,
                core::ptr::null_mut(),
            )
        };
        assert_eq!(none, if built { ADN_OK } else { ADN_NOT_BUILT }, "{name}");
    }
}

#[test]
fn gpu_segmented_cumsum_entry_points_without_a_device() {
    use crate::gpu::*;
    use core::ffi::{c_uint, c_void};
    let x = [1.0f64, 2.0, 3.0, 4.0];
    let xf = [1.0f32, 2.0, 3.0, 4.0];
    let off = [0usize, 1, 4];
    let null = core::ptr::null_mut();
    type F64 = unsafe extern "C" fn(*const f64, *mut f64, *const usize, usize, c_uint) -> adn_status;
    type F32 = unsafe extern "C" fn(*const f32, *mut f32, *const usize, usize, c_uint) -> adn_status;
    type F64S =
        unsafe extern "C" fn(*const f64, *mut f64, *const usize, usize, c_uint, *mut c_void) -> adn_status;
    type F32S =
        unsafe extern "C" fn(*const f32, *mut f32, *const usize, usize, c_uint, *mut c_void) -> adn_status;
    let sets: [(&str, bool, bool, F64, F32, F64S, F32S); 2] = [
        (
            "cuda",
            cfg!(feature = "cuda"),
            gpu_present(true),
            adn_cuda_segmented_cumsum_f64,
            adn_cuda_segmented_cumsum_f32,
            adn_cuda_segmented_cumsum_f64_stream,
            adn_cuda_segmented_cumsum_f32_stream,
        ),
        (
            "hip",
            cfg!(feature = "hip"),
            gpu_present(false),
            adn_hip_segmented_cumsum_f64,
            adn_hip_segmented_cumsum_f32,
            adn_hip_segmented_cumsum_f64_stream,
            adn_hip_segmented_cumsum_f32_stream,
        ),
    ];
    for (name, built, present, f64c, f32c, f64s, f32s) in sets {
        if present {
            println!("{name}: a device is present; the GPU tests check these exports there");
            continue;
        }
        let mut o = [POISON64; 4];
        let mut of = [POISON32; 4];
        // SAFETY: valid host pointers of the lengths given; no stream (NULL).
        let got = unsafe {
            [
                f64c(x.as_ptr(), o.as_mut_ptr(), off.as_ptr(), 2, 3),
                f32c(xf.as_ptr(), of.as_mut_ptr(), off.as_ptr(), 2, 3),
                f64s(x.as_ptr(), o.as_mut_ptr(), off.as_ptr(), 2, 3, null),
                f32s(xf.as_ptr(), of.as_mut_ptr(), off.as_ptr(), 2, 3, null),
            ]
        };
        let want = if built { ADN_NO_DEVICE } else { ADN_NOT_BUILT };
        assert!(got.iter().all(|&s| s == want), "{name}: {got:?}");
        // Refused on the host before any device work (NOT_BUILT first without the back end);
        // the rest needs the offsets' memory kind, which only the runtime can tell.
        // SAFETY: valid host pointers; the calls refuse before reading any.
        let bad = unsafe {
            [
                f64c(x.as_ptr(), o.as_mut_ptr(), core::ptr::null(), 2, 3),
                f64c(x.as_ptr(), o.as_mut_ptr(), off.as_ptr(), 2, 53),
                f32c(xf.as_ptr(), of.as_mut_ptr(), off.as_ptr(), 2, 22),
                f64s(x.as_ptr(), o.as_mut_ptr(), off.as_ptr(), usize::MAX, 3, null),
            ]
        };
        let want_bad = if built {
            [
                ADN_NULL_POINTER,
                ADN_INVALID_FOLD,
                ADN_INVALID_FOLD,
                ADN_CAPACITY_EXCEEDED,
            ]
        } else {
            [ADN_NOT_BUILT; 4]
        };
        assert_eq!(bad, want_bad, "{name}");
        assert!(o.iter().all(|v| v.to_bits() == POISON64.to_bits()), "{name}");
        assert!(of.iter().all(|v| v.to_bits() == POISON32.to_bits()), "{name}");
    }
}

/// Whether a CUDA (`cuda`) or HIP device can be used by this build.
fn gpu_present(cuda: bool) -> bool {
    if cuda {
        #[cfg(feature = "cuda")]
        return reprosum_gpu::cuda::driver_present();
    } else {
        #[cfg(feature = "hip")]
        return reprosum_gpu::hip::device_count().is_ok_and(|n| n > 0);
    }
    #[allow(unreachable_code)]
    false
}
