//! NumPy `.npy` headers: a small, linear-time reader for exactly what the command
//! supports, and the writer NumPy's `np.save` would be for the same 1-D array.
//!
//! A `.npy` file is the magic `\x93NUMPY`, a version byte pair, the header's length
//! (2 bytes little-endian in version 1.0, 4 bytes in 2.0 and 3.0), the header, then the
//! data. The header is a Python dictionary literal:
//! `{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }` padded with spaces and a
//! newline. What is read:
//!
//! * versions 1.0, 2.0 and 3.0; a header of at most [`MAX_HEADER_LEN`] bytes (NumPy's own
//!   reader refuses longer ones by default), its length checked before it is read;
//! * exactly the keys `descr`, `fortran_order` and `shape`, each once, in any order, with
//!   single- or double-quoted strings, a trailing comma or not, any Python whitespace;
//! * `descr` one of `'<f8'`, `'>f8'`, `'<f4'`, `'>f4'` (NumPy writes float64 and float32
//!   with an explicit byte order, never `=` or `|`; those and every other type are refused);
//! * `fortran_order` `True` or `False` (the same bytes for a 1-D array);
//! * `shape` a tuple of non-negative integers (Python 2's `3L` is read in versions 1.0 and
//!   2.0, as NumPy does); only 1-D shapes `(N,)` are accepted by [`parse_header`]: `()`
//!   (a 0-d scalar) and 2-D or more are refused.
//!
//! The grammar has no nesting: a bracket where a string, a boolean or an integer belongs
//! is an error at that byte, so reading a header costs time linear in its length.

use crate::escape::escape_bytes;
use crate::Dtype;

/// NumPy's magic bytes, at the start of every `.npy` file.
pub const MAGIC: &[u8] = b"\x93NUMPY";

/// The longest header read, in bytes (NumPy's `max_header_size` default).
pub const MAX_HEADER_LEN: usize = 10_000;

/// The alignment of the data start that NumPy pads headers to.
const ALIGN: usize = 64;

/// NumPy's spare room after the dictionary for the length to grow in place.
const GROWTH_AXIS_MAX_DIGITS: usize = 21;

/// Why bytes are not a supported `.npy` file: a one-line message for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpyError(pub String);

impl std::fmt::Display for NpyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NpyError {}

fn err<T>(msg: impl Into<String>) -> Result<T, NpyError> {
    Err(NpyError(msg.into()))
}

/// What a supported `.npy` header says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The format version, `(1, 0)`, `(2, 0)` or `(3, 0)`.
    pub version: (u8, u8),
    /// The element type.
    pub dtype: Dtype,
    /// `true` for big-endian (`>`) data.
    pub big_endian: bool,
    /// The header's `fortran_order` (no difference for a 1-D array).
    pub fortran_order: bool,
    /// The number of values (the shape's one dimension).
    pub len: u64,
    /// Where the data starts: the preamble's and the header's bytes.
    pub data_offset: usize,
}

impl Header {
    /// The data's length in bytes, `len * dtype.bytes()` (fits in a `u64`: checked when the
    /// header was read).
    pub fn data_len(&self) -> u64 {
        self.len * self.dtype.bytes() as u64
    }

    /// Checks that `data_bytes` bytes follow the header: exactly [`Header::data_len`].
    ///
    /// # Errors
    /// An [`NpyError`] naming both lengths.
    pub fn check_data_len(&self, data_bytes: u64) -> Result<(), NpyError> {
        if data_bytes == self.data_len() {
            return Ok(());
        }
        err(format!(
            "the .npy header says {} values ({} bytes) but the file has {} data bytes",
            self.len,
            self.data_len(),
            data_bytes
        ))
    }
}

/// What the first bytes of a `.npy` file say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preamble {
    /// The format version.
    pub version: (u8, u8),
    /// Where the header ends and the data starts: magic, version, length field and header.
    pub header_end: usize,
}

