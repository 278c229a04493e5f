//! The bits do not depend on the caller's floating-point environment: the whole-slice
//! entry points set round-to-nearest with subnormals kept, in every worker thread, and
//! restore the caller's mode.
#![cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]

use reprosum::{fpenv, Options};
use reprosum_testkit::fpmode;
use reprosum_testkit::{cases, Case, KNOWN_ANSWERS};

/// Flush-to-zero, denormals-are-zero and round toward -Inf.
#[cfg(target_arch = "x86_64")]
const HOSTILE: u64 = 0x1F80 | (1 << 15) | (1 << 6) | (1 << 13);
/// FZ and round toward -Inf.
#[cfg(target_arch = "aarch64")]
const HOSTILE: u64 = (1 << 24) | (2 << 22);

fn hostile_case(name: &str) -> Case<'static> {
    cases(KNOWN_ANSWERS)
        .map(|c| c.unwrap())
        .find(|c| c.name == name)
        .unwrap()
}

/// The control bits of the register (x86-64: without the sticky status flags, which any
/// inexact operation of the test itself sets).
fn mode() -> u64 {
    #[cfg(target_arch = "x86_64")]
    return fpmode::control() & !0x3F;
    #[cfg(target_arch = "aarch64")]
    return fpmode::control();
}

/// Runs `f` on the current thread in the hostile mode, checks the mode is still hostile
/// after, and restores the standard mode.
fn in_hostile_env<R>(f: impl FnOnce() -> R) -> R {
    // SAFETY: HOSTILE sets no reserved bit and unmasks no exception; only `f` (the code
    // under test, whose behaviour in this mode is what is checked) and the reads of the
    // register run in it, and the standard mode is written back before the assertions.
    unsafe { fpmode::set_control(HOSTILE) };
    let set = mode();
    let r = f();
    let after = mode();
    // SAFETY: the standard mode (every exception masked, round to nearest).
    unsafe { fpmode::set_control(fpmode::standard(HOSTILE)) };
    assert_eq!(set, HOSTILE, "the test could not set the mode");
    assert_eq!(after, HOSTILE, "the caller's mode was not restored");
    r
}

/// A pool whose worker threads all start in the hostile mode.
fn hostile_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        // SAFETY: as in `in_hostile_env`; a worker runs only the library's tasks, each of
        // which sets the standard mode for its work (what the tests check), and the pool's
        // threads end with it.
        .start_handler(|_| unsafe { fpmode::set_control(HOSTILE) })
        .build()
        .unwrap()
}

#[test]
fn the_hostile_mode_really_changes_bits() {
    // Without the guard the core's arithmetic does see the mode: this is what the
    // other tests protect against (and proves they can fail).
    let c = hostile_case("subnormal_10000");
    let x: Vec<f64> = c.inputs_f64().collect();
    let raw = in_hostile_env(|| reprosum::reprosum_core::sum(&x).unwrap());
    assert_ne!(
        raw.to_bits(),
        c.sum,
        "FTZ/DAZ had no effect on an unguarded subnormal sum"
    );
}

#[test]
fn facade_sum_and_cumsum_ignore_the_callers_mode() {
    let pool = hostile_pool(3);
    for name in [
        "subnormal_10000",
        "f32_subnormal_10000",
        "f32_1000_min",
        "conversion_order",
        "wide_range_1m",
    ] {
        let c = hostile_case(name);
        // Inputs are made in the standard mode (the wide-range generator does arithmetic).
        let x64: Vec<f64> = c.inputs_f64().collect();
        let x32: Vec<f32> = c.inputs_f32().collect();
        let opts = Options {
            fold: c.fold,
            chunk_len: 997,
        };
        let got = pool.install(|| {
            in_hostile_env(|| match c.dtype {
                reprosum::Dtype::F64 => {
                    let s = reprosum::sum_with(&x64, &opts).unwrap();
                    let mut out = vec![0.0; x64.len()];
                    reprosum::cumsum_with(&x64, &mut out, &opts).unwrap();
                    (s.to_bits(), out.last().map_or(0, |v| v.to_bits()))
                }
                reprosum::Dtype::F32 => {
                    let s = reprosum::sum_with(&x32, &opts).unwrap();
                    let mut out = x32.clone();
                    reprosum::cumsum_in_place_with(&mut out, &opts).unwrap();
                    (s.to_bits() as u64, out.last().map_or(0, |v| v.to_bits() as u64))
                }
            })
        });
        assert_eq!(got.0, c.sum, "{name}: sum under FTZ/DAZ/round-down");
        assert_eq!(
            got.1, c.sum,
            "{name}: last cumsum element under FTZ/DAZ/round-down"
        );
    }
}

#[test]
fn core_guard_restores_the_mode() {
    in_hostile_env(|| {
        let inner = fpenv::with_ieee_fp(mode);
        assert_eq!(inner, fpmode::standard(HOSTILE));
        assert_ne!(inner, HOSTILE);
    });
}
