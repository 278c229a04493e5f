//! Both decoders on arbitrary bytes: never a panic, and what is accepted re-encodes to
//! bytes that decode to the same state (the encoding is canonical: decode(encode(s)) = s).
#![no_main]

use libfuzzer_sys::fuzz_target;
use reprosum_core::{Accumulator, DynAccumulator};

fn check_dyn<T: reprosum_core::Float>(data: &[u8]) {
    if let Ok(a) = DynAccumulator::<T>::from_bytes(data) {
        let bytes = a.to_bytes();
        let b = DynAccumulator::<T>::from_bytes(&bytes).expect("its own bytes decode");
        assert_eq!(b.to_bytes().as_bytes(), bytes.as_bytes(), "re-encoding is stable");
        assert_eq!(b.count(), a.count());
        let _ = a.value();
    }
}

fuzz_target!(|data: &[u8]| {
    check_dyn::<f64>(data);
    check_dyn::<f32>(data);
    if let Ok(a) = Accumulator::<f64, 3>::from_bytes(data) {
        let d = DynAccumulator::<f64>::from_bytes(data).expect("the run-time form accepts it too");
        assert_eq!(a.to_bytes().as_bytes(), d.to_bytes().as_bytes());
    }
    if let Ok(a) = Accumulator::<f32, 6>::from_bytes(data) {
        let d = DynAccumulator::<f32>::from_bytes(data).expect("the run-time form accepts it too");
        assert_eq!(a.to_bytes().as_bytes(), d.to_bytes().as_bytes());
    }
});
