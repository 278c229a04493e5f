//! Index files: the segment offsets of `--segments` and the keys of `--keys`.
//!
//! An index file is a 1-D `.npy` array of `int32`, `int64`, `uint32` or `uint64` (either
//! byte order), or text: integers separated by commas, spaces, tabs and newlines, with `#`
//! starting a comment to the end of the line (the value files' text rules). Every entry is
//! checked as it is read: a value the caller's conversion refuses is reported with its
//! position, and nothing is allocated from what a header claims beyond the file's size.

use std::path::Path;

use reprosum_cli::escape;
use reprosum_cli::npy;

use crate::formats::{self, Input};
use crate::CliError;

/// Bytes read at a time.
const CHUNK: usize = 1 << 20;

/// Reads every entry of the index file at `path`, converting each with `conv`, which
/// returns `Err(why)` for a value out of its range (the message then names the entry).
pub fn read<V>(path: &Path, conv: impl Fn(i128) -> Result<V, String>) -> Result<Vec<V>, CliError> {
    let mut input = Input::open(path)?;
    let entry =
        |name: &str, i: u64, v: i128, why: String| CliError::data(format!("{name}: entry {i} ({v}) {why}"));
    let mut out = Vec::new();
    if input.peek(npy::MAGIC.len())? == npy::MAGIC {
        let h = formats::npy_index_header(&mut input)?;
        let size = h.dtype.bytes();
        let mut buf = vec![0u8; CHUNK - CHUNK % size];
        let mut seen = 0u64;
        loop {
            let n = input.fill(&mut buf)?;
            let whole = n - n % size;
            let values = (whole / size) as u64;
            if seen + values > h.len || (n < buf.len() && (n != whole || seen + values != h.len)) {
                return Err(CliError::data(format!(
                    "{}: the .npy header says {} values but the data has {} bytes",
                    input.name,
                    h.len,
                    seen * size as u64 + n as u64
                )));
            }
            reserve(&mut out, values)?;
            for (j, b) in buf[..whole].chunks_exact(size).enumerate() {
                let v = h.dtype.value(b, h.big_endian);
                let i = seen + j as u64;
                out.push(conv(v).map_err(|why| entry(&input.name, i, v, why))?);
            }
            seen += values;
            if n < buf.len() {
                return Ok(out);
            }
        }
    }
    let mut text = TextInts::default();
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = input.fill(&mut buf)?;
        let end = n < buf.len();
        let mut fail = None;
        let name = input.name.clone();
        let mut push = |v: i128| -> Result<(), CliError> {
            reserve(&mut out, 1)?;
            let i = out.len() as u64;
            out.push(conv(v).map_err(|why| entry(&name, i, v, why))?);
            Ok(())
        };
        text.feed(&buf[..n], end, &mut |t| match t {
            Ok(v) => {
                if let Err(e) = push(v) {
                    fail.get_or_insert(e);
                }
            }
            Err(msg) => {
                fail.get_or_insert(CliError::data(format!("{name}: {msg}")));
            }
        });
        if let Some(e) = fail {
            return Err(e);
        }
        if end {
            return Ok(out);
        }
    }
}

fn reserve<V>(v: &mut Vec<V>, more: u64) -> Result<(), CliError> {
    usize::try_from(more)
        .ok()
        .and_then(|m| v.try_reserve(m).ok())
        .ok_or_else(|| CliError::data("out of memory reading an index file"))
}

/// Integers in text, fed in pieces.
#[derive(Default)]
struct TextInts {
    /// The token so far (a number may span two pieces).
    token: Vec<u8>,
    /// In a `#` comment.
    comment: bool,
    /// The line, from 1 (0 before the first byte).
    line: u64,
    /// A comma was seen since the last number (so a second one is an empty field).
    comma: bool,
    /// A number was seen before the pending comma.
    any: bool,
    /// An error was reported: nothing more is read.
    failed: bool,
}

