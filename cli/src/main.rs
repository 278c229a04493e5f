//! The `reprosum` command: reproducible sums and cumulative sums of files, and a demo.

mod demo;
mod formats;
mod index;
mod output;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use reprosum::{Device, DynAccumulator};
use reprosum_cli::elem::{hex_bits, show};
use reprosum_cli::{escape, npy, Dtype, Elem};

use formats::{Binary, Blocks, Format, Input, Text, BLOCK};
use output::Sink;

/// Exit status of a data error (bad file contents, unreadable file, failed write).
const EXIT_DATA: u8 = 1;
/// Exit status of a usage error (clap's own errors use it too).
const EXIT_USAGE: u8 = 2;

/// An error for the user: one line on stderr, after `reprosum: `, and an exit status.
#[derive(Debug)]
pub struct CliError {
    msg: String,
    code: u8,
}

impl CliError {
    /// A data error (exit status 1).
    pub fn data(msg: impl Into<String>) -> Self {
        CliError {
            msg: msg.into(),
            code: EXIT_DATA,
        }
    }

    /// A usage error (exit status 2).
    pub fn usage(msg: impl Into<String>) -> Self {
        CliError {
            msg: msg.into(),
            code: EXIT_USAGE,
        }
    }
}

impl From<reprosum::Error> for CliError {
    fn from(e: reprosum::Error) -> Self {
        match e {
            reprosum::Error::InvalidFold => CliError::usage(e.to_string()),
            _ => CliError::data(e.to_string()),
        }
    }
}

impl From<reprosum::DeviceError> for CliError {
    fn from(e: reprosum::DeviceError) -> Self {
        match e {
            reprosum::DeviceError::Core(c) => c.into(),
            // No such back end in this build, no driver, no device: the machine, not the data.
            other => CliError::data(other.to_string()),
        }
    }
}

const AFTER_HELP: &str = "\
Input formats: without --format, a file that starts with NumPy's magic (\\x93NUMPY) is read
as .npy, anything else as text; raw binary is read only with --format raw. Text is numbers
separated by any mix of commas, spaces, tabs and newlines; # starts a comment to the end of
the line; nan, inf, -inf, infinity in any case; an empty field (1,,2) is an error.

Output numbers are the shortest decimal that reads back to the same bits, laid out as
Python's repr(float): 10000.0, 0.1, 1e+16, 1e-05, -0.0, nan, inf, -inf (f32 values: the
shortest that reads back to the same f32). A sum prints `VALUE 0xBITS`, the bit pattern as
0x and 16 (f64) or 8 (f32) upper-case hex digits. The sum is bit-reproducible: the same bits
for any order of the values, any thread count, any block size and any device.

Index files (--segments, --keys): a 1-D .npy array of int32, int64, uint32 or uint64, or
text integers under the same rules as text values. With either option the values are read
into memory, one line per segment or key; sum --segments, sum --keys and cumsum --segments
run on any --device.

Exit status: 0 success; 1 data error (unreadable or malformed input, no usable device, a
failed write); 2 usage error (bad arguments, --dtype missing, --fold out of range). Every
error is one line on standard error, with input bytes shown escaped.";

const CUMSUM_HELP: &str = "\
Write the reproducible prefix sums of FILE to OUT, in FILE's format

npy in gives npy out with the same dtype and the same byte order as the input; text in gives
text out (one number per line); raw in gives raw (little-endian) out. The input streams
through in blocks of 1 Mi values (one running accumulator), so memory does not grow with the
input, on the CPU and with --device cuda or hip alike (each block runs on the device from the
accumulator of everything before it).

OUT is written to a temporary file beside it (beside the target of a symbolic link, whose
link stays a link) and renamed over it at the end: an error or an interrupt (SIGINT,
SIGTERM) removes the temporary file and leaves OUT as it was. `-o -` writes standard
output, as the values are computed.";

/// Reproducible (order- and thread-independent) floating-point sums of files.
#[derive(Parser)]
#[command(name = "reprosum", version, after_help = AFTER_HELP, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print the reproducible sum of the values in FILE: `VALUE 0xBITS`.
    #[command(after_help = AFTER_HELP)]
    Sum(SumArgs),
    /// Write the reproducible prefix sums of FILE to OUT, in FILE's format.
    #[command(long_about = CUMSUM_HELP, after_help = AFTER_HELP)]
    Cumsum(CumsumArgs),
    /// Show, on generated data, that a naive sum's bits change with the order and the
    /// thread count while reprosum's do not.
    Demo(DemoArgs),
}

