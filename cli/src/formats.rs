//! Reading and writing the three file formats: raw little-endian, text, NumPy `.npy`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use npyz::{DType, Endianness, TypeChar, TypeStr, WriterBuilder};

use crate::elem::{show, Elem};
use crate::CliError;

/// NumPy's magic bytes, at the start of every `.npy` file.
pub const NPY_MAGIC: &[u8] = b"\x93NUMPY";

/// A file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Little-endian values, no header.
    Raw,
    /// One number per line (nan, inf, -inf in any case; blank lines only at the end).
    Text,
    /// NumPy `.npy`, a 1-D array of float64 or float32 in either byte order.
    Npy,
}

/// An element type, as named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Dtype {
    /// 64-bit IEEE binary64.
    F64,
    /// 32-bit IEEE binary32.
    F32,
}

impl Dtype {
    /// `"f64"` or `"f32"`.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F64 => "f64",
            Dtype::F32 => "f32",
        }
    }
}

/// The bytes of `path`, or of standard input for `-`.
pub fn read_source(path: &Path) -> Result<Vec<u8>, CliError> {
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| CliError::data(format!("cannot read standard input: {e}")))?;
    } else {
        bytes = std::fs::read(path)
            .map_err(|e| CliError::data(format!("cannot read '{}': {e}", path.display())))?;
    }
    Ok(bytes)
}

/// The format asked for, or else npy for bytes that start with NumPy's magic and raw
/// for anything else.
pub fn detect(bytes: &[u8], asked: Option<Format>) -> Format {
    match asked {
        Some(f) => f,
        None if bytes.starts_with(NPY_MAGIC) => Format::Npy,
        None => Format::Raw,
    }
}

/// Raw little-endian values; a byte count that is not a whole number of values is an error.
pub fn parse_raw<T: Elem>(bytes: &[u8]) -> Result<Vec<T>, CliError> {
    if !bytes.len().is_multiple_of(T::BYTES) {
        return Err(CliError::data(format!(
            "{} bytes is not a whole number of {} values ({} bytes each; for a text file use --format text)",
            bytes.len(),
            T::NAME,
            T::BYTES
        )));
    }
    Ok(bytes.chunks_exact(T::BYTES).map(T::from_le).collect())
}

/// One number per line, parsed straight to `T` by `str::parse` (so f32 text is rounded
/// once, to f32). `nan`, `inf`, `-inf` are accepted in any case; surrounding spaces are
/// ignored; blank lines are allowed only at the end.
pub fn parse_text<T: Elem>(bytes: &[u8]) -> Result<Vec<T>, CliError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = 1 + bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count();
        CliError::data(format!("line {line}: not valid UTF-8 text"))
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut values = Vec::new();
    let mut first_blank: Option<usize> = None;
    for (i, line) in text.split('\n').enumerate() {
        let n = i + 1;
        let s = line.trim();
        if s.is_empty() {
            first_blank.get_or_insert(n);
            continue;
        }
        if let Some(b) = first_blank {
            return Err(CliError::data(format!(
                "line {b}: blank line before more numbers (blank lines are allowed only at the end)"
            )));
        }
        match s.parse::<T>() {
            Ok(x) => values.push(x),
            Err(_) => {
                let shown: String = s.chars().take(40).collect();
                let more = if shown.len() < s.len() { "..." } else { "" };
                return Err(CliError::data(format!(
                    "line {n}: '{shown}{more}' is not an {} number",
                    T::NAME
                )));
            }
        }
    }
    Ok(values)
}

/// What an `.npy` header says: element type, byte order, and where the data starts.
pub struct NpyInfo<'a> {
    /// The element type.
    pub dtype: Dtype,
    /// `true` for `>` (big-endian) data.
    pub big_endian: bool,
    /// The data bytes, exactly `len * BYTES` of them.
    pub data: &'a [u8],
    /// The parsed header.
    header: npyz::NpyHeader,
}

