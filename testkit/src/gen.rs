//! Writes the vectors files (feature `gen`).
//!
//! `known_answers_txt` turns `shared/vectors/known_answers.json` into the vectors format,
//! row for row; `core_vectors_txt` generates inputs of every exponent range from a fixed
//! seed and records what the core's reference path computes for them. The test
//! `tests/vectors.rs` regenerates both in memory and fails if the committed files differ.

use core::fmt::Write;

use reprosum_core::{reference, DynAccumulator};

use crate::TestFloat;

fn strip(h: &str) -> String {
    h.trim_start_matches("0x").to_ascii_uppercase()
}

/// The known answers of `shared/vectors/known_answers.json` in the vectors format.
///
/// # Panics
/// If the JSON is not the expected shape (a generator, not library code).
pub fn known_answers_txt(json: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(json).expect("known_answers.json parses");
    let mut out = String::from(
        "# Generated from shared/vectors/known_answers.json by gen-vectors; do not edit.\n\
         # Format: see reprosum-testkit's crate docs.\n",
    );
    for c in v["cases"].as_array().expect("cases") {
        let name = c["name"].as_str().expect("name");
        writeln!(
            out,
            "case {} {} {}",
            name,
            c["dtype"].as_str().expect("dtype"),
            c["fold"]
        )
        .unwrap();
        let input = &c["input"];
        if let Some(g) = input.get("generator").and_then(|g| g.as_str()) {
            writeln!(out, "gen {}", g.trim_end_matches(".py")).unwrap();
        }
        for part in input
            .get("parts")
            .and_then(|p| p.as_array())
            .into_iter()
            .flatten()
        {
            let vals: Vec<String> = part["values"]
                .as_array()
                .expect("values")
                .iter()
                .map(|h| strip(h.as_str().expect("hex")))
                .collect();
            writeln!(out, "part {} {}", part["repeat"], vals.join(" ")).unwrap();
        }
        for s in input.get("set").and_then(|p| p.as_array()).into_iter().flatten() {
            writeln!(out, "set {} {}", s[0], strip(s[1].as_str().expect("hex"))).unwrap();
        }
        writeln!(out, "sum {}", strip(c["sum"].as_str().expect("sum"))).unwrap();
        if let Some(cs) = c.get("cumsum").and_then(|x| x.as_array()) {
            let vals: Vec<String> = cs.iter().map(|h| strip(h.as_str().expect("hex"))).collect();
            writeln!(out, "cumsum {}", vals.join(" ")).unwrap();
        }
        out.push_str("end\n");
    }
    out
}

/// SplitMix64: a small, fixed, portable generator for the vectors' inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The input classes, each spanning part of the exponent range.
pub const CLASSES: [&str; 9] = [
    "unit",
    "signed_wide",
    "near_overflow",
    "subnormal",
    "cancel",
    "bin_edges",
    "specials",
    "zeros",
    "few_windows",
];

/// One value of a class, as bits of type T.
fn draw<T: TestFloat>(rng: &mut Rng, class: &str, i: usize, prev: &[u64]) -> u64 {
    let mant_mask = (1u64 << T::MANT_BITS) - 1;
    let max_field = T::MAX_EXP_FIELD;
    let bias = max_field.div_ceil(2);
    let sign = |r: &mut Rng| if r.next() & 1 == 1 { T::SIGN_BIT } else { 0 };
    let make = |s: u64, field: u64, mant: u64| s | (field << T::MANT_BITS) | (mant & mant_mask);
    match class {
        "unit" => make(0, bias - 1 - rng.below(12), rng.next()),
        "signed_wide" => make(sign(rng), rng.below(max_field + 1), rng.next()),
        "near_overflow" => make(sign(rng), max_field - rng.below(6), rng.next()),
        "subnormal" => match rng.below(4) {
            0 => make(sign(rng), 1, rng.next()),
            1 => make(sign(rng), 0, rng.below(16)),
            _ => make(sign(rng), 0, rng.next()),
        },
        "cancel" => {
            if i % 2 == 1 && rng.below(8) != 0 {
                prev[i - 1] ^ T::SIGN_BIT
            } else {
                make(sign(rng), rng.below(max_field + 1), rng.next())
            }
        }
        "bin_edges" => {
            // Near a bin boundary: the largest exponent of a bin, or the smallest, +- a
            // few ulps, anywhere in the range.
            let w = T::BIN_WIDTH as u64;
            let b = rng.below(T::MAX_INDEX as u64 + 1);
            let edge = (max_field + 1).saturating_sub(b * w).clamp(1, max_field);
            let field = (edge - rng.below(2)).max(1);
            let mant = match rng.below(3) {
                0 => rng.below(4),
                1 => mant_mask - rng.below(4),
                _ => rng.next(),
            };
            make(sign(rng), field, mant)
        }
        "specials" => match rng.below(16) {
            0 => make(sign(rng), max_field + 1, 1 + rng.below(mant_mask)),
            1 => T::INF_BITS,
            2 => T::INF_BITS | T::SIGN_BIT,
            3 => make(sign(rng), max_field, rng.next()),
            _ => make(sign(rng), bias + rng.below(20), rng.next()),
        },
        "zeros" => match rng.below(4) {
            0 => 0,
            1 => T::SIGN_BIT,
            2 => make(sign(rng), 0, 1 + rng.below(3)),
            _ => make(sign(rng), bias - rng.below(3), rng.next()),
        },
        _ => {
            // few_windows: three magnitudes far apart.
            let field = [max_field - 2, bias, 3][rng.below(3) as usize];
            make(sign(rng), field, rng.next())
        }
    }
}

