//! The shared test suite: every back end implements [`Backend`] and runs the same checks
//! against the known answers and the core's vectors file, comparing bits.
#![allow(dead_code)]

use reprosum::Dtype;
use reprosum_testkit::{cases, Case, CORE_VECTORS, KNOWN_ANSWERS};

/// A way of computing sums and cumulative sums at a run-time fold.
pub trait Backend {
    /// Name for messages.
    fn name(&self) -> String;
    fn sum_f64(&self, x: &[f64], fold: usize) -> f64;
    fn sum_f32(&self, x: &[f32], fold: usize) -> f32;
    fn cumsum_f64(&self, x: &[f64], fold: usize) -> Vec<f64>;
    fn cumsum_f32(&self, x: &[f32], fold: usize) -> Vec<f32>;
}

/// Checks one case (sum, and cumsum where given); returns a message per mismatch.
pub fn check_case(b: &dyn Backend, c: &Case<'_>, failures: &mut Vec<String>) {
    let (sum, cum): (u64, Option<Vec<u64>>) = match c.dtype {
        Dtype::F64 => {
            let x: Vec<f64> = c.inputs_f64().collect();
            let s = b.sum_f64(&x, c.fold).to_bits();
            let cs = c
                .cumsum()
                .map(|_| b.cumsum_f64(&x, c.fold).iter().map(|v| v.to_bits()).collect());
            (s, cs)
        }
        Dtype::F32 => {
            let x: Vec<f32> = c.inputs_f32().collect();
            let s = b.sum_f32(&x, c.fold).to_bits() as u64;
            let cs = c.cumsum().map(|_| {
                b.cumsum_f32(&x, c.fold)
                    .iter()
                    .map(|v| v.to_bits() as u64)
                    .collect()
            });
            (s, cs)
        }
    };
    if sum != c.sum {
        failures.push(format!(
            "{}: {}: sum {:#X}, expected {:#X}",
            b.name(),
            c.name,
            sum,
            c.sum
        ));
    }
    if let (Some(got), Some(want)) = (cum, c.cumsum()) {
        let want: Vec<u64> = want.collect();
        if got != want {
            let at = got
                .iter()
                .zip(&want)
                .position(|(a, b)| a != b)
                .unwrap_or(got.len().min(want.len()));
            failures.push(format!(
                "{}: {}: cumsum differs at {} of {} (got {:X?}, expected {:X?})",
                b.name(),
                c.name,
                at,
                want.len(),
                got.get(at),
                want.get(at)
            ));
        }
    }
}

/// Runs every case of a vectors text; panics listing every mismatch. Returns the count.
pub fn check_file(b: &dyn Backend, text: &str, skip_generated: bool) -> usize {
    let mut failures = Vec::new();
    let mut n = 0;
    for c in cases(text) {
        let c = c.expect("vectors file parses");
        if skip_generated && c.generated().is_some() {
            continue;
        }
        check_case(b, &c, &mut failures);
        n += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {n} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(n > 0, "no cases read");
    n
}

/// The whole suite for one back end: every known answer (the 1M wide-range input too,
/// unless `skip_generated`) and every case of the core's vectors file.
pub fn run_suite(b: &dyn Backend, skip_generated: bool) {
    let ka = check_file(b, KNOWN_ANSWERS, skip_generated);
    let cv = check_file(b, CORE_VECTORS, false);
    println!("{}: {ka} known answers and {cv} core vectors match", b.name());
}
