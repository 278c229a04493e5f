//! Reading the three input formats (NumPy `.npy`, text, raw) in bounded blocks.
//!
//! The input (a file or standard input) is read through one buffer of one block's bytes (8 MiB of f64, 1 MiB of text);
//! values come out in blocks of at most [`BLOCK`] values. Nothing is allocated from what a
//! header claims: a file's declared length is checked against its size before any data is
//! read, and standard input is checked as it streams.

use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::Path;

use reprosum_cli::escape;
use reprosum_cli::npy::{self, Header};
use reprosum_cli::text::TextParser;
use reprosum_cli::{Dtype, Elem};

use crate::CliError;

/// Values per block (1 Mi): 8 MiB of f64.
pub const BLOCK: usize = 1 << 20;
/// Bytes of text read at a time.
const TEXT_BYTES: usize = 1 << 20;

/// A file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Little-endian values, no header: read only when asked for.
    Raw,
    /// Numbers separated by commas, spaces, tabs or newlines; `#` comments.
    Text,
    /// NumPy `.npy`, a 1-D array of float64 or float32 in either byte order.
    Npy,
}

/// An open input: a file or standard input, with the bytes looked at to detect its format.
pub struct Input {
    reader: Box<dyn Read>,
    /// Bytes read ahead (for the format and the header) and not yet handed out.
    ahead: Vec<u8>,
    /// The input's name for messages, escaped: `'path'` or `standard input`.
    pub name: String,
    /// The file's size, for a regular file.
    pub size: Option<u64>,
}

impl Input {
    /// Opens `path`, or standard input for `-`.
    pub fn open(path: &Path) -> Result<Input, CliError> {
        if path.as_os_str() == "-" {
            return Ok(Input {
                reader: Box::new(std::io::stdin()),
                ahead: Vec::new(),
                name: "standard input".into(),
                size: None,
            });
        }
        let name = format!("'{}'", escape::path(path));
        let fail = |e: std::io::Error| CliError::data(format!("cannot read {name}: {e}"));
        let file = File::open(path).map_err(fail)?;
        let meta = file.metadata().map_err(fail)?;
        if meta.is_dir() {
            return Err(CliError::data(format!("cannot read {name}: it is a directory")));
        }
        let size = meta.is_file().then_some(meta.len());
        Ok(Input {
            reader: Box::new(file),
            ahead: Vec::new(),
            name,
            size,
        })
    }

    fn read_error(&self, e: std::io::Error) -> CliError {
        CliError::data(format!("cannot read {}: {e}", self.name))
    }

    /// Reads into `buf` until it is full or the input ends; returns the bytes read.
    pub fn fill(&mut self, buf: &mut [u8]) -> Result<usize, CliError> {
        let mut n = self.ahead.len().min(buf.len());
        buf[..n].copy_from_slice(&self.ahead[..n]);
        self.ahead.drain(..n);
        while n < buf.len() {
            match self.reader.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(self.read_error(e)),
            }
        }
        Ok(n)
    }

    /// The first `n` bytes not yet handed out (fewer if the input ends first).
    pub fn peek(&mut self, n: usize) -> Result<&[u8], CliError> {
        if self.ahead.len() < n {
            let have = self.ahead.len();
            let mut more = vec![0u8; n - have];
            let mut got = 0;
            while got < more.len() {
                match self.reader.read(&mut more[got..]) {
                    Ok(0) => break,
                    Ok(k) => got += k,
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(e) => return Err(self.read_error(e)),
                }
            }
            self.ahead.extend_from_slice(&more[..got]);
        }
        Ok(&self.ahead[..n.min(self.ahead.len())])
    }

    /// Drops the first `n` bytes (which [`Input::peek`] returned).
    pub fn skip(&mut self, n: usize) {
        self.ahead.drain(..n);
    }
}

/// The format asked for, or else npy for input that starts with NumPy's magic and text
/// for anything else.
pub fn detect(input: &mut Input, asked: Option<Format>) -> Result<Format, CliError> {
    if let Some(f) = asked {
        return Ok(f);
    }
    Ok(if input.peek(npy::MAGIC.len())? == npy::MAGIC {
        Format::Npy
    } else {
        Format::Text
    })
}