fn hexes(v: impl Iterator<Item = String>) -> String {
    v.collect::<Vec<_>>().join(" ")
}

fn case_text<T: TestFloat>(
    out: &mut String,
    rng: &mut Rng,
    class: &str,
    fold: usize,
    n: usize,
    with_cumsum: bool,
) {
    let width = T::BYTES * 2;
    let mut bits = Vec::with_capacity(n);
    for i in 0..n {
        let b = draw::<T>(rng, class, i, &bits);
        bits.push(b);
    }
    let xs: Vec<T> = bits.iter().map(|&b| T::from_bits_u64(b)).collect();
    let mut acc = DynAccumulator::<T>::new(fold).expect("fold");
    let mut prefixes = Vec::with_capacity(n);
    for &x in &xs {
        reference::add_all(&mut acc, &[x]).expect("capacity");
        prefixes.push(acc.value().bits());
    }
    let total = reference::sum(&xs, fold).expect("sum").bits();
    writeln!(
        out,
        "case {}_{}_k{}_n{} {} {}",
        T::DTYPE,
        class,
        fold,
        n,
        T::DTYPE,
        fold
    )
    .unwrap();
    for chunk in bits.chunks(16) {
        writeln!(
            out,
            "part 1 {}",
            hexes(chunk.iter().map(|b| format!("{b:0width$X}")))
        )
        .unwrap();
    }
    writeln!(out, "sum {total:0width$X}").unwrap();
    if with_cumsum {
        writeln!(
            out,
            "cumsum {}",
            hexes(prefixes.iter().map(|b| format!("{b:0width$X}")))
        )
        .unwrap();
    }
    let enc: String = acc
        .to_bytes()
        .as_bytes()
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect();
    writeln!(out, "bytes {enc}").unwrap();
    out.push_str("end\n");
}

fn cases_of<T: TestFloat>(out: &mut String, rng: &mut Rng, folds: &[usize]) {
    for &fold in folds {
        for class in CLASSES {
            let n = 1 + rng.below(160) as usize;
            case_text::<T>(out, rng, class, fold, n, true);
        }
    }
    // Longer inputs that cross block and renormalisation boundaries.
    for class in ["signed_wide", "cancel", "bin_edges", "specials"] {
        case_text::<T>(out, rng, class, 3, 2 * T::ENDURANCE as usize + 37, false);
    }
    // Tiny inputs at every fold.
    for fold in 2..=T::MAX_FOLD {
        let class = CLASSES[fold % CLASSES.len()];
        case_text::<T>(out, rng, class, fold, 1 + fold % 3, true);
    }
}

/// The core's vectors file: every input class at folds 2, 3, 4, 6 and the largest, long
/// inputs across block boundaries, and one tiny case at every fold; sums, cumulative sums
/// and encodings from the reference path.
pub fn core_vectors_txt() -> String {
    let mut out = String::from(
        "# Generated from reprosum-core's reference path by gen-vectors; do not edit.\n\
         # Format: see reprosum-testkit's crate docs. Values are bit patterns in hex.\n",
    );
    let mut rng = Rng(0x005E_ED0F_2026);
    cases_of::<f64>(&mut out, &mut rng, &[2, 3, 4, 6, 52]);
    cases_of::<f32>(&mut out, &mut rng, &[2, 3, 4, 6, 21]);
    out
}
