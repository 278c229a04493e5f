//! The shared suite once per deposit path, forcing each path in turn (one test, so no
//! other test in this process changes the path meanwhile).

mod common;

use common::{run_suite, Backend};
use reprosum::{Options, Path};

struct OnPath(Path);
impl Backend for OnPath {
    fn name(&self) -> String {
        format!("path {}", self.0.name())
    }
    fn sum_f64(&self, x: &[f64], k: usize) -> f64 {
        reprosum::reprosum_core::sum_fold(x, k).unwrap()
    }
    fn sum_f32(&self, x: &[f32], k: usize) -> f32 {
        let mut a = reprosum::DynAccumulator::new(k).unwrap();
        a.add_slice(x).unwrap();
        a.value()
    }
    fn cumsum_f64(&self, x: &[f64], k: usize) -> Vec<f64> {
        let mut out = vec![f64::NAN; x.len()];
        reprosum::cumsum_with(
            x,
            &mut out,
            &Options {
                fold: k,
                chunk_len: 100,
            },
        )
        .unwrap();
        out
    }
    fn cumsum_f32(&self, x: &[f32], k: usize) -> Vec<f32> {
        let mut out = vec![f32::NAN; x.len()];
        reprosum::cumsum_with(
            x,
            &mut out,
            &Options {
                fold: k,
                chunk_len: 100,
            },
        )
        .unwrap();
        out
    }
}

#[test]
fn every_path_gives_the_vectors_bits() {
    let mut ran = Vec::new();
    for p in Path::ALL {
        if reprosum::select_path(p).is_err() {
            println!("path {}: not supported by this CPU or target, skipped", p.name());
            continue;
        }
        assert_eq!(reprosum::current_path(), p);
        run_suite(&OnPath(p), false);
        // Long inputs of every range on this path against the reference.
        let x: Vec<f64> = (0..70_000u64)
            .map(|i| {
                f64::from_bits(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 1)
                    * if i % 3 == 0 { -1.0 } else { 1.0 }
            })
            .filter(|v| v.is_finite())
            .collect();
        for k in [2, 3, 4, 7] {
            let fast = reprosum::reprosum_core::sum_fold(&x, k).unwrap();
            let slow = reprosum::reference::sum(&x, k).unwrap();
            assert_eq!(fast.to_bits(), slow.to_bits(), "path {} fold {k}", p.name());
        }
        ran.push(p.name());
    }
    println!("paths run: {ran:?}");
    assert!(ran.contains(&"portable") && ran.contains(&"scalar"));
}
