//! The `reprosum` command: reproducible sums and cumulative sums of files, and a demo.

mod demo;
mod elem;
mod formats;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use elem::{hex_bits, show, Elem};
use formats::{Dtype, Format};

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
Values print as Rust's shortest round-trip decimal (`{}` of f64/f32; NaN prints as `NaN`,
infinities as `inf` and `-inf`), then the bit pattern as 0x and 16 (f64) or 8 (f32)
upper-case hex digits. The sum is bit-reproducible: the same bits for any order of the
values, any thread count and any machine.";

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
    ///
    /// raw in gives raw (little-endian) out, text in gives text out (one shortest
    /// round-trip number per line), npy in gives npy out with the same dtype and the same
    /// byte order as the input. OUT is written to a temporary file beside it and renamed,
    /// so a failure never leaves a half-written OUT.
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
    /// Element type; required for raw and text input, optional for npy (whose header
    /// states it; a different one is an error).
    #[arg(long, value_enum)]
    dtype: Option<Dtype>,
    /// The fold K: 2..=52 for f64, 2..=21 for f32. More folds, more accuracy.
    #[arg(long, value_name = "K", default_value_t = reprosum::DEFAULT_FOLD)]
    fold: usize,
    /// The input format. Default: npy if FILE starts with NumPy's magic (\x93NUMPY),
    /// else raw.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Where to compute: cpu (all threads), cuda[:N] or hip[:N]. The bits are the same on
    /// every device.
    #[arg(long, value_name = "DEVICE", default_value = "cpu", value_parser = parse_device)]
    device: reprosum::Device,
}

fn parse_device(s: &str) -> Result<reprosum::Device, String> {
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

/// The values of an input file, with what is needed to write output in its format.
enum Values {
    F64(Vec<f64>),
    F32(Vec<f32>),
}

struct Loaded {
    values: Values,
    format: Format,
    /// For npy input: whether its data is big-endian.
    big_endian: bool,
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

fn load(args: &InputArgs) -> Result<Loaded, CliError> {
    let bytes = formats::read_source(&args.file)?;
    let format = formats::detect(&bytes, args.format);
    if format == Format::Npy {
        let info = formats::npy_info(&bytes)?;
        if let Some(given) = args.dtype {
            if given != info.dtype {
                return Err(CliError::data(format!(
                    "the .npy file holds {} values but --dtype {} was given",
                    info.dtype.name(),
                    given.name()
                )));
            }
        }
        check_fold(info.dtype, args.fold)?;
        let values = match info.dtype {
            Dtype::F64 => Values::F64(formats::parse_npy(&info)?),
            Dtype::F32 => Values::F32(formats::parse_npy(&info)?),
        };
        return Ok(Loaded {
            values,
            format,
            big_endian: info.big_endian,
        });
    }
    let dtype = args.dtype.ok_or_else(|| {
        CliError::usage(format!(
            "--dtype f64|f32 is required for {} input (only .npy files state their type)",
            if format == Format::Text { "text" } else { "raw" }
        ))
    })?;
    check_fold(dtype, args.fold)?;
    let values = match (dtype, format) {
        (Dtype::F64, Format::Text) => Values::F64(formats::parse_text(&bytes)?),
        (Dtype::F32, Format::Text) => Values::F32(formats::parse_text(&bytes)?),
        (Dtype::F64, _) => Values::F64(formats::parse_raw(&bytes)?),
        (Dtype::F32, _) => Values::F32(formats::parse_raw(&bytes)?),
    };
    Ok(Loaded {
        values,
        format,
        big_endian: false,
    })
}

fn sum_line<T: Elem>(
    device: reprosum::Device,
    xs: &[T],
    fold: usize,
    bits_only: bool,
) -> Result<String, CliError> {
    let s = reprosum::sum_on(device, xs, fold)?;
    Ok(if bits_only {
        format!("{}\n", hex_bits(s))
    } else {
        format!("{} {}\n", show(s), hex_bits(s))
    })
}

fn cumsum_bytes<T: Elem>(
    device: reprosum::Device,
    xs: &[T],
    fold: usize,
    format: Format,
    big_endian: bool,
) -> Result<Vec<u8>, CliError> {
    let mut out = vec![T::ZERO; xs.len()];
    reprosum::cumsum_on(device, xs, &mut out, fold)?;
    match format {
        Format::Raw => Ok(formats::render_raw(&out)),
        Format::Text => Ok(formats::render_text(&out)),
        Format::Npy => formats::render_npy(&out, big_endian),
    }
}

fn print_stdout(s: &str) -> Result<(), CliError> {
    formats::write_output(std::path::Path::new("-"), s.as_bytes())
}

fn run(cli: Cli) -> Result<(), CliError> {
    match cli.cmd {
        Cmd::Sum(a) => {
            let input = load(&a.input)?;
            let line = match &input.values {
                Values::F64(xs) => sum_line(a.input.device, xs, a.input.fold, a.bits)?,
                Values::F32(xs) => sum_line(a.input.device, xs, a.input.fold, a.bits)?,
            };
            print_stdout(&line)
        }
        Cmd::Cumsum(a) => {
            let input = load(&a.input)?;
            let (fold, fmt, be) = (a.input.fold, input.format, input.big_endian);
            let bytes = match &input.values {
                Values::F64(xs) => cumsum_bytes(a.input.device, xs, fold, fmt, be)?,
                Values::F32(xs) => cumsum_bytes(a.input.device, xs, fold, fmt, be)?,
            };
            formats::write_output(&a.output, &bytes)
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
                let _ = writeln!(std::io::stderr(), "reprosum: {}", e.msg);
            }
            ExitCode::from(e.code)
        }
    }
}