/// Reads and checks the `.npy` header at the start of `input`; for a file, checks the
/// declared length against the file's size before any data is read.
pub fn npy_header(input: &mut Input) -> Result<Header, CliError> {
    let header = read_npy_header(input, npy::parse_header)?;
    check_npy_size(input, header.data_offset, header.len, header.data_len())?;
    Ok(header)
}

/// The header of an index file's `.npy` array, checked as [`npy_header`] checks one of
/// values.
pub fn npy_index_header(input: &mut Input) -> Result<npy::IndexHeader, CliError> {
    let header = read_npy_header(input, npy::parse_index_header)?;
    // No overflow: the header reader checked it.
    let data = header.len * header.dtype.bytes() as u64;
    check_npy_size(input, header.data_offset, header.len, data)?;
    Ok(header)
}

/// Reads the header at the start of `input` with `parse`, and skips past it.
fn read_npy_header<H>(
    input: &mut Input,
    parse: impl Fn(&[u8]) -> Result<H, npy::NpyError>,
) -> Result<H, CliError>
where
    H: HasOffset,
{
    let bad = |name: &str, e: npy::NpyError| CliError::data(format!("{name}: {e}"));
    let pre = input.peek(12)?.to_vec();
    let total = match npy::preamble(&pre).map_err(|e| bad(&input.name, e))? {
        Some(p) => p.header_end,
        None => {
            let e = npy::parse_header(&pre).expect_err("a short preamble is an error");
            return Err(bad(&input.name, e));
        }
    };
    // At most 12 + MAX_HEADER_LEN bytes: `preamble` checked the length.
    let bytes = input.peek(total)?;
    let header = parse(bytes).map_err(|e| bad(&input.name, e))?;
    input.skip(header.data_offset());
    Ok(header)
}

/// For a file: that exactly `data` bytes (`len` values) follow the header.
fn check_npy_size(input: &Input, data_offset: usize, len: u64, data: u64) -> Result<(), CliError> {
    let Some(size) = input.size else {
        return Ok(());
    };
    let have = size.saturating_sub(data_offset as u64);
    if have == data {
        return Ok(());
    }
    Err(CliError::data(format!(
        "{}: the .npy header says {len} values ({data} bytes) but the file has {have} data bytes",
        input.name
    )))
}

/// A header that knows where its data starts.
pub trait HasOffset {
    /// The data's offset in the file.
    fn data_offset(&self) -> usize;
}

impl HasOffset for Header {
    fn data_offset(&self) -> usize {
        self.data_offset
    }
}

impl HasOffset for npy::IndexHeader {
    fn data_offset(&self) -> usize {
        self.data_offset
    }
}

/// A source of values in blocks.
pub trait Blocks<T> {
    /// Appends the next values (at most about [`BLOCK`]) to `out`; `false` once the input
    /// is done (then nothing was appended).
    fn next_block(&mut self, out: &mut Vec<T>) -> Result<bool, CliError>;
}

/// Fixed-size binary values: raw little-endian, or an `.npy` file's data.
pub struct Binary {
    input: Input,
    big_endian: bool,
    /// For npy: the values the header declares.
    expected: Option<u64>,
    seen: u64,
    buf: Vec<u8>,
    done: bool,
}

impl Binary {
    /// Raw little-endian values of `dtype`; a file's size is checked at once.
    pub fn raw(input: Input, dtype: Dtype) -> Result<Binary, CliError> {
        if let Some(size) = input.size {
            check_whole(size, dtype, &input.name)?;
        }
        Ok(Binary::new(input, false, None))
    }

    /// The data of an `.npy` input whose header was read.
    pub fn npy(input: Input, header: &Header) -> Binary {
        Binary::new(input, header.big_endian, Some(header.len))
    }

    fn new(input: Input, big_endian: bool, expected: Option<u64>) -> Binary {
        Binary {
            input,
            big_endian,
            expected,
            seen: 0,
            buf: Vec::new(),
            done: false,
        }
    }
}

