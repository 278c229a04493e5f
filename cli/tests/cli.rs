//! Runs the `reprosum` binary on files in a temporary directory and checks its output by bits
//! against the library (`reprosum::sum_fold`, `reprosum::cumsum_fold`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_reprosum");

// ---------------------------------------------------------------- helpers

/// A fresh, empty directory under the system's temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("reprosum-cli-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the binary with `stdin` as its input. Every run has a time limit (`run_timed`), so
/// a command that hangs fails its test instead of hanging the suite.
fn run_with(args: &[&str], stdin: Option<&[u8]>) -> Output {
    run_timed(args, stdin, 300)
}

fn run(args: &[&str]) -> Output {
    run_with(args, None)
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs successfully and returns stdout.
fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(o.status.success(), "{args:?} failed: {}", stderr(&o));
    assert!(o.stderr.is_empty(), "{args:?} wrote to stderr: {}", stderr(&o));
    stdout(&o)
}

/// Fails with a one-line `reprosum: ...` message and no panic; returns the message.
fn fails_with(o: &Output, what: &str) -> String {
    assert!(!o.status.success(), "{what}: expected failure, got success");
    assert!(o.status.code().is_some(), "{what}: killed by a signal");
    let err = stderr(o);
    assert!(err.starts_with("reprosum: "), "{what}: stderr {err:?}");
    assert!(
        err.ends_with('\n') && err.lines().count() == 1,
        "{what}: not one line: {err:?}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{what}: {err:?}"
    );
    assert!(o.stdout.is_empty(), "{what}: wrote to stdout");
    err
}

fn fails(args: &[&str]) -> (i32, String) {
    let o = run(args);
    let err = fails_with(&o, &format!("{args:?}"));
    (o.status.code().unwrap(), err)
}

/// Deterministic values of mixed signs over a wide exponent range, with cancellation.
fn values_f64(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed;
    let mut next = || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    (0..n)
        .map(|i| {
            let r = next();
            let m = 1.0 + (r >> 12) as f64 / (1u64 << 52) as f64;
            let e = ((r >> 2) % 80) as i32 - 40;
            let x = m * 2f64.powi(e);
            let x = if r & 1 == 0 { x } else { -x };
            if i % 7 == 3 {
                1e15 * x.signum()
            } else {
                x
            }
        })
        .collect()
}

fn values_f32(n: usize, seed: u64) -> Vec<f32> {
    values_f64(n, seed).iter().map(|&x| x as f32).collect()
}

fn raw_f64(xs: &[f64]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn raw_f32(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn text<T: std::fmt::Display>(xs: &[T]) -> Vec<u8> {
    xs.iter()
        .map(|x| format!("{x}\n"))
        .collect::<String>()
        .into_bytes()
}

/// A version-1.0 `.npy` file built by hand: `descr` such as `<f8`, `shape` such as `(3,)`.
fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + dict.len() + 1) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.extend_from_slice(data);
    out
}

/// Element bytes in the given order.
fn bytes_f64(xs: &[f64], big: bool) -> Vec<u8> {
    xs.iter()
        .flat_map(|x| if big { x.to_be_bytes() } else { x.to_le_bytes() })
        .collect()
}

fn bytes_f32(xs: &[f32], big: bool) -> Vec<u8> {
    xs.iter()
        .flat_map(|x| if big { x.to_be_bytes() } else { x.to_le_bytes() })
        .collect()
}

/// Splits an `.npy` file into its header text and data, checking the magic and length.
fn npy_parts(bytes: &[u8]) -> (String, &[u8]) {
    assert!(bytes.starts_with(b"\x93NUMPY"), "not npy");
    let (major, hlen, start) = (bytes[6], bytes[8] as usize | (bytes[9] as usize) << 8, 10);
    assert_eq!(major, 1, "npy version");
    let header = String::from_utf8(bytes[start..start + hlen].to_vec()).unwrap();
    (header, &bytes[start + hlen..])
}

fn hex64(x: f64) -> String {
    format!("0x{:016X}", x.to_bits())
}

fn hex32(x: f32) -> String {
    format!("0x{:08X}", x.to_bits())
}

/// The command's sum line: the value as `reprosum_cli::number::repr` prints it (checked
/// against Python's `repr` in that module's tests), then the bits.
fn expect_sum_f64(xs: &[f64], fold: usize) -> String {
    let s = reprosum::sum_fold(xs, fold).unwrap();
    format!("{} {}\n", reprosum_cli::number::repr(s), hex64(s))
}

fn expect_sum_f32(xs: &[f32], fold: usize) -> String {
    let s = reprosum::sum_fold(xs, fold).unwrap();
    format!("{} {}\n", reprosum_cli::number::repr(s), hex32(s))
}

fn readme_example() -> Vec<f64> {
    let mut xs = Vec::new();
    for _ in 0..5 {
        xs.extend_from_slice(&[1e16, -1e16]);
    }
    xs.extend_from_slice(&[1.0; 10_000]);
    xs
}

// ---------------------------------------------------------------- sum

#[test]
fn readme_example_in_every_format() {
    let d = TempDir::new("readme");
    let xs = readme_example();
    let want = "10000.0 0x40C3880000000000\n";
    let raw = d.file("x.raw", &raw_f64(&xs));
    let txt = d.file("x.txt", &text(&xs));
    let npy_le = d.file(
        "x.npy",
        &npy("<f8", &format!("({},)", xs.len()), &bytes_f64(&xs, false)),
    );
    assert_eq!(ok(&["sum", p(&raw), "--dtype", "f64", "--format", "raw"]), want);
    assert_eq!(ok(&["sum", p(&txt), "--dtype", "f64", "--format", "text"]), want);
    assert_eq!(
        ok(&["sum", p(&txt), "--dtype", "f64"]),
        want,
        "text is the default"
    );
    assert_eq!(ok(&["sum", p(&npy_le)]), want);
    assert_eq!(
        ok(&["sum", p(&raw), "--dtype", "f64", "--format", "raw", "--bits"]),
        "0x40C3880000000000\n"
    );
    // Raw binary is read only when asked for.
    let (code, err) = fails(&["sum", p(&raw), "--dtype", "f64"]);
    assert_eq!(code, 1);
    assert!(err.contains("--format raw"), "{err}");
    assert_eq!(expect_sum_f64(&xs, 3), want, "the library agrees");
}

#[test]
fn sum_raw_and_text_match_the_library_by_bits() {
    let d = TempDir::new("sum");
    let x64 = values_f64(5000, 1);
    let x32 = values_f32(5000, 2);
    let r64 = d.file("a.raw", &raw_f64(&x64));
    let r32 = d.file("b.raw", &raw_f32(&x32));
    let t64 = d.file("a.txt", &text(&x64));
    let t32 = d.file("b.txt", &text(&x32));
    for fold in [2usize, 3, 4, 21] {
        let k = fold.to_string();
        let want64 = expect_sum_f64(&x64, fold);
        let want32 = expect_sum_f32(&x32, fold);
        assert_eq!(
            ok(&["sum", p(&r64), "--dtype", "f64", "--format", "raw", "--fold", &k]),
            want64
        );
        assert_eq!(
            ok(&["sum", p(&t64), "--dtype", "f64", "--format", "text", "--fold", &k]),
            want64
        );
        assert_eq!(
            ok(&["sum", p(&r32), "--dtype", "f32", "--format", "raw", "--fold", &k]),
            want32
        );
        assert_eq!(
            ok(&["sum", p(&t32), "--dtype", "f32", "--format", "text", "--fold", &k]),
            want32
        );
    }
    let want = expect_sum_f64(&x64, 52);
    assert_eq!(
        ok(&[
            "sum",
            p(&r64),
            "--dtype",
            "f64",
            "--format",
            "raw",
            "--fold",
            "52"
        ]),
        want
    );
    // The default fold is 3.
    assert_eq!(
        ok(&["sum", p(&r64), "--dtype", "f64", "--format", "raw"]),
        expect_sum_f64(&x64, 3)
    );
}