/// Where the values come from and how to read them.
#[derive(Args)]
struct InputArgs {
    /// The input file, or - for standard input.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Element type; required for text and raw input, optional for npy (whose header
    /// states it; a different one is an error).
    #[arg(long, value_enum)]
    dtype: Option<Dtype>,
    /// The fold K: 2..=52 for f64, 2..=21 for f32. More folds, more accuracy.
    #[arg(long, value_name = "K", default_value_t = reprosum::DEFAULT_FOLD)]
    fold: usize,
    /// The input format. Default: npy if FILE starts with NumPy's magic (\x93NUMPY),
    /// else text. Raw binary is read only when asked for.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Where to compute: cpu (all threads), cuda[:N] or hip[:N]. The bits are the same on
    /// every device.
    #[arg(long, value_name = "DEVICE", default_value = "cpu", value_parser = parse_device)]
    device: Device,
}

fn parse_device(s: &str) -> Result<Device, String> {
    s.parse()
}

#[derive(Args)]
struct SumArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Print only the bit pattern (0x and 16 or 8 upper-case hex digits).
    #[arg(long)]
    bits: bool,
    #[command(flatten)]
    segments: SegmentArgs,
    /// Sum the values of each key instead: KEYS holds one integer key per value (an index
    /// file), and one line is printed per key, from key 0 to NKEYS - 1 (a key no value has
    /// sums to 0.0). The keys may come in any order: the bits are the same.
    #[arg(long, value_name = "KEYS", conflicts_with = "segments")]
    keys: Option<PathBuf>,
    /// The number of keys for --keys (every key must be below it); default: the largest
    /// key + 1.
    #[arg(long, value_name = "NKEYS", requires = "keys")]
    nkeys: Option<u64>,
}

#[derive(Args)]
struct SegmentArgs {
    /// Work on each segment of the values alone: OFFSETS (an index file) holds the
    /// segments' NSEG + 1 boundaries, from 0, never decreasing, to the number of values;
    /// segment i is values[OFFSETS[i]..OFFSETS[i + 1]] (an empty one sums to 0.0).
    #[arg(long, value_name = "OFFSETS")]
    segments: Option<PathBuf>,
}

#[derive(Args)]
struct CumsumArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The output file, or - for standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: PathBuf,
    #[command(flatten)]
    segments: SegmentArgs,
}

#[derive(Args)]
struct DemoArgs {
    /// How many values to generate.
    #[arg(long, value_name = "N", default_value_t = 2_000_000,
          value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    n: u64,
}

fn check_fold(dtype: Dtype, fold: usize) -> Result<(), CliError> {
    let max = match dtype {
        Dtype::F64 => <f64 as Elem>::MAX_FOLD,
        Dtype::F32 => <f32 as Elem>::MAX_FOLD,
    };
    if (2..=max).contains(&fold) {
        Ok(())
    } else {
        Err(CliError::usage(format!(
            "--fold {fold} is outside 2..={max} for {}",
            dtype.name()
        )))
    }
}

/// An opened input, its format read, ready to stream.
struct Opened {
    input: Input,
    format: Format,
    dtype: Dtype,
    /// Whether the format was detected rather than asked for.
    detected: bool,
    /// For npy input: the header.
    header: Option<npy::Header>,
}

fn open(args: &InputArgs) -> Result<Opened, CliError> {
    let mut input = Input::open(&args.file)?;
    let format = formats::detect(&mut input, args.format)?;
    let detected = args.format.is_none();
    if format == Format::Npy {
        let header = formats::npy_header(&mut input)?;
        if let Some(given) = args.dtype {
            if given != header.dtype {
                return Err(CliError::data(format!(
                    "{}: the .npy file holds {} values but --dtype {} was given",
                    input.name,
                    header.dtype.name(),
                    given.name()
                )));
            }
        }
        check_fold(header.dtype, args.fold)?;
        return Ok(Opened {
            input,
            format,
            dtype: header.dtype,
            detected,
            header: Some(header),
        });
    }
    let dtype = args.dtype.ok_or_else(|| {
        CliError::usage(format!(
            "--dtype f64|f32 is required for {} input (only .npy files state their type)",
            if format == Format::Text { "text" } else { "raw" }
        ))
    })?;
    check_fold(dtype, args.fold)?;
    Ok(Opened {
        input,
        format,
        dtype,
        detected,
        header: None,
    })
}

