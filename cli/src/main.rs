//! The `reprosum` command: reproducible sums and cumulative sums of files, and a demo.

mod demo;
mod formats;
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
}

#[derive(Args)]
struct CumsumArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The output file, or - for standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: PathBuf,
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

fn sum_line<T: Elem>(o: Opened, a: &SumArgs) -> Result<String, CliError> {
    let mut src = blocks::<T>(o)?;
    let s = sum_stream(src.as_mut(), a.input.device, a.input.fold)?;
    Ok(if a.bits {
        format!("{}\n", hex_bits(s))
    } else {
        format!("{} {}\n", show(s), hex_bits(s))
    })
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

fn cumsum_to<T: Elem>(o: Opened, a: &CumsumArgs) -> Result<(), CliError> {
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
            let line = match o.dtype {
                Dtype::F64 => sum_line::<f64>(o, &a)?,
                Dtype::F32 => sum_line::<f32>(o, &a)?,
            };
            print_stdout(&line)
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