#[test]
fn sum_npy_both_byte_orders_and_types() {
    let d = TempDir::new("npy");
    let x64 = values_f64(3000, 3);
    let x32 = values_f32(3000, 4);
    let shape = format!("({},)", x64.len());
    for big in [false, true] {
        let e = if big { '>' } else { '<' };
        let f64_file = d.file(
            &format!("a{e}.npy"),
            &npy(&format!("{e}f8"), &shape, &bytes_f64(&x64, big)),
        );
        let f32_file = d.file(
            &format!("b{e}.npy"),
            &npy(&format!("{e}f4"), &shape, &bytes_f32(&x32, big)),
        );
        for fold in ["2", "3", "7"] {
            let k: usize = fold.parse().unwrap();
            let w64 = expect_sum_f64(&x64, k);
            let w32 = expect_sum_f32(&x32, k);
            assert_eq!(ok(&["sum", p(&f64_file), "--fold", fold]), w64, "{e}f8");
            assert_eq!(ok(&["sum", p(&f64_file), "--fold", fold, "--dtype", "f64"]), w64);
            assert_eq!(ok(&["sum", p(&f64_file), "--fold", fold, "--format", "npy"]), w64);
            assert_eq!(ok(&["sum", p(&f32_file), "--fold", fold]), w32, "{e}f4");
            assert_eq!(ok(&["sum", p(&f32_file), "--fold", fold, "--dtype", "f32"]), w32);
        }
    }
    // An empty 1-D array sums to +0.
    let empty = d.file("e.npy", &npy("<f8", "(0,)", &[]));
    assert_eq!(ok(&["sum", p(&empty)]), "0.0 0x0000000000000000\n");
}

#[test]
fn bits_output_is_exactly_the_hex_pattern() {
    let d = TempDir::new("bits");
    let x64 = values_f64(1000, 5);
    let x32 = values_f32(1000, 6);
    let r64 = d.file("a.raw", &raw_f64(&x64));
    let r32 = d.file("b.raw", &raw_f32(&x32));
    for (file, dtype, len, want) in [
        (&r64, "f64", 18, hex64(reprosum::sum_fold(&x64, 3).unwrap())),
        (&r32, "f32", 10, hex32(reprosum::sum_fold(&x32, 3).unwrap())),
    ] {
        let out = ok(&["sum", p(file), "--dtype", dtype, "--format", "raw", "--bits"]);
        let line = out.strip_suffix('\n').expect("ends with a newline");
        assert!(!line.contains(char::is_whitespace), "{out:?}");
        assert!(line.starts_with("0x"), "{out:?}");
        assert_eq!(line.len(), len, "{out:?}");
        assert!(
            line[2..]
                .chars()
                .all(|c| c.is_ascii_digit() || ('A'..='F').contains(&c)),
            "{out:?}"
        );
        assert_eq!(line, want);
    }
}

#[test]
fn text_special_values_and_f32_parsed_directly() {
    let d = TempDir::new("text");
    // Case-insensitive specials, surrounding spaces, CRLF and blank lines at the end.
    let t = d.file("s.txt", b"  1.5 \r\nNaN\n-INF\ninf\n\n  \n");
    assert_eq!(
        ok(&["sum", p(&t), "--dtype", "f64", "--format", "text"]),
        "nan 0x7FF8000000000000\n"
    );
    let t = d.file("i.txt", b"1\n-inf\n");
    assert_eq!(
        ok(&["sum", p(&t), "--dtype", "f32", "--format", "text"]),
        "-inf 0xFF800000\n"
    );
    // 1 + 2^-24 (the midpoint of 1 and the next f32) plus a little: f32 parsing rounds up
    // to 1 + 2^-23; going through f64 would give the midpoint, then 1.0 (ties to even).
    let t = d.file("m.txt", b"1.000000059604644775390625000000001\n");
    assert_eq!(
        ok(&["sum", p(&t), "--dtype", "f32", "--format", "text", "--bits"]),
        "0x3F800001\n"
    );
    let m = "1.000000059604644775390625000000001";
    assert_eq!(
        (m.parse::<f64>().unwrap() as f32).to_bits(),
        0x3F80_0000,
        "via f64"
    );
    assert_eq!(m.parse::<f32>().unwrap().to_bits(), 0x3F80_0001, "direct");
    // An empty text file sums to +0.
    let t = d.file("e.txt", b"");
    assert_eq!(
        ok(&["sum", p(&t), "--dtype", "f64", "--format", "text"]),
        "0.0 0x0000000000000000\n"
    );
}