/// The blocks of an opened input, as values of `T` (its dtype).
fn blocks<T: Elem>(o: Opened) -> Result<Box<dyn Blocks<T>>, CliError> {
    // `open` read a header exactly for npy input.
    Ok(match (o.header, o.format) {
        (Some(h), _) => Box::new(Binary::npy(o.input, &h)),
        (None, Format::Text) => Box::new(Text::<T>::new(o.input, o.detected)),
        (None, _) => Box::new(Binary::raw(o.input, o.dtype)?),
    })
}

/// Opens the device before any input is read, so a missing one is told at once.
fn open_device<T: Elem>(device: Device, fold: usize) -> Result<(), CliError> {
    if device != Device::Cpu {
        reprosum::accumulate_on::<T>(device, &[], fold)?;
    }
    Ok(())
}

/// Streams the blocks into one accumulator, one block's accumulator at a time.
fn sum_stream<T: Elem>(src: &mut dyn Blocks<T>, device: Device, fold: usize) -> Result<T, CliError> {
    open_device::<T>(device, fold)?;
    let mut total = DynAccumulator::<T>::new(fold)?;
    let mut block = Vec::with_capacity(BLOCK);
    while src.next_block(&mut block)? {
        let acc = reprosum::accumulate_on(device, &block, fold)?;
        reprosum::fpenv::with_ieee_fp(|| total.merge(&acc))?;
        block.clear();
    }
    Ok(reprosum::fpenv::with_ieee_fp(|| total.value()))
}

/// One sum's line: `VALUE 0xBITS`, or `0xBITS` with `--bits`.
fn push_line<T: Elem>(s: T, bits: bool, out: &mut String) {
    if !bits {
        out.push_str(&show(s));
        out.push(' ');
    }
    out.push_str(&hex_bits(s));
    out.push('\n');
}

fn sum_line<T: Elem>(o: Opened, a: &SumArgs) -> Result<(), CliError> {
    if a.segments.segments.is_some() || a.keys.is_some() {
        return group_sums::<T>(o, a);
    }
    let mut src = blocks::<T>(o)?;
    let s = sum_stream(src.as_mut(), a.input.device, a.input.fold)?;
    let mut line = String::new();
    push_line(s, a.bits, &mut line);
    print_stdout(&line)
}

/// The values and an index file cannot both be standard input.
fn one_stdin(file: &std::path::Path, index: &std::path::Path, option: &str) -> Result<(), CliError> {
    if file.as_os_str() == "-" && index.as_os_str() == "-" {
        return Err(CliError::usage(format!(
            "FILE and {option} cannot both be standard input (-)"
        )));
    }
    Ok(())
}

/// Every value of the input, in memory.
fn read_all<T: Elem>(o: Opened) -> Result<Vec<T>, CliError> {
    let mut src = blocks::<T>(o)?;
    let mut all: Vec<T> = Vec::new();
    let mut block = Vec::with_capacity(BLOCK);
    while src.next_block(&mut block)? {
        all.try_reserve(block.len())
            .map_err(|_| CliError::data("out of memory reading the values"))?;
        all.extend_from_slice(&block);
        block.clear();
    }
    Ok(all)
}

/// The file's name as messages show it.
fn shown(path: &std::path::Path) -> String {
    if path.as_os_str() == "-" {
        "standard input".into()
    } else {
        format!("'{}'", escape::path(path))
    }
}

/// The segment offsets in `path` for `n` values, checked: at least one entry, the first 0,
/// none smaller than the one before, the last `n`.
fn read_offsets(path: &std::path::Path, n: usize) -> Result<Vec<usize>, CliError> {
    let name = shown(path);
    let offsets = index::read(path, |v| {
        usize::try_from(v).map_err(|_| "is not an offset (offsets are 0 or more)".to_string())
    })?;
    let bad = |msg: String| Err(CliError::data(format!("{name}: {msg}")));
    let Some(&first) = offsets.first() else {
        return bad(
            "no offsets: segments need at least one (0), and the last is the number of values".into(),
        );
    };
    if first != 0 {
        return bad(format!("the first offset is {first}, not 0"));
    }
    if let Some(i) = offsets.windows(2).position(|w| w[1] < w[0]) {
        return bad(format!(
            "entry {} ({}) is smaller than entry {} ({}): offsets never decrease",
            i + 1,
            offsets[i + 1],
            i,
            offsets[i]
        ));
    }
    let last = offsets[offsets.len() - 1];
    if last != n {
        return bad(format!(
            "the last offset is {last} but the input has {n} values (the last offset is the number of values)"
        ));
    }
    Ok(offsets)
}