/// Reads the preamble: magic, version and header length. `bytes` needs only the first
/// 12 bytes of the file (10 for version 1.0).
///
/// Returns `Ok(None)` if `bytes` is too short to tell (and is a prefix of a valid preamble).
///
/// # Errors
/// No magic, an unsupported version, or a header longer than [`MAX_HEADER_LEN`].
pub fn preamble(bytes: &[u8]) -> Result<Option<Preamble>, NpyError> {
    let n = bytes.len().min(MAGIC.len());
    if bytes[..n] != MAGIC[..n] {
        return err("not a .npy file (it does not start with \\x93NUMPY)");
    }
    if bytes.len() < 8 {
        return Ok(None);
    }
    let version = (bytes[6], bytes[7]);
    let field = match version {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        (a, b) => {
            return err(format!(
                "unsupported .npy format version {a}.{b} (1.0, 2.0 and 3.0 are read)"
            ))
        }
    };
    if bytes.len() < 8 + field {
        return Ok(None);
    }
    let mut len = [0u8; 4];
    len[..field].copy_from_slice(&bytes[8..8 + field]);
    let hlen = u32::from_le_bytes(len) as u64;
    if hlen > MAX_HEADER_LEN as u64 {
        return err(format!(
            "the .npy header claims {hlen} bytes; at most {MAX_HEADER_LEN} are read (NumPy's limit too)"
        ));
    }
    Ok(Some(Preamble {
        version,
        header_end: 8 + field + hlen as usize,
    }))
}

/// Reads the header at the start of `bytes`, which must hold at least the whole header
/// (any data after it is ignored). Linear in the header's length, never more than
/// [`MAX_HEADER_LEN`] bytes looked at past the preamble, and nothing allocated from what
/// the header claims.
///
/// ```
/// use reprosum_cli::npy::{parse_header, write_header};
/// use reprosum_cli::Dtype;
/// let h = parse_header(&write_header(Dtype::F32, true, 3)).unwrap();
/// assert_eq!((h.dtype, h.big_endian, h.len, h.data_offset), (Dtype::F32, true, 3, 128));
/// assert!(parse_header(b"\x93NUMPY\x01\x00\x10\x00{'shape': [[[[[[[").is_err());
/// ```
///
/// # Errors
/// An [`NpyError`] saying what is wrong (and where, for a syntax error).
pub fn parse_header(bytes: &[u8]) -> Result<Header, NpyError> {
    let h = read_header(bytes, false)?;
    let Element::Float(dtype) = h.element else {
        unreachable!("only float descrs are read for values")
    };
    Ok(Header {
        version: h.version,
        dtype,
        big_endian: h.big_endian,
        fortran_order: h.fortran_order,
        len: h.len,
        data_offset: h.data_offset,
    })
}

/// An integer element type, for index files (segment offsets, keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntDtype {
    /// `int32` (`<i4`, `>i4`).
    I32,
    /// `int64` (`<i8`, `>i8`).
    I64,
    /// `uint32` (`<u4`, `>u4`).
    U32,
    /// `uint64` (`<u8`, `>u8`).
    U64,
}

impl IntDtype {
    /// Bytes per value: 4 or 8.
    pub fn bytes(self) -> usize {
        match self {
            IntDtype::I32 | IntDtype::U32 => 4,
            IntDtype::I64 | IntDtype::U64 => 8,
        }
    }

    /// NumPy's name: `int32`, `int64`, `uint32`, `uint64`.
    pub fn name(self) -> &'static str {
        match self {
            IntDtype::I32 => "int32",
            IntDtype::I64 => "int64",
            IntDtype::U32 => "uint32",
            IntDtype::U64 => "uint64",
        }
    }

    /// The value of one element's bytes (`bytes()` of them) in the given byte order, as an
    /// `i128` (every value of every type fits).
    pub fn value(self, b: &[u8], big_endian: bool) -> i128 {
        let mut le = [0u8; 8];
        let n = self.bytes().min(b.len());
        le[..n].copy_from_slice(&b[..n]);
        if big_endian {
            le[..n].reverse();
        }
        let u = u64::from_le_bytes(le);
        match self {
            IntDtype::I32 => i128::from(u as u32 as i32),
            IntDtype::I64 => i128::from(u as i64),
            IntDtype::U32 | IntDtype::U64 => i128::from(u),
        }
    }
}