#[test]
fn stdin_dash() {
    let xs = readme_example();
    let o = run_with(
        &["sum", "-", "--dtype", "f64", "--format", "raw"],
        Some(&raw_f64(&xs)),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "10000.0 0x40C3880000000000\n");
    let o = run_with(&["sum", "-", "--dtype", "f64"], Some(&text(&xs)));
    assert_eq!(stdout(&o), "10000.0 0x40C3880000000000\n");
    // npy is detected on standard input too.
    let x32 = values_f32(500, 7);
    let file = npy(">f4", "(500,)", &bytes_f32(&x32, true));
    let o = run_with(&["sum", "-"], Some(&file));
    assert_eq!(stdout(&o), expect_sum_f32(&x32, 3));
    // cumsum from stdin to stdout.
    let o = run_with(
        &["cumsum", "-", "--dtype", "f32", "--format", "raw", "-o", "-"],
        Some(&raw_f32(&x32)),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let mut want = vec![0f32; x32.len()];
    reprosum::cumsum_fold(&x32, &mut want, 3).unwrap();
    assert_eq!(o.stdout, raw_f32(&want));
}

// ---------------------------------------------------------------- cumsum

#[test]
fn cumsum_raw_and_text_match_the_library_by_bits() {
    let d = TempDir::new("cumsum");
    let x64 = values_f64(4000, 8);
    let x32 = values_f32(4000, 9);
    let mut c64 = vec![0f64; x64.len()];
    let mut c32 = vec![0f32; x32.len()];
    reprosum::cumsum_fold(&x64, &mut c64, 4).unwrap();
    reprosum::cumsum_fold(&x32, &mut c32, 4).unwrap();

    let i = d.file("a.raw", &raw_f64(&x64));
    let o = d.path("a.out");
    ok(&[
        "cumsum",
        p(&i),
        "--dtype",
        "f64",
        "--format",
        "raw",
        "--fold",
        "4",
        "-o",
        p(&o),
    ]);
    assert_eq!(std::fs::read(&o).unwrap(), raw_f64(&c64));

    let i = d.file("b.raw", &raw_f32(&x32));
    ok(&[
        "cumsum",
        p(&i),
        "--dtype",
        "f32",
        "--format",
        "raw",
        "--fold",
        "4",
        "-o",
        p(&o),
    ]);
    assert_eq!(std::fs::read(&o).unwrap(), raw_f32(&c32));

    for (name, input, dtype) in [("a.txt", text(&x64), "f64"), ("b.txt", text(&x32), "f32")] {
        let i = d.file(name, &input);
        let o = d.path("t.out");
        ok(&[
            "cumsum",
            p(&i),
            "--dtype",
            dtype,
            "--format",
            "text",
            "--fold",
            "4",
            "-o",
            p(&o),
        ]);
        let got = std::fs::read_to_string(&o).unwrap();
        assert_eq!(got.lines().count(), x64.len());
        if dtype == "f64" {
            let bits: Vec<u64> = got.lines().map(|l| l.parse::<f64>().unwrap().to_bits()).collect();
            assert_eq!(bits, c64.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        } else {
            let bits: Vec<u32> = got.lines().map(|l| l.parse::<f32>().unwrap().to_bits()).collect();
            assert_eq!(bits, c32.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        }
    }
    // Nothing but the inputs and outputs in the directory: no temporary files left.
    assert_eq!(d.names(), ["a.out", "a.raw", "a.txt", "b.raw", "b.txt", "t.out"]);
}

#[test]
fn cumsum_npy_keeps_dtype_and_byte_order() {
    let d = TempDir::new("cumnpy");
    let x64 = values_f64(2500, 10);
    let x32 = values_f32(2500, 11);
    let mut c64 = vec![0f64; x64.len()];
    let mut c32 = vec![0f32; x32.len()];
    reprosum::cumsum_fold(&x64, &mut c64, 3).unwrap();
    reprosum::cumsum_fold(&x32, &mut c32, 3).unwrap();
    let shape = "(2500,)";
    for big in [false, true] {
        let e = if big { '>' } else { '<' };
        for (descr, data, want) in [
            (format!("{e}f8"), bytes_f64(&x64, big), bytes_f64(&c64, big)),
            (format!("{e}f4"), bytes_f32(&x32, big), bytes_f32(&c32, big)),
        ] {
            let i = d.file("in.npy", &npy(&descr, shape, &data));
            let o = d.path("out.npy");
            ok(&["cumsum", p(&i), "-o", p(&o)]);
            let out = std::fs::read(&o).unwrap();
            let (header, body) = npy_parts(&out);
            assert!(header.contains(&format!("'descr': '{descr}'")), "{header}");
            assert!(
                header.contains("(2500,") && header.contains("fortran_order': False"),
                "{header}"
            );
            assert_eq!(body, &want[..], "{descr}");
        }
    }
}

#[test]
fn failed_cumsum_leaves_no_output() {
    let d = TempDir::new("fail");
    let bad = d.file("bad.txt", b"1\n2\nx\n");
    let out = d.path("out.txt");
    fails(&[
        "cumsum",
        p(&bad),
        "--dtype",
        "f64",
        "--format",
        "text",
        "-o",
        p(&out),
    ]);
    assert!(!out.exists());
    // An existing OUT is left as it was.
    std::fs::write(&out, b"keep\n").unwrap();
    let odd = d.file("odd.raw", &[0u8; 13]);
    fails(&[
        "cumsum",
        p(&odd),
        "--dtype",
        "f64",
        "--format",
        "raw",
        "-o",
        p(&out),
    ]);
    assert_eq!(std::fs::read(&out).unwrap(), b"keep\n");
    // A directory that does not exist.
    let good = d.file("good.raw", &raw_f64(&[1.0, 2.0]));
    let nowhere = d.path("no/such/dir/out.raw");
    fails(&[
        "cumsum",
        p(&good),
        "--dtype",
        "f64",
        "--format",
        "raw",
        "-o",
        p(&nowhere),
    ]);
    assert_eq!(d.names(), ["bad.txt", "good.raw", "odd.raw", "out.txt"]);
}

// ---------------------------------------------------------------- errors

#[test]
fn bad_input_is_one_line_and_non_zero() {
    let d = TempDir::new("errors");
    let odd = d.file("odd.raw", &[0u8; 12]);
    let raw = d.file("ok.raw", &raw_f64(&[1.0, 2.0]));
    let words = d.file("w.txt", b"1.0\n2.0\nthree\n");
    let gap = d.file("g.txt", b"1.0\n2.0,,3.0\n");
    let f4 = d.file("f4.npy", &npy("<f4", "(2,)", &bytes_f32(&[1.0, 2.0], false)));
    let two_d = d.file(
        "2d.npy",
        &npy("<f8", "(2, 2)", &bytes_f64(&[1.0, 2.0, 3.0, 4.0], false)),
    );
    let scalar = d.file("0d.npy", &npy("<f8", "()", &bytes_f64(&[1.0], false)));
    let ints = d.file("i.npy", &npy("<i4", "(2,)", &[1, 0, 0, 0, 2, 0, 0, 0]));
    let short = d.file("s.npy", &npy("<f8", "(3,)", &bytes_f64(&[1.0, 2.0], false)));
    let junk = d.file("j.npy", b"\x93NUMPY garbage");
    let missing = d.path("missing.raw");

    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (vec!["sum", p(&missing), "--dtype", "f64"], 1, "missing.raw"),
        (
            vec!["sum", p(&odd), "--dtype", "f64", "--format", "raw"],
            1,
            "12 bytes",
        ),
        (vec!["sum", p(&odd), "--dtype", "f64"], 1, "--format raw"),
        (
            vec!["sum", p(&words), "--dtype", "f64", "--format", "text"],
            1,
            "line 3",
        ),
        (
            vec!["sum", p(&words), "--dtype", "f32", "--format", "text"],
            1,
            "'three'",
        ),
        (
            vec!["sum", p(&gap), "--dtype", "f64", "--format", "text"],
            1,
            "line 2, column 5: empty field",
        ),
        (vec!["sum", p(&f4), "--dtype", "f64"], 1, "f32"),
        (vec!["sum", p(&two_d)], 1, "1-D"),
        (vec!["sum", p(&scalar)], 1, "1-D"),
        (vec!["sum", p(&ints)], 1, "dtype"),
        (vec!["sum", p(&short)], 1, "data bytes"),
        (vec!["sum", p(&junk)], 1, ".npy"),
        (
            vec!["sum", p(&raw), "--format", "npy", "--dtype", "f64"],
            1,
            ".npy",
        ),
        (vec!["sum", p(&raw)], 2, "--dtype"),
        (vec!["sum", p(&raw), "--format", "text"], 2, "--dtype"),
        (
            vec!["sum", p(&raw), "--dtype", "f64", "--fold", "53"],
            2,
            "2..=52",
        ),
        (vec!["sum", p(&raw), "--dtype", "f64", "--fold", "1"], 2, "2..=52"),
        (
            vec!["sum", p(&raw), "--dtype", "f32", "--fold", "22"],
            2,
            "2..=21",
        ),
        (vec!["sum", p(&f4), "--fold", "22"], 2, "2..=21"),
        (vec!["sum", p(&raw), "--dtype", "f64", "--fold", "x"], 2, "--fold"),
        (vec!["sum", p(&raw), "--dtype", "f16"], 2, "f16"),
        (vec!["sum"], 2, "FILE"),
        (vec!["cumsum", p(&raw), "--dtype", "f64"], 2, "--output"),
        (vec!["frobnicate"], 2, "frobnicate"),
        (vec!["demo", "--n", "0"], 2, "--n"),
    ];
    for (args, code, needle) in cases {
        let (got, err) = fails(&args);
        assert_eq!(got, code, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    }
}

#[test]
fn help_works() {
    let out = ok(&["--help"]);
    assert!(out.contains("cumsum") && out.contains("demo"));
    let out = ok(&["cumsum", "--help"]);
    assert!(out.contains("byte order"), "{out}");
}

// ---------------------------------------------------------------- demo

#[test]
fn demo_reprosum_bits_are_identical_in_every_row() {
    let out = ok(&["demo", "--n", "100000"]);
    let mut naive = Vec::new();
    let mut repro = Vec::new();
    for line in out.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        if t.len() >= 5 && t[t.len() - 1].starts_with("0x") && t[t.len() - 3].starts_with("0x") {
            let (nv, nb, rv, rb) = (t[t.len() - 4], t[t.len() - 3], t[t.len() - 2], t[t.len() - 1]);
            assert_eq!(nb.len(), 18, "{line}");
            assert_eq!(rb.len(), 18, "{line}");
            // Each printed value is the value of its bit pattern.
            for (v, b) in [(nv, nb), (rv, rb)] {
                let bits = u64::from_str_radix(&b[2..], 16).unwrap();
                assert_eq!(v.parse::<f64>().unwrap().to_bits(), bits, "{line}");
            }
            naive.push(nb.to_string());
            repro.push(rb.to_string());
        }
    }
    assert!(repro.len() >= 9, "too few rows parsed:\n{out}");
    assert!(
        repro.iter().all(|b| *b == repro[0]),
        "reprosum bits differ:\n{out}"
    );
    naive.sort();
    naive.dedup();
    assert!(
        naive.len() > 1,
        "naive sums all agree, the demo shows nothing:\n{out}"
    );
    assert!(
        out.contains(&format!(
            "naive: {} distinct results in {} rows; reprosum: 1 distinct result.",
            naive.len(),
            repro.len()
        )),
        "{out}"
    );
    assert!(out.contains("f32"), "{out}");
}

/// `--device cpu` is the default; a GPU this machine or build lacks is a one-line error,
/// and a cumulative sum then leaves no output file.
#[test]
fn device_option() {
    let dir = TempDir::new("device");
    let data: Vec<f64> = (0..1000)
        .map(|i| (i as f64).sqrt() * if i % 2 == 0 { 1.0 } else { -1e3 })
        .collect();
    let input = dir.file(
        "x.f64",
        &data.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
    );
    let want = format!("0x{:016X}", reprosum::sum_fold(&data, 3).unwrap().to_bits());
    let args = |dev| {
        [
            "sum",
            p(&input),
            "--dtype",
            "f64",
            "--format",
            "raw",
            "--bits",
            "--device",
            dev,
        ]
    };
    let cpu = ok(&args("cpu"));
    assert_eq!(cpu.trim(), want);
    for dev in ["cuda", "cuda:1", "hip"] {
        let o = run(&args(dev));
        if o.status.success() {
            // A machine with that GPU: the same bits.
            assert_eq!(stdout(&o).trim(), want, "{dev}");
            continue;
        }
        fails_with(&o, dev);
        assert_eq!(o.status.code(), Some(1), "{dev}");
        let out = dir.0.join(format!("out-{dev}.f64"));
        let c = run(&[
            "cumsum",
            p(&input),
            "--dtype",
            "f64",
            "--format",
            "raw",
            "--device",
            dev,
            "-o",
            p(&out),
        ]);
        fails_with(&c, dev);
        assert!(!out.exists(), "{dev}: a failed cumsum left {out:?}");
    }
    let bad = run(&["sum", p(&input), "--dtype", "f64", "--device", "gpu"]);
    fails_with(&bad, "--device gpu");
    assert_eq!(bad.status.code(), Some(2));
}

// ---------------------------------------------------------------- hostile and mistaken input

/// Runs the binary and kills it after `secs` seconds: a hang fails the test instead of
/// hanging the run. The command streams (it may write output before it has read all its
/// input), so the input is written, and the output read, by threads.
fn run_timed(args: &[&str], stdin: Option<&[u8]>, secs: u64) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the reprosum binary");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        let bytes = bytes.to_vec();
        // The command may stop reading early (an error in the header): a closed pipe is fine.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    // Output is read by threads, so a full pipe cannot stall the command.
    let mut out_pipe = child.stdout.take().unwrap();
    let mut err_pipe = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut out_pipe, &mut v);
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut err_pipe, &mut v);
        v
    });
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Output {
                status,
                stdout: out_reader.join().unwrap(),
                stderr: err_reader.join().unwrap(),
            };
        }
        if start.elapsed() > std::time::Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} still running after {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Fails within `secs` seconds, status 1, one line; returns the message.
fn fails_fast(args: &[&str], stdin: Option<&[u8]>, secs: u64) -> String {
    let t = std::time::Instant::now();
    let o = run_timed(args, stdin, 5);
    let err = fails_with(&o, &format!("{args:?}"));
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert!(
        t.elapsed().as_secs_f64() < secs as f64,
        "{args:?} took {:?}",
        t.elapsed()
    );
    err
}

/// A version-1.0 `.npy` preamble around any header text (no padding added).
fn npy_v1_raw(header: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header);
    out
}

