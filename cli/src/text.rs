//! Numbers in text: a streaming, linear-time reader.
//!
//! The syntax (what `numpy.savetxt`, CSV exports and hand-edited files contain):
//!
//! * numbers separated by any mix of commas, spaces, tabs and newlines (`\n` or `\r\n`);
//! * `#` starts a comment to the end of the line, also after numbers;
//! * a UTF-8 byte order mark at the start is skipped;
//! * each number is parsed straight to the element type by `str::parse` (so f32 text is
//!   rounded once, to f32): decimal or scientific (`1`, `-2.5`, `.5`, `1e-7`, `1E+16`), and
//!   `nan`, `inf`, `infinity` with an optional sign, in any case;
//! * an empty field is an error: a comma with no number between it and the previous comma
//!   or the start of its line, or between it and the end of its line (or a comment). A
//!   CSV file with missing values is refused rather than read as if they were not there;
//! * the text must be UTF-8 without control characters other than tab, CR and LF: any other
//!   byte is reported as not text (a binary file read by mistake);
//! * one number is at most [`MAX_TOKEN`] bytes long.
//!
//! Errors name the line and column (1-based; columns count characters) and quote the
//! offending token escaped and cut to [`QUOTE_MAX`] characters.
//! The reader holds at most one partial number between two [`TextParser::feed`] calls, so
//! splitting the input anywhere gives the same values or the same error.

use std::marker::PhantomData;

use crate::escape::{escape_bytes, QUOTE_MAX};

/// The longest number read, in bytes (the exact expansion of the smallest f64 subnormal,
/// `0.000...4940656458412465441765687928682213723651`, is 1076).
pub const MAX_TOKEN: usize = 4096;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What is wrong with a text input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextErrorKind {
    /// A byte that is not text: invalid UTF-8 or a control character (shown escaped).
    NotText(String),
    /// A token that is not a number of the element type (escaped, cut).
    BadNumber {
        /// The token, escaped and cut.
        token: String,
        /// `"f64"` or `"f32"`.
        type_name: &'static str,
    },
    /// A token longer than [`MAX_TOKEN`] bytes (its start, escaped and cut).
    TooLong(String),
    /// A comma at the start of a line or right after another comma.
    EmptyFieldBefore,
    /// A comma at the end of a line (or before a comment or the end of the input).
    EmptyFieldAfter,
}

/// An error in a text input, with its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextError {
    /// The line, from 1.
    pub line: u64,
    /// The column, from 1, in characters.
    pub column: u64,
    /// What is wrong.
    pub kind: TextErrorKind,
}

impl TextError {
    /// Whether the input looks binary rather than like text with a mistake in it.
    pub fn is_not_text(&self) -> bool {
        matches!(self.kind, TextErrorKind::NotText(_))
    }
}

impl std::fmt::Display for TextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}, column {}: ", self.line, self.column)?;
        match &self.kind {
            TextErrorKind::NotText(what) => write!(f, "{what} is not text"),
            TextErrorKind::BadNumber { token, type_name } => {
                write!(f, "'{token}' is not an {type_name} number")
            }
            TextErrorKind::TooLong(start) => {
                write!(f, "a number longer than {MAX_TOKEN} bytes ('{start}')")
            }
            TextErrorKind::EmptyFieldBefore => f.write_str("empty field: a comma with no number before it"),
            TextErrorKind::EmptyFieldAfter => {
                f.write_str("empty field: a comma with no number after it on its line")
            }
        }
    }
}

impl std::error::Error for TextError {}

/// Where the current line stands, for the empty-field rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    /// Nothing but spaces since the start of the line.
    Start,
    /// A number was the last thing on the line.
    AfterNumber,
    /// A comma (at this line and column) was the last thing on the line.
    AfterComma(u64, u64),
}

