//! The text reader and the number printer on arbitrary bytes: never panic; splitting the
//! input anywhere gives the same values or the same error; every value printed reads back
//! to the same bits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reprosum_cli::number::repr;
use reprosum_cli::text::{parse_text, TextParser};
use reprosum_cli::Elem;

/// Parses `data` fed in three pieces, cut at `i` and `j`.
fn pieces<T: Elem>(data: &[u8], i: usize, j: usize) -> Result<Vec<T>, reprosum_cli::text::TextError> {
    let mut p = TextParser::<T>::new();
    let mut out = Vec::new();
    p.feed(&data[..i], &mut out)?;
    p.feed(&data[i..j], &mut out)?;
    p.feed(&data[j..], &mut out)?;
    p.finish(&mut out)?;
    Ok(out)
}

fn check<T: Elem>(data: &[u8], i: usize, j: usize) {
    let whole = parse_text::<T>(data);
    let split = pieces::<T>(data, i, j);
    match (&whole, &split) {
        (Ok(a), Ok(b)) => {
            let a: Vec<u64> = a.iter().map(|x| x.bits()).collect();
            let b: Vec<u64> = b.iter().map(|x| x.bits()).collect();
            assert_eq!(a, b, "cut at {i}, {j}");
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "cut at {i}, {j}"),
        _ => panic!("cut at {i}, {j}: {whole:?} vs {split:?}"),
    }
    match whole {
        Ok(values) => {
            // No more values than tokens could hold: each takes a byte and a separator.
            assert!(values.len() <= data.len().div_ceil(2));
            for x in values {
                let s = repr(x);
                #[allow(clippy::eq_op)] // NaN is the one value not equal to itself
                let nan = x != x;
                if nan {
                    assert_eq!(s, "nan");
                    continue;
                }
                let back: T = s.parse().ok().expect("printed numbers parse");
                assert_eq!(back.bits(), x.bits(), "{s}");
                // The printed form is itself valid text input.
                let again = parse_text::<T>(s.as_bytes()).expect("printed numbers are text");
                assert_eq!(again.len(), 1);
            }
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.chars().any(char::is_control), "{msg:?}");
            assert!(msg.len() < 400, "{msg}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    // The first two bytes choose where to cut the rest.
    let (cuts, rest) = data.split_at(data.len().min(2));
    let n = rest.len();
    let (mut i, mut j) = match cuts {
        [a, b] => (*a as usize % (n + 1), *b as usize % (n + 1)),
        _ => (0, n),
    };
    if i > j {
        std::mem::swap(&mut i, &mut j);
    }
    check::<f64>(rest, i, j);
    check::<f32>(rest, i, j);
    // Any bit pattern prints as text that reads back to it.
    for w in rest.chunks_exact(8).take(16) {
        let x = f64::from_le_bytes(w.try_into().unwrap());
        let y = f32::from_le_bytes(w[..4].try_into().unwrap());
        if !x.is_nan() {
            assert_eq!(repr(x).parse::<f64>().unwrap().to_bits(), x.to_bits());
        }
        if !y.is_nan() {
            assert_eq!(repr(y).parse::<f32>().unwrap().to_bits(), y.to_bits());
        }
    }
});