/// The npyz parser backtracked exponentially on nested brackets: 21 of them never ended.
#[test]
fn hostile_npy_nested_brackets_end_at_once() {
    let d = TempDir::new("nested");
    let nest = "[".repeat(21);
    for (name, header) in [
        ("descr", format!("{{'descr': {nest}")),
        (
            "shape",
            format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {nest}"),
        ),
        ("key", format!("{{{nest}")),
        ("value", format!("{{'descr': '<f8', 'fortran_order': {nest}")),
    ] {
        let mut h = header.into_bytes();
        // Padded like the reported file (194 bytes in all), ending in a newline.
        while h.len() < 194 - 11 {
            h.push(b' ');
        }
        h.push(b'\n');
        let bytes = npy_v1_raw(&h);
        assert_eq!(bytes.len(), 194);
        let f = d.file(&format!("{name}.npy"), &bytes);
        let err = fails_fast(&["sum", p(&f)], None, 1);
        assert!(err.contains(".npy"), "{name}: {err}");
        // From standard input too.
        let err = fails_fast(&["sum", "-"], Some(&bytes), 1);
        assert!(err.contains(".npy"), "{name}: {err}");
    }
}

/// A v2 header claiming 0xFFFFFFF0 bytes is refused from its length field, before anything
/// is allocated (under a 1 GiB address-space limit, an attempt to allocate it aborts).
#[test]
fn hostile_npy_huge_header_length_is_refused_before_reading() {
    let d = TempDir::new("hugehdr");
    let mut bytes = b"\x93NUMPY\x02\x00".to_vec();
    bytes.extend_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
    bytes.extend_from_slice(b"{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }");
    while bytes.len() < 146 {
        bytes.push(b' ');
    }
    assert_eq!(bytes.len(), 146);
    let f = d.file("huge.npy", &bytes);
    let err = fails_fast(&["sum", p(&f)], None, 1);
    assert!(
        err.contains("claims 4294967280 bytes") && err.contains("10000"),
        "{err}"
    );
    let err = fails_fast(&["cumsum", "-", "-o", p(&d.path("out.npy"))], Some(&bytes), 1);
    assert!(err.contains("claims 4294967280 bytes"), "{err}");
    assert!(!d.path("out.npy").exists());
    #[cfg(unix)]
    {
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -v 1048576 && exec '{BIN}' sum '{}'", p(&f)))
            .output()
            .unwrap();
        let err = fails_with(&o, "under ulimit -v");
        assert_eq!(o.status.code(), Some(1), "{err}");
    }
}

/// A header whose shape claims more data than the file holds is refused before any data is
/// read or allocated: a file, and standard input (checked as it streams).
#[test]
fn npy_shape_is_checked_against_the_data() {
    let d = TempDir::new("shape");
    let huge = d.file(
        "huge.npy",
        &npy("<f8", "(1000000000000,)", &bytes_f64(&[1.0], false)),
    );
    let err = fails_fast(&["sum", p(&huge)], None, 1);
    assert!(
        err.contains("1000000000000 values") && err.contains("8 data bytes"),
        "{err}"
    );
    let err = fails_fast(&["sum", "-"], Some(&std::fs::read(&huge).unwrap()), 1);
    assert!(err.contains("the data ends after 8 bytes"), "{err}");
    let long = npy("<f4", "(2,)", &bytes_f32(&[1.0, 2.0, 3.0], false));
    let err = fails_fast(&["sum", "-"], Some(&long), 1);
    assert!(err.contains("says 2 values but the data goes on"), "{err}");
    let odd = npy("<f8", "(1,)", &[0u8; 12]);
    let err = fails_fast(&["sum", "-"], Some(&odd), 1);
    assert!(err.contains("the data ends after 12 bytes"), "{err}");
    let f = d.file("odd.npy", &odd);
    let err = fails_fast(&["sum", p(&f)], None, 1);
    assert!(err.contains("12 data bytes"), "{err}");
}

/// Any input that starts with NumPy's magic goes to the npy reader, whatever its name, and
/// anything else is not read as npy without --format npy.
#[test]
fn npy_is_detected_from_content() {
    let d = TempDir::new("detect");
    let xs = values_f64(100, 12);
    let good = npy("<f8", "(100,)", &bytes_f64(&xs, false));
    for name in ["data.txt", "data.csv", "data.raw", "data"] {
        let f = d.file(name, &good);
        assert_eq!(ok(&["sum", p(&f)]), expect_sum_f64(&xs, 3), "{name}");
    }
    for junk in [
        &b"\x93NUMPY"[..],
        b"\x93NUMPY\x01\x00",
        b"\x93NUMPY\x09\x09junk",
        b"\x93NUMPY\x01\x00\x05\x00{}   ",
    ] {
        let f = d.file("junk.txt", junk);
        let err = fails_fast(&["sum", p(&f), "--dtype", "f64"], None, 1);
        assert!(err.contains(".npy"), "{junk:?}: {err}");
        assert!(!err.contains("line "), "{junk:?} went to the text reader: {err}");
    }
}

/// The reported case: an 8-byte text file was read as one raw f64 and printed garbage with
/// status 0.
#[test]
fn text_is_the_default_for_non_npy_input() {
    let d = TempDir::new("notes");
    let notes = d.file("notes.txt", b"1.5\n2.5\n");
    assert_eq!(std::fs::metadata(&notes).unwrap().len(), 8);
    assert_eq!(
        ok(&["sum", p(&notes), "--dtype", "f64"]),
        "4.0 0x4010000000000000\n"
    );
    assert_eq!(ok(&["sum", p(&notes), "--dtype", "f32"]), "4.0 0x40800000\n");
    // What numpy.savetxt(f, numpy.arange(1000.)) writes: '%.18e' per line.
    let savetxt: String = (0..1000)
        .map(|i| {
            let s = format!("{:.18e}", i as f64);
            let (m, e) = s.split_once('e').unwrap();
            let e: i32 = e.parse().unwrap();
            format!("{m}e{}{:02}\n", if e < 0 { '-' } else { '+' }, e.abs())
        })
        .collect();
    assert!(savetxt.starts_with("0.000000000000000000e+00\n1.000000000000000000e+00\n"));
    assert!(savetxt.ends_with("9.990000000000000000e+02\n"));
    let f = d.file("arange.txt", savetxt.as_bytes());
    assert_eq!(
        ok(&["sum", p(&f), "--dtype", "f64"]),
        "499500.0 0x411E7CB000000000\n"
    );
    // The value printed reads back to the printed bits.
    assert_eq!(
        "499500.0".parse::<f64>().unwrap().to_bits(),
        0x411E_7CB0_0000_0000
    );
}