/// A push parser: [`feed`](TextParser::feed) it the input in pieces of any size, then
/// [`finish`](TextParser::finish) it. Values come out in order; memory is bounded by
/// [`MAX_TOKEN`] whatever the input.
///
/// ```
/// use reprosum_cli::text::TextParser;
/// let mut p = TextParser::<f64>::new();
/// let mut out = Vec::new();
/// p.feed(b"# x\n1.5, 2", &mut out).unwrap();
/// p.feed(b"5\t-inf\r\n", &mut out).unwrap();
/// p.finish(&mut out).unwrap();
/// assert_eq!(out, [1.5, 25.0, f64::NEG_INFINITY]);
/// ```
#[derive(Clone, Debug)]
pub struct TextParser<T> {
    line: u64,
    column: u64,
    at_start: bool,
    in_comment: bool,
    field: Field,
    /// A number that has started but not ended (bytes of it so far).
    token: Vec<u8>,
    token_open: bool,
    token_line: u64,
    token_column: u64,
    /// The bytes of a UTF-8 character cut by the end of the last piece.
    carry: [u8; 4],
    carry_len: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T: crate::Elem> Default for TextParser<T> {
    fn default() -> Self {
        Self::new()
    }
}

fn token_byte(b: u8) -> bool {
    !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b',' | b'#') && b >= 0x20 && b != 0x7F
}

/// The characters (not bytes) in `s`, which is whole UTF-8.
fn chars(s: &[u8]) -> u64 {
    s.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64
}

impl<T: crate::Elem> TextParser<T> {
    /// A parser at the start of an input.
    pub fn new() -> Self {
        TextParser {
            line: 1,
            column: 1,
            at_start: true,
            in_comment: false,
            field: Field::Start,
            token: Vec::new(),
            token_open: false,
            token_line: 0,
            token_column: 0,
            carry: [0; 4],
            carry_len: 0,
            _t: PhantomData,
        }
    }

    /// The line the parser is on (from 1).
    pub fn line(&self) -> u64 {
        self.line
    }

    fn error(&self, line: u64, column: u64, kind: TextErrorKind) -> TextError {
        TextError { line, column, kind }
    }

    fn not_text(&self, what: String) -> TextError {
        self.error(self.line, self.column, TextErrorKind::NotText(what))
    }

    /// Parses the next piece of the input, appending its complete numbers to `out`. A number
    /// cut by the end of `piece` is kept and completed by the next call.
    ///
    /// # Errors
    /// The first [`TextError`] in the input; the parser must not be used after one.
    pub fn feed(&mut self, piece: &[u8], out: &mut Vec<T>) -> Result<(), TextError> {
        let mut rest = piece;
        // First complete a character cut by the last piece.
        while self.carry_len > 0 && !rest.is_empty() {
            self.carry[self.carry_len] = rest[0];
            self.carry_len += 1;
            rest = &rest[1..];
            let bytes = self.carry;
            let c = &bytes[..self.carry_len];
            match std::str::from_utf8(c) {
                Ok(_) => {
                    self.carry_len = 0;
                    self.process(c, out)?;
                }
                Err(e) if e.error_len().is_some() => {
                    return Err(self.not_text(format!("byte 0x{:02X}", c[0])));
                }
                Err(_) => {}
            }
        }
        match std::str::from_utf8(rest) {
            Ok(_) => self.process(rest, out),
            Err(e) => {
                let good = e.valid_up_to();
                self.process(&rest[..good], out)?;
                match e.error_len() {
                    Some(_) => Err(self.not_text(format!("byte 0x{:02X}", rest[good]))),
                    None => {
                        // At most 3 bytes: the start of a character the next piece ends.
                        let tail = &rest[good..];
                        self.carry[..tail.len()].copy_from_slice(tail);
                        self.carry_len = tail.len();
                        Ok(())
                    }
                }
            }
        }
    }

