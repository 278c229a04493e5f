//! Test vectors and input generators shared by every reprosum back end.
//!
//! `no_std` and allocation-free, so the same code reads the vectors on the host, on bare
//! metal targets and in the GPU test programs.
//!
//! # The vectors format
//!
//! A text file of cases, one line per field, values as upper-case hex bit patterns
//! without `0x`:
//!
//! ```text
//! # comment
//! case NAME f64|f32 FOLD
//! part REPEAT HEX HEX ...      the values, written out REPEAT times (abab, not aabb)
//! set INDEX HEX                overwrite element INDEX (from 0) after the parts
//! gen wide_range_1m            instead of parts: a generated input
//! sum HEX                      the reproducible sum's bits
//! cumsum HEX HEX ...           every prefix (optional)
//! bytes HEX                    the accumulator's canonical encoding (optional)
//! end
//! ```
//!
//! `tests/vectors/known_answers.txt` holds the rows of `tests/vectors/known_answers.json`;
//! `tests/vectors/core_vectors.txt` is generated from the independent model ([`model`]).
//! Both are written by `cargo run -p reprosum-testkit --features gen --bin gen-vectors`.

#![cfg_attr(not(feature = "gen"), no_std)]
#![warn(missing_docs)]

mod format;
pub mod fpmode;
#[cfg(feature = "gen")]
pub mod gen;
pub mod model;
pub mod mt;

pub use format::TestFloat;

/// SplitMix64: a small, fixed, portable generator (seeded, so a failure names its seed),
/// for the vectors' inputs and the randomised tests.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

use reprosum_core::Dtype;

/// The known answers (`tests/vectors/known_answers.json`), in the vectors format.
pub const KNOWN_ANSWERS: &str = include_str!("../../tests/vectors/known_answers.txt");
/// The vectors generated from the independent model, in the vectors format.
pub const CORE_VECTORS: &str = include_str!("../../tests/vectors/core_vectors.txt");

/// A line of a vectors file that could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
}

/// One case of a vectors file.
#[derive(Clone, Copy, Debug)]
pub struct Case<'a> {
    /// The case's name.
    pub name: &'a str,
    /// The element type.
    pub dtype: Dtype,
    /// The fold.
    pub fold: usize,
    /// The expected sum's bits.
    pub sum: u64,
    body: &'a str,
}

fn hex(s: &str) -> Option<u64> {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).ok()
}

fn field<'a>(body: &'a str, key: &str) -> Option<&'a str> {
    body.lines().find_map(|l| {
        let mut w = l.splitn(2, ' ');
        (w.next() == Some(key)).then(|| w.next().unwrap_or(""))
    })
}

impl<'a> Case<'a> {
    /// Whether the input comes from a generator (`gen` line).
    pub fn generated(&self) -> Option<&'a str> {
        field(self.body, "gen").map(str::trim)
    }

    /// The number of input values.
    pub fn len(&self) -> usize {
        if let Some(g) = self.generated() {
            return if g == "wide_range_1m" {
                mt::WIDE_RANGE_LEN
            } else {
                0
            };
        }
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("part "))
            .map(|rest| {
                let mut w = rest.split_ascii_whitespace();
                let rep: usize = w.next().and_then(|r| r.parse().ok()).unwrap_or(0);
                rep * w.count()
            })
            .sum()
    }

    /// Whether the input is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The input values' bit patterns, in order.
    pub fn inputs(&self) -> Inputs<'a> {
        if self.generated() == Some("wide_range_1m") {
            return Inputs::Wide(mt::WideRange::new());
        }
        Inputs::Parts {
            body: self.body,
            has_set: self.body.lines().any(|l| l.starts_with("set ")),
            lines: self.body.lines(),
            cur: None,
            index: 0,
        }
    }

    /// The expected cumulative sum's bits, if the case has one.
    pub fn cumsum(&self) -> Option<impl Iterator<Item = u64> + 'a> {
        field(self.body, "cumsum").map(|r| r.split_ascii_whitespace().filter_map(hex))
    }

    /// The expected encoding, if the case has one.
    pub fn bytes(&self) -> Option<impl Iterator<Item = u8> + 'a> {
        field(self.body, "bytes").map(|r| {
            let r = r.trim().as_bytes();
            r.chunks(2).filter_map(|p| {
                core::str::from_utf8(p)
                    .ok()
                    .and_then(|s| u8::from_str_radix(s, 16).ok())
            })
        })
    }

    /// The input values as `f64` (for an f64 case).
    pub fn inputs_f64(&self) -> impl Iterator<Item = f64> + 'a {
        self.inputs().map(f64::from_bits)
    }

    /// The input values as `f32` (for an f32 case).
    pub fn inputs_f32(&self) -> impl Iterator<Item = f32> + 'a {
        self.inputs().map(|b| f32::from_bits(b as u32))
    }
}