/// What a supported `.npy` header of integers says: an index file (segment offsets, keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexHeader {
    /// The element type.
    pub dtype: IntDtype,
    /// `true` for big-endian (`>`) data.
    pub big_endian: bool,
    /// The number of values.
    pub len: u64,
    /// Where the data starts.
    pub data_offset: usize,
}

/// Reads the header of a 1-D `.npy` array of integers (`int32`, `int64`, `uint32`,
/// `uint64`, either byte order), as [`parse_header`] reads one of floats.
///
/// ```
/// let mut b = b"\x93NUMPY\x01\x00\x3a\x00{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }".to_vec();
/// b.push(b'\n');
/// let h = reprosum_cli::npy::parse_index_header(&b).unwrap();
/// assert_eq!((h.dtype, h.len), (reprosum_cli::npy::IntDtype::I64, 4));
/// ```
///
/// # Errors
/// As [`parse_header`]; a float or other non-integer type is refused.
pub fn parse_index_header(bytes: &[u8]) -> Result<IndexHeader, NpyError> {
    let h = read_header(bytes, true)?;
    let Element::Int(dtype) = h.element else {
        unreachable!("only integer descrs are read for indices")
    };
    Ok(IndexHeader {
        dtype,
        big_endian: h.big_endian,
        len: h.len,
        data_offset: h.data_offset,
    })
}

/// An element type a `descr` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element {
    Float(Dtype),
    Int(IntDtype),
}

impl Element {
    fn bytes(self) -> usize {
        match self {
            Element::Float(d) => d.bytes(),
            Element::Int(d) => d.bytes(),
        }
    }
}

/// A header of either kind.
struct AnyHeader {
    version: (u8, u8),
    element: Element,
    big_endian: bool,
    fortran_order: bool,
    len: u64,
    data_offset: usize,
}

/// Reads a 1-D header whose element type is a float (`ints` false) or an integer (`ints`).
fn read_header(bytes: &[u8], ints: bool) -> Result<AnyHeader, NpyError> {
    let (total, version) = match preamble(bytes)? {
        Some(p) => (p.header_end, p.version),
        None => return err("not a valid .npy file: it ends inside the preamble"),
    };
    if bytes.len() < total {
        return err(format!(
            "not a valid .npy file: it ends inside its {}-byte header",
            total - if version.0 == 1 { 10 } else { 12 }
        ));
    }
    let start = if version.0 == 1 { 10 } else { 12 };
    let dict = parse_any_dict(&bytes[start..total], version.0 < 3, ints)?;
    let shape = dict.shape;
    if shape.ndim != 1 {
        return err(format!(
            "the .npy array has shape {}; only 1-D arrays are supported",
            shape.text()
        ));
    }
    let len = shape.first;
    if len.checked_mul(dict.element.bytes() as u64).is_none() {
        return err(format!(
            "the .npy header says {len} values, more than any file holds"
        ));
    }
    Ok(AnyHeader {
        version,
        element: dict.element,
        big_endian: dict.big_endian,
        fortran_order: dict.fortran_order,
        len,
        data_offset: total,
    })
}

/// A header's shape, as far as the command needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The number of dimensions.
    pub ndim: usize,
    /// The first dimension (0 for a 0-d shape).
    pub first: u64,
    /// The second dimension, if any (for the message).
    pub second: Option<u64>,
}

impl Shape {
    /// The shape as Python prints it, `()`, `(3,)`, `(2, 2)`, `(2, 2, ...)`.
    pub fn text(&self) -> String {
        match (self.ndim, self.second) {
            (0, _) => "()".into(),
            (1, _) => format!("({},)", self.first),
            (2, Some(s)) => format!("({}, {s})", self.first),
            (_, Some(s)) => format!("({}, {s}, ...)", self.first),
            _ => "(...)".into(),
        }
    }
}

