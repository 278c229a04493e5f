//! Writes the vectors files (feature `gen`).
//!
//! `known_answers_txt` turns `tests/vectors/known_answers.json` into the vectors format,
//! row for row; `core_vectors_txt` generates inputs of every exponent range from a fixed
//! seed and records what the independent model ([`crate::model`]) computes for them. The
//! test `tests/vectors.rs` regenerates both in memory and fails if the committed files
//! differ.

use core::fmt::Write;

use crate::model::{endurance, width, Model, ModelFloat};
use crate::SplitMix64 as Rng;

fn strip(h: &str) -> String {
    h.trim_start_matches("0x").to_ascii_uppercase()
}

/// The known answers of `tests/vectors/known_answers.json` in the vectors format.
///
/// # Panics
/// If the JSON is not the expected shape (a generator, not library code).
pub fn known_answers_txt(json: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(json).expect("known_answers.json parses");
    let mut out = String::from(
        "# Generated from tests/vectors/known_answers.json by gen-vectors; do not edit.\n\
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

/// The type's name in the vectors format.
fn name<T: ModelFloat>() -> &'static str {
    if T::TYPE_CODE == 1 {
        "f32"
    } else {
        "f64"
    }
}

/// One value of a class, as bits of type T.
fn draw<T: ModelFloat>(rng: &mut Rng, class: &str, i: usize, prev: &[u64]) -> u64 {
    let mant_bits = T::P - 1;
    let mant_mask = (1u64 << mant_bits) - 1;
    // The largest finite exponent field; the one above it is Inf and NaN.
    let max_field = (1u64 << T::EXP_BITS) - 2;
    let bias = max_field.div_ceil(2);
    let sign_bit = 1u64 << (mant_bits + T::EXP_BITS);
    let inf_bits = (max_field + 1) << mant_bits;
    let sign = |r: &mut Rng| if r.next_u64() & 1 == 1 { sign_bit } else { 0 };
    let make = |s: u64, field: u64, mant: u64| s | (field << mant_bits) | (mant & mant_mask);
    match class {
        "unit" => make(0, bias - 1 - rng.below(12), rng.next_u64()),
        "signed_wide" => make(sign(rng), rng.below(max_field + 1), rng.next_u64()),
        "near_overflow" => make(sign(rng), max_field - rng.below(6), rng.next_u64()),
        "subnormal" => match rng.below(4) {
            0 => make(sign(rng), 1, rng.next_u64()),
            1 => make(sign(rng), 0, rng.below(16)),
            _ => make(sign(rng), 0, rng.next_u64()),
        },
        "cancel" => {
            if i % 2 == 1 && rng.below(8) != 0 {
                prev[i - 1] ^ sign_bit
            } else {
                make(sign(rng), rng.below(max_field + 1), rng.next_u64())
            }
        }
        "bin_edges" => {
            // Near a bin boundary: the largest exponent of a bin, or the smallest, +- a
            // few ulps, anywhere in the range.
            let w = T::W as u64;
            let b = rng.below(T::M as u64 + 1);
            let edge = (max_field + 1).saturating_sub(b * w).clamp(1, max_field);
            let field = (edge - rng.below(2)).max(1);
            let mant = match rng.below(3) {
                0 => rng.below(4),
                1 => mant_mask - rng.below(4),
                _ => rng.next_u64(),
            };
            make(sign(rng), field, mant)
        }
        "specials" => match rng.below(16) {
            0 => make(sign(rng), max_field + 1, 1 + rng.below(mant_mask)),
            1 => inf_bits,
            2 => inf_bits | sign_bit,
            3 => make(sign(rng), max_field, rng.next_u64()),
            _ => make(sign(rng), bias + rng.below(20), rng.next_u64()),
        },
        "zeros" => match rng.below(4) {
            0 => 0,
            1 => sign_bit,
            2 => make(sign(rng), 0, 1 + rng.below(3)),
            _ => make(sign(rng), bias - rng.below(3), rng.next_u64()),
        },
        _ => {
            // few_windows: three magnitudes far apart.
            let field = [max_field - 2, bias, 3][rng.below(3) as usize];
            make(sign(rng), field, rng.next_u64())
        }
    }
}

fn hexes(v: impl Iterator<Item = String>) -> String {
    v.collect::<Vec<_>>().join(" ")
}

fn case_text<T: ModelFloat>(
    out: &mut String,
    rng: &mut Rng,
    class: &str,
    fold: usize,
    n: usize,
    with_cumsum: bool,
) {
    let width = width::<T>() * 2;
    let mut bits = Vec::with_capacity(n);
    for i in 0..n {
        let b = draw::<T>(rng, class, i, &bits);
        bits.push(b);
    }
    let mut acc = Model::<T>::new(fold).expect("fold");
    let mut prefixes = Vec::with_capacity(n);
    for &b in &bits {
        acc.add(T::from_bits64(b)).expect("capacity");
        prefixes.push(acc.value().to_bits64());
    }
    let total = acc.value().to_bits64();
    let ty = name::<T>();
    writeln!(out, "case {ty}_{class}_k{fold}_n{n} {ty} {fold}").unwrap();
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
        .as_slice()
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect();
    writeln!(out, "bytes {enc}").unwrap();
    out.push_str("end\n");
}

fn cases_of<T: ModelFloat>(out: &mut String, rng: &mut Rng, folds: &[usize]) {
    for &fold in folds {
        for class in CLASSES {
            let n = 1 + rng.below(160) as usize;
            case_text::<T>(out, rng, class, fold, n, true);
        }
    }
    // Longer inputs that cross block and renormalisation boundaries.
    for class in ["signed_wide", "cancel", "bin_edges", "specials"] {
        case_text::<T>(out, rng, class, 3, 2 * endurance::<T>() as usize + 37, false);
    }
    // Tiny inputs at every fold.
    for fold in 2..=T::MAX_FOLD {
        let class = CLASSES[fold % CLASSES.len()];
        case_text::<T>(out, rng, class, fold, 1 + fold % 3, true);
    }
}

/// The core's vectors file: every input class at folds 2, 3, 4, 6 and the largest, long
/// inputs across block boundaries, and one tiny case at every fold; sums, cumulative sums
/// and encodings from the independent model.
pub fn core_vectors_txt() -> String {
    let mut out = String::from(
        "# Generated from the independent model (testkit/src/model.rs) by gen-vectors; do not edit.\n\
         # Format: see reprosum-testkit's crate docs. Values are bit patterns in hex.\n",
    );
    let mut rng = Rng(0x005E_ED0F_2026);
    cases_of::<f64>(&mut out, &mut rng, &[2, 3, 4, 6, 52]);
    cases_of::<f32>(&mut out, &mut rng, &[2, 3, 4, 6, 21]);
    out
}