/// The input values of a case, as bit patterns.
// The generator's state is large, but there is one of these per case and no allocator.
#[allow(clippy::large_enum_variant)]
pub enum Inputs<'a> {
    /// From `part` and `set` lines.
    Parts {
        /// The case body (for the `set` lines).
        body: &'a str,
        /// Whether there are `set` lines at all (so most cases never rescan the body).
        has_set: bool,
        /// The remaining lines.
        lines: core::str::Lines<'a>,
        /// The current part: values left in this repeat, the whole value list, repeats left.
        cur: Option<(core::str::SplitAsciiWhitespace<'a>, &'a str, usize)>,
        /// Index of the next element.
        index: usize,
    },
    /// From the wide-range generator.
    Wide(mt::WideRange),
}

impl Iterator for Inputs<'_> {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        match self {
            Inputs::Wide(w) => w.next().map(f64::to_bits),
            Inputs::Parts {
                body,
                has_set,
                lines,
                cur,
                index,
            } => loop {
                if let Some((vals, all, reps)) = cur {
                    if let Some(v) = vals.next() {
                        let i = *index;
                        *index += 1;
                        let set = has_set
                            .then(|| body.lines())
                            .into_iter()
                            .flatten()
                            .filter_map(|l| l.strip_prefix("set "))
                            .find_map(|r| {
                                let mut w = r.split_ascii_whitespace();
                                let at: usize = w.next()?.parse().ok()?;
                                (at == i).then(|| w.next().and_then(hex)).flatten()
                            });
                        return set.or_else(|| hex(v));
                    }
                    if *reps > 1 {
                        *reps -= 1;
                        *vals = all.split_ascii_whitespace();
                        continue;
                    }
                    *cur = None;
                }
                let line = lines.next()?;
                if let Some(rest) = line.strip_prefix("part ") {
                    let (rep, all) = rest.split_once(' ').unwrap_or((rest, ""));
                    let rep: usize = rep.parse().unwrap_or(0);
                    if rep > 0 {
                        *cur = Some((all.split_ascii_whitespace(), all, rep));
                    }
                }
            },
        }
    }
}

/// Iterates over the cases of a vectors file.
pub fn cases(text: &str) -> impl Iterator<Item = Result<Case<'_>, ParseError>> + '_ {
    let mut rest = text;
    let mut line_no = 0usize;
    core::iter::from_fn(move || loop {
        let (line, after) = match rest.split_once('\n') {
            Some(p) => p,
            None if rest.is_empty() => return None,
            None => (rest, ""),
        };
        line_no += 1;
        rest = after;
        let Some(header) = line.strip_prefix("case ") else {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            return Some(Err(ParseError { line: line_no }));
        };
        let start_line = line_no;
        let Some(end) = rest
            .find("\nend\n")
            .map(|e| e + 1)
            .or_else(|| rest.starts_with("end\n").then_some(0))
        else {
            return Some(Err(ParseError { line: start_line }));
        };
        let body = &rest[..end];
        line_no += body.lines().count() + 1;
        rest = &rest[end + 4..];
        let mut w = header.split_ascii_whitespace();
        let name = w.next();
        let dtype = match w.next() {
            Some("f64") => Some(Dtype::F64),
            Some("f32") => Some(Dtype::F32),
            _ => None,
        };
        let fold = w.next().and_then(|f| f.parse().ok());
        let sum = field(body, "sum").and_then(|s| hex(s.trim()));
        return Some(match (name, dtype, fold, sum) {
            (Some(name), Some(dtype), Some(fold), Some(sum)) => Ok(Case {
                name,
                dtype,
                fold,
                sum,
                body,
            }),
            _ => Err(ParseError { line: start_line }),
        });
    })
}