/// The parsed dictionary of a header whose type is supported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dict {
    /// The element type.
    pub dtype: Dtype,
    /// `true` for `>`.
    pub big_endian: bool,
    /// `fortran_order`.
    pub fortran_order: bool,
    /// `shape`.
    pub shape: Shape,
}

/// Reads a header's dictionary text (the bytes after the length field, padding included).
/// `py2_longs` allows Python 2's `3L` integers (versions 1.0 and 2.0).
///
/// # Errors
/// A syntax error (with the byte offset and the bytes there, escaped), a missing, repeated
/// or unknown key, or an unsupported `descr`.
pub fn parse_dict(text: &[u8], py2_longs: bool) -> Result<Dict, NpyError> {
    let d = parse_any_dict(text, py2_longs, false)?;
    let Element::Float(dtype) = d.element else {
        unreachable!("only float descrs are read for values")
    };
    Ok(Dict {
        dtype,
        big_endian: d.big_endian,
        fortran_order: d.fortran_order,
        shape: d.shape,
    })
}

/// A dictionary of either kind.
struct AnyDict {
    element: Element,
    big_endian: bool,
    fortran_order: bool,
    shape: Shape,
}

fn parse_any_dict(text: &[u8], py2_longs: bool, ints: bool) -> Result<AnyDict, NpyError> {
    let mut p = Parser {
        s: text,
        i: 0,
        py2_longs,
        ints,
    };
    let mut descr: Option<(Element, bool)> = None;
    let mut fortran: Option<bool> = None;
    let mut shape: Option<Shape> = None;
    p.ws();
    p.expect(b'{', "'{'")?;
    loop {
        p.ws();
        if p.eat(b'}') {
            break;
        }
        let key_at = p.i;
        let key = p.string()?;
        p.ws();
        p.expect(b':', "':'")?;
        p.ws();
        let dup = match key {
            b"descr" => descr.replace(p.descr()?).is_some(),
            b"fortran_order" => fortran.replace(p.boolean()?).is_some(),
            b"shape" => shape.replace(p.shape()?).is_some(),
            other => {
                return err(format!(
                    "the .npy header has an unexpected key '{}' (only 'descr', 'fortran_order', 'shape')",
                    escape_bytes(other, 40)
                ))
            }
        };
        if dup {
            return err(format!(
                "the .npy header repeats the key '{}' (at byte {key_at})",
                escape_bytes(key, 40)
            ));
        }
        p.ws();
        if p.eat(b',') {
            continue;
        }
        p.ws();
        p.expect(b'}', "',' or '}'")?;
        break;
    }
    p.ws();
    if p.i != p.s.len() {
        return p.fail("only spaces and a newline after the dictionary");
    }
    let missing = |k: &str| NpyError(format!("the .npy header lacks the key '{k}'"));
    let (element, big_endian) = descr.ok_or_else(|| missing("descr"))?;
    Ok(AnyDict {
        element,
        big_endian,
        fortran_order: fortran.ok_or_else(|| missing("fortran_order"))?,
        shape: shape.ok_or_else(|| missing("shape"))?,
    })
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    py2_longs: bool,
    /// Integer element types are read (an index file), not floats.
    ints: bool,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn fail<T>(&self, wanted: &str) -> Result<T, NpyError> {
        let here = &self.s[self.i..self.s.len().min(self.i + 20)];
        let found = if here.is_empty() {
            "the end of the header".to_string()
        } else {
            format!("'{}'", escape_bytes(here, 20))
        };
        err(format!(
            "the .npy header is not a supported dictionary: expected {wanted} at byte {} of the header, found {found}",
            self.i
        ))
    }

    fn expect(&mut self, b: u8, what: &str) -> Result<(), NpyError> {
        if self.eat(b) {
            Ok(())
        } else {
            self.fail(what)
        }
    }

    /// A quoted string without escapes or newlines.
    fn string(&mut self) -> Result<&'a [u8], NpyError> {
        let q = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => return self.fail("a quoted string"),
        };
        let start = self.i + 1;
        let mut j = start;
        while j < self.s.len() {
            match self.s[j] {
                c if c == q => {
                    self.i = j + 1;
                    return Ok(&self.s[start..j]);
                }
                b'\\' | b'\n' | b'\r' => break,
                _ => j += 1,
            }
        }
        self.i = j;
        self.fail("the end of a plain quoted string")
    }

    fn descr(&mut self) -> Result<(Element, bool), NpyError> {
        let (supported, either) = if self.ints {
            (
                "int32, int64, uint32 and uint64 ('<i4', '<i8', '<u4', '<u8', or '>' for big-endian)",
                "int32, int64, uint32 or uint64 ('<i4', '<i8', '<u4', '<u8', or '>' for big-endian)",
            )
        } else {
            (
                "float64 and float32 ('<f8', '>f8', '<f4', '>f4')",
                "float64 or float32 ('<f8', '>f8', '<f4', '>f4')",
            )
        };
        if self.peek() == Some(b'[') {
            return err(format!(
                "the .npy dtype is a structured type; only {supported} are supported"
            ));
        }
        let s = self.string()?;
        let (order, ty) = match s {
            [o @ (b'<' | b'>'), ty @ ..] => (*o, ty),
            _ => (b'=', s),
        };
        let element = match (self.ints, ty) {
            (false, b"f8") => Some(Element::Float(Dtype::F64)),
            (false, b"f4") => Some(Element::Float(Dtype::F32)),
            (true, b"i4") => Some(Element::Int(IntDtype::I32)),
            (true, b"i8") => Some(Element::Int(IntDtype::I64)),
            (true, b"u4") => Some(Element::Int(IntDtype::U32)),
            (true, b"u8") => Some(Element::Int(IntDtype::U64)),
            _ => None,
        };
        match (element, order) {
            (Some(e), b'<' | b'>') => Ok((e, order == b'>')),
            _ => err(format!(
                "the .npy dtype '{}' is not {either}",
                escape_bytes(s, 40)
            )),
        }
    }

    fn boolean(&mut self) -> Result<bool, NpyError> {
        let rest = &self.s[self.i..];
        for (word, v) in [(&b"True"[..], true), (&b"False"[..], false)] {
            if rest.starts_with(word)
                && !rest
                    .get(word.len())
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
            {
                self.i += word.len();
                return Ok(v);
            }
        }
        self.fail("True or False")
    }

    fn int(&mut self) -> Result<u64, NpyError> {
        let start = self.i;
        let mut v: u64 = 0;
        while let Some(d @ b'0'..=b'9') = self.peek() {
            v = match v.checked_mul(10).and_then(|v| v.checked_add(u64::from(d - b'0'))) {
                Some(v) => v,
                None => {
                    self.i = start;
                    return self.fail("a dimension below 2^64");
                }
            };
            self.i += 1;
        }
        if self.i == start {
            return self.fail("a non-negative integer");
        }
        if self.py2_longs {
            let _ = self.eat(b'L') || self.eat(b'l');
        }
        Ok(v)
    }

    fn shape(&mut self) -> Result<Shape, NpyError> {
        self.expect(b'(', "'(' (a tuple)")?;
        let mut shape = Shape {
            ndim: 0,
            first: 0,
            second: None,
        };
        let mut trailing_comma = false;
        loop {
            self.ws();
            if self.eat(b')') {
                break;
            }
            let d = self.int()?;
            match shape.ndim {
                0 => shape.first = d,
                1 => shape.second = Some(d),
                _ => {}
            }
            shape.ndim += 1;
            self.ws();
            trailing_comma = self.eat(b',');
            if !trailing_comma {
                self.ws();
                self.expect(b')', "',' or ')'")?;
                break;
            }
        }
        if shape.ndim == 1 && !trailing_comma {
            // `(3)` is the integer 3 in Python, not a tuple.
            return err("the .npy shape is not a tuple: a 1-D shape is written (N,)");
        }
        Ok(shape)
    }
}