/// Binary input read without --format raw: one line that names --format raw.
#[test]
fn binary_input_needs_format_raw() {
    let d = TempDir::new("binary");
    let xs = values_f64(1000, 13);
    let raw = d.file("x.f64", &raw_f64(&xs));
    let mut noise = Vec::new();
    let mut s = 0x1234_5678_9ABC_DEF0u64;
    for _ in 0..4096 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        noise.push((s >> 32) as u8);
    }
    let noise = d.file("noise.bin", &noise);
    let ones = d.file("ones.f64", &raw_f64(&[1.0; 10]));
    for f in [&raw, &noise, &ones] {
        for cmd in [
            &["sum", p(f), "--dtype", "f64"][..],
            &["cumsum", p(f), "--dtype", "f32", "-o", "-"],
        ] {
            let err = fails_fast(cmd, None, 1);
            assert!(err.contains("--format raw"), "{cmd:?}: {err}");
        }
    }
    // A NUL byte is not text; the one-line message shows no raw bytes of the file.
    let err = fails_fast(&["sum", p(&ones), "--dtype", "f64"], None, 1);
    assert!(
        err.contains("is neither .npy nor text (line 1, column 1: control character '\\0'"),
        "{err}"
    );
    for f in [&raw, &noise, &ones] {
        let err = fails_fast(&["sum", p(f), "--dtype", "f64"], None, 1);
        assert!(!err.chars().any(|c| c.is_control() && c != '\n'), "{err:?}");
    }
    assert_eq!(
        ok(&["sum", p(&raw), "--dtype", "f64", "--format", "raw"]),
        expect_sum_f64(&xs, 3)
    );
    let err = fails_fast(&["sum", "-", "--dtype", "f64"], Some(&raw_f64(&xs)), 1);
    assert!(
        err.contains("standard input") && err.contains("--format raw"),
        "{err}"
    );
}

// ---------------------------------------------------------------- text syntax and output form

#[test]
fn text_takes_csv_savetxt_comments_and_bom() {
    let d = TempDir::new("syntax");
    let xs = values_f64(300, 14);
    let want = expect_sum_f64(&xs, 3);
    let csv: String = xs
        .chunks(7)
        .map(|row| row.iter().map(|x| format!("{x:e}")).collect::<Vec<_>>().join(","))
        .collect::<Vec<_>>()
        .join("\r\n");
    let spaced: String = xs
        .chunks(5)
        .map(|row| row.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" \t "))
        .collect::<Vec<_>>()
        .join("\n\n");
    let mut commented = String::from("\u{feff}# reprosum test data\n#\tvalues: 300\n");
    for x in &xs {
        commented.push_str(&format!("  {x:?} # one value, then a comment\n"));
    }
    commented.push_str("# the end");
    for (name, body) in [("a.csv", csv), ("b.txt", spaced), ("c.txt", commented)] {
        let f = d.file(name, body.as_bytes());
        assert_eq!(ok(&["sum", p(&f), "--dtype", "f64"]), want, "{name}");
        assert_eq!(
            ok(&["sum", p(&f), "--dtype", "f64", "--format", "text"]),
            want,
            "{name}"
        );
    }
    // Specials in any case, with signs.
    let f = d.file("s.txt", b"1, -Infinity, -INF\n");
    assert_eq!(ok(&["sum", p(&f), "--dtype", "f64"]), "-inf 0xFFF0000000000000\n");
    let f = d.file("n.txt", b"nan, 1\n");
    assert_eq!(ok(&["sum", p(&f), "--dtype", "f32", "--bits"]), "0x7FC00000\n");
}

#[test]
fn text_errors_name_line_and_column() {
    let d = TempDir::new("texterr");
    let cases: [(&[u8], &str); 6] = [
        (
            b"1,2\n3,,4\n",
            "line 2, column 3: empty field: a comma with no number before it",
        ),
        (
            b"1,2,\n3\n",
            "line 1, column 4: empty field: a comma with no number after it on its line",
        ),
        (b",1\n", "line 1, column 1: empty field"),
        (b"1 2\n3 4x 5\n", "line 2, column 3: '4x' is not an f64 number"),
        (
            b"# c\n1\n\n  1.5.5\n",
            "line 4, column 3: '1.5.5' is not an f64 number",
        ),
        (b"1\n2\xff\n", "line 2, column 2: byte 0xFF is not text"),
    ];
    for (input, needle) in cases {
        let f = d.file("e.txt", input);
        let (code, err) = fails(&["sum", p(&f), "--dtype", "f64", "--format", "text"]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains(needle), "{input:?}: {err:?} lacks {needle:?}");
        // Without --format, the same error with the hint.
        let (_, err) = fails(&["sum", p(&f), "--dtype", "f64"]);
        assert!(err.contains(needle) && err.contains("--format raw"), "{err}");
    }
    // A long token is quoted cut.
    let f = d.file("long.txt", format!("1 {}x\n", "7".repeat(200)).as_bytes());
    let (_, err) = fails(&["sum", p(&f), "--dtype", "f64", "--format", "text"]);
    assert!(err.contains(&format!("'{}...'", "7".repeat(40))), "{err}");
    assert!(err.len() < 200, "{err}");
}

/// Error messages quote input bytes escaped: no raw control character or invalid UTF-8
/// from the input reaches the terminal, from the data or from a file name.
#[test]
fn messages_escape_input_bytes() {
    let d = TempDir::new("escape");
    let f = d.file("esc.txt", b"1\n\x1b[2J\x1b[31mred\n");
    let o = run(&["sum", p(&f), "--dtype", "f64", "--format", "text"]);
    let err = fails_with(&o, "escape sequence");
    assert!(err.contains("\\u{1b}"), "{err:?}");
    assert!(!o.stderr.contains(&0x1b), "{err:?}");
    let f = d.file("bad.txt", b"12\xfe\xff34\n");
    let o = run(&["sum", p(&f), "--dtype", "f64", "--format", "text"]);
    fails_with(&o, "invalid UTF-8");
    assert!(std::str::from_utf8(&o.stderr).is_ok());
    assert!(stderr(&o).contains("byte 0xFE"), "{}", stderr(&o));
    let f = d.file("c1.txt", "1 2\u{9b}31m\n".as_bytes());
    let o = run(&["sum", p(&f), "--dtype", "f64"]);
    let err = fails_with(&o, "C1 control");
    assert!(err.contains("\\u{9b}"), "{err:?}");
    assert!(!err.contains('\u{9b}'));
    // A file name with a control character and invalid UTF-8, missing.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"no\x1b[31msuch\xff.txt");
        let path = d.0.join(name);
        let o = Command::new(BIN)
            .arg("sum")
            .arg(&path)
            .args(["--dtype", "f64"])
            .output()
            .unwrap();
        let err = fails_with(&o, "file name");
        assert!(err.contains("no\\u{1b}[31msuch\\xFF.txt"), "{err:?}");
        assert!(!o.stderr.contains(&0x1b) && !o.stderr.contains(&0xff));
        // And an argument that clap rejects.
        let o = Command::new(BIN).arg("frob\x1b[2Jnicate").output().unwrap();
        let err = fails_with(&o, "clap");
        assert!(!o.stderr.contains(&0x1b), "{err:?}");
    }
}

/// Output numbers: the shortest that reads back to the same bits, in Python's repr layout.
#[test]
fn output_numbers_are_pythons_repr() {
    let d = TempDir::new("repr");
    // Each value is the largest so far or cancels the one before, so every prefix sum is
    // exact and the expected text does not depend on rounding.
    let f = d.file(
        "x.txt",
        b"0.0001\n-0.0001\n1e-5\n-1e-5\n0.1\n-0.1\n123\n-123\n1e15\n-1e15\n1e16\n-1e16\n-1e22\nnan\n",
    );
    let o = d.path("out.txt");
    ok(&["cumsum", p(&f), "--dtype", "f64", "-o", p(&o)]);
    assert_eq!(
        std::fs::read_to_string(&o).unwrap(),
        "0.0001\n0.0\n1e-05\n0.0\n0.1\n0.0\n123.0\n0.0\n1000000000000000.0\n0.0\n1e+16\n0.0\n-1e+22\nnan\n"
    );
    let f = d.file("y.txt", b"1e-30\n-1e-30\n0.1\n-0.1\n16777216\n-16777216\n3e38\n");
    ok(&["cumsum", p(&f), "--dtype", "f32", "-o", p(&o)]);
    assert_eq!(
        std::fs::read_to_string(&o).unwrap(),
        "1e-30\n0.0\n0.1\n0.0\n16777216.0\n0.0\n3e+38\n"
    );
    for (value, want) in [
        ("1e16", "1e+16 0x4341C37937E08000\n"),
        ("1e-7", "1e-07 0x3E7AD7F29ABCAF48\n"),
    ] {
        let f = d.file("one.txt", value.as_bytes());
        assert_eq!(ok(&["sum", p(&f), "--dtype", "f64"]), want);
    }
    // No number printed is longer than the shortest round trip needs.
    let xs = values_f64(2000, 15);
    let f = d.file("z.txt", &text(&xs));
    let out = ok(&["cumsum", p(&f), "--dtype", "f64", "-o", "-"]);
    let mut want = vec![0f64; xs.len()];
    reprosum::cumsum_fold(&xs, &mut want, 3).unwrap();
    for (line, w) in out.lines().zip(&want) {
        assert_eq!(line.parse::<f64>().unwrap().to_bits(), w.to_bits(), "{line}");
        let digits = line
            .split('e')
            .next()
            .unwrap()
            .bytes()
            .filter(u8::is_ascii_digit)
            .count();
        assert!(digits <= 17 + 2, "{line}");
    }
    assert_eq!(out.lines().count(), xs.len());
}