    /// Ends the input: the last number, and the checks at the end.
    ///
    /// # Errors
    /// A [`TextError`], as for [`TextParser::feed`].
    pub fn finish(&mut self, out: &mut Vec<T>) -> Result<(), TextError> {
        if self.carry_len > 0 {
            return Err(self.not_text(format!("byte 0x{:02X}", self.carry[0])));
        }
        self.end_token(&[], out)?;
        self.end_line()
    }

    /// Parses whole UTF-8 bytes.
    fn process(&mut self, s: &[u8], out: &mut Vec<T>) -> Result<(), TextError> {
        let mut i = 0;
        if self.at_start && !s.is_empty() {
            self.at_start = false;
            if s.starts_with(BOM) {
                i = BOM.len();
            }
        }
        while i < s.len() {
            let b = s[i];
            if self.in_comment {
                match b {
                    b'\n' => {
                        self.in_comment = false;
                        self.newline();
                    }
                    b'\t' | b'\r' => self.column += 1,
                    _ if b < 0x20 || b == 0x7F => return Err(self.control(b)),
                    _ => self.column += u64::from(b & 0xC0 != 0x80),
                }
                i += 1;
                continue;
            }
            if token_byte(b) {
                let start = i;
                while i < s.len() && token_byte(s[i]) {
                    i += 1;
                }
                let run = &s[start..i];
                if !self.token_open {
                    self.token_open = true;
                    self.token_line = self.line;
                    self.token_column = self.column;
                    self.field = Field::AfterNumber;
                }
                self.column += chars(run);
                if i < s.len() {
                    // The number ends in this piece.
                    self.end_token(run, out)?;
                } else {
                    self.keep(run)?;
                }
                continue;
            }
            self.end_token(&[], out)?;
            match b {
                b'\n' => {
                    self.end_line()?;
                    self.newline();
                }
                b' ' | b'\t' | b'\r' => self.column += 1,
                b',' => {
                    self.field = match self.field {
                        Field::AfterNumber => Field::AfterComma(self.line, self.column),
                        _ => {
                            return Err(self.error(self.line, self.column, TextErrorKind::EmptyFieldBefore));
                        }
                    };
                    self.column += 1;
                }
                b'#' => {
                    self.end_line()?;
                    self.in_comment = true;
                    self.column += 1;
                }
                _ => return Err(self.control(b)),
            }
            i += 1;
        }
        Ok(())
    }

    fn control(&self, b: u8) -> TextError {
        self.not_text(format!("control character '{}'", escape_bytes(&[b], 1)))
    }

    fn newline(&mut self) {
        self.line += 1;
        self.column = 1;
        self.field = Field::Start;
    }

    /// The empty-field check at the end of a line's numbers.
    fn end_line(&mut self) -> Result<(), TextError> {
        if let Field::AfterComma(line, column) = self.field {
            return Err(self.error(line, column, TextErrorKind::EmptyFieldAfter));
        }
        Ok(())
    }

    /// Adds bytes to the number in progress.
    fn keep(&mut self, run: &[u8]) -> Result<(), TextError> {
        if self.token.len() + run.len() > MAX_TOKEN {
            self.token
                .extend_from_slice(&run[..run.len().min(QUOTE_MAX * 4 + 4)]);
            let start = escape_bytes(&self.token, QUOTE_MAX);
            return Err(self.error(self.token_line, self.token_column, TextErrorKind::TooLong(start)));
        }
        self.token.extend_from_slice(run);
        Ok(())
    }

