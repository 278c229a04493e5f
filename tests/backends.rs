//! Every CPU path, and the independent model, against the known answers
//! (`tests/vectors/known_answers.json`) and the core's vectors file.

mod common;

use common::{run_suite, Backend};
use reprosum::{reprosum_core as core_api, DynAccumulator, Options};
use reprosum_testkit::model::Model;

/// The core's one-call functions (the fast block path, run-time fold).
struct CoreFast;
impl Backend for CoreFast {
    fn name(&self) -> String {
        "core sum_fold / cumsum_fold".into()
    }
    fn sum_f64(&self, x: &[f64], k: usize) -> f64 {
        core_api::sum_fold(x, k).unwrap()
    }
    fn sum_f32(&self, x: &[f32], k: usize) -> f32 {
        core_api::sum_fold(x, k).unwrap()
    }
    fn cumsum_f64(&self, x: &[f64], k: usize) -> Vec<f64> {
        let mut out = vec![f64::NAN; x.len()];
        core_api::cumsum_fold(x, &mut out, k).unwrap();
        out
    }
    fn cumsum_f32(&self, x: &[f32], k: usize) -> Vec<f32> {
        let mut out = x.to_vec();
        core_api::cumsum_in_place_fold(&mut out, k).unwrap();
        out
    }
}

/// The independent model (`reprosum_testkit::model`), one value at a time.
struct IndependentModel;
impl IndependentModel {
    fn prefixes<T: reprosum_testkit::model::ModelFloat>(x: &[T], k: usize) -> Vec<T> {
        let mut m = Model::new(k).unwrap();
        x.iter()
            .map(|&v| {
                m.add(v).unwrap();
                m.value()
            })
            .collect()
    }
}
impl Backend for IndependentModel {
    fn name(&self) -> String {
        "model".into()
    }
    fn sum_f64(&self, x: &[f64], k: usize) -> f64 {
        let mut m = Model::new(k).unwrap();
        x.iter().for_each(|&v| m.add(v).unwrap());
        m.value()
    }
    fn sum_f32(&self, x: &[f32], k: usize) -> f32 {
        let mut m = Model::new(k).unwrap();
        x.iter().for_each(|&v| m.add(v).unwrap());
        m.value()
    }
    fn cumsum_f64(&self, x: &[f64], k: usize) -> Vec<f64> {
        Self::prefixes(x, k)
    }
    fn cumsum_f32(&self, x: &[f32], k: usize) -> Vec<f32> {
        Self::prefixes(x, k)
    }
}

/// One value at a time through `Accumulator::add` (per-element path).
struct CoreOneByOne;
impl Backend for CoreOneByOne {
    fn name(&self) -> String {
        "core add one by one".into()
    }
    fn sum_f64(&self, x: &[f64], k: usize) -> f64 {
        let mut a = DynAccumulator::new(k).unwrap();
        x.iter().for_each(|&v| a.add(v).unwrap());
        a.value()
    }
    fn sum_f32(&self, x: &[f32], k: usize) -> f32 {
        let mut a = DynAccumulator::new(k).unwrap();
        x.iter().for_each(|&v| a.add(v).unwrap());
        a.value()
    }
    fn cumsum_f64(&self, x: &[f64], k: usize) -> Vec<f64> {
        CoreFast.cumsum_f64(x, k)
    }
    fn cumsum_f32(&self, x: &[f32], k: usize) -> Vec<f32> {
        CoreFast.cumsum_f32(x, k)
    }
}

/// The facade's parallel paths with a given chunk length.
struct Facade(usize);
impl Backend for Facade {
    fn name(&self) -> String {
        format!("facade chunk_len={}", self.0)
    }
    fn sum_f64(&self, x: &[f64], k: usize) -> f64 {
        reprosum::sum_with(
            x,
            &Options {
                fold: k,
                chunk_len: self.0,
            },
        )
        .unwrap()
    }
    fn sum_f32(&self, x: &[f32], k: usize) -> f32 {
        reprosum::sum_with(
            x,
            &Options {
                fold: k,
                chunk_len: self.0,
            },
        )
        .unwrap()
    }
    fn cumsum_f64(&self, x: &[f64], k: usize) -> Vec<f64> {
        let mut out = vec![f64::NAN; x.len()];
        reprosum::cumsum_with(
            x,
            &mut out,
            &Options {
                fold: k,
                chunk_len: self.0,
            },
        )
        .unwrap();
        out
    }
    fn cumsum_f32(&self, x: &[f32], k: usize) -> Vec<f32> {
        let mut out = x.to_vec();
        reprosum::cumsum_in_place_with(
            &mut out,
            &Options {
                fold: k,
                chunk_len: self.0,
            },
        )
        .unwrap();
        out
    }
}

#[test]
fn core_fast_path() {
    run_suite(&CoreFast, false);
}

#[test]
fn independent_model() {
    run_suite(&IndependentModel, false);
}

#[test]
fn core_one_by_one() {
    run_suite(&CoreOneByOne, true);
}

#[test]
fn facade_default_chunks() {
    run_suite(&Facade(0), false);
}

#[test]
fn facade_odd_chunks() {
    for chunk in [1, 3, 511, 2049] {
        run_suite(&Facade(chunk), true);
    }
}
