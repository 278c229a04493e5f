//! Passes the target triple to the program, which prints it. For the Cortex-M0
//! (`thumbv6m-none-eabi`, the micro:bit: 256 KiB of flash, 16 KiB of RAM) it also sets
//! `cfg(reprosum_small)` and writes the core vectors the suite runs there: every case of at
//! most `SMALL_MAX_VALUES` input values (the whole file, 637 KB, does not fit the flash).

use std::{env, fs, path::PathBuf};

/// The largest input a core-vectors case may have to run on the Cortex-M0.
const SMALL_MAX_VALUES: usize = 32;

/// The number of input values of a case (the body between `case` and `end`): the sum over
/// its `part REPEAT V...` lines of REPEAT times the values; `None` for a generated input.
fn values(body: &[&str]) -> Option<usize> {
    let mut n = 0;
    for l in body {
        let mut w = l.split_ascii_whitespace();
        match w.next() {
            Some("part") => {
                let repeat: usize = w.next()?.parse().ok()?;
                n += repeat * w.count();
            }
            Some("gen") => return None,
            _ => {}
        }
    }
    Some(n)
}

fn main() {
    let target = env::var("TARGET").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=REPROSUM_CROSS_TARGET={target}");
    println!("cargo::rustc-check-cfg=cfg(reprosum_small)");
    println!("cargo:rerun-if-changed=build.rs");
    if !target.starts_with("thumbv6m") {
        return;
    }
    println!("cargo:rustc-cfg=reprosum_small");
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let src = manifest.join("../../tests/vectors/core_vectors.txt");
    println!("cargo:rerun-if-changed={}", src.display());
    let text = fs::read_to_string(&src).expect("read tests/vectors/core_vectors.txt");
    let mut out = format!(
        "# The core vectors of at most {SMALL_MAX_VALUES} values, for the Cortex-M0 (written by \
         cross/runner/build.rs from tests/vectors/core_vectors.txt).\n"
    );
    let (mut kept, mut all) = (0, 0);
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].starts_with("case ") {
            i += 1;
            continue;
        }
        let end = (i..lines.len())
            .find(|&j| lines[j] == "end")
            .expect("every case ends");
        all += 1;
        if values(&lines[i + 1..end]).is_some_and(|n| n <= SMALL_MAX_VALUES) {
            kept += 1;
            for l in &lines[i..=end] {
                out.push_str(l);
                out.push('\n');
            }
        }
        i = end + 1;
    }
    assert!(
        kept > 0 && kept < all,
        "the small subset of the core vectors is empty or whole"
    );
    let dst = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("core_vectors_small.txt");
    fs::write(&dst, out).expect("write the small core vectors");
}