/// The keys in `path` for `n` values, and the number of keys: `nkeys`, or the largest
/// key + 1.
fn read_keys(path: &std::path::Path, n: usize, nkeys: Option<u64>) -> Result<(Vec<i64>, usize), CliError> {
    let name = shown(path);
    let limit = nkeys.map(i128::from);
    let keys = index::read(path, |v| {
        if v < 0 {
            return Err("is negative: keys are 0 or more".to_string());
        }
        if let Some(k) = limit.filter(|&k| v >= k) {
            return Err(format!("is not below --nkeys {k}"));
        }
        i64::try_from(v).map_err(|_| "is past the largest key (2^63 - 1)".to_string())
    })?;
    if keys.len() != n {
        return Err(CliError::data(format!(
            "{name} has {} keys but the input has {n} values (one key per value)",
            keys.len()
        )));
    }
    let count = match nkeys {
        Some(k) => k,
        None => keys.iter().max().map_or(0, |&m| m as u64 + 1),
    };
    let count = usize::try_from(count)
        .map_err(|_| CliError::data(format!("{count} keys are more than this machine can hold")))?;
    Ok((keys, count))
}

/// Prints one line per sum, a slice of them at a time.
fn print_sums<T: Elem>(sums: &[T], bits: bool) -> Result<(), CliError> {
    for part in sums.chunks(1 << 16) {
        let mut text = String::with_capacity(part.len() * 44);
        for &s in part {
            push_line(s, bits, &mut text);
        }
        print_stdout(&text)?;
    }
    Ok(())
}

/// `sum --segments` and `sum --keys`: one line per group.
fn group_sums<T: Elem>(o: Opened, a: &SumArgs) -> Result<(), CliError> {
    let option = if a.keys.is_some() { "--keys" } else { "--segments" };
    if let Some(path) = a.keys.as_ref().or(a.segments.segments.as_ref()) {
        one_stdin(&a.input.file, path, option)?;
    }
    let xs = read_all::<T>(o)?;
    let opts = reprosum::Options::with_fold(a.input.fold);
    let oom = |what: &str| CliError::data(format!("out of memory for the {what}"));
    let mut out: Vec<T> = Vec::new();
    if let Some(path) = &a.keys {
        let (keys, nkeys) = read_keys(path, xs.len(), a.nkeys)?;
        out.try_reserve_exact(nkeys).map_err(|_| oom("sums"))?;
        out.resize(nkeys, T::ZERO);
        if a.input.device == Device::Cpu {
            reprosum::sum_by_key_with(&xs, &keys, &mut out, &opts)?;
        } else {
            reprosum::sum_by_key_on(a.input.device, &xs, &keys, &mut out, a.input.fold)?;
        }
    } else if let Some(path) = &a.segments.segments {
        let offsets = read_offsets(path, xs.len())?;
        out.try_reserve_exact(offsets.len() - 1)
            .map_err(|_| oom("sums"))?;
        out.resize(offsets.len() - 1, T::ZERO);
        if a.input.device == Device::Cpu {
            reprosum::segmented_sum_with(&xs, &offsets, &mut out, &opts)?;
        } else {
            reprosum::segmented_sum_on(a.input.device, &xs, &offsets, &mut out, a.input.fold)?;
        }
    }
    print_sums(&out, a.bits)
}

/// Appends the output form of `xs` to `out`.
fn render<T: Elem>(xs: &[T], format: Format, big_endian: bool, out: &mut Vec<u8>) {
    match format {
        Format::Text => {
            let mut s = String::with_capacity(xs.len() * 24);
            for &x in xs {
                reprosum_cli::number::push_repr(&mut s, x);
                s.push('\n');
            }
            out.extend_from_slice(s.as_bytes());
        }
        Format::Raw | Format::Npy => {
            out.reserve(xs.len() * T::BYTES);
            for &x in xs {
                x.push_bytes(big_endian, out);
            }
        }
    }
}