/// The header NumPy's `np.save` writes for a 1-D C-order array of `len` values of `dtype`
/// in the given byte order: version 1.0, the dictionary, NumPy's 21 spare spaces, padded
/// with spaces and a newline to a multiple of 64 bytes.
///
/// ```
/// let h = reprosum_cli::npy::write_header(reprosum_cli::Dtype::F64, false, 3);
/// assert_eq!(h.len(), 128);
/// assert!(h.starts_with(b"\x93NUMPY\x01\x00\x76\x00{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"));
/// assert!(h.ends_with(b" \n"));
/// ```
pub fn write_header(dtype: Dtype, big_endian: bool, len: u64) -> Vec<u8> {
    let descr = format!("{}f{}", if big_endian { '>' } else { '<' }, dtype.bytes());
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({len},), }}");
    let digits = len.to_string().len();
    dict.extend(std::iter::repeat_n(
        ' ',
        GROWTH_AXIS_MAX_DIGITS.saturating_sub(digits),
    ));
    let hlen = dict.len() + 1;
    // Version 1.0 unless the length needs more than 16 bits (never, for a 1-D array).
    let (version, field) = if hlen + ALIGN < 1 << 16 {
        (1u8, 2)
    } else {
        (2u8, 4)
    };
    let pad = ALIGN - (MAGIC.len() + 2 + field + hlen) % ALIGN;
    let mut out = Vec::with_capacity(MAGIC.len() + 2 + field + hlen + pad);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    let total = (hlen + pad) as u32;
    out.extend_from_slice(&total.to_le_bytes()[..field]);
    out.extend_from_slice(dict.as_bytes());
    out.extend(std::iter::repeat_n(b' ', pad));
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v1(dict: &str) -> Vec<u8> {
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        out.extend_from_slice(dict.as_bytes());
        out
    }

    fn v2(dict: &str, major: u8) -> Vec<u8> {
        let mut out = vec![0x93, b'N', b'U', b'M', b'P', b'Y', major, 0];
        out.extend_from_slice(&(dict.len() as u32).to_le_bytes());
        out.extend_from_slice(dict.as_bytes());
        out
    }

    fn msg(bytes: &[u8]) -> String {
        parse_header(bytes).unwrap_err().0
    }

    #[test]
    fn reads_what_numpy_writes() {
        for (dtype, big, len) in [
            (Dtype::F64, false, 0u64),
            (Dtype::F32, true, 12345),
            (Dtype::F64, true, u64::MAX / 8),
        ] {
            let h = write_header(dtype, big, len);
            assert_eq!(h.len() % ALIGN, 0);
            let got = parse_header(&h).unwrap();
            assert_eq!(
                got,
                Header {
                    version: (1, 0),
                    dtype,
                    big_endian: big,
                    fortran_order: false,
                    len,
                    data_offset: h.len()
                }
            );
        }
    }

    #[test]
    fn python_spellings() {
        let h = parse_header(&v1("{\"shape\":(7,),'fortran_order':True,\t'descr':'>f4'}\n")).unwrap();
        assert_eq!(
            (h.dtype, h.big_endian, h.fortran_order, h.len),
            (Dtype::F32, true, true, 7)
        );
        let h = parse_header(&v1(
            "{'descr': '<f8', 'fortran_order': False, 'shape': ( 9 , ) , }   \n",
        ))
        .unwrap();
        assert_eq!(h.len, 9);
        // Python 2's long integers, in versions 1.0 and 2.0 only.
        assert_eq!(
            parse_header(&v1("{'descr': '<f8', 'fortran_order': False, 'shape': (3L,)}"))
                .unwrap()
                .len,
            3
        );
        assert_eq!(
            parse_header(&v2("{'descr': '<f8', 'fortran_order': False, 'shape': (3L,)}", 2))
                .unwrap()
                .len,
            3
        );
        assert!(msg(&v2("{'descr': '<f8', 'fortran_order': False, 'shape': (3L,)}", 3)).contains("expected"));
        let d = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
        let h = parse_header(&v2(d, 3)).unwrap();
        assert_eq!((h.version, h.data_offset), ((3, 0), 12 + d.len()));
    }

    #[test]
    fn refusals() {
        let base = |descr: &str, shape: &str| {
            v1(&format!(
                "{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}"
            ))
        };
        assert!(msg(&base("'<i4'", "(2,)")).contains("'<i4' is not float64"));
        assert!(msg(&base("'=f8'", "(2,)")).contains("not float64"));
        assert!(msg(&base("'|f8'", "(2,)")).contains("not float64"));
        assert!(msg(&base("[('a', '<f8')]", "(2,)")).contains("structured"));
        assert!(msg(&base("'<f8'", "()")).contains("shape (); only 1-D"));
        assert!(msg(&base("'<f8'", "(2, 3)")).contains("shape (2, 3); only 1-D"));
        assert!(msg(&base("'<f8'", "(2, 3, 4)")).contains("(2, 3, ...)"));
        assert!(msg(&base("'<f8'", "(2)")).contains("not a tuple"));
        assert!(msg(&base("'<f8'", "[2]")).contains("'(' (a tuple)"));
        assert!(msg(&base("'<f8'", "(-2,)")).contains("non-negative"));
        assert!(msg(&base("'<f8'", "(99999999999999999999,)")).contains("2^64"));
        assert!(msg(&base("'<f8'", "(2305843009213693952,)")).contains("more than any file"));
        assert!(msg(&v1("{'descr': '<f8', 'shape': (2,)}")).contains("lacks the key 'fortran_order'"));
        assert!(msg(&v1(
            "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2,)}"
        ))
        .contains("repeats"));
        assert!(msg(&v1(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}"
        ))
        .contains("unexpected key 'x'"));
        assert!(
            msg(&v1("{'descr': '<f8', 'fortran_order': Falsey, 'shape': (2,)}")).contains("True or False")
        );
        assert!(
            msg(&v1("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)} x")).contains("only spaces")
        );
        assert!(
            msg(&v1("{'descr': '<f8\\n', 'fortran_order': False, 'shape': (2,)}")).contains("plain quoted")
        );
        assert!(msg(b"\x93NUMPY\x04\x00\x00\x00").contains("version 4.0"));
        assert!(msg(b"\x93NUMPY\x01").contains("ends inside the preamble"));
        assert!(msg(b"\x93NUMPY\x01\x00\x20\x00{'descr'").contains("ends inside its 32-byte header"));
        assert!(msg(b"\x93NUMPX\x01\x00").contains("does not start"));
        // The length is checked before anything is read.
        assert!(msg(b"\x93NUMPY\x02\x00\xf0\xff\xff\xff{").contains("claims 4294967280 bytes"));
        assert!(msg(&v2(&" ".repeat(MAX_HEADER_LEN + 1), 2)).contains("at most 10000"));
    }

    #[test]
    fn error_context_is_escaped() {
        let m = msg(&v1(
            "{'descr': '<f8', 'fortran_order': \u{1b}[31m, 'shape': (2,)}",
        ));
        assert!(m.contains("\\u{1b}[31m"), "{m}");
        assert!(!m.chars().any(char::is_control), "{m}");
    }

    #[test]
    fn nested_brackets_fail_at_once() {
        let mut dict = String::from("{'descr': '<f8', 'fortran_order': False, 'shape': ");
        dict.push_str(&"[".repeat(5000));
        let t = std::time::Instant::now();
        assert!(msg(&v1(&dict)).contains("'(' (a tuple)"));
        let mut dict = String::from("{'descr': ");
        dict.push_str(&"[".repeat(5000));
        assert!(msg(&v1(&dict)).contains("structured"));
        assert!(t.elapsed().as_secs() < 1);
    }

    #[test]
    fn header_length_is_what_numpy_pads_to() {
        // (10 + hlen) % 64 == 0 exactly, with 64 spaces where the dictionary ends at a
        // boundary (NumPy's formula).
        for len in [0u64, 1, 9, 10, 99, 1 << 40, u64::MAX] {
            let h = write_header(Dtype::F64, false, len);
            assert_eq!(h.len() % 64, 0, "{len}");
            let hlen = u16::from_le_bytes([h[8], h[9]]) as usize;
            assert_eq!(10 + hlen, h.len());
        }
    }
}
