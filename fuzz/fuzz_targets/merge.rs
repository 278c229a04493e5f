//! The decoder is closed under the operations: for any two accepted states (the input split
//! in two) and values taken from the input, merge, add and add_slice either refuse (capacity,
//! fold) and leave the state unchanged, or give a state whose bytes decode to it again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reprosum_core::{DynAccumulator, Float};

fn survives<T: Float>(a: &DynAccumulator<T>, what: &str) {
    let bytes = a.to_bytes();
    let back = DynAccumulator::<T>::from_bytes(&bytes)
        .unwrap_or_else(|e| panic!("after {what}: own bytes refused: {e}"));
    assert_eq!(back.to_bytes().as_bytes(), bytes.as_bytes(), "after {what}");
}

fn run<T: Float>(data: &[u8], values: &[T]) {
    if data.len() < 2 {
        return;
    }
    let cut = data[0] as usize % data.len();
    let (left, right) = data[1..].split_at(cut.min(data.len() - 1));
    let Ok(a) = DynAccumulator::<T>::from_bytes(left) else {
        return;
    };
    let b = DynAccumulator::<T>::from_bytes(right).ok();
    let mut m = a;
    let before = m.to_bytes();
    match m.merge(&a) {
        Ok(()) => survives(&m, "merge(a, a)"),
        Err(_) => assert_eq!(
            m.to_bytes().as_bytes(),
            before.as_bytes(),
            "a refused merge changed a"
        ),
    }
    if let Some(b) = b {
        let mut m = a;
        let before = m.to_bytes();
        match m.merge(&b) {
            Ok(()) => survives(&m, "merge(a, b)"),
            Err(_) => assert_eq!(m.to_bytes().as_bytes(), before.as_bytes()),
        }
    }
    let mut s = a;
    for &x in values.iter().take(8) {
        if s.add(x).is_ok() {
            survives(&s, "add");
        }
    }
    let mut t = a;
    if t.add_slice(values).is_ok() {
        survives(&t, "add_slice");
    }
}

fuzz_target!(|data: &[u8]| {
    let f64s: Vec<f64> = data
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let f32s: Vec<f32> = data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    run::<f64>(data, &f64s);
    run::<f32>(data, &f32s);
});