#[test]
fn help_documents_exit_codes_and_defaults() {
    for args in [&["--help"][..], &["sum", "--help"], &["cumsum", "--help"]] {
        let out = ok(args);
        for needle in [
            "Exit status",
            "0 success",
            "1 data error",
            "2 usage error",
            "--format raw",
            "repr",
        ] {
            assert!(out.contains(needle), "{args:?} lacks {needle:?}:\n{out}");
        }
    }
    let out = ok(&["cumsum", "--help"]);
    assert!(
        out.contains("symbolic link") && out.contains("SIGINT") && out.contains("-o -"),
        "{out}"
    );
    assert!(
        out.contains("memory does not grow") && out.contains("--device cuda or hip alike"),
        "the cumsum's memory, on the CPU and the GPU, is documented:\n{out}"
    );
}

// ---------------------------------------------------------------- output

#[test]
fn dash_o_writes_standard_output() {
    let xs = values_f64(3000, 16);
    let mut want = vec![0f64; xs.len()];
    reprosum::cumsum_fold(&xs, &mut want, 3).unwrap();
    let d = TempDir::new("stdout");
    let f = d.file("x.npy", &npy(">f8", "(3000,)", &bytes_f64(&xs, true)));
    let o = run(&["cumsum", p(&f), "-o", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, body) = npy_parts(&o.stdout);
    assert!(
        header.contains("'descr': '>f8'") && header.contains("(3000,)"),
        "{header}"
    );
    assert_eq!(body, &bytes_f64(&want, true)[..]);
    let f = d.file("x.txt", &text(&xs));
    let out = ok(&["cumsum", p(&f), "--dtype", "f64", "-o", "-"]);
    let got: Vec<u64> = out.lines().map(|l| l.parse::<f64>().unwrap().to_bits()).collect();
    assert_eq!(got, want.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    // Nothing but the input in the directory.
    assert_eq!(d.names(), ["x.npy", "x.txt"]);
}

/// `-o LINK` writes the link's target (the temporary file beside the target) and the link
/// stays a link.
#[cfg(unix)]
#[test]
fn output_through_a_symlink_replaces_the_target() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let d = TempDir::new("symlink");
    let f = d.file("in.txt", b"1\n2\n3\n");
    std::fs::create_dir(d.path("real")).unwrap();
    std::fs::create_dir(d.path("links")).unwrap();
    let target = d.path("real/out.txt");
    std::fs::write(&target, b"old\n").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    // A relative link in another directory, and a link to that link.
    let link = d.path("links/out.txt");
    symlink("../real/out.txt", &link).unwrap();
    let link2 = d.path("links/again.txt");
    symlink("out.txt", &link2).unwrap();
    for (l, n) in [(&link, 1), (&link2, 2)] {
        ok(&["cumsum", p(&f), "--dtype", "f64", "-o", p(l)]);
        assert!(
            std::fs::symlink_metadata(l).unwrap().file_type().is_symlink(),
            "{n}"
        );
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"1.0\n3.0\n6.0\n", "{n}");
        let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640, "the target keeps its permission bits");
        std::fs::write(&target, b"old\n").unwrap();
    }
    let names = |dir: &str| {
        let mut v: Vec<String> = std::fs::read_dir(d.path(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names("real"), ["out.txt"]);
    assert_eq!(names("links"), ["again.txt", "out.txt"]);
    // A dangling link: the target is created.
    let dangling = d.path("links/new.txt");
    symlink("../real/new.txt", &dangling).unwrap();
    ok(&["cumsum", p(&f), "--dtype", "f64", "-o", p(&dangling)]);
    assert_eq!(std::fs::read(d.path("real/new.txt")).unwrap(), b"1.0\n3.0\n6.0\n");
    assert!(std::fs::symlink_metadata(&dangling)
        .unwrap()
        .file_type()
        .is_symlink());
    // A failed run through the link leaves the target as it was.
    let bad = d.file("bad.txt", b"1\nx\n");
    fails(&["cumsum", p(&bad), "--dtype", "f64", "-o", p(&link)]);
    assert_eq!(std::fs::read(&target).unwrap(), b"old\n");
    assert_eq!(names("real"), ["new.txt", "out.txt"]);
    // A loop of links is an error, not a hang.
    let a = d.path("links/a");
    symlink("b", &a).unwrap();
    symlink("a", d.path("links/b")).unwrap();
    let err = fails_fast(&["cumsum", p(&f), "--dtype", "f64", "-o", p(&a)], None, 2);
    assert!(err.contains("symbolic links"), "{err}");
}

/// SIGINT or SIGTERM during a cumsum removes its temporary file and leaves OUT as it was;
/// the process ends by the signal.
#[cfg(unix)]
#[test]
fn interrupted_cumsum_removes_its_temporary_file() {
    use std::os::unix::process::ExitStatusExt;
    for (sig, num) in [("INT", 2), ("TERM", 15)] {
        let d = TempDir::new("signal");
        let out = d.path("out.txt");
        std::fs::write(&out, b"keep\n").unwrap();
        let mut child = Command::new(BIN)
            .args(["cumsum", "-", "--dtype", "f64", "-o", p(&out)])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Some input, then the pipe stays open: the command waits for more, its temporary
        // file open.
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(b"1.5\n2.5\n3.5\n").unwrap();
        pipe.flush().unwrap();
        let start = std::time::Instant::now();
        let tmp = loop {
            let found = d.names().into_iter().find(|n| n.contains("reprosum-tmp"));
            if let Some(t) = found {
                break t;
            }
            if start.elapsed().as_secs() > 5 {
                let _ = child.kill();
                panic!("no temporary file appeared: {:?}", d.names());
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        assert!(tmp.starts_with(".out.txt."), "{tmp}");
        let k = Command::new("kill")
            .args([&format!("-{sig}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(k.success());
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if start.elapsed().as_secs() > 5 {
                let _ = child.kill();
                panic!("SIG{sig} did not end the command");
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        drop(pipe);
        assert_eq!(status.signal(), Some(num), "SIG{sig}: {status:?}");
        assert_eq!(d.names(), ["out.txt"], "SIG{sig} left a temporary file");
        assert_eq!(std::fs::read(&out).unwrap(), b"keep\n");
    }
}

// ---------------------------------------------------------------- streaming

/// Inputs of several blocks (1 Mi values each, 1 MiB of text) give the library's bits for
/// the whole: from files and from standard input, sum and cumsum, every format.
#[test]
fn inputs_of_many_blocks_match_the_library() {
    let d = TempDir::new("blocks");
    let n = (1 << 20) * 2 + 12345;
    let x64 = values_f64(n, 17);
    let x32 = values_f32(n, 18);
    let mut c64 = vec![0f64; n];
    let mut c32 = vec![0f32; n];
    reprosum::cumsum_fold(&x64, &mut c64, 3).unwrap();
    reprosum::cumsum_fold(&x32, &mut c32, 3).unwrap();
    let shape = format!("({n},)");
    let f64_npy = npy("<f8", &shape, &bytes_f64(&x64, false));
    let f32_npy = npy(">f4", &shape, &bytes_f32(&x32, true));
    let a = d.file("a.npy", &f64_npy);
    let b = d.file("b.npy", &f32_npy);
    let r = d.file("c.raw", &raw_f32(&x32));
    assert_eq!(ok(&["sum", p(&a)]), expect_sum_f64(&x64, 3));
    assert_eq!(ok(&["sum", p(&b)]), expect_sum_f32(&x32, 3));
    assert_eq!(
        ok(&["sum", p(&r), "--dtype", "f32", "--format", "raw"]),
        expect_sum_f32(&x32, 3)
    );
    let o = run_with(&["sum", "-"], Some(&f64_npy));
    assert_eq!(stdout(&o), expect_sum_f64(&x64, 3), "{}", stderr(&o));
    let out = d.path("o.npy");
    ok(&["cumsum", p(&a), "-o", p(&out)]);
    assert_eq!(
        npy_parts(&std::fs::read(&out).unwrap()).1,
        &bytes_f64(&c64, false)[..]
    );
    ok(&["cumsum", p(&b), "-o", p(&out)]);
    assert_eq!(
        npy_parts(&std::fs::read(&out).unwrap()).1,
        &bytes_f32(&c32, true)[..]
    );
    let o = run_with(&["cumsum", "-", "-o", "-"], Some(&f32_npy));
    assert_eq!(npy_parts(&o.stdout).1, &bytes_f32(&c32, true)[..]);
    let o = run_with(
        &["cumsum", "-", "--dtype", "f32", "--format", "raw", "-o", "-"],
        Some(&raw_f32(&x32)),
    );
    assert_eq!(o.stdout, raw_f32(&c32));
    // Text: about 5 MB, so the number at every 1 MiB boundary is cut and put together.
    let m = 250_000;
    let t = d.file("t.txt", &text(&x64[..m]));
    assert!(std::fs::metadata(&t).unwrap().len() > 4 << 20);
    assert_eq!(
        ok(&["sum", p(&t), "--dtype", "f64"]),
        expect_sum_f64(&x64[..m], 3)
    );
    let o = run_with(&["sum", "-", "--dtype", "f64"], Some(&text(&x64[..m])));
    assert_eq!(stdout(&o), expect_sum_f64(&x64[..m], 3));
    let mut cm = vec![0f64; m];
    reprosum::cumsum_fold(&x64[..m], &mut cm, 3).unwrap();
    let got = ok(&["cumsum", p(&t), "--dtype", "f64", "-o", "-"]);
    let bits: Vec<u64> = got.lines().map(|l| l.parse::<f64>().unwrap().to_bits()).collect();
    assert_eq!(bits, cm.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
}

/// An OUT that exists and is not a regular file (here a FIFO) is written directly: no
/// temporary file beside it, and it stays what it was.
#[cfg(unix)]
#[test]
fn output_to_a_fifo_is_written_directly() {
    use std::os::unix::fs::FileTypeExt;
    let d = TempDir::new("fifo");
    let fifo = d.path("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let f = d.file("in.txt", b"1\n2\n3\n");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let o = run_timed(&["cumsum", p(&f), "--dtype", "f64", "-o", p(&fifo)], None, 5);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(reader.join().unwrap(), b"1.0\n3.0\n6.0\n");
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(d.names(), ["in.txt", "pipe"]);
}

// ---------------------------------------------------------------- segments and keys

/// An index file's bytes: `.npy` of the given integer type (`<i8`, `>u4`, ...), or text.
fn index_file(d: &TempDir, name: &str, descr: Option<&str>, xs: &[i64]) -> PathBuf {
    let Some(descr) = descr else {
        let t: String = xs.iter().map(|x| format!("{x}, ")).collect::<String>();
        return d.file(
            name,
            format!("# index\n{}\n", t.trim_end_matches(", ")).as_bytes(),
        );
    };
    let big = descr.starts_with('>');
    let data: Vec<u8> = xs
        .iter()
        .flat_map(|&x| -> Vec<u8> {
            match (&descr[1..], big) {
                ("i8", false) => x.to_le_bytes().to_vec(),
                ("i8", true) => x.to_be_bytes().to_vec(),
                ("u8", false) => (x as u64).to_le_bytes().to_vec(),
                ("u8", true) => (x as u64).to_be_bytes().to_vec(),
                ("i4", false) => (x as i32).to_le_bytes().to_vec(),
                ("i4", true) => (x as i32).to_be_bytes().to_vec(),
                ("u4", false) => (x as u32).to_le_bytes().to_vec(),
                ("u4", true) => (x as u32).to_be_bytes().to_vec(),
                _ => panic!("descr {descr}"),
            }
        })
        .collect();
    d.file(name, &npy(descr, &format!("({},)", xs.len()), &data))
}

/// Segment lengths with empty, single-value and long segments.
fn offsets_for(n: usize, seed: u64) -> Vec<usize> {
    let mut offs = vec![0usize];
    let mut s = seed;
    while *offs.last().unwrap() < n {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let len = match (s >> 33) % 6 {
            0 => 0,
            1 => 1,
            2 => ((s >> 40) % 40) as usize,
            3 => ((s >> 40) % 3000) as usize,
            _ => ((s >> 40) % 200) as usize,
        };
        offs.push((offs.last().unwrap() + len).min(n));
    }
    offs.push(n);
    offs
}

#[test]
fn segments_and_keys_match_the_library_by_bits() {
    let d = TempDir::new("groups");
    let xs = values_f64(20_000, 41);
    let xf = values_f32(20_000, 42);
    let v64 = d.file("v.npy", &npy("<f8", "(20000,)", &bytes_f64(&xs, false)));
    let v32 = d.file("w.npy", &npy(">f4", "(20000,)", &bytes_f32(&xf, true)));
    let offs = offsets_for(xs.len(), 7);
    let offs_i: Vec<i64> = offs.iter().map(|&o| o as i64).collect();
    for fold in [2usize, 3, 7] {
        let mut want64 = String::new();
        let mut want32 = String::new();
        for w in offs.windows(2) {
            want64 += &expect_sum_f64(&xs[w[0]..w[1]], fold);
            want32 += &expect_sum_f32(&xf[w[0]..w[1]], fold);
        }
        let f = fold.to_string();
        for (k, descr) in [None, Some("<i8"), Some(">u8"), Some("<i4"), Some(">u4")]
            .into_iter()
            .enumerate()
        {
            let o = index_file(&d, &format!("o{k}"), descr, &offs_i);
            let args = |v: &Path| {
                vec![
                    "sum".to_string(),
                    p(v).into(),
                    "--fold".into(),
                    f.clone(),
                    "--segments".into(),
                    p(&o).into(),
                ]
            };
            let a64 = args(&v64);
            assert_eq!(
                ok(&a64.iter().map(String::as_str).collect::<Vec<_>>()),
                want64,
                "{descr:?} fold {fold}"
            );
            let a32 = args(&v32);
            assert_eq!(
                ok(&a32.iter().map(String::as_str).collect::<Vec<_>>()),
                want32,
                "{descr:?} fold {fold}"
            );
        }
    }
    // Keys: shuffled pairs give the same lines; the sum of each key's values, in key order.
    let nkeys = 97usize;
    let keys: Vec<i64> = (0..xs.len()).map(|i| ((i * i + 3 * i) % 89) as i64).collect();
    let mut want = String::new();
    let mut bits = String::new();
    for k in 0..nkeys as i64 {
        let group: Vec<f64> = xs
            .iter()
            .zip(&keys)
            .filter(|(_, &kk)| kk == k)
            .map(|(&x, _)| x)
            .collect();
        want += &expect_sum_f64(&group, 3);
        bits += &format!("{}\n", hex64(reprosum::sum_fold(&group, 3).unwrap()));
    }
    let kf = index_file(&d, "k.npy", Some("<i8"), &keys);
    let n = nkeys.to_string();
    assert_eq!(ok(&["sum", p(&v64), "--keys", p(&kf), "--nkeys", &n]), want);
    assert_eq!(
        ok(&["sum", p(&v64), "--keys", p(&kf), "--nkeys", &n, "--bits"]),
        bits
    );
    // A permutation of the pairs.
    let perm: Vec<usize> = (0..xs.len()).map(|i| (i * 7919) % xs.len()).collect();
    let xs2: Vec<f64> = perm.iter().map(|&i| xs[i]).collect();
    let keys2: Vec<i64> = perm.iter().map(|&i| keys[i]).collect();
    let v2 = d.file("v2.raw", &raw_f64(&xs2));
    let k2 = index_file(&d, "k2.txt", None, &keys2);
    assert_eq!(
        ok(&[
            "sum",
            p(&v2),
            "--dtype",
            "f64",
            "--format",
            "raw",
            "--keys",
            p(&k2),
            "--nkeys",
            &n
        ]),
        want
    );
    // Without --nkeys: the largest key + 1 (88 + 1) lines.
    let lines = ok(&[
        "sum",
        p(&v2),
        "--dtype",
        "f64",
        "--format",
        "raw",
        "--keys",
        p(&k2),
    ]);
    assert_eq!(
        lines,
        want.lines()
            .take(89)
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    );
}

#[test]
fn segmented_cumsum_matches_the_library_by_bits() {
    let d = TempDir::new("segcum");
    let xs = values_f64(5_000, 43);
    let offs = offsets_for(xs.len(), 9);
    let offs_i: Vec<i64> = offs.iter().map(|&o| o as i64).collect();
    let o = index_file(&d, "o.npy", Some("<i8"), &offs_i);
    let mut want = Vec::new();
    for w in offs.windows(2) {
        let mut part = vec![0.0; w[1] - w[0]];
        reprosum::cumsum_fold(&xs[w[0]..w[1]], &mut part, 4).unwrap();
        want.extend(part);
    }
    let v = d.file("v.npy", &npy(">f8", "(5000,)", &bytes_f64(&xs, true)));
    let out = d.path("out.npy");
    ok(&["cumsum", p(&v), "--fold", "4", "--segments", p(&o), "-o", p(&out)]);
    let bytes = std::fs::read(&out).unwrap();
    let (header, data) = npy_parts(&bytes);
    assert!(header.contains("'>f8'"), "{header}");
    assert_eq!(data, bytes_f64(&want, true));
    // Text in, text out.
    let t = d.file("v.txt", &text(&xs));
    let got = ok(&[
        "cumsum",
        p(&t),
        "--dtype",
        "f64",
        "--fold",
        "4",
        "--segments",
        p(&o),
        "-o",
        "-",
    ]);
    let got: Vec<u64> = got.lines().map(|l| l.parse::<f64>().unwrap().to_bits()).collect();
    assert_eq!(got, want.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    // On a GPU: the same bits there, or a one-line device error and no output file.
    for dev in ["cuda", "hip"] {
        let out = d.path(&format!("out_{dev}.npy"));
        let r = run(&[
            "cumsum",
            p(&v),
            "--fold",
            "4",
            "--segments",
            p(&o),
            "-o",
            p(&out),
            "--device",
            dev,
        ]);
        if r.status.success() {
            let bytes = std::fs::read(&out).unwrap();
            assert_eq!(npy_parts(&bytes).1, bytes_f64(&want, true), "{dev}");
        } else {
            fails_with(&r, dev);
            assert_eq!(r.status.code(), Some(1), "{dev}");
            assert!(!out.exists(), "{dev}: an output file after a failure");
        }
    }
}

#[test]
fn bad_segments_and_keys_are_one_line_and_leave_no_output() {
    let d = TempDir::new("badgroups");
    let v = d.file("v.txt", b"1 2 3 4 5\n");
    let good = index_file(&d, "good.txt", None, &[0, 2, 5]);
    let cases: Vec<(Vec<i64>, Option<&str>, &str)> = vec![
        (vec![], None, "no offsets"),
        (vec![1, 5], None, "first offset is 1"),
        (
            vec![0, 3, 2, 5],
            Some("<i8"),
            "entry 2 (2) is smaller than entry 1 (3)",
        ),
        (
            vec![0, 4],
            Some("<u4"),
            "the last offset is 4 but the input has 5 values",
        ),
        (vec![0, 6], None, "the last offset is 6"),
        (vec![0, -1, 5], Some("<i4"), "entry 1 (-1) is not an offset"),
    ];
    for (i, (offs, descr, msg)) in cases.into_iter().enumerate() {
        let o = index_file(&d, &format!("o{i}"), descr, &offs);
        let (code, err) = fails(&["sum", p(&v), "--dtype", "f64", "--segments", p(&o)]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains(msg), "{msg}: {err}");
        let out = d.path("out.txt");
        let (code, err) = fails(&[
            "cumsum",
            p(&v),
            "--dtype",
            "f64",
            "--segments",
            p(&o),
            "-o",
            p(&out),
        ]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains(msg), "{msg}: {err}");
        assert!(!out.exists());
    }
    let text_cases: Vec<(&[u8], &str)> = vec![
        (b"0 2.5 5", "line 1: '2.5' is not an integer"),
        (b"0,,5", "empty field"),
        (b"0\n2\nx", "line 3: 'x' is not an integer"),
    ];
    for (i, (bytes, msg)) in text_cases.into_iter().enumerate() {
        let o = d.file(&format!("t{i}"), bytes);
        let (code, err) = fails(&["sum", p(&v), "--dtype", "f64", "--segments", p(&o)]);
        assert_eq!(code, 1);
        assert!(err.contains(msg), "{msg}: {err}");
    }
    // A float .npy is not an index file; a short one is refused.
    let f = d.file("f.npy", &npy("<f8", "(2,)", &bytes_f64(&[0.0, 5.0], false)));
    let (_, err) = fails(&["sum", p(&v), "--dtype", "f64", "--segments", p(&f)]);
    assert!(
        err.contains("'<f8' is not int32, int64, uint32 or uint64"),
        "{err}"
    );
    let short = d.file("s.npy", &npy("<i8", "(3,)", &[0u8; 16]));
    let (_, err) = fails(&["sum", p(&v), "--dtype", "f64", "--segments", p(&short)]);
    assert!(err.contains("says 3 values"), "{err}");
    // Keys.
    let key_cases: Vec<(Vec<i64>, Vec<&str>, &str)> = vec![
        (vec![0, 1, 2, 1, -3], vec![], "entry 4 (-3) is negative"),
        (
            vec![0, 1, 2, 1, 3],
            vec!["--nkeys", "3"],
            "entry 4 (3) is not below --nkeys 3",
        ),
        (vec![0, 1, 2, 1], vec![], "has 4 keys but the input has 5 values"),
    ];
    for (i, (keys, extra, msg)) in key_cases.into_iter().enumerate() {
        let k = index_file(&d, &format!("k{i}"), Some("<i8"), &keys);
        let mut args = vec!["sum", p(&v), "--dtype", "f64", "--keys", p(&k)];
        args.extend(extra);
        let (code, err) = fails(&args);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains(msg), "{msg}: {err}");
    }
    // Usage errors: both options, --nkeys alone, both inputs on standard input.
    let k = index_file(&d, "k.txt", None, &[0, 0, 0, 0, 0]);
    for (args, msg) in [
        (
            vec![
                "sum",
                p(&v),
                "--dtype",
                "f64",
                "--segments",
                p(&good),
                "--keys",
                p(&k),
            ],
            "cannot be used with",
        ),
        (vec!["sum", p(&v), "--dtype", "f64", "--nkeys", "3"], "--keys"),
        (
            vec!["sum", "-", "--dtype", "f64", "--keys", "-"],
            "both be standard input",
        ),
    ] {
        let (code, err) = fails(&args);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(msg), "{msg}: {err}");
    }
    // And the good ones work.
    assert_eq!(
        ok(&["sum", p(&v), "--dtype", "f64", "--segments", p(&good), "--bits"]),
        format!("{}\n{}\n", hex64(3.0), hex64(12.0))
    );
    // Segmented sums run on a GPU too: the same bits there, or a one-line device error.
    for dev in ["cuda", "hip"] {
        let o = run(&[
            "sum",
            p(&v),
            "--dtype",
            "f64",
            "--segments",
            p(&good),
            "--bits",
            "--device",
            dev,
        ]);
        if o.status.success() {
            assert_eq!(stdout(&o), format!("{}\n{}\n", hex64(3.0), hex64(12.0)), "{dev}");
        } else {
            fails_with(&o, dev);
            assert_eq!(o.status.code(), Some(1), "{dev}");
        }
    }
    assert_eq!(
        ok(&["sum", p(&v), "--dtype", "f64", "--keys", p(&k)]),
        "15.0 0x402E000000000000\n"
    );
    // Keyed sums run on a GPU too: the same bits there, or a one-line device error.
    for dev in ["cuda", "hip"] {
        let o = run(&[
            "sum",
            p(&v),
            "--dtype",
            "f64",
            "--keys",
            p(&k),
            "--bits",
            "--device",
            dev,
        ]);
        if o.status.success() {
            assert_eq!(stdout(&o), format!("{}\n", hex64(15.0)), "{dev}");
        } else {
            fails_with(&o, dev);
            assert_eq!(o.status.code(), Some(1), "{dev}");
        }
    }
}