    /// Ends the number in progress, whose last bytes are `run`, if one is open.
    fn end_token(&mut self, run: &[u8], out: &mut Vec<T>) -> Result<(), TextError> {
        if !self.token_open {
            return Ok(());
        }
        self.token_open = false;
        let tok: &[u8] = if self.token.is_empty() {
            run
        } else {
            self.keep(run)?;
            &self.token
        };
        if tok.len() > MAX_TOKEN {
            let start = escape_bytes(tok, QUOTE_MAX);
            return Err(self.error(self.token_line, self.token_column, TextErrorKind::TooLong(start)));
        }
        let parsed = std::str::from_utf8(tok).ok().and_then(|s| s.parse::<T>().ok());
        match parsed {
            Some(x) => {
                out.push(x);
                self.token.clear();
                Ok(())
            }
            None => Err(self.error(
                self.token_line,
                self.token_column,
                TextErrorKind::BadNumber {
                    token: escape_bytes(tok, QUOTE_MAX),
                    type_name: T::NAME,
                },
            )),
        }
    }
}

/// Parses a whole text input at once.
///
/// ```
/// let v = reprosum_cli::text::parse_text::<f32>(b"\xEF\xBB\xBF1,2 , 3 # three\n").unwrap();
/// assert_eq!(v, [1.0, 2.0, 3.0]);
/// let e = reprosum_cli::text::parse_text::<f64>(b"1,,2\n").unwrap_err();
/// assert_eq!(e.to_string(), "line 1, column 3: empty field: a comma with no number before it");
/// ```
///
/// # Errors
/// The first [`TextError`] in `bytes`.
pub fn parse_text<T: crate::Elem>(bytes: &[u8]) -> Result<Vec<T>, TextError> {
    let mut p = TextParser::new();
    let mut out = Vec::new();
    p.feed(bytes, &mut out)?;
    p.finish(&mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    fn err(s: &[u8]) -> String {
        parse_text::<f64>(s).unwrap_err().to_string()
    }

    #[test]
    fn separators_comments_and_specials() {
        let v =
            parse_text::<f64>(b"# header\n1, 2,3\t4  5\r\n\n6 # six\n  # only a comment\n7,\t8\n").unwrap();
        assert_eq!(v, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        let v = parse_text::<f64>(b"nan NaN -inf +inf INF infinity -Infinity 1e400 -0").unwrap();
        assert!(v[0].is_nan() && v[1].is_nan());
        assert_eq!(
            bits(&v[2..]),
            bits(&[
                f64::NEG_INFINITY,
                f64::INFINITY,
                f64::INFINITY,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::INFINITY,
                -0.0
            ])
        );
        assert_eq!(parse_text::<f64>(b"").unwrap(), []);
        assert_eq!(parse_text::<f64>(b"\xEF\xBB\xBF").unwrap(), []);
        assert_eq!(parse_text::<f64>(b"# just this").unwrap(), []);
        assert_eq!(parse_text::<f64>(b"1.5\n2.5\n").unwrap(), [1.5, 2.5]);
        assert_eq!(
            parse_text::<f64>(b"0.000000000000000000e+00\n1.000000000000000000e+00\n").unwrap(),
            [0.0, 1.0]
        );
    }

    #[test]
    fn f32_is_rounded_once() {
        let v = parse_text::<f32>(b"1.000000059604644775390625000000001").unwrap();
        assert_eq!(v[0].to_bits(), 0x3F80_0001);
    }

    #[test]
    fn errors_name_line_and_column() {
        assert_eq!(
            err(b"1\n2\nthree\n"),
            "line 3, column 1: 'three' is not an f64 number"
        );
        assert_eq!(err(b"1, 2x, 3"), "line 1, column 4: '2x' is not an f64 number");
        assert_eq!(
            err(b"1,,2"),
            "line 1, column 3: empty field: a comma with no number before it"
        );
        assert_eq!(
            err(b"\n ,2"),
            "line 2, column 2: empty field: a comma with no number before it"
        );
        assert_eq!(
            err(b"1,2,\n3"),
            "line 1, column 4: empty field: a comma with no number after it on its line"
        );
        assert_eq!(
            err(b"1, # c\n"),
            "line 1, column 2: empty field: a comma with no number after it on its line"
        );
        assert_eq!(
            err(b"1,"),
            "line 1, column 2: empty field: a comma with no number after it on its line"
        );
        assert_eq!(err(b"1\n\xff"), "line 2, column 1: byte 0xFF is not text");
        assert_eq!(
            err(b"1 \x00"),
            "line 1, column 3: control character '\\0' is not text"
        );
        assert_eq!(
            err(b"# \x1b\n"),
            "line 1, column 3: control character '\\u{1b}' is not text"
        );
        assert_eq!(err(b"\xc3"), "line 1, column 1: byte 0xC3 is not text");
        assert_eq!(
            err("\u{e9}\u{e9} x".as_bytes()),
            "line 1, column 1: '\u{e9}\u{e9}' is not an f64 number"
        );
        assert_eq!(
            err("1 \u{e9}\u{e9}x".as_bytes()),
            "line 1, column 3: '\u{e9}\u{e9}x' is not an f64 number"
        );
        let long = "9".repeat(MAX_TOKEN + 1);
        assert!(err(long.as_bytes()).starts_with("line 1, column 1: a number longer than 4096 bytes ('9999"));
        let quoted = err(format!("{}x", "1".repeat(100)).as_bytes());
        assert!(
            quoted.contains(&format!("'{}...'", "1".repeat(QUOTE_MAX))),
            "{quoted}"
        );
        assert!(parse_text::<f64>(b"\x01").unwrap_err().is_not_text());
        assert!(!parse_text::<f64>(b"x").unwrap_err().is_not_text());
    }

    #[test]
    fn the_longest_exact_expansion_is_read() {
        let tiny = format!(
            "0.{}{}",
            "0".repeat(323),
            "4940656458412465441765687928682213723651"
        );
        let mut s = tiny.clone();
        s.push_str(&"0".repeat(1076 - s.len()));
        assert_eq!(parse_text::<f64>(s.as_bytes()).unwrap()[0].to_bits(), 1);
    }

    /// Every split of an input into two or three pieces gives what the whole gives.
    #[test]
    fn splits_do_not_matter() {
        let inputs: [&[u8]; 7] = [
            b"\xEF\xBB\xBF1.25, -2e3\t# c\xc3\xa9\r\n4,5\n  6.5e-7 nan\n",
            "1 \u{e9}\u{20ac}\u{1F600} 2".as_bytes(),
            b"1,,2",
            b"1,2,\n",
            b"12345678901234567890.5 x",
            b"1 \xe2\x82",
            b"\xEF\xBB",
        ];
        for input in inputs {
            let whole = parse_text::<f64>(input);
            for i in 0..=input.len() {
                for j in i..=input.len() {
                    let mut p = TextParser::<f64>::new();
                    let mut out = Vec::new();
                    let got = p
                        .feed(&input[..i], &mut out)
                        .and_then(|()| p.feed(&input[i..j], &mut out))
                        .and_then(|()| p.feed(&input[j..], &mut out))
                        .and_then(|()| p.finish(&mut out))
                        .map(|()| out);
                    match (&whole, &got) {
                        (Ok(a), Ok(b)) => assert_eq!(bits(a), bits(b), "{input:?} at {i},{j}"),
                        (Err(a), Err(b)) => assert_eq!(a, b, "{input:?} at {i},{j}"),
                        _ => panic!("{input:?} at {i},{j}: {whole:?} vs {got:?}"),
                    }
                }
            }
        }
    }

    #[test]
    fn linear_time_on_long_lines() {
        let t = std::time::Instant::now();
        let many_commas = ",".repeat(1 << 20);
        assert!(err(many_commas.as_bytes()).contains("column 1"));
        let v = parse_text::<f64>("1 ".repeat(1 << 20).as_bytes()).unwrap();
        assert_eq!(v.len(), 1 << 20);
        let comment = format!("#{}\n5", "x".repeat(1 << 22));
        assert_eq!(parse_text::<f64>(comment.as_bytes()).unwrap(), [5.0]);
        assert!(t.elapsed().as_secs() < 5);
    }
}
