//! The vectors files: fresh (regenerating them changes nothing), and the core's byte
//! encodings match the recorded ones.

use reprosum::{Accumulator, Dtype, DynAccumulator};
use reprosum_testkit::{cases, gen, CORE_VECTORS, KNOWN_ANSWERS};

/// The known answers as committed (the source of truth for `known_answers.txt`).
const KNOWN_ANSWERS_JSON: &str = include_str!("vectors/known_answers.json");

#[test]
fn known_answers_file_is_fresh() {
    let json = KNOWN_ANSWERS_JSON;
    assert!(
        gen::known_answers_txt(json) == KNOWN_ANSWERS,
        "tests/vectors/known_answers.txt is stale: run \
         `cargo run -p reprosum-testkit --features gen --bin gen-vectors`"
    );
}

#[test]
fn core_vectors_file_is_fresh() {
    assert!(
        gen::core_vectors_txt() == CORE_VECTORS,
        "tests/vectors/core_vectors.txt is stale: run \
         `cargo run -p reprosum-testkit --features gen --bin gen-vectors`"
    );
}

/// Every known answer of the JSON file is in the converted file (row for row).
#[test]
fn known_answers_cover_every_row() {
    let json = KNOWN_ANSWERS_JSON;
    let rows = json.matches("\"name\":").count();
    let n = cases(KNOWN_ANSWERS).count();
    assert_eq!(n, rows);
    assert!(n >= 40, "expected at least 40 known answers, found {n}");
}

fn encode_dyn<T: reprosum::Float>(xs: &[T], fold: usize) -> Vec<u8> {
    let mut a = DynAccumulator::<T>::new(fold).unwrap();
    a.add_slice(xs).unwrap();
    a.to_bytes().to_vec()
}

fn encode_k<T: reprosum::Float>(xs: &[T], fold: usize) -> Option<Vec<u8>> {
    fn one<T: reprosum::Float, const K: usize>(xs: &[T]) -> Vec<u8> {
        let mut a = Accumulator::<T, K>::new();
        for &x in xs {
            a.add(x).unwrap();
        }
        a.to_bytes().to_vec()
    }
    Some(match fold {
        2 => one::<T, 2>(xs),
        3 => one::<T, 3>(xs),
        4 => one::<T, 4>(xs),
        6 => one::<T, 6>(xs),
        _ => return None,
    })
}

#[test]
fn encodings_match_the_vectors() {
    let mut checked = 0;
    for c in cases(CORE_VECTORS) {
        let c = c.unwrap();
        let want: Vec<u8> = c.bytes().expect("every core vector has bytes").collect();
        let (got_dyn, got_k) = match c.dtype {
            Dtype::F64 => {
                let x: Vec<f64> = c.inputs_f64().collect();
                (encode_dyn(&x, c.fold), encode_k(&x, c.fold))
            }
            Dtype::F32 => {
                let x: Vec<f32> = c.inputs_f32().collect();
                (encode_dyn(&x, c.fold), encode_k(&x, c.fold))
            }
        };
        assert_eq!(got_dyn, want, "{}: DynAccumulator encoding", c.name);
        if let Some(k) = got_k {
            assert_eq!(k, want, "{}: Accumulator<_, {}> encoding", c.name, c.fold);
        }
        checked += 1;
    }
    assert!(checked > 100);
}