/// `cumsum --segments`: the values in memory, each segment's running sums from 0.
fn segmented_cumsum_to<T: Elem>(o: Opened, a: &CumsumArgs, path: &std::path::Path) -> Result<(), CliError> {
    one_stdin(&a.input.file, path, "--segments")?;
    open_device::<T>(a.input.device, a.input.fold)?;
    let format = o.format;
    let header = o.header;
    let big_endian = header.is_some_and(|h| h.big_endian);
    let mut xs = read_all::<T>(o)?;
    let offsets = read_offsets(path, xs.len())?;
    let opts = reprosum::Options::with_fold(a.input.fold);
    if a.input.device == Device::Cpu {
        reprosum::segmented_cumsum_in_place_with(&mut xs, &offsets, &opts)?;
    } else {
        let mut out: Vec<T> = Vec::new();
        out.try_reserve_exact(xs.len())
            .map_err(|_| CliError::data("out of memory for the running sums".to_string()))?;
        out.resize(xs.len(), T::ZERO);
        reprosum::segmented_cumsum_on(a.input.device, &xs, &offsets, &mut out, a.input.fold)?;
        xs = out;
    }
    let mut sink = Sink::create(&a.output)?;
    if let Some(h) = header {
        sink.write(&npy::write_header(h.dtype, h.big_endian, h.len))?;
    }
    let mut bytes = Vec::new();
    for part in xs.chunks(BLOCK) {
        render(part, format, big_endian, &mut bytes);
        sink.write(&bytes)?;
        bytes.clear();
    }
    sink.commit()
}

fn cumsum_to<T: Elem>(o: Opened, a: &CumsumArgs) -> Result<(), CliError> {
    if let Some(path) = &a.segments.segments {
        return segmented_cumsum_to::<T>(o, a, path);
    }
    let (device, fold) = (a.input.device, a.input.fold);
    let format = o.format;
    let header = o.header;
    let big_endian = header.is_some_and(|h| h.big_endian);
    open_device::<T>(device, fold)?;
    let mut src = blocks::<T>(o)?;
    let mut sink = Sink::create(&a.output)?;
    if let Some(h) = header {
        sink.write(&npy::write_header(h.dtype, h.big_endian, h.len))?;
    }
    let mut block = Vec::with_capacity(BLOCK);
    let mut prefix: Vec<T> = Vec::with_capacity(BLOCK);
    let mut bytes = Vec::new();
    let mut running = DynAccumulator::<T>::new(fold)?;
    while src.next_block(&mut block)? {
        prefix.resize(block.len(), T::ZERO);
        running = reprosum::cumsum_from_on(device, &running, &block, &mut prefix)?;
        render(&prefix, format, big_endian, &mut bytes);
        sink.write(&bytes)?;
        bytes.clear();
        block.clear();
    }
    sink.commit()
}

fn print_stdout(s: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(s.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::BrokenPipe => CliError::data(""),
            _ => CliError::data(format!("cannot write standard output: {e}")),
        })
}

fn run(cli: Cli) -> Result<(), CliError> {
    match cli.cmd {
        Cmd::Sum(a) => {
            let o = open(&a.input)?;
            match o.dtype {
                Dtype::F64 => sum_line::<f64>(o, &a),
                Dtype::F32 => sum_line::<f32>(o, &a),
            }
        }
        Cmd::Cumsum(a) => {
            let o = open(&a.input)?;
            match o.dtype {
                Dtype::F64 => cumsum_to::<f64>(o, &a),
                Dtype::F32 => cumsum_to::<f32>(o, &a),
            }
        }
        Cmd::Demo(a) => {
            let n = usize::try_from(a.n).map_err(|_| CliError::usage("--n is too large"))?;
            print_stdout(&demo::run(n)?)
        }
    }
}

/// Prints clap's help and version as clap does; any other argument error as one line.
fn clap_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(EXIT_USAGE));
    }
    // clap's message is its first paragraph (the lines after it are tips and usage).
    let text = e.render().to_string();
    let para: Vec<&str> = text
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .collect();
    let joined = para.join(" ");
    let first = joined.strip_prefix("error: ").unwrap_or(&joined);
    let first = if first.is_empty() {
        "invalid arguments"
    } else {
        first
    };
    let first = escape::sanitize(first);
    let _ = writeln!(std::io::stderr(), "reprosum: {first} (see 'reprosum --help')");
    ExitCode::from(EXIT_USAGE)
}

fn main() -> ExitCode {
    // A bug must still end in one line, not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let _ = writeln!(std::io::stderr(), "reprosum: internal error{at}: {msg}");
    }));
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => return clap_error(e),
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A closed pipe on standard output (`reprosum demo | head`) ends quietly.
            if !e.msg.is_empty() {
                let _ = writeln!(std::io::stderr(), "reprosum: {}", escape::sanitize(&e.msg));
            }
            ExitCode::from(e.code)
        }
    }
}