impl TextInts {
    /// Feeds `bytes`; `end` when the input ends after them. Calls `out` with each integer, or
    /// once with an error message (then stops).
    fn feed(&mut self, bytes: &[u8], end: bool, out: &mut dyn FnMut(Result<i128, String>)) {
        if self.line == 0 {
            self.line = 1;
        }
        for &b in bytes {
            if self.failed {
                return;
            }
            if self.comment {
                if b == b'\n' {
                    self.comment = false;
                    self.line += 1;
                }
                continue;
            }
            match b {
                b' ' | b'\t' | b'\r' | b'\n' | b',' | b'#' => {
                    self.finish_token(out);
                    match b {
                        b'\n' => self.line += 1,
                        b'#' => self.comment = true,
                        b',' => {
                            if self.comma || !self.any {
                                self.fail(out, "an empty field (two commas, or a comma first)".into());
                            }
                            self.comma = true;
                        }
                        _ => {}
                    }
                }
                _ => {
                    if self.token.len() < 64 {
                        self.token.push(b);
                    } else {
                        self.fail(
                            out,
                            format!("'{}...' is not an integer", escape::escape_bytes(&self.token, 20)),
                        );
                    }
                }
            }
        }
        if end && !self.failed {
            self.finish_token(out);
            if self.comma {
                self.fail(out, "an empty field (a comma last)".into());
            }
        }
    }

    fn fail(&mut self, out: &mut dyn FnMut(Result<i128, String>), msg: String) {
        if !self.failed {
            self.failed = true;
            out(Err(format!("line {}: {msg}", self.line)));
        }
    }

    fn finish_token(&mut self, out: &mut dyn FnMut(Result<i128, String>)) {
        if self.token.is_empty() || self.failed {
            return;
        }
        let t = std::mem::take(&mut self.token);
        match parse_int(&t) {
            Some(v) => {
                self.comma = false;
                self.any = true;
                out(Ok(v));
            }
            None => self.fail(
                out,
                format!("'{}' is not an integer", escape::escape_bytes(&t, 40)),
            ),
        }
    }
}

/// An optional sign and decimal digits; values past the `i128` range (which no index type
/// reaches) are clamped, so they are reported as out of range by the conversion.
fn parse_int(t: &[u8]) -> Option<i128> {
    let (neg, digits) = match t {
        [b'-', d @ ..] => (true, d),
        [b'+', d @ ..] => (false, d),
        d => (false, d),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut v: i128 = 0;
    for &d in digits {
        v = v.saturating_mul(10).saturating_add(i128::from(d - b'0'));
    }
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(pieces: &[&[u8]]) -> Result<Vec<i128>, String> {
        let mut t = TextInts::default();
        let mut got = Vec::new();
        let mut err = None;
        for (i, p) in pieces.iter().enumerate() {
            t.feed(p, i + 1 == pieces.len(), &mut |r| match r {
                Ok(v) => got.push(v),
                Err(e) => err = Some(e),
            });
        }
        err.map_or(Ok(got), Err)
    }

    #[test]
    fn text_integers() {
        assert_eq!(ints(&[b"0 3, 3\n 7 # c, 9\n-2 +4"]), Ok(vec![0, 3, 3, 7, -2, 4]));
        assert_eq!(ints(&[b"12", b"34 5"]), Ok(vec![1234, 5]));
        assert_eq!(ints(&[b""]), Ok(vec![]));
        assert_eq!(ints(&[b"# only a comment"]), Ok(vec![]));
        assert!(ints(&[b"1,,2"]).unwrap_err().contains("empty field"));
        assert!(ints(&[b",1"]).unwrap_err().contains("empty field"));
        assert!(ints(&[b"1,"]).unwrap_err().contains("empty field"));
        assert!(ints(&[b"1\n2.5"])
            .unwrap_err()
            .starts_with("line 2: '2.5' is not an integer"));
        assert!(ints(&[b"1e3"]).unwrap_err().contains("not an integer"));
        assert_eq!(
            ints(&[b"99999999999999999999999999999999999999999999"]),
            Ok(vec![i128::MAX])
        );
    }
}