fn check_whole(bytes: u64, dtype: Dtype, name: &str) -> Result<(), CliError> {
    if bytes.is_multiple_of(dtype.bytes() as u64) {
        return Ok(());
    }
    Err(CliError::data(format!(
        "{name}: {bytes} bytes is not a whole number of {} values ({} bytes each)",
        dtype.name(),
        dtype.bytes()
    )))
}

impl<T: Elem> Blocks<T> for Binary {
    fn next_block(&mut self, out: &mut Vec<T>) -> Result<bool, CliError> {
        if self.done {
            return Ok(false);
        }
        if self.buf.is_empty() {
            self.buf = vec![0u8; BLOCK * T::BYTES];
        }
        let n = self.input.fill(&mut self.buf)?;
        let whole = n - n % T::BYTES;
        let values = (whole / T::BYTES) as u64;
        if let Some(want) = self.expected {
            if self.seen + values > want {
                return Err(CliError::data(format!(
                    "{}: the .npy header says {want} values but the data goes on past them",
                    self.input.name
                )));
            }
        }
        if n < self.buf.len() {
            // The input ended.
            self.done = true;
            if n != whole {
                let dtype = if T::BYTES == 8 { Dtype::F64 } else { Dtype::F32 };
                let total = self.seen * T::BYTES as u64 + n as u64;
                return Err(match self.expected {
                    None => check_whole(total, dtype, &self.input.name).expect_err("not whole"),
                    Some(want) => short_npy(&self.input.name, want, total),
                });
            }
            if let Some(want) = self.expected {
                if self.seen + values != want {
                    let total = (self.seen + values) * T::BYTES as u64;
                    return Err(short_npy(&self.input.name, want, total));
                }
            }
        }
        self.seen += values;
        let bytes = &self.buf[..whole];
        if self.big_endian {
            out.extend(bytes.chunks_exact(T::BYTES).map(T::from_be));
        } else {
            out.extend(bytes.chunks_exact(T::BYTES).map(T::from_le));
        }
        Ok(whole > 0 || !self.done)
    }
}

fn short_npy(name: &str, want: u64, data_bytes: u64) -> CliError {
    CliError::data(format!(
        "{name}: the .npy header says {want} values but the data ends after {data_bytes} bytes"
    ))
}

/// Numbers in text.
pub struct Text<T> {
    input: Input,
    parser: TextParser<T>,
    /// Whether the format was detected (not asked for): then an error carries the hint to
    /// use `--format raw`, since the input may be raw binary.
    detected: bool,
    buf: Vec<u8>,
    done: bool,
}

impl<T: Elem> Text<T> {
    /// Text from `input`; `detected` when `--format` was not given.
    pub fn new(input: Input, detected: bool) -> Self {
        Text {
            input,
            parser: TextParser::new(),
            detected,
            buf: Vec::new(),
            done: false,
        }
    }

    fn error(&self, e: reprosum_cli::text::TextError) -> CliError {
        let name = &self.input.name;
        if !self.detected {
            CliError::data(format!("{name}: {e}"))
        } else if e.is_not_text() {
            CliError::data(format!(
                "{name} is neither .npy nor text ({e}); raw binary values need --format raw"
            ))
        } else {
            CliError::data(format!(
                "{name}: {e} (read as text; raw binary values need --format raw)"
            ))
        }
    }
}

impl<T: Elem> Blocks<T> for Text<T> {
    fn next_block(&mut self, out: &mut Vec<T>) -> Result<bool, CliError> {
        if self.done {
            return Ok(false);
        }
        if self.buf.is_empty() {
            self.buf = vec![0u8; TEXT_BYTES];
        }
        let start = out.len();
        while out.len() - start < BLOCK / 2 {
            let n = self.input.fill(&mut self.buf)?;
            let fed = self.parser.feed(&self.buf[..n], out);
            fed.map_err(|e| self.error(e))?;
            if n < self.buf.len() {
                self.done = true;
                let end = self.parser.finish(out);
                end.map_err(|e| self.error(e))?;
                break;
            }
        }
        Ok(out.len() > start || !self.done)
    }
}
