//! Writes `tests/vectors/known_answers.txt` (from `tests/vectors/known_answers.json`)
//! and `tests/vectors/core_vectors.txt` (from the independent model, `testkit/src/model.rs`).
//!
//! Run from the repository root: `cargo run -p reprosum-testkit --features gen --bin gen-vectors`.

use std::path::PathBuf;

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let json_path = root.join("tests/vectors/known_answers.json");
    let json = std::fs::read_to_string(&json_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", json_path.display()));
    let dir = root.join("tests/vectors");
    std::fs::create_dir_all(&dir).expect("create tests/vectors");
    let ka = reprosum_testkit::gen::known_answers_txt(&json);
    std::fs::write(dir.join("known_answers.txt"), ka).expect("write known_answers.txt");
    let cv = reprosum_testkit::gen::core_vectors_txt();
    std::fs::write(dir.join("core_vectors.txt"), cv).expect("write core_vectors.txt");
    println!("wrote {}", dir.display());
}