/// Reads and checks an `.npy` header: a 1-D array of `<f8`, `>f8`, `<f4` or `>f4` whose
/// data is exactly as long as the header says.
pub fn npy_info(bytes: &[u8]) -> Result<NpyInfo<'_>, CliError> {
    let mut rest = bytes;
    let header = npyz::NpyHeader::from_reader(&mut rest)
        .map_err(|e| CliError::data(format!("not a valid .npy file: {e}")))?;
    let file = npyz::NpyFile::with_header(header.clone(), rest);
    let dtype = file.dtype();
    let (dt, big_endian) = match &dtype {
        DType::Plain(ts) if ts.type_char() == TypeChar::Float => {
            let dt = match ts.size_field() {
                8 => Dtype::F64,
                4 => Dtype::F32,
                _ => return Err(unsupported(&dtype)),
            };
            (dt, ts.endianness() == Endianness::Big)
        }
        _ => return Err(unsupported(&dtype)),
    };
    let shape = file.shape();
    if shape.len() != 1 {
        let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
        return Err(CliError::data(format!(
            "the .npy array has shape ({}); only 1-D arrays are supported",
            dims.join(", ")
        )));
    }
    let bytes_per: u64 = if dt == Dtype::F64 { 8 } else { 4 };
    if shape[0].checked_mul(bytes_per) != Some(rest.len() as u64) {
        return Err(CliError::data(format!(
            "the .npy header says {} values ({} bytes) but the file has {} data bytes",
            shape[0],
            shape[0].saturating_mul(bytes_per),
            rest.len()
        )));
    }
    Ok(NpyInfo {
        dtype: dt,
        big_endian,
        data: rest,
        header,
    })
}

fn unsupported(dtype: &DType) -> CliError {
    CliError::data(format!(
        "the .npy dtype {} is not float64 or float32 ('<f8', '>f8', '<f4', '>f4')",
        dtype.descr()
    ))
}

/// The values of a checked `.npy` file whose element type is `T`.
pub fn parse_npy<T: Elem>(info: &NpyInfo<'_>) -> Result<Vec<T>, CliError> {
    npyz::NpyFile::with_header(info.header.clone(), info.data)
        .into_vec()
        .map_err(|e| CliError::data(format!("cannot read the .npy data: {e}")))
}

fn npy_typestr<T: Elem>(big_endian: bool) -> String {
    format!("{}f{}", if big_endian { '>' } else { '<' }, T::BYTES)
}

/// Raw little-endian bytes of `xs`.
pub fn render_raw<T: Elem>(xs: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(xs.len() * T::BYTES);
    for &x in xs {
        x.push_le(&mut out);
    }
    out
}

/// One value per line, as Rust's `{}` prints it (shortest round trip; `NaN`, `inf`,
/// `-inf`), each line ended by `\n`.
pub fn render_text<T: Elem>(xs: &[T]) -> Vec<u8> {
    let mut out = String::with_capacity(xs.len() * 20);
    for &x in xs {
        out.push_str(&show(x));
        out.push('\n');
    }
    out.into_bytes()
}

/// An `.npy` file (written by npyz) of the 1-D array `xs` in the given byte order.
pub fn render_npy<T: Elem>(xs: &[T], big_endian: bool) -> Result<Vec<u8>, CliError> {
    let typestr: TypeStr = npy_typestr::<T>(big_endian)
        .parse()
        .map_err(|e| CliError::data(format!("internal npy type error: {e}")))?;
    let mut out = Vec::new();
    let fail = |e: std::io::Error| CliError::data(format!("cannot encode the .npy output: {e}"));
    let mut w = npyz::WriteOptions::new()
        .dtype(DType::Plain(typestr))
        .shape(&[xs.len() as u64])
        .writer(&mut out)
        .begin_nd()
        .map_err(fail)?;
    w.extend(xs.iter().copied()).map_err(fail)?;
    w.finish().map_err(fail)?;
    Ok(out)
}

/// Writes `bytes` to standard output for `-`, or else to a temporary file in the same
/// directory as `path`, renamed over `path` once complete (so a failure never leaves a
/// half-written file).
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    if path.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(bytes)
            .and_then(|()| out.flush())
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::BrokenPipe => CliError::data(""),
                _ => CliError::data(format!("cannot write standard output: {e}")),
            });
    }
    let name = path
        .file_name()
        .ok_or_else(|| CliError::data(format!("'{}' is not a file name", path.display())))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".reprosum-tmp-{}", std::process::id()));
    let tmp = dir.join(tmp_name);
    let fail = |e: std::io::Error| CliError::data(format!("cannot write '{}': {e}", path.display()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(fail)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&tmp, path));
    drop(file);
    written.map_err(|e| {
        // Only the temporary file this call created is removed.
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })
}
